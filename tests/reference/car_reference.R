# Generate R reference values for boxcoxstat's tests.
#
# Run from the repository root:
#     Rscript tests/reference/car_reference.R
# Writes tests/reference/car_reference.json.
#
# Needs R with the Debian packages r-cran-car (and its dependency r-cran-mass).
# For every (variable, family) it stores
#   * "car":   what car::powerTransform / summary / testTransform report,
#   * "tight": the same quantities recomputed here to (near) machine precision
#              from the same profile log-likelihood,
#   * "car_minus_tight": the differences (car - tight).
# See tests/reference/CAR_NOTES.md for how car computes its numbers.

suppressPackageStartupMessages(library(car))

# Shared helpers (JSON writer, Richardson derivative, car's rounding rule).
local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
})

# ---------------------------------------------------------------------------
# The profile log-likelihood (accurate implementation).
#   z(lambda) = Box-Cox or Yeo-Johnson transform of x
#   sigma2(lambda) = mean((z - mean(z))^2)                      (divisor n)
#   llf(lambda) = -n/2*(log(2*pi) + 1) - n/2*log(sigma2(lambda))
#                 + (lambda - 1) * sum(logjac)
#   logjac = log(x) for Box-Cox; sign(x)*log1p(|x|) for Yeo-Johnson
#            (sign = +1 for x >= 0, -1 for x < 0)
# This is exactly -(car's objective) - n/2*(log(2*pi)+1); see CAR_NOTES.md.
# ---------------------------------------------------------------------------

make_family <- function(x, family) {
  n <- length(x)
  if (family == "boxcox") {
    if (any(x <= 0)) stop("Box-Cox needs positive data")
    a <- log(x)
    logjac <- a
    trans <- function(lambda) bc_stable(a, lambda)
    dtrans <- function(lambda) bc_dlambda(a, lambda)
  } else {
    pos <- x >= 0
    ap <- log1p(x[pos])
    an <- log1p(-x[!pos])
    logjac <- numeric(n)
    logjac[pos] <- ap
    logjac[!pos] <- -an
    trans <- function(lambda) {
      z <- numeric(n)
      z[pos] <- bc_stable(ap, lambda)
      z[!pos] <- -bc_stable(an, 2 - lambda)
      z
    }
    dtrans <- function(lambda) {
      d <- numeric(n)
      d[pos] <- bc_dlambda(ap, lambda)
      d[!pos] <- bc_dlambda(an, 2 - lambda)  # -(d/dmu) * (dmu/dlambda = -1)
      d
    }
  }
  slj <- sum(logjac)
  const <- -n / 2 * (log(2 * pi) + 1)
  sigma2 <- function(lambda) {
    z <- trans(lambda)
    zc <- z - mean(z)
    zc <- zc - mean(zc)   # second centring pass for accuracy
    mean(zc^2)
  }
  llf <- function(lambda) const - n / 2 * log(sigma2(lambda)) + (lambda - 1) * slj
  grad <- function(lambda) {
    z <- trans(lambda)
    zc <- z - mean(z)
    zc <- zc - mean(zc)
    -n * sum(zc * dtrans(lambda)) / sum(zc^2) + slj
  }
  list(n = n, llf = llf, grad = grad, sigma2 = sigma2, sum_logjac = slj,
       const = const)
}


# llf evaluated with car's own transformation functions and car's formula
# (n/2)*log(((n-1)/n)*var(geometric-mean-scaled z)), converted to the full
# Gaussian log-likelihood: an independent check of the definition above.
car_llf <- function(x, family, lambda) {
  n <- length(x)
  fam <- if (family == "boxcox") car::bcPower else car::yjPower
  zj <- fam(matrix(x, ncol = 1), lambda, jacobian.adjusted = TRUE)
  -n / 2 * (log(2 * pi) + 1) - (n / 2) * log(((n - 1) / n) * var(zj[, 1]))
}

tight_fit <- function(x, family) {
  fam <- make_family(x, family)
  llf <- fam$llf
  negll <- function(l) -llf(l)
  # 1. Brent minimisation on a wide interval (extend if at the boundary)
  lo <- -5; hi <- 5
  repeat {
    opt <- optimize(negll, c(lo, hi), tol = 1e-14)
    if (opt$minimum - lo < 1e-3) { lo <- lo - 5; next }
    if (hi - opt$minimum < 1e-3) { hi <- hi + 5; next }
    break
  }
  lam_opt <- opt$minimum
  # 2. root of the analytic derivative, bracketed around the Brent result
  d <- 1e-4
  repeat {
    a <- lam_opt - d; b <- lam_opt + d
    if (fam$grad(a) > 0 && fam$grad(b) < 0) break
    d <- d * 2
    if (d > 10) stop("could not bracket the score root")
  }
  ur <- uniroot(fam$grad, c(a, b), tol = 1e-15, maxiter = 1000)
  lam_root <- ur$root
  # The score root is the more precise location (near the optimum llf is
  # flat to ~1e-13, below Brent's resolution).  Verify with llf itself: the
  # root must be at least as good as the Brent point up to rounding noise.
  lam <- lam_root
  llmax <- llf(lam)
  noise <- 64 * .Machine$double.eps * (abs(llmax) + abs(fam$const))
  if (llmax < llf(lam_opt) - noise) stop("score root worse than optimize result")
  if (abs(lam_root - lam_opt) > 1e-6) stop("optimize and score root disagree")
  # numerical check of the analytic score away from the optimum
  gchk_at <- lam + 0.1
  gnum <- ridders(llf, gchk_at, 0.05)$value
  gana <- fam$grad(gchk_at)
  # 3. observed information: Richardson on the analytic score, cross-checked
  #    by Richardson on the second difference of llf
  info_r <- ridders(fam$grad, lam, 0.05)
  info <- -info_r$value
  info2_r <- ridders(llf, lam, 0.05, second = TRUE)
  info2 <- -info2_r$value
  se <- 1 / sqrt(info)
  # 4. LR tests
  ll0 <- llf(0); ll1 <- llf(1)
  # 5. profile-likelihood interval
  q <- qchisq(0.95, 1)
  pf <- function(l) 2 * (llmax - llf(l)) - q
  endpoint <- function(direction) {
    step <- 2 * se
    repeat {
      far <- lam + direction * step
      v <- tryCatch(pf(far), error = function(e) NA_real_)
      if (!is.na(v) && is.finite(v) && v > 0) break
      step <- step * 2
      if (step > 100) return(NULL)
    }
    iv <- sort(c(lam, far))
    uniroot(pf, iv, tol = 1e-13, maxiter = 1000)$root
  }
  pl <- endpoint(-1); pu <- endpoint(+1)
  z975 <- qnorm(0.975)
  list(
    lambda = lam,
    lambda_method = "uniroot on analytic score (tol=1e-15), checked against optimize (tol=1e-14)",
    lambda_optimize = lam_opt,
    lambda_score_root = lam_root,
    llf_at_optimize = llf(lam_opt),
    llf_at_score_root = llf(lam_root),
    score_at_lambda = fam$grad(lam),
    score_check = list(at = gchk_at, analytic = gana, richardson = gnum),
    llf = llmax,
    llf_via_car_formula = car_llf(x, family, lam),
    sigma2 = fam$sigma2(lam),
    sum_logjac = fam$sum_logjac,
    info = info,
    info_richardson_error_estimate = info_r$err,
    info_from_second_difference = info2,
    se = se,
    wald_lower = lam - 1.96 * se,
    wald_upper = lam + 1.96 * se,
    wald_lower_qnorm = lam - z975 * se,
    wald_upper_qnorm = lam + z975 * se,
    rounded_pwr = car_round_rule(lam, se),
    profile_ci_lower = pl,
    profile_ci_upper = pu,
    profile_ci_level = 0.95,
    llf_at_0 = ll0,
    llf_at_1 = ll1,
    lr_lambda0 = lr_block(2 * (llmax - ll0)),
    lr_lambda1 = lr_block(2 * (llmax - ll1))
  )
}

# ---------------------------------------------------------------------------
# car's numbers
# ---------------------------------------------------------------------------
car_fit <- function(x, family) {
  cfam <- if (family == "boxcox") "bcPower" else "yjPower"
  df <- data.frame(x = x)
  warns <- character(0)
  pt <- withCallingHandlers(
    tryCatch(powerTransform(x ~ 1, data = df, family = cfam),
             error = function(e) e),
    warning = function(w) { warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning") })
  if (inherits(pt, "error")) {
    return(list(ok = FALSE, error = conditionMessage(pt), warnings = as.list(warns)))
  }
  s <- summary(pt)
  res <- s$result
  n <- length(x)
  t0 <- testTransform(pt, 0)
  t1 <- testTransform(pt, 1)
  carlr <- function(tt) {
    stat <- tt$LRT
    b <- lr_block(stat, as.integer(tt$df))
    b$pvalue_car <- 1 - pchisq(stat, tt$df)    # what car computes
    b$pvalue_formatted <- as.character(tt$pval) # what car prints
    b
  }
  list(
    ok = TRUE,
    family = cfam,
    lambda = unname(pt$lambda),
    se = unname(sqrt(diag(pt$invHess))),
    hessian = unname(pt$hessian[1, 1]),
    wald_lower = unname(res[1, "Wald Lwr Bnd"]),
    wald_upper = unname(res[1, "Wald Upr Bnd"]),
    rounded_pwr = unname(res[1, "Rounded Pwr"]),
    roundlam = unname(pt$roundlam),
    objective_value = pt$value,
    llf = -n / 2 * (log(2 * pi) + 1) - pt$value,
    start = unname(pt$start),
    optim_method = "L-BFGS-B",
    convergence = as.integer(pt$convergence),
    message = if (is.null(pt$message)) "" else as.character(pt$message),
    counts_function = unname(as.integer(pt$counts[1])),
    counts_gradient = unname(as.integer(pt$counts[2])),
    lr_lambda0 = carlr(t0),
    lr_lambda1 = carlr(t1),
    warnings = as.list(warns)
  )
}

diff_block <- function(cr, tt) {
  if (!isTRUE(cr$ok)) return(NULL)
  list(
    lambda = cr$lambda - tt$lambda,
    se = cr$se - tt$se,
    se_relative = cr$se / tt$se - 1,
    wald_lower = cr$wald_lower - tt$wald_lower,
    wald_upper = cr$wald_upper - tt$wald_upper,
    llf = cr$llf - tt$llf,
    lr_lambda0_statistic = cr$lr_lambda0$statistic - tt$lr_lambda0$statistic,
    lr_lambda1_statistic = cr$lr_lambda1$statistic - tt$lr_lambda1$statistic,
    lr_lambda0_log_pvalue = cr$lr_lambda0$log_pvalue - tt$lr_lambda0$log_pvalue,
    lr_lambda1_log_pvalue = cr$lr_lambda1$log_pvalue - tt$lr_lambda1$log_pvalue,
    rounded_pwr_same = isTRUE(all.equal(cr$rounded_pwr, round(tt$rounded_pwr, 2)))
  )
}

# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------
topgear <- read.csv("data/topgear.csv")
blood <- read.csv("data/blood_transfusion.csv")
wdbc <- read.csv("data/wdbc.csv")
ecoli <- read.csv("data/ecoli.csv")
house <- read.csv("../shared/data/house_prices_train.csv", na.strings = "NA")  # not bundled (Kaggle)

V <- function(dataset, variable, raw, families, definition) {
  list(dataset = dataset, variable = variable, raw = raw,
       families = families, definition = definition)
}
both <- c("boxcox", "yeojohnson")
yj <- "yeojohnson"
vars <- list(
  V("topgear", "MPG", topgear$MPG, both, "MPG"),
  V("topgear", "Weight", topgear$Weight, both, "Weight"),
  V("blood_transfusion", "Monetary", blood$Monetary, both, "Monetary"),
  V("wdbc", "area1", wdbc$area1, both, "area1"),
  V("ecoli", "gvh", ecoli$gvh, both, "gvh"),
  V("house_prices_train", "LotArea", house$LotArea, both, "LotArea"),
  V("house_prices_train", "MasVnrArea", house$MasVnrArea, yj, "MasVnrArea"),
  V("house_prices_train", "BsmtFinSF1", house$BsmtFinSF1, yj, "BsmtFinSF1"),
  V("ecoli", "ecoli_gvh_centered", ecoli$gvh - 0.5, yj, "gvh - 0.5"),
  V("wdbc", "wdbc_area1_neg_scaled", -wdbc$area1 / 1000, yj, "-area1 / 1000")
)

cases <- list()
for (v in vars) {
  x <- as.numeric(v$raw)
  n_missing <- sum(is.na(x))
  x <- x[!is.na(x)]
  for (fam in v$families) {
    cat(sprintf("%-20s %-22s %-11s ", v$dataset, v$variable, fam))
    tt <- tight_fit(x, fam)
    cr <- car_fit(x, fam)
    cat(sprintf("n=%4d car=%.10f tight=%.12f\n", length(x),
                if (isTRUE(cr$ok)) cr$lambda else NaN, tt$lambda))
    cases[[length(cases) + 1]] <- list(
      dataset = v$dataset,
      variable = v$variable,
      definition = v$definition,
      family = fam,
      n = length(x),
      n_missing_dropped = as.integer(n_missing),
      data_check = list(sum = sum(x), min = min(x), max = max(x),
                        n_zero = sum(x == 0), n_negative = sum(x < 0)),
      car = cr,
      tight = tt,
      car_minus_tight = diff_block(cr, tt)
    )
  }
}

# ---------------------------------------------------------------------------
# Extra check: topgear MPG Box-Cox through the formula interface on the
# whole data frame (car's default na.action drops rows with missing MPG),
# on subset(topgear, !is.na(MPG)), and through the default (vector) method.
# All must agree with the main case (missing values dropped by hand).
# ---------------------------------------------------------------------------
main_mpg <- cases[[1]]
stopifnot(main_mpg$variable == "MPG", main_mpg$family == "boxcox")
pt_a <- powerTransform(MPG ~ 1, data = topgear, family = "bcPower")
pt_b <- powerTransform(MPG ~ 1, data = subset(topgear, !is.na(MPG)), family = "bcPower")
pt_c <- powerTransform(topgear$MPG, family = "bcPower")
ex <- function(pt, how) {
  list(how = how, n = nrow(as.matrix(pt$y)),
       lambda = unname(pt$lambda), se = unname(sqrt(diag(pt$invHess))),
       objective_value = pt$value,
       lambda_minus_main_car = unname(pt$lambda) - main_mpg$car$lambda,
       lambda_minus_tight = unname(pt$lambda) - main_mpg$tight$lambda)
}
extra <- list(
  ex(pt_a, "powerTransform(MPG ~ 1, data = topgear, family = 'bcPower')  # na.omit drops missing MPG"),
  ex(pt_b, "powerTransform(MPG ~ 1, data = subset(topgear, !is.na(MPG)), family = 'bcPower')"),
  ex(pt_c, "powerTransform(topgear$MPG, family = 'bcPower')  # default method, na.omit")
)

out <- list(
  meta = list(
    R = R.version.string,
    car = as.character(packageVersion("car")),
    MASS = as.character(packageVersion("MASS")),
    platform = R.version$platform,
    generated_by = "tests/reference/car_reference.R",
    llf_definition = paste(
      "llf(lambda) = -n/2*(log(2*pi)+1) - n/2*log(sigma2) + (lambda-1)*sum(logjac);",
      "sigma2 = mean((z - mean(z))^2) (divisor n) of the untransformed-scale",
      "Box-Cox/Yeo-Johnson values z; logjac = log(x) (Box-Cox) or",
      "sign(x)*log1p(|x|) with sign(0)=+1 (Yeo-Johnson)."),
    car_llf = "car.llf = -n/2*(log(2*pi)+1) - car.objective_value (car minimises n/2*log(sigma2 of geometric-mean-scaled z))",
    wald = "wald_lower/upper = lambda -/+ 1.96*se (car's constant); *_qnorm use qnorm(0.975)",
    rounded_pwr = "car rule: first of (1, 0, -1, 0.5, 0.33, -0.5, -0.33, 2, -2) inside [lambda-1.96se, lambda+1.96se], else lambda; car's summary shows it rounded to 2 decimals",
    lr = "statistic = 2*(llf(lambda_hat) - llf(lambda0)), df = 1, pvalue = upper chi2(1) tail; car.pvalue_car = 1 - pchisq (car's own, loses precision), pvalue_formatted = car's format.pval string",
    profile_ci = "roots of 2*(llf_max - llf(lambda)) = qchisq(0.95, 1) by uniroot(tol=1e-13)"
  ),
  cases = cases,
  extra_checks = list(topgear_MPG_bcPower_missing_handling = extra)
)

writeLines(to_json(out), "tests/reference/car_reference.json")
cat("wrote tests/reference/car_reference.json with", length(cases), "cases\n")

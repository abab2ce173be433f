# Generate R reference values for boxcoxstat's multivariate (joint) lambda tests.
#
# Run from the repository root:
#     Rscript tests/reference/car_multivariate_reference.R
# Writes tests/reference/car_multivariate_reference.json.
#
# Needs R with the Debian packages r-cran-car (and r-cran-mass, r-cran-cardata).
# For every case it stores
#   * "car":   what car::powerTransform / summary / testTransform report,
#   * "tight": the same quantities at the optimum of car's OWN objective function,
#              found to (near) machine precision by Newton steps on an analytic
#              gradient (checked against Richardson differences of car's objective),
#   * "car_minus_tight": the differences;
#   * in "tight", "profile_95" / "profile_90": profile-likelihood intervals of every power
#     (car has none for several columns; computed here on car's own objective).
# car's objective (estimateTransform.default with a matrix response):
#   obj(lambda) = (n/2) * log( ((n-1)/n) * det(var(qr.resid(qr(X), Z(lambda)))) )
# with Z the Jacobian-adjusted transformed columns (bcPower/yjPower with
# jacobian.adjusted = TRUE) and X the model matrix of the right-hand side.
# The Gaussian log-likelihood with Sigma estimated by R'R/n is
#   llf = -n*p/2*(log(2*pi)+1) - obj + (n/2)*(p-1)*log(n/(n-1))
# (car multiplies det() by (n-1)/n once, not per dimension).

suppressPackageStartupMessages(library(car))

# Shared helpers (JSON writer, Richardson derivative, car's rounding rule).
local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
})

# car's objective and an analytic gradient of it ----------------------------
make_problem <- function(Y, X, family) {
  Y <- as.matrix(Y)
  n <- nrow(Y); p <- ncol(Y)
  fam <- if (family == "boxcox") car::bcPower else car::yjPower
  xqr <- qr(X)
  Zfun <- function(lambda) fam(Y, lambda, jacobian.adjusted = TRUE)
  obj <- function(lambda)
    (n / 2) * log(((n - 1) / n) * det(var(qr.resid(xqr, Zfun(lambda)))))
  # log of the geometric mean of the Jacobian factor per column
  logjac <- if (family == "boxcox") log(Y) else sign(Y + 0 * Y) * log1p(abs(Y))
  if (family != "boxcox") logjac[Y == 0] <- 0
  g <- colMeans(logjac)
  dpsi <- function(lambda) {
    D <- matrix(0, n, p)
    for (j in 1:p) {
      y <- Y[, j]
      if (family == "boxcox") {
        D[, j] <- bc_dlambda(log(y), lambda[j])
      } else {
        pos <- y >= 0
        D[pos, j] <- bc_dlambda(log1p(y[pos]), lambda[j])
        D[!pos, j] <- bc_dlambda(log1p(-y[!pos]), 2 - lambda[j])
      }
    }
    D
  }
  grad <- function(lambda) {
    Z <- Zfun(lambda)
    psi <- fam(Y, lambda, jacobian.adjusted = FALSE)
    fac <- exp((1 - lambda) * g)
    dZ <- sweep(dpsi(lambda) - sweep(psi, 2, g, "*"), 2, fac, "*")
    R <- qr.resid(xqr, Z); R <- sweep(R, 2, colMeans(R))
    dR <- qr.resid(xqr, dZ); dR <- sweep(dR, 2, colMeans(dR))
    A <- solve(crossprod(R), crossprod(R, dR))
    n * diag(A)
  }
  list(n = n, p = p, obj = obj, grad = grad, const = (n / 2) * (p - 1) * log(n / (n - 1)) -
         n * p / 2 * (log(2 * pi) + 1))
}

num_grad <- function(f, x, h = 0.01) {
  vapply(seq_along(x), function(j) {
    fj <- function(t) { y <- x; y[j] <- t; f(y) }
    ridders(fj, x[j], h)$value
  }, numeric(1))
}

num_jac <- function(g, x, h = 0.01) {
  p <- length(x)
  H <- matrix(0, p, p)
  for (i in 1:p) for (k in 1:p) {
    gi <- function(t) { y <- x; y[k] <- t; g(y)[i] }
    H[i, k] <- ridders(gi, x[k], h)$value
  }
  (H + t(H)) / 2
}

tight_fit <- function(prob, start) {
  # 1. BFGS on car's objective with its analytic gradient, tight tolerance
  o <- optim(start, prob$obj, prob$grad, method = "BFGS",
             control = list(reltol = 1e-16, maxit = 10000))
  lam <- o$par
  # 2. Newton steps on the analytic gradient, Hessian by Richardson extrapolation
  for (it in 1:20) {
    H <- num_jac(prob$grad, lam)
    step <- solve(H, prob$grad(lam))
    lam <- lam - step
    if (max(abs(step)) < 1e-13) break
  }
  if (prob$obj(lam) > o$value + 1e-10 * abs(o$value)) stop("Newton made obj worse")
  H <- num_jac(prob$grad, lam)
  list(lambda = lam, obj = prob$obj(lam), grad = prob$grad(lam), hessian = H,
       bfgs_lambda = o$par, newton_iterations = it)
}

car_llf <- function(prob, obj) prob$const - obj

# Profile likelihood of power j: lambda_j fixed at `at`, the other powers minimised out
# (BFGS on car's objective with its analytic gradient, then Newton steps with a
# central-difference Hessian of that gradient).
profile_value <- function(prob, j, at, start) {
  others <- setdiff(seq_len(prob$p), j)
  full <- function(o) { l <- numeric(prob$p); l[j] <- at; l[others] <- o; l }
  f <- function(o) prob$obj(full(o))
  g <- function(o) prob$grad(full(o))[others]
  o <- optim(start, f, g, method = "BFGS", control = list(reltol = 1e-16, maxit = 10000))
  par <- o$par
  for (it in 1:10) {
    H <- sapply(seq_along(par), function(k) {
      e <- numeric(length(par)); e[k] <- 1e-5
      (g(par + e) - g(par - e)) / 2e-5
    })
    step <- solve((H + t(H)) / 2, g(par))
    if (!all(is.finite(step)) || f(par - step) > f(par) + 1e-12 * abs(f(par))) break
    par <- par - step
    if (max(abs(step)) < 1e-13) break
  }
  list(value = f(par), grad = max(abs(g(par))))
}

# Profile-likelihood interval of every power: the endpoints solve
# 2 (profile_value - obj_min) = qchisq(1 - alpha, 1), bracketed by doubling from 2 SE and
# closed by uniroot; each inner minimisation starts at the other powers' joint MLE.
profile_bounds <- function(prob, tt, alpha) {
  half <- qchisq(1 - alpha, 1) / 2
  se <- sqrt(diag(solve(tt$hessian)))
  lam <- tt$lambda
  lower <- upper <- numeric(prob$p)
  maxgrad <- 0
  for (j in seq_len(prob$p)) {
    h <- function(at) {
      pv <- profile_value(prob, j, at, lam[-j])
      maxgrad <<- max(maxgrad, pv$grad)
      pv$value - tt$obj - half
    }
    for (side in c(-1, 1)) {
      step <- 2 * se[j]
      while (h(lam[j] + side * step) < 0) step <- 2 * step
      r <- uniroot(h, sort(c(lam[j], lam[j] + side * step)), tol = 1e-12, maxiter = 1000)
      if (side < 0) lower[j] <- r$root else upper[j] <- r$root
    }
  }
  list(alpha = alpha, lower = lower, upper = upper, max_inner_gradient = maxgrad)
}

run_case <- function(name, formula, data, family, columns, design, arbitrary) {
  cfam <- if (family == "boxcox") "bcPower" else "yjPower"
  cat(sprintf("%-28s ", name))
  pt <- powerTransform(formula, data = data, family = cfam)
  s <- summary(pt)
  Y <- pt$y; X <- pt$x
  n <- nrow(Y); p <- ncol(Y)
  prob <- make_problem(Y, X, family)
  # gradient check at a point away from the optimum
  at <- pt$lambda + 0.1
  gchk <- list(at = unname(at), analytic = unname(prob$grad(at)),
               richardson = num_grad(prob$obj, unname(at)))
  tt <- tight_fit(prob, unname(pt$lambda))
  lam <- tt$lambda
  se <- sqrt(diag(solve(tt$hessian)))
  cov <- solve(tt$hessian)
  lr <- function(l0) lr_block(2 * (prob$obj(if (length(l0) == 1) rep(l0, p) else l0) - tt$obj), p)
  rl <- car_round_rule(lam, se)
  tight <- list(
    lambda = lam, se = se, cov = lapply(1:p, function(i) cov[i, ]),
    hessian = lapply(1:p, function(i) tt$hessian[i, ]),
    objective_value = tt$obj, llf = car_llf(prob, tt$obj),
    gradient_at_lambda = tt$grad, gradient_check = gchk,
    bfgs_lambda = tt$bfgs_lambda, newton_iterations = tt$newton_iterations,
    wald_lower = lam - 1.96 * se, wald_upper = lam + 1.96 * se,
    wald_lower_qnorm = lam - qnorm(0.975) * se, wald_upper_qnorm = lam + qnorm(0.975) * se,
    rounded_pwr = rl,
    lr_all0 = lr(0), lr_all1 = lr(1), lr_arbitrary = lr(arbitrary), lr_rounded = lr(rl),
    profile_95 = profile_bounds(prob, tt, 0.05), profile_90 = profile_bounds(prob, tt, 0.10)
  )
  carlr <- function(l0) {
    t <- testTransform(pt, l0)
    b <- lr_block(t$LRT, t$df)
    b$pvalue_car <- 1 - pchisq(t$LRT, t$df)
    b$pvalue_formatted <- as.character(t$pval)
    b$label <- rownames(t)
    b
  }
  res <- s$result
  carout <- list(
    lambda = unname(pt$lambda), se = unname(sqrt(diag(pt$invHess))),
    hessian = lapply(1:p, function(i) unname(pt$hessian[i, ])),
    wald_lower = unname(res[, "Wald Lwr Bnd"]), wald_upper = unname(res[, "Wald Upr Bnd"]),
    rounded_pwr = unname(res[, "Rounded Pwr"]), roundlam = unname(pt$roundlam),
    objective_value = pt$value, llf = car_llf(prob, pt$value), start = unname(pt$start),
    convergence = as.integer(pt$convergence),
    message = if (is.null(pt$message)) "" else as.character(pt$message),
    lr_all0 = carlr(0), lr_all1 = carlr(1), lr_arbitrary = carlr(arbitrary),
    summary_printed = paste(capture.output(print(s)), collapse = "\n")
  )
  cat(sprintf("n=%d car=%s\n%29s tight=%s\n", n, paste(sprintf("%.8f", pt$lambda), collapse = " "),
              "", paste(sprintf("%.10f", lam), collapse = " ")))
  list(
    name = name, formula = deparse(formula), columns = columns, design = design,
    family = family, n = n, p = p, design_rank = xqr_rank <- pt$xqr$rank,
    arbitrary_lambda = arbitrary,
    data_check = list(colsums = unname(colSums(Y))),
    car = carout, tight = tight,
    car_minus_tight = list(
      lambda = carout$lambda - lam, se = carout$se - se, se_relative = carout$se / se - 1,
      llf = carout$llf - tight$llf,
      lr_all0 = carout$lr_all0$statistic - tight$lr_all0$statistic,
      lr_all1 = carout$lr_all1$statistic - tight$lr_all1$statistic,
      lr_arbitrary = carout$lr_arbitrary$statistic - tight$lr_arbitrary$statistic)
  )
}

hw <- read.csv("data/highway1.csv", stringsAsFactors = TRUE)
# the CSV written from carData's Highway1 (15 significant digits) vs the original
hw_diff <- max(abs(as.matrix(hw[, 1:11]) - as.matrix(carData::Highway1[, 1:11])))
hw$shldc <- hw$shld - 6   # shoulder width minus 6: negative, zero and positive values
four <- c("len", "adt", "trks", "sigs1")
yjcols <- c("itg", "sigs1", "shldc")
cases <- list(
  run_case("highway1_bc_htype", cbind(len, adt, trks, sigs1) ~ htype, hw, "boxcox",
           four, "~ htype", c(0, 0.5, -1, 0.25)),
  run_case("highway1_bc_1", cbind(len, adt, trks, sigs1) ~ 1, hw, "boxcox",
           four, "~ 1", c(0.5, 0, 0, -0.5)),
  run_case("highway1_yj_1", cbind(itg, sigs1, shldc) ~ 1, hw, "yeojohnson",
           yjcols, "~ 1", c(0, -1, 1.5)),
  run_case("highway1_yj_htype", cbind(itg, sigs1, shldc) ~ htype, hw, "yeojohnson",
           yjcols, "~ htype", c(0.5, 0, 1))
)

out <- list(
  meta = list(
    R = R.version.string,
    car = as.character(packageVersion("car")),
    carData = as.character(packageVersion("carData")),
    generated_by = "tests/reference/car_multivariate_reference.R",
    data = "data/highway1.csv (carData::Highway1 written by write.csv); shldc = shld - 6",
    csv_vs_carData_max_abs_diff = hw_diff,
    objective = "car: (n/2)*log(((n-1)/n)*det(var(qr.resid(qr(X), Z)))), Z Jacobian-adjusted",
    llf = "-n*p/2*(log(2*pi)+1) - objective + (n/2)*(p-1)*log(n/(n-1))",
    tight = "BFGS (reltol 1e-16) with analytic gradient, then Newton with a Richardson Hessian of the analytic gradient",
    se = "sqrt(diag(solve(H))), H = Hessian of the objective (observed information)",
    lr = "2*(obj(lambda0) - obj(lambda_hat)), df = p; lr_rounded uses car's rounding rule on the tight Wald interval",
    profile = "profile_95/profile_90: per power, the t with 2*(min over the other powers of obj(lambda_j = t) - obj_min) = qchisq(1 - alpha, 1); inner BFGS (reltol 1e-16, analytic gradient) + Newton steps, endpoints by uniroot (tol 1e-12) after doubling from 2 SE"
  ),
  cases = cases
)
writeLines(to_json(out), "tests/reference/car_multivariate_reference.json")
cat("wrote tests/reference/car_multivariate_reference.json\n")

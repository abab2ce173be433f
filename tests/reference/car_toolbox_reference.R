# Reference values from R's car for boxcoxstat's toolbox: bcnPower (Hawkins & Weisberg
# 2017), boxTidwell (Box & Tidwell 1962) and invTranEstimate (the inverse response plot,
# Cook & Weisberg 1994).
#
# Run from the repository root:
#     Rscript tests/reference/car_toolbox_reference.R
# Writes tests/reference/car_toolbox_reference.json, with the data each case needs (Mroz
# from carData, Prestige from carData, trees from R's datasets), so the tests need no R.
#
# Needs the Debian packages r-cran-car (with r-cran-cardata). For every case the JSON stores
#   * "car":   what car itself prints or returns with its default tolerances,
#   * "tight": the same quantities on car's own objective, optimised to near machine
#              precision here (the definitions are car's; only the tolerances change).
# See tests/reference/CAR_TOOLBOX_NOTES.md for what car computes and where it differs.

suppressPackageStartupMessages(library(car))

local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
  assign("HERE", here, envir = globalenv())
})

GAMMA_MIN <- 0.1  # car's default lower bound for gamma (estimateTransform.bcnPower)

# ---------------------------------------------------------------------------
# bcnPower
# ---------------------------------------------------------------------------
# car's log-likelihood (bcnPowerllik): -(n/2) log(((n-1)/n) det(var(resid(Z_adj))))
bcn_llik <- function(Y, xqr, lambda, gamma) {
  car:::bcnPowerllik(NULL, Y, NULL, lambda = lambda, gamma = gamma, xqr = xqr)$llik
}

# gamma maximised out for fixed lambda (one column): Brent on log(gamma) over
# [log(GAMMA_MIN), log(gmax)], tolerance 1e-13
gamma_hat_1d <- function(y, xqr, lambda) {
  gmax <- 1e4 * (max(y) - min(y))
  f <- function(t) -bcn_llik(y, xqr, lambda, exp(t))
  o <- optimize(f, c(log(GAMMA_MIN), log(gmax)), tol = 1e-13)
  list(gamma = exp(o$minimum), llik = -o$objective)
}

bcn_case_1d <- function(name, y, X, description) {
  Y <- matrix(y, ncol = 1)
  xqr <- qr(X)
  n <- length(y)
  # car
  pt <- if (ncol(X) == 1) powerTransform(y ~ 1, family = "bcnPower") else
    powerTransform(lm(y ~ X - 1), family = "bcnPower")
  s <- summary(pt)
  car_out <- list(
    lambda = unname(pt$lambda), gamma = unname(pt$gamma), llik = pt$llik,
    gamma_estimated = isTRUE(pt$gamma.estimated),
    invHess = unname(pt$invHess),
    se_lambda = sqrt(pt$invHess[1, 1]), se_gamma = sqrt(pt$invHess[2, 2]),
    wald_lower = unname(s$result[1, 3]), wald_upper = unname(s$result[1, 4]),
    lr0 = testTransform(pt, 0)$LRT, lr1 = testTransform(pt, 1)$LRT
  )
  # tight: profile over gamma, lambda by Brent (tol 1e-11)
  prof <- function(l) gamma_hat_1d(y, xqr, l)$llik
  o <- optimize(function(l) -prof(l), c(-3, 3), tol = 1e-11)
  lam <- o$minimum
  g <- gamma_hat_1d(y, xqr, lam)
  # polish both by a 2-D optim (BFGS, numerical gradient with small steps)
  f2 <- function(p) -bcn_llik(Y, xqr, p[1], max(p[2], GAMMA_MIN))
  o2 <- optim(c(lam, g$gamma), f2, method = "BFGS",
              control = list(reltol = 1e-16, ndeps = c(1e-6, 1e-6), maxit = 500))
  if (-o2$value > g$llik) { lam <- o2$par[1]; g <- gamma_hat_1d(y, xqr, lam) }
  llmax <- g$llik
  hess <- optimHess(c(lam, g$gamma), function(p) bcn_llik(Y, xqr, p[1], p[2]),
                    control = list(ndeps = c(1e-4, 1e-4)))
  inv <- solve(-hess)
  q <- qchisq(0.95, 1)
  pf <- function(l) 2 * (llmax - prof(l)) - q
  lower <- uniroot(pf, c(lam - 1, lam), tol = 1e-12)$root
  upper <- uniroot(pf, c(lam, lam + 1), tol = 1e-12)$root
  list(
    description = description, n = n, y = y, X = unname(X),
    car = car_out,
    tight = list(
      lambda = lam, gamma = g$gamma, llik = llmax,
      llf = llmax - n / 2 * (log(2 * pi) + 1),
      se_lambda = sqrt(inv[1, 1]), se_gamma = sqrt(inv[2, 2]),
      profile_lower = lower, profile_upper = upper,
      lr0_profile = 2 * (llmax - prof(0)), lr1_profile = 2 * (llmax - prof(1)),
      lr0_gamma_fixed = 2 * (llmax - bcn_llik(Y, xqr, 0, g$gamma)),
      lr1_gamma_fixed = 2 * (llmax - bcn_llik(Y, xqr, 1, g$gamma)),
      llik_at = lapply(list(c(0.5, 0.5), c(1, 2), c(-0.5, 0.3)), function(p)
        list(lambda = p[1], gamma = p[2], llik = bcn_llik(Y, xqr, p[1], p[2])))
    )
  )
}

bcn_case_2d <- function(name, Y, description) {
  n <- nrow(Y)
  X <- matrix(1, n, 1)
  xqr <- qr(X)
  pt <- powerTransform(Y ~ 1, family = "bcnPower")
  s <- summary(pt)
  car_out <- list(lambda = unname(pt$lambda), gamma = unname(pt$gamma), llik = pt$llik,
                  se_lambda = unname(sqrt(diag(pt$invHess))[1:2]),
                  se_gamma = unname(sqrt(diag(pt$invHess))[3:4]),
                  lr0 = testTransform(pt, 0)$LRT, lr1 = testTransform(pt, 1)$LRT)
  f4 <- function(p) -bcn_llik(Y, xqr, p[1:2], pmax(p[3:4], GAMMA_MIN))
  o <- optim(c(pt$lambda, pt$gamma), f4, method = "L-BFGS-B",
             lower = c(-Inf, -Inf, GAMMA_MIN, GAMMA_MIN),
             control = list(factr = 1, pgtol = 0, ndeps = rep(1e-6, 4), maxit = 2000))
  o <- optim(o$par, f4, method = "BFGS",
             control = list(reltol = 1e-16, ndeps = rep(1e-6, 4), maxit = 2000))
  par <- o$par
  llmax <- -o$value
  hess <- optimHess(par, function(p) bcn_llik(Y, xqr, p[1:2], p[3:4]),
                    control = list(ndeps = rep(1e-4, 4)))
  inv <- solve(-hess)
  # LR tests with both gammas maximised out
  lr_at <- function(l0) {
    g <- optim(par[3:4], function(gg) -bcn_llik(Y, xqr, l0, pmax(gg, GAMMA_MIN)),
               method = "L-BFGS-B", lower = rep(GAMMA_MIN, 2),
               control = list(factr = 1, pgtol = 0, ndeps = rep(1e-6, 2)))
    2 * (llmax + g$value)
  }
  list(
    description = description, n = n, Y = unname(Y), names = colnames(Y),
    car = car_out,
    tight = list(lambda = par[1:2], gamma = par[3:4], llik = llmax,
                 se_lambda = sqrt(diag(inv))[1:2], se_gamma = sqrt(diag(inv))[3:4],
                 lr0_profile = lr_at(c(0, 0)), lr1_profile = lr_at(c(1, 1)))
  )
}

mroz <- carData::Mroz
Xlm <- model.matrix(~ k5 + wc + hc + age, data = mroz)
bcn <- list(
  mroz_lwg = bcn_case_1d("mroz_lwg", mroz$lwg, matrix(1, nrow(mroz), 1),
                         "powerTransform(lwg ~ 1, data = Mroz, family = 'bcnPower')"),
  mroz_lwg_lm = bcn_case_1d("mroz_lwg_lm", mroz$lwg, Xlm,
                            "powerTransform(lm(lwg ~ k5 + wc + hc + age, Mroz), family = 'bcnPower')"),
  mroz_lwg_inc = bcn_case_2d("mroz_lwg_inc", cbind(lwg = mroz$lwg, inc = mroz$inc),
                             "powerTransform(cbind(lwg, inc) ~ 1, data = Mroz, family = 'bcnPower')")
)
bcn$mroz_lwg_lm$design_columns <- colnames(Xlm)
bcn$mroz_lwg_lm$data <- list(lwg = mroz$lwg, k5 = mroz$k5, wc = as.character(mroz$wc),
                             hc = as.character(mroz$hc), age = mroz$age)

# fixed shift: bcPower(U, lambda, gamma) is the Box-Cox of U + gamma
shift <- 2.5
pts <- powerTransform(I(lwg + shift) ~ 1, data = mroz, family = "bcPower")
bc_shift <- list(gamma = shift, lambda = unname(pts$lambda),
                 transform_at = list(x = c(-2, 0, 1.5), lambda = 0.5,
                                     value = bcPower(c(-2, 0, 1.5), 0.5, gamma = shift)))
bcn_transform <- list(x = c(-2, -0.5, 0, 0.3, 3), lambda = 0.6875, gamma = 0.67,
                      value = bcnPower(c(-2, -0.5, 0, 0.3, 3), 0.6875, gamma = 0.67),
                      value_lambda0 = bcnPower(c(-2, -0.5, 0, 0.3, 3), 0, gamma = 0.67))

# ---------------------------------------------------------------------------
# boxTidwell
# ---------------------------------------------------------------------------
bt_rss <- function(y, X1, X2, lam) {
  Z <- sapply(seq_along(lam), function(j) bcPower(X1[, j], lam[j]))
  sum(lm.fit(cbind(1, Z, X2), y)$residuals^2)
}

bt_case <- function(formula, other, data, description) {
  car_default <- if (is.null(other)) boxTidwell(formula, data = data) else
    boxTidwell(formula, other, data = data)
  car_tight <- if (is.null(other)) boxTidwell(formula, data = data, tol = 1e-13, max.iter = 500)
    else boxTidwell(formula, other, data = data, tol = 1e-13, max.iter = 500)
  # the data car used (its model frame: rows with missing values in any used variable dropped)
  vars <- unique(c(all.vars(formula), if (!is.null(other)) all.vars(other)))
  mf <- na.omit(data[, vars, drop = FALSE])
  y <- mf[[all.vars(formula)[1]]]
  X1 <- model.matrix(formula, data = mf)[, -1, drop = FALSE]
  X2 <- if (is.null(other)) NULL else model.matrix(other, data = mf)[, -1, drop = FALSE]
  n <- length(y)
  k <- ncol(X1)
  lam <- unname(car_tight$result[, 1])
  nll <- function(l) (n / 2) * log(bt_rss(y, X1, X2, l))
  # polish: Newton on the numerical gradient would add little; check stationarity instead
  grad <- sapply(seq_len(k), function(j) {
    f <- function(t) { l <- lam; l[j] <- t; nll(l) }
    ridders(f, lam[j], 0.01)$value
  })
  hess <- optimHess(lam, nll, control = list(ndeps = rep(1e-4, k)))
  se <- sqrt(diag(solve(hess)))
  q <- qchisq(0.95, 1)
  prof <- function(j, t) {
    if (k == 1) return(nll(t))
    others <- setdiff(seq_len(k), j)
    f <- function(o) { l <- numeric(k); l[j] <- t; l[others] <- o; nll(l) }
    optim(lam[others], f, method = "BFGS", control = list(reltol = 1e-15))$value
  }
  nll_hat <- nll(lam)
  intervals <- lapply(seq_len(k), function(j) {
    pf <- function(t) 2 * (prof(j, t) - nll_hat) - q
    c(uniroot(pf, c(lam[j] - 20 * se[j], lam[j]), tol = 1e-11)$root,
      uniroot(pf, c(lam[j], lam[j] + 20 * se[j]), tol = 1e-11)$root)
  })
  cols <- lapply(vars, function(v) {
    x <- mf[[v]]
    if (is.factor(x)) as.character(x) else x
  })
  names(cols) <- vars
  list(
    description = description, formula = deparse(formula),
    other = if (is.null(other)) NULL else deparse(other),
    n = n, data = cols, names = colnames(X1),
    car = list(lambda = unname(car_default$result[, 1]),
               z = unname(car_default$result[, 2]), pvalue = unname(car_default$result[, 3]),
               iterations = car_default$iterations),
    tight = list(lambda = lam, z = unname(car_tight$result[, 2]),
                 pvalue = unname(car_tight$result[, 3]),
                 iterations = car_tight$iterations, gradient = grad,
                 rss = bt_rss(y, X1, X2, lam), se = se,
                 profile_lower = sapply(intervals, `[`, 1),
                 profile_upper = sapply(intervals, `[`, 2))
  )
}

prestige <- carData::Prestige
bt <- list(
  prestige_income = bt_case(prestige ~ income, NULL, prestige,
                            "boxTidwell(prestige ~ income, data = Prestige)"),
  prestige_income_education = bt_case(prestige ~ income + education, NULL, prestige,
                                      "boxTidwell(prestige ~ income + education, data = Prestige)"),
  prestige_other = bt_case(prestige ~ income + education, ~ type + women + I(women^2),
                           prestige,
                           "boxTidwell(prestige ~ income + education, ~ type + poly(women, 2), data = Prestige) (poly(women, 2) spans women + I(women^2))")
)
# car's own example uses poly(women, 2): the same column space, so the same powers
ex <- boxTidwell(prestige ~ income + education, ~ type + poly(women, 2), data = prestige,
                 tol = 1e-13, max.iter = 500)
bt$prestige_other$tight$lambda_with_poly <- unname(ex$result[, 1])

# ---------------------------------------------------------------------------
# invTranEstimate (inverse response plot): lambda minimising the RSS of yhat ~ bcPower(y)
# ---------------------------------------------------------------------------
ir_case <- function(model, description) {
  y <- model.response(model.frame(model))
  yhat <- unname(fitted(model))
  car_out <- invTranEstimate(y, yhat)
  n <- length(y)
  rss <- function(l) deviance(lm(yhat ~ bcPower(y, l)))
  o <- optimize(rss, c(-10, 10), tol = 1e-12)
  lam <- o$minimum
  rss0 <- rss(lam)
  q <- qchisq(0.95, 1)
  # car's interval: n log(RSS / RSS_min) = qchisq(0.95, 1) / 2
  car_cut <- function(l) n * log(rss(l) / rss0) - q / 2
  # likelihood-ratio interval: n log(RSS / RSS_min) = qchisq(0.95, 1)
  lr_cut <- function(l) n * log(rss(l) / rss0) - q
  root <- function(f, lo, hi) uniroot(f, c(lo, hi), tol = 1e-12)$root
  rsslist <- lapply(c(-1, 0, 0.5, 1), function(l) list(lambda = l, rss = rss(l)))
  list(
    description = description, n = n, y = unname(y), yhat = yhat,
    car = list(lambda = car_out$lambda, lower = car_out$lowerCI, upper = car_out$upperCI),
    tight = list(lambda = lam, rss = rss0,
                 car_lower = root(car_cut, -10, lam), car_upper = root(car_cut, lam, 10),
                 lr_lower = root(lr_cut, -10, lam), lr_upper = root(lr_cut, lam, 10),
                 rss_at = rsslist)
  )
}
ir <- list(
  trees = ir_case(lm(Volume ~ Girth + Height, data = trees),
                  "invTranEstimate(trees$Volume, fitted(lm(Volume ~ Girth + Height, trees)))"),
  prestige_income = ir_case(lm(income ~ education + women, data = prestige),
                            "invTranEstimate(income, fitted(lm(income ~ education + women, Prestige)))"),
  mroz_faminc = ir_case(lm(I(lwg + 3) ~ k5 + age + hc + wc, data = mroz),
                        "invTranEstimate(lwg + 3, fitted(lm(I(lwg + 3) ~ k5 + age + hc + wc, Mroz)))")
)

# ---------------------------------------------------------------------------
# diagnostic plots: spreadLevelPlot (least-squares and car's rlm line), qqPlot's labels
# ---------------------------------------------------------------------------
pdf(NULL)
orn <- carData::Ornstein
sl_ls <- spreadLevelPlot(interlocks + 1 ~ nation, data = orn, robust.line = FALSE)
sl_rlm <- spreadLevelPlot(interlocks + 1 ~ nation, data = orn)
sl_lm <- spreadLevelPlot(lm(interlocks + 1 ~ log(assets) + nation, data = orn),
                         robust.line = FALSE)
qq_ids <- qqPlot(prestige$income, id = list(n = 3))
spread <- list(
  x = orn$interlocks + 1, by = as.character(orn$nation),
  assets = orn$assets,
  groups = rownames(sl_ls$Statistics),
  statistics = lapply(as.list(sl_ls$Statistics), unname),
  power_ls = unname(sl_ls$PowerTransformation),
  power_rlm = unname(sl_rlm$PowerTransformation),
  power_lm_fitted = unname(sl_lm$PowerTransformation)
)
qq <- list(x = prestige$income, labelled = as.integer(unname(qq_ids)))

out <- list(
  generated_by = "tests/reference/car_toolbox_reference.R",
  r_version = R.version.string,
  car_version = as.character(packageVersion("car")),
  gamma_min = GAMMA_MIN,
  bcnpower = bcn, bcpower_shift = bc_shift, bcnpower_transform = bcn_transform,
  box_tidwell = bt, inverse_response = ir, spread_level = spread, qqplot = qq
)
writeLines(to_json(out), file.path(HERE, "car_toolbox_reference.json"))
cat("wrote", file.path(HERE, "car_toolbox_reference.json"), "\n")

# Reference values for boxcoxstat's case weights, bounded lambda and compare() (issue 30,
# items 2-4), computed by R, car and lm independently of the package.
#
# Run from the repository root:
#     Rscript tests/reference/weights_bounds_compare_reference.R
# Writes tests/reference/weights_bounds_compare_reference.json (data included, so the tests
# need no R). Needs r-cran-car.
#
# weighted: car::powerTransform(lm(y ~ 1, weights = w)) (car's own lambda and SE), and the
#   same objective, car's llik (-n/2 log RSS_w of the Jacobian-adjusted transform), maximised
#   tightly: the root of its analytic derivative by uniroot(tol = 1e-15); its profile interval
#   ends and LR tests at 0 and 1 from that objective; llf = logLik(lm(psi ~ 1, weights = w))
#   plus the Jacobian.
# bounded: the same objective maximised on [lo, hi] (optimize on the interval, then the
#   analytic root where interior); the interval: the lambdas in [lo, hi] within
#   qchisq(0.95, 1) / 2 of the bounded maximum (uniroot, tol 1e-15), and LR tests against it.
# compare: logLik(lm(psi(y) ~ x)) plus the Jacobian (e.g. logLik(lm(log(y) ~ x)) - sum(log(y))),
#   parameters counted as logLik counts them plus 1 for an estimated lambda, AIC, BIC and LR
#   tests of nested pairs.

suppressPackageStartupMessages(library(car))

local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
  assign("HERE", here, envir = globalenv())
})
DATA <- file.path(HERE, "..", "..", "data")

# the transform and its lambda-derivative (Box-Cox of y > 0, or Yeo-Johnson)
psi <- function(y, l, fam) {
  if (fam == "boxcox") return(if (abs(l) < 1e-300) log(y) else (y^l - 1) / l)
  yjPower(y, l)
}
dpsi <- function(y, l, fam, h = 1e-5) {
  if (fam == "boxcox") {
    if (abs(l) < 1e-8) return(log(y)^2 / 2)
    return((y^l * log(y) * l - (y^l - 1)) / l^2)
  }
  out <- numeric(length(y))
  p <- y >= 0
  b <- 1 + y[p]
  out[p] <- if (abs(l) < 1e-8) log(b)^2 / 2 else (b^l * log(b) * l - (b^l - 1)) / l^2
  k <- 2 - l
  b <- 1 - y[!p]
  out[!p] <- if (abs(k) < 1e-8) log(b)^2 / 2 else (b^k * log(b) * k - (b^k - 1)) / k^2
  out
}
jac <- function(y, fam) if (fam == "boxcox") sum(log(y)) else sum(sign(y) * log1p(abs(y)))

# car's profile log-likelihood of the response power (constants dropped) and its derivative
objective <- function(y, X, w, fam) {
  sw <- sqrt(w)
  q <- qr(sw * X)
  n <- length(y)
  J <- jac(y, fam)
  f <- function(l) -n / 2 * log(sum(qr.resid(q, sw * psi(y, l, fam))^2)) + (l - 1) * J
  g <- function(l) {
    r <- qr.resid(q, sw * psi(y, l, fam))
    rd <- qr.resid(q, sw * dpsi(y, l, fam))
    -n * sum(r * rd) / sum(r * r) + J
  }
  list(f = f, g = g)
}

tight_max <- function(ob, lo = -5, hi = 5) {
  o <- optimize(ob$f, c(lo, hi), maximum = TRUE, tol = 1e-10)
  if (o$maximum - lo < 1e-6) return(lo)
  if (hi - o$maximum < 1e-6) return(hi)
  uniroot(ob$g, c(o$maximum - 1e-3, o$maximum + 1e-3), tol = 1e-15, maxiter = 1000)$root
}

interval <- function(ob, lam, lo = -Inf, hi = Inf) {
  cut <- ob$f(lam) - qchisq(0.95, 1) / 2
  h <- function(l) ob$f(l) - cut
  end <- function(b, step) {
    if (lam == b) return(b)
    if (is.finite(b) && h(b) >= 0) return(b)
    far <- lam + step
    while ((step > 0 && (!is.finite(b) || far < b)) || (step < 0 && (!is.finite(b) || far > b))) {
      if (h(far) < 0) break
      step <- 2 * step
      far <- lam + step
    }
    if (is.finite(b)) far <- if (step > 0) min(far, b) else max(far, b)
    uniroot(h, sort(c(lam, far)), tol = 1e-15, maxiter = 1000)$root
  }
  c(end(lo, -0.1), end(hi, 0.1))
}

llf_at <- function(y, X, w, fam, l) {
  z <- psi(y, l, fam)
  as.numeric(logLik(lm(z ~ X - 1, weights = w))) + (l - 1) * jac(y, fam)
}

weighted_case <- function(y, w, fam, description, X = matrix(1, length(y), 1)) {
  ob <- objective(y, X, w, fam)
  pt <- powerTransform(lm(y ~ X - 1, weights = w),
                       family = if (fam == "boxcox") "bcPower" else "yjPower")
  lam <- tight_max(ob)
  ci <- interval(ob, lam)
  list(description = description, family = fam, y = y, w = w, X = X,
       car = list(lambda = unname(pt$lambda), se = sqrt(unname(pt$hessian)^-1 * 1)[1],
                  se_vcov = sqrt(diag(vcov(pt)))[[1]]),
       tight = list(lambda = lam, llf = llf_at(y, X, w, fam, lam),
                    lower = ci[1], upper = ci[2],
                    lr0 = 2 * (ob$f(lam) - ob$f(0)), lr1 = 2 * (ob$f(lam) - ob$f(1))))
}

bounded_case <- function(y, w, fam, lo, hi, description, X = matrix(1, length(y), 1)) {
  ob <- objective(y, X, w, fam)
  free <- tight_max(ob)
  o <- optimize(ob$f, c(lo, hi), maximum = TRUE, tol = 1e-12)
  lam <- if (free <= lo) lo else if (free >= hi) hi else free
  stopifnot(abs(o$maximum - lam) < 1e-5)
  ci <- interval(ob, lam, lo, hi)
  tests <- list()
  for (l0 in c(0, 1)) if (l0 >= lo && l0 <= hi) tests[[paste0("lr", l0)]] <- 2 * (ob$f(lam) - ob$f(l0))
  list(description = description, family = fam, y = y, w = if (all(w == 1)) NULL else w,
       X = X, lo = lo, hi = hi, free = free, lambda = lam, llf = llf_at(y, X, w, fam, lam),
       lower = ci[1], upper = ci[2], tests = tests)
}

trees <- read.csv(file.path(DATA, "trees.csv"))
prestige <- read.csv(file.path(DATA, "prestige.csv"))
set.seed(30)
sim_y <- round(rlnorm(60, 1, 0.6), 6)
sim_w <- round(runif(60, 0.2, 3), 6)

weighted <- list(
  trees_volume_by_height = weighted_case(trees$Volume, trees$Height, "boxcox",
                                         "trees Volume, weights Height"),
  lognormal_60 = weighted_case(sim_y, sim_w, "boxcox",
                               "60 lognormal values, uniform(0.2, 3) weights (set.seed(30))"),
  prestige_women_yj = weighted_case(prestige$women, prestige$education, "yeojohnson",
                                    "Prestige women (zeros: Yeo-Johnson), weights education"),
  trees_regression = weighted_case(trees$Volume, trees$Height, "boxcox",
                                   "trees Volume ~ log(Girth), weights Height",
                                   X = cbind(1, log(trees$Girth)))
)

# joint (multivariate) weighted: row i's covariance Sigma / w_i; the likelihood maximised by
# optim (BFGS, reltol 1e-15, from car's estimate); llf at the maximum. car's own estimate
# is stored too: car centres the weighted residuals (var()), a different objective
joint_weighted <- function(Y, X, w, description) {
  sw <- sqrt(w)
  q <- qr(sw * X)
  n <- nrow(Y)
  p <- ncol(Y)
  J <- apply(Y, 2, function(y) sum(log(y)))
  llf <- function(l) {
    Z <- sapply(seq_len(p), function(j) psi(Y[, j], l[j], "boxcox"))
    R <- qr.resid(q, sw * Z)
    S <- crossprod(R) / n
    -n * p / 2 * (log(2 * pi) + 1) - n / 2 * as.numeric(determinant(S)$modulus) +
      p / 2 * sum(log(w)) + sum((l - 1) * J)
  }
  pt <- powerTransform(Y ~ X - 1, weights = w)
  o <- optim(unname(pt$lambda), function(l) -llf(l), method = "BFGS",
             control = list(reltol = 1e-15, maxit = 1000, ndeps = rep(1e-6, p)))
  list(description = description, Y = as.numeric(Y), X = X, w = w, lambda = o$par,
       llf = -o$value, car_lambda = unname(pt$lambda))
}

joint <- list(
  trees_volume_girth = joint_weighted(cbind(trees$Volume, trees$Girth),
                                      matrix(1, nrow(trees), 1), trees$Height,
                                      "trees Volume and Girth ~ 1, weights Height")
)

# joint bounded: the multivariate likelihood maximised on a box (optim L-BFGS-B, tight), and
# the profile interval of each power: the others maximised inside their bounds (optim
# L-BFGS-B), the cut-off chi2(1, .95)/2 below the bounded maximum, ends by uniroot
joint_bounded <- function(Y, X, lo, hi, description) {
  q <- qr(X)
  n <- nrow(Y)
  p <- ncol(Y)
  J <- apply(Y, 2, function(y) sum(log(y)))
  llf <- function(l) {
    Z <- sapply(seq_len(p), function(j) psi(Y[, j], l[j], "boxcox"))
    S <- crossprod(qr.resid(q, Z)) / n
    -n * p / 2 * (log(2 * pi) + 1) - n / 2 * as.numeric(determinant(S)$modulus) +
      sum((l - 1) * J)
  }
  ctl <- list(factr = 1, pgtol = 0, maxit = 10000)
  free <- optim(rep(0.5, p), function(l) -llf(l), method = "BFGS",
                control = list(reltol = 1e-15, maxit = 1000))$par
  o <- optim(pmin(pmax(free, lo), hi), function(l) -llf(l), method = "L-BFGS-B",
             lower = lo, upper = hi, control = ctl)
  lam <- o$par
  top <- -o$value
  cut <- top - qchisq(0.95, 1) / 2
  prof <- function(j, t) {
    if (p == 1) return(llf(t))
    f <- function(v) { l <- lam; l[j] <- t; l[-j] <- v; -llf(l) }
    -optim(lam[-j], f, method = "L-BFGS-B", lower = lo[-j], upper = hi[-j], control = ctl)$value
  }
  ends <- lapply(seq_len(p), function(j) {
    e <- function(b) {
      if (lam[j] == b || prof(j, b) >= cut) return(b)
      uniroot(function(t) prof(j, t) - cut, sort(c(lam[j], b)), tol = 1e-12)$root
    }
    c(e(lo[j]), e(hi[j]))
  })
  list(description = description, Y = as.numeric(Y), lo = lo, hi = hi, free = free,
       lambda = lam, llf = top, lower = sapply(ends, `[`, 1), upper = sapply(ends, `[`, 2))
}

joint$trees_bounded <- joint_bounded(cbind(trees$Volume, trees$Girth),
                                     matrix(1, nrow(trees), 1), c(0.2, -2), c(2, 2),
                                     "trees Volume and Girth ~ 1 on [0.2, 2] x [-2, 2]")

ones <- rep(1, nrow(trees))
bounded <- list(
  trees_volume_above = bounded_case(trees$Volume, ones, "boxcox", 0.5, 2,
                                    "trees Volume on [0.5, 2] (free maximum below: bound active)"),
  trees_volume_below = bounded_case(trees$Volume, ones, "boxcox", -3, -0.2,
                                    "trees Volume on [-3, -0.2] (free maximum above: bound active)"),
  trees_volume_inactive = bounded_case(trees$Volume, ones, "boxcox", -0.1, 3,
                                       "trees Volume on [-0.1, 3] (inactive; lower end cut)"),
  lognormal_weighted = bounded_case(sim_y, sim_w, "boxcox", 0.25, 1,
                                    "the weighted lognormal case on [0.25, 1]"),
  trees_regression = bounded_case(trees$Volume, ones, "boxcox", 0.2, 1,
                                  "trees Volume ~ log(Height) + log(Girth) on [0.2, 1]",
                                  X = cbind(1, log(trees$Height), log(trees$Girth)))
)

# --------------------------------------------------------------------------- compare
model_row <- function(y, X, fam, l, estimated, name) {
  llf <- llf_at(y, X, rep(1, length(y)), fam, l)
  k <- ncol(X) + 1 + as.integer(estimated)
  n <- length(y)
  list(name = name, lambda = l, estimated = estimated, llf = llf, k = k,
       aic = -2 * llf + 2 * k, bic = -2 * llf + log(n) * k)
}
compare_case <- function(y, X, Xsmall, description) {
  one <- matrix(1, length(y), 1)
  fam <- "boxcox"
  lam <- tight_max(objective(y, X, rep(1, length(y)), fam))
  lam_small <- tight_max(objective(y, Xsmall, rep(1, length(y)), fam))
  lam_col <- tight_max(objective(y, one, rep(1, length(y)), fam))
  rows <- list(
    untransformed = model_row(y, X, fam, 1, FALSE, "untransformed"),
    log = model_row(y, X, fam, 0, FALSE, "log"),
    estimated = model_row(y, X, fam, lam, TRUE, "estimated"),
    smaller_estimated = model_row(y, Xsmall, fam, lam_small, TRUE, "smaller design, estimated"),
    column = model_row(y, one, fam, lam_col, TRUE, "fit of the column"))
  # R's own logLik of the log model, as issue 30 words it
  check <- as.numeric(logLik(lm(log(y) ~ X - 1))) - sum(log(y))
  stopifnot(abs(check - rows$log$llf) < 1e-9)
  lr <- function(a, b) 2 * (rows[[b]]$llf - rows[[a]]$llf)
  list(description = description, y = y, X = X, Xsmall = Xsmall, rows = rows,
       lr = list(log_vs_estimated = lr("log", "estimated"),
                 untransformed_vs_estimated = lr("untransformed", "estimated"),
                 smaller_vs_estimated = lr("smaller_estimated", "estimated"),
                 column_vs_smaller = lr("column", "smaller_estimated")))
}
pr <- prestige
compare <- list(
  trees = compare_case(trees$Volume, cbind(1, log(trees$Height), log(trees$Girth)),
                       cbind(1, log(trees$Girth)),
                       "trees: Volume ~ log(Height) + log(Girth); smaller: ~ log(Girth)"),
  prestige = compare_case(pr$income, cbind(1, pr$education, pr$women), cbind(1, pr$education),
                          "Prestige: income ~ education + women; smaller: ~ education")
)

out <- list(
  R = R.version.string, car = as.character(packageVersion("car")),
  weighted = weighted, bounded = bounded, compare = compare, joint = joint)
writeLines(to_json(out), file.path(HERE, "weights_bounds_compare_reference.json"))

# The covariance of (lambda, gamma) of a one-column bcnPower fit (Hawkins & Weisberg 2017),
# for boxcoxstat's PowerTransformResult.cov_params(): the inverse of the observed information
# of car's own log-likelihood at its maximum, as car_toolbox_reference.R's "tight" values
# (same objective, same optimisation, same optimHess steps; that script stores only the
# standard errors, this one the whole 2 x 2 matrix).
#
# Run from the repository root:
#     Rscript tests/reference/bcnpower_cov_reference.R
# Writes tests/reference/bcnpower_cov_reference.json. Needs r-cran-car (with r-cran-cardata).

suppressPackageStartupMessages(library(car))

local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
  assign("HERE", here, envir = globalenv())
})

GAMMA_MIN <- 0.1  # car's default lower bound for gamma

bcn_llik <- function(Y, xqr, lambda, gamma) {
  car:::bcnPowerllik(NULL, Y, NULL, lambda = lambda, gamma = gamma, xqr = xqr)$llik
}

gamma_hat_1d <- function(y, xqr, lambda) {
  gmax <- 1e4 * (max(y) - min(y))
  f <- function(t) -bcn_llik(y, xqr, lambda, exp(t))
  o <- optimize(f, c(log(GAMMA_MIN), log(gmax)), tol = 1e-13)
  list(gamma = exp(o$minimum), llik = -o$objective)
}

cov_case <- function(y, X, description) {
  Y <- matrix(y, ncol = 1)
  xqr <- qr(X)
  prof <- function(l) gamma_hat_1d(y, xqr, l)$llik
  o <- optimize(function(l) -prof(l), c(-3, 3), tol = 1e-11)
  lam <- o$minimum
  g <- gamma_hat_1d(y, xqr, lam)
  f2 <- function(p) -bcn_llik(Y, xqr, p[1], max(p[2], GAMMA_MIN))
  o2 <- optim(c(lam, g$gamma), f2, method = "BFGS",
              control = list(reltol = 1e-16, ndeps = c(1e-6, 1e-6), maxit = 500))
  if (-o2$value > g$llik) { lam <- o2$par[1]; g <- gamma_hat_1d(y, xqr, lam) }
  hess <- optimHess(c(lam, g$gamma), function(p) bcn_llik(Y, xqr, p[1], p[2]),
                    control = list(ndeps = c(1e-4, 1e-4)))
  inv <- solve(-hess)
  pt <- if (ncol(X) == 1) powerTransform(y ~ 1, family = "bcnPower") else
    powerTransform(lm(y ~ X - 1), family = "bcnPower")
  list(description = description, lambda = lam, gamma = g$gamma,
       cov = lapply(1:2, function(i) unname(inv[i, ])),
       car_invHess = lapply(1:2, function(i) unname(pt$invHess[i, ])))
}

mroz <- carData::Mroz
Xlm <- model.matrix(~ k5 + wc + hc + age, data = mroz)
out <- list(
  source = "car's bcnPowerllik at its maximum; optimHess with steps 1e-4 (as car_toolbox_reference.R)",
  mroz_lwg = cov_case(mroz$lwg, matrix(1, nrow(mroz), 1),
                      "powerTransform(lwg ~ 1, data = Mroz, family = 'bcnPower')"),
  mroz_lwg_lm = cov_case(mroz$lwg, Xlm,
                         "powerTransform(lm(lwg ~ k5 + wc + hc + age, Mroz), family = 'bcnPower')")
)
writeLines(to_json(out), file.path(HERE, "bcnpower_cov_reference.json"))

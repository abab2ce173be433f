# Reference values for boxcoxstat.lm (response power of a linear model).
#
# Run from the repository root:
#     Rscript tests/reference/mass_lm_reference.R
# Writes tests/reference/mass_lm_reference.json (R 4.2.2, MASS 7.3-58, car 3.1-1).
#
# For every model it stores the data used (so the Python tests need no R) and
#   * "mass": MASS::boxcox.  MASS evaluates its profile on a grid only, so the
#     "tight" maximum and 95% interval are obtained here from MASS's OWN profile
#     function: f(l) = MASS::boxcox(fit, lambda = l, plotit = FALSE)$y, maximised by
#     optimize(tol = 1e-12), and the interval endpoints are the roots of
#     f(l) - (max f - qchisq(0.95, 1)/2) found by uniroot(tol = 1e-13).  The grid
#     values of MASS's default grid seq(-2, 2, 1/10) are stored too (MASS drops a
#     constant, so only differences are compared).
#   * "car": car::powerTransform(fit, family = ...) and testTransform(., 0 / 1) as car
#     reports them (car's L-BFGS-B stops short, ~1e-6), and
#   * "tight": the same quantities from the profile log-likelihood written out below
#     (weighted RSS of the QR residuals of sqrt(w) * z, Jacobian sum unweighted as car
#     has it), maximised by uniroot on its analytic derivative (tol = 1e-15), with the
#     observed information by Richardson extrapolation of the analytic derivative.
# Weighted fits: MASS::boxcox applies the weighted QR to the unweighted response
# (it ignores weights in the transform), so only "tight" values are given for them;
# car centres the weighted residuals sqrt(w) * r before taking their variance, which
# differs from the weighted RSS unless all weights are equal, so car's weighted
# numbers are stored for information only.

suppressPackageStartupMessages({library(MASS); library(car)})

# Shared helpers (JSON writer, Richardson derivative, stable Box-Cox and its derivative).
local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
})

# --- the profile log-likelihood, written out --------------------------------
make_lik <- function(X, y, w, family) {
  n <- length(y); sw <- sqrt(w); xqr <- qr(sw * X)
  if (family == "boxcox") {
    a <- log(y); lj <- a
    tr <- function(l) bc_stable(a, l); dtr <- function(l) bc_dlambda(a, l)
  } else {
    p <- y >= 0; ap <- log1p(y[p]); an <- log1p(-y[!p])
    lj <- numeric(n); lj[p] <- ap; lj[!p] <- -an
    tr <- function(l) { z <- numeric(n); z[p] <- bc_stable(ap, l); z[!p] <- -bc_stable(an, 2 - l); z }
    dtr <- function(l) { d <- numeric(n); d[p] <- bc_dlambda(ap, l); d[!p] <- bc_dlambda(an, 2 - l); d }
  }
  J <- sum(lj)
  llf <- function(l) {
    r <- qr.resid(xqr, sw * tr(l))
    -n / 2 * (log(2 * pi) + 1) - n / 2 * log(sum(r^2) / n) + (l - 1) * J
  }
  grad <- function(l) {
    r <- qr.resid(xqr, sw * tr(l)); rd <- qr.resid(xqr, sw * dtr(l))
    -n * sum(r * rd) / sum(r^2) + J
  }
  list(llf = llf, grad = grad, n = n, rank = xqr$rank)
}
interval <- function(f, lam, fmax, se) {
  q <- qchisq(0.95, 1)
  g <- function(l) fmax - f(l) - q / 2
  ends <- sapply(c(-1, 1), function(d) {
    step <- 2 * se; while (g(lam + d * step) < 0) step <- 2 * step
    uniroot(g, sort(c(lam, lam + d * step)), tol = 1e-13, maxiter = 1000)$root
  })
  ends
}
tight <- function(X, y, w, family) {
  L <- make_lik(X, y, w, family)
  o <- optimize(function(l) -L$llf(l), c(-10, 10), tol = 1e-12)$minimum
  d <- 1e-3; while (!(L$grad(o - d) > 0 && L$grad(o + d) < 0)) d <- 2 * d
  lam <- uniroot(L$grad, c(o - d, o + d), tol = 1e-15, maxiter = 1000)$root
  info <- -ridders(L$grad, lam, 0.05)$value; se <- 1 / sqrt(info); lmax <- L$llf(lam)
  ci <- interval(L$llf, lam, lmax, se)
  list(lambda = lam, se = se, llf = lmax, ci_lower = ci[1], ci_upper = ci[2],
       lr0 = 2 * (lmax - L$llf(0)), lr1 = 2 * (lmax - L$llf(1)),
       llf_grid = sapply(seq(-2, 2, 1/10), L$llf), rank = L$rank)
}
mass_tight <- function(fit) {
  f <- function(l) MASS::boxcox(fit, lambda = l, plotit = FALSE)$y
  o <- optimize(f, c(-5, 5), maximum = TRUE, tol = 1e-12)
  ci <- interval(f, o$maximum, o$objective, 0.05)
  grid <- MASS::boxcox(fit, plotit = FALSE)
  list(lambda = o$maximum, ci_lower = ci[1], ci_upper = ci[2],
       grid_lambda = grid$x, grid_loglik = grid$y,
       method = "optimize(tol=1e-12) and uniroot(tol=1e-13) on MASS::boxcox(fit, lambda=l, plotit=FALSE)$y")
}
car_fit <- function(fit, family) {
  pt <- powerTransform(fit, family = if (family == "boxcox") "bcPower" else "yjPower")
  list(lambda = unname(pt$lambda), se = unname(sqrt(diag(pt$invHess))),
       lr0 = testTransform(pt, 0)$LRT, lr1 = testTransform(pt, 1)$LRT)
}

mt <- mtcars; mt$mpg_c <- mt$mpg - 20
cw <- as.data.frame(ChickWeight)[, c("weight", "Time", "Diet")]
cw$Diet <- as.character(cw$Diet)
M <- function(name, dataset, data, r_formula, py_formula, families, mass = TRUE,
              car = TRUE, weights = NULL) {
  list(name = name, dataset = dataset, data = data, r_formula = r_formula,
       py_formula = py_formula, families = families, mass = mass, car = car,
       weights = weights)
}
models <- list(
  M("trees", "trees", trees, "Volume ~ log(Height) + log(Girth)",
    "Volume ~ np.log(Height) + np.log(Girth)", c("boxcox", "yeojohnson")),
  M("mtcars_wt_hp", "mtcars", mt, "mpg ~ wt + hp", "mpg ~ wt + hp", c("boxcox", "yeojohnson")),
  M("cars", "cars", cars, "dist ~ speed", "dist ~ speed", c("boxcox", "yeojohnson")),
  M("chickweight", "ChickWeight", cw, "weight ~ Time + Diet", "weight ~ Time + C(Diet)",
    c("boxcox", "yeojohnson")),
  M("mtcars_aliased", "mtcars", mt, "mpg ~ disp + hp + I(disp + hp)",
    "mpg ~ disp + hp + I(disp + hp)", c("boxcox", "yeojohnson")),
  M("cars_no_intercept", "cars", cars, "dist ~ speed - 1", "dist ~ speed - 1", "boxcox",
    car = FALSE),
  M("mtcars_centred_yj", "mtcars", mt, "mpg_c ~ wt + hp", "mpg_c ~ wt + hp", "yeojohnson",
    mass = FALSE),
  M("mtcars_weighted", "mtcars", mt, "mpg ~ wt", "mpg ~ wt", c("boxcox", "yeojohnson"),
    mass = FALSE, car = FALSE, weights = "disp")
)

out <- list()
for (m in models) {
  d <- m$data
  f <- as.formula(m$r_formula)
  w <- if (is.null(m$weights)) rep(1, nrow(d)) else d[[m$weights]]
  fit <- if (is.null(m$weights)) lm(f, data = d, y = TRUE, qr = TRUE) else
    lm(f, data = d, weights = w, y = TRUE, qr = TRUE)
  X <- model.matrix(fit); y <- fit$y
  vars <- all.vars(f); if (!is.null(m$weights)) vars <- c(vars, m$weights)
  cols <- lapply(vars, function(v) d[[v]]); names(cols) <- vars
  entry <- list(name = m$name, dataset = m$dataset, r_formula = m$r_formula,
                py_formula = m$py_formula, weights = m$weights, n = length(y),
                aliased = as.list(names(coef(fit))[is.na(coef(fit))]), data = cols,
                coef = unname(coef(fit)[!is.na(coef(fit))]))
  for (fam in m$families) {
    e <- list(tight = tight(X, y, w, fam))
    if (m$mass && fam == "boxcox") e$mass <- mass_tight(fit)
    if (m$car) e$car <- car_fit(fit, fam)
    if (!is.null(m$weights)) e$car_weighted_info <- car_fit(fit, fam)
    entry[[fam]] <- e
    cat(sprintf("%-20s %-10s tight=%.10f%s\n", m$name, fam, e$tight$lambda,
                if (!is.null(e$mass)) sprintf(" mass=%.10f", e$mass$lambda) else ""))
  }
  out[[m$name]] <- entry
}
meta <- list(R = R.version.string, MASS = as.character(packageVersion("MASS")),
             car = as.character(packageVersion("car")),
             generated_by = "tests/reference/mass_lm_reference.R",
             llf = "-n/2 (log(2 pi) + 1) - n/2 log(RSS_w(lambda)/n) + (lambda - 1) sum(logjac)")
writeLines(to_json(list(meta = meta, models = out)), "tests/reference/mass_lm_reference.json")
cat("wrote tests/reference/mass_lm_reference.json\n")

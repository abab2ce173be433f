# Reference values for bcnPower's GLOBAL maximum (Hawkins & Weisberg 2017), on car's own
# log-likelihood, for data where car's optimiser (and a local search) stops at a local maximum
# or where the likelihood has no maximum at all.
#
# Run from the repository root:
#     Rscript tests/reference/bcnpower_global_reference.R
# Writes tests/reference/bcnpower_global_reference.json (with the data).
#
# For each case the JSON stores
#   * "car":   car::powerTransform(family = "bcnPower") as it comes (car boxes lambda in
#              [-3, 3] and searches gamma in [0.01, max(y)], from bcn.sv's start);
#   * "tight": the global optimum of car's own bcnPowerllik, found here independently of
#              boxcoxstat: the profile over gamma (lambda maximised by optimize at each gamma)
#              on a grid of log(gamma) with step 0.05 from log(0.1) to log(1e4 max|y|), the best
#              grid point polished by optimize on log(gamma) (tol 1e-13) with lambda by
#              optimize (tol 1e-13) inside, and compared with the limit gamma -> Inf.
#   * "limit": the limit gamma -> Inf. With a = asinh(y / gamma) the base is exactly
#              (gamma/2) exp(a), so at lambda = kappa * gamma car's llik tends to that of
#              Manly's exponential transformation (exp(kappa y) - 1)/kappa with Jacobian
#              exp(kappa y); at fixed lambda (kappa = 0) to the untransformed y's. Maximised
#              over kappa by optimize (tol 1e-13); "check" is car's llik at
#              (kappa * gamma, gamma) for gamma = 1e5 max|y|, which must approach it.
#   * profiles in lambda (gamma maximised out, the limit gamma -> Inf included) at 0 and 1,
#     and the LR statistics against the supremum.

suppressPackageStartupMessages(library(car))

local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
  assign("HERE", here, envir = globalenv())
})

GAMMA_MIN <- 0.1
STEP <- 0.05

# car's bcnPowerllik, evaluated by car itself ...
llik_car <- function(y, xqr, lambda, gamma) {
  car:::bcnPowerllik(NULL, matrix(y, ncol = 1), NULL, lambda = lambda, gamma = gamma,
                     xqr = xqr)$llik
}
# ... and the same function in a form that does not overflow where lambda and gamma are large
# (car forms b^lambda). With a = asinh(y/gamma), log b = log(gamma/2) + a exactly; with
# d = a - median(a), the Box-Cox values are exp(lambda median(log b)) expm1(lambda d)/lambda
# plus a constant, which the intercept absorbs, so
#   llik = -(n/2) log(RSS(expm1(lambda d)/lambda)/n) + lambda sum(d) - sum(log s),
# s = sqrt(y^2 + gamma^2). Where lambda d is large, exp(lambda d - M) (M its largest value)
# replaces expm1, with 2 (M - log|lambda|) added to log RSS. Checked against llik_car where
# car's is finite ("stable_check" in the JSON).
llik <- function(y, xqr, lambda, gamma) {
  n <- length(y)
  a <- asinh(y / gamma)
  d <- a - median(a)
  r <- abs(y / gamma)
  log_s <- ifelse(r <= 1, log(gamma) + 0.5 * log1p(r^2), log(abs(y)) + 0.5 * log1p(1 / r^2))
  ld <- lambda * d
  if (lambda == 0) {
    lrss <- log(sum(qr.resid(xqr, d)^2))
  } else if (max(abs(ld)) < 50) {
    lrss <- log(sum(qr.resid(xqr, expm1(ld) / lambda)^2))
  } else {
    m <- max(ld)
    lrss <- 2 * (m - log(abs(lambda))) + log(sum(qr.resid(xqr, exp(ld - m))^2))
  }
  -(n / 2) * (lrss - log(n)) + lambda * sum(d) - sum(log_s)
}

# lambda maximised at fixed gamma: optimize on an interval around a guess, widened until the
# maximum is inside
lambda_hat <- function(y, xqr, gamma, guess = 0) {
  w <- 3 + abs(guess)
  repeat {
    o <- optimize(function(l) -llik(y, xqr, l, gamma), guess + c(-w, w), tol = 1e-13)
    if (abs(o$minimum - guess) < 0.95 * w) break
    guess <- o$minimum
    w <- 2 * w
  }
  list(lambda = o$minimum, llik = -o$objective)
}

# Manly's exponential family: the limit gamma -> Inf
manly_llik <- function(y, xqr, kappa) {
  u <- y - median(y)
  z <- if (kappa == 0) u else expm1(kappa * u) / kappa
  n <- length(y)
  -(n / 2) * log(sum(qr.resid(xqr, z)^2) / n) + kappa * sum(u)
}
manly_max <- function(y, xqr) {
  c <- max(abs(y - median(y)))
  o <- optimize(function(k) -manly_llik(y, xqr, k), c(-60, 60) / c, tol = 1e-13)
  list(kappa = o$minimum, llik = -o$objective, llik0 = manly_llik(y, xqr, 0))
}

# gamma maximised out at fixed lambda (global: grid in log gamma, then optimize around the
# best point), the limit gamma -> Inf (the untransformed y) included
profile_lambda <- function(y, xqr, lambda) {
  top <- log(1e6 * max(abs(y)) * max(1, abs(lambda)))
  t <- seq(log(GAMMA_MIN), top, by = STEP)
  v <- sapply(t, function(tt) llik(y, xqr, lambda, exp(tt)))
  k <- which.max(v)
  lo <- t[max(k - 1, 1)]
  hi <- t[min(k + 1, length(t))]
  o <- optimize(function(tt) -llik(y, xqr, lambda, exp(tt)), c(lo, hi), tol = 1e-13)
  best <- max(-o$objective, v[k])
  limit0 <- manly_llik(y, xqr, 0)
  list(llik = max(best, limit0), gamma = if (limit0 > best) Inf else exp(o$minimum))
}

global_fit <- function(y, xqr) {
  t <- seq(log(GAMMA_MIN), log(1e4 * max(abs(y))), by = STEP)
  fits <- vector("list", length(t))
  guess <- 0
  for (i in seq_along(t)) {
    fits[[i]] <- lambda_hat(y, xqr, exp(t[i]), guess)
    guess <- fits[[i]]$lambda
  }
  prof <- sapply(fits, function(f) f$llik)
  # interior local maxima of the gamma-profile, each polished
  loc <- which(diff(sign(diff(prof))) < 0) + 1
  if (prof[1] > prof[2]) loc <- c(1, loc)
  polished <- lapply(loc, function(k) {
    if (k == 1) {
      f <- lambda_hat(y, xqr, GAMMA_MIN, fits[[1]]$lambda)
      return(list(lambda = f$lambda, gamma = GAMMA_MIN, llik = f$llik))
    }
    g0 <- fits[[k]]$lambda
    o <- optimize(function(tt) -lambda_hat(y, xqr, exp(tt), g0)$llik, t[c(k - 1, k + 1)],
                  tol = 1e-13)
    f <- lambda_hat(y, xqr, exp(o$minimum), g0)
    list(lambda = f$lambda, gamma = exp(o$minimum), llik = f$llik)
  })
  list(locals = polished, grid_top_llik = prof[length(prof)])
}

bcn_case <- function(name, y, X, description) {
  xqr <- qr(X)
  n <- length(y)
  pt <- tryCatch({
    p <- if (ncol(X) == 1) powerTransform(y ~ 1, family = "bcnPower") else
      powerTransform(lm(y ~ X - 1), family = "bcnPower")
    list(lambda = unname(p$lambda), gamma = unname(p$gamma), llik = p$llik)
  }, error = function(e) list(error = conditionMessage(e)))
  g <- global_fit(y, xqr)
  lim <- manly_max(y, xqr)
  gbig <- 1e5 * max(abs(y))
  check <- llik(y, xqr, lim$kappa * gbig, gbig)
  best <- if (length(g$locals)) g$locals[[which.max(sapply(g$locals, function(f) f$llik))]] else
    list(lambda = NA, gamma = NA, llik = -Inf)
  at_limit <- lim$llik > best$llik
  sup <- max(lim$llik, best$llik)
  p0 <- profile_lambda(y, xqr, 0)
  p1 <- profile_lambda(y, xqr, 1)
  tight <- list(
    status = if (at_limit) "infinite" else "estimated",
    sup_llik = sup, sup_llf = sup - n / 2 * (log(2 * pi) + 1),
    locals = g$locals,
    lr0 = 2 * (sup - p0$llik), lr1 = 2 * (sup - p1$llik),
    profile0_llik = p0$llik, profile1_llik = p1$llik
  )
  if (!at_limit) {
    tight$lambda <- best$lambda
    tight$gamma <- best$gamma
    tight$llik <- best$llik
  }
  pts <- list(c(0.5, 0.5), c(1, 2), c(-0.5, 0.3), c(2, 20))
  if (length(g$locals)) pts <- c(pts, list(c(best$lambda, best$gamma)))
  stable_check <- max(sapply(pts, function(p) abs(llik(y, xqr, p[1], p[2]) -
                                                   llik_car(y, xqr, p[1], p[2]))))
  tight$llik_at <- lapply(pts, function(p) list(lambda = p[1], gamma = p[2],
                                                llik = llik_car(y, xqr, p[1], p[2])))
  list(description = description, n = n, y = y, X = unname(X), car = pt, tight = tight,
       stable_check = stable_check,
       limit = list(kappa = lim$kappa, llik = lim$llik, llik_untransformed = lim$llik0,
                    check_gamma = gbig, check_llik = check))
}
DATA <- list(
  global_small_gamma = c(8.348, 7.697, 8.168, 8.15, 7.793, 7.974, 7.956, 7.899, 7.623, 8.141, 7.429, 8.63, 7.364, 8.312, 7.942, 8.012, 7.711, 7.579, 7.742, 7.877, 7.265, 7.251, 7.994, 7.598, -327.287, -0.036, -1.18, -4.048, -134.074, -0.685, 0.066, 0.055, -437.586, -71.538, -1.464, -79.207, -0.379, -55.357, -6.405, 0.063, -30.416, -0.228, -0.258, -6.377, 0.066, -38.734, -0.014, -1.128, -3.054, -0.147, -2.258, -8.812, -5.003, -78.252, -13.884, 0.066, -3.715, -90.19, -0.26, -0.057, -0.49, -11.301, 0.003, -3.357, -4.088, -27.357, 0.002, -8.12, -0.083, -1.125, -293.396, -3.206, -0.16, 0.055, 0.055, -1.466, -62.79, 0.059, -0.064),
  limit_after_local = c(0.677, 0.227, 0.395, 0.165, 0.315, 0.399, 0.26, 0.315, 0.376, 0.465, 0.439, 0.517, 0.367, 0.367, 0.211, 0.456, 0.649, 0.368, 0.137, 0.466, 0.526, 0.218, 0.144, 0.383, -3.606, -3.241, -3.19, -3.058, -3.355, -4.508, -2.767, -3.296, -3.161, -5.011, -3.478, -3.244, -3.311, -3.313),
  runaway = c(0.668, 0.345, 1.255, 0.642, -0.206, 0.946, 1.924, 1.575, -0.455, -1.389, -0.334, 0.564, -3.84, 0.232, -1.353, -0.498, -0.218, 0.101, 1.003, 1.671, 0.35, 1.982, -0.396, 0.934, 1.531, 0.629, -0.515, -0.797, -0.095, 0.781, -0.942, 0.244, 0.31, 1.147, 0.774, 0.939, -0.379, 0.348, 1.408, 2.099, -1.377, 2.118, 1.963, 1.405, 0.833, 0.104, 2.067, 2.507, 2.372, 1.934, 0.941, -1.285, 0.507, 1.273, -1.431, 0.984, 1.023, 1.315, -1.242, -0.391),
  lm_y = c(-0.915, -1.961, -0.148, -3.327, -1.037, -2.472, -1.127, -3.217, -1.554, -1.129, -1.306, -3.34, -0.947, -1.241, -1.312, -1.259, -0.821, -0.148, -4.459, -1.924, -2.72, -1.972, -2.283, -3.834, -1.558, -0.55, -3.016, -0.107, -3.296, -3.444, -3.345, -2.811, -1.191, -2.802, -3.098, -1.173, -1.268, -1.416, -2.102, -2.311, -1.121, -1.239, -3.553, -2.388, -1.822, -2.806, -2.955, -0.205, -1.21, -2.179, -2.345, -2.848, -0.729, -1.861, -0.697, -3.07, -2.853, -1.792, -0.554, -3.225),
  lm_x = c(3.77, 2.05, 3.9, 0.32, 2.43, 1.51, 3.21, 0.7, 3.49, 2.18, 3.61, 1.91, 1.72, 3.16, 3.94, 1.48, 3.88, 3.72, 0.71, 2.44, 2.82, 3.77, 2.66, 0.53, 1.99, 1.97, 2, 3.83, 1.4, 0.9, 2.09, 2.56, 3.76, 2.33, 1.07, 3.72, 1.97, 2.7, 1.9, 0.87, 2.77, 3.08, 0.76, 1.84, 1.45, 0.68, 0.89, 3.85, 3.54, 1.53, 2.96, 0.17, 3.66, 2.15, 3.28, 1.1, 1.5, 1.39, 3.89, 1.72)
)

cases <- list(
  global_small_gamma = bcn_case("global_small_gamma", DATA$global_small_gamma,
    matrix(1, length(DATA$global_small_gamma), 1),
    "79 values, mixed signs, two local maxima: the global one at small gamma"),
  limit_after_local = bcn_case("limit_after_local", DATA$limit_after_local,
    matrix(1, length(DATA$limit_after_local), 1),
    "38 values: a local maximum at gamma ~ 0.9, the supremum at gamma -> Inf"),
  runaway = bcn_case("runaway", DATA$runaway, matrix(1, length(DATA$runaway), 1),
    "60 values 5 log(z) - 11, z ~ N(10, 2.5): the supremum at gamma -> Inf (Manly)"),
  lm_x = bcn_case("lm_x", DATA$lm_y, cbind(1, DATA$lm_x),
    "60 rows, y ~ x, y = 5 log(10 + 3x + e) - 16")
)
cases$lm_x$x <- DATA$lm_x

# ---------------------------------------------------------------------------
# Mroz cbind(lwg, inc): the LR tests with both gammas maximised out GLOBALLY (a grid in
# log gamma for both columns, each column's limit gamma -> Inf, i.e. the untransformed column,
# included), against the tight maximum of car_toolbox_reference.json
# ---------------------------------------------------------------------------
mroz <- carData::Mroz
Y <- cbind(lwg = mroz$lwg, inc = mroz$inc)
n <- nrow(Y)
xqr2 <- qr(matrix(1, n, 1))
# car's bcnPowerllik with column j untransformed where gamma[j] is Inf (its limit)
llik2 <- function(lambda, gamma) {
  Z <- sapply(1:2, function(j) {
    if (is.infinite(gamma[j])) Y[, j] else
      bcnPower(Y[, j], lambda[j], jacobian.adjusted = TRUE, gamma = gamma[j])
  })
  -(n / 2) * log(((n - 1) / n) * det(var(qr.resid(xqr2, Z))))
}
lr_global <- function(l0, llmax) {
  t <- c(seq(log(GAMMA_MIN), log(1e3 * max(abs(Y))), by = 0.25), Inf)
  best <- -Inf
  arg <- NULL
  for (a in t) for (b in t) {
    v <- llik2(l0, exp(c(a, b)))
    if (v > best) { best <- v; arg <- c(a, b) }
  }
  fin <- is.finite(arg)
  if (any(fin)) {
    f <- function(p) { tt <- arg; tt[fin] <- p; -llik2(l0, exp(tt)) }
    o <- optim(arg[fin], f, method = if (sum(fin) > 1) "BFGS" else "Brent",
               lower = if (sum(fin) > 1) -Inf else arg[fin] - 1,
               upper = if (sum(fin) > 1) Inf else arg[fin] + 1,
               control = list(reltol = 1e-16, maxit = 2000))
    if (sum(fin) > 1)  # a second pass from the first's end
      o <- optim(o$par, f, method = "BFGS", control = list(reltol = 1e-16, maxit = 2000))
    if (-o$value > best) { best <- -o$value; arg[fin] <- o$par }
  }
  list(lr = 2 * (llmax - best), gamma = exp(arg), llik = best)
}
# the tight 2-D maximum of car_toolbox_reference.R (recomputed: same code, same data)
f4 <- function(p) -llik2(p[1:2], pmax(p[3:4], GAMMA_MIN))
o <- optim(c(0.69, -0.80, 0.67, 23.0), f4, method = "BFGS",
           control = list(reltol = 1e-16, ndeps = rep(1e-6, 4), maxit = 2000))
llmax <- -o$value
mroz2 <- list(llmax = llmax, lambda = o$par[1:2], gamma = o$par[3:4],
              lr0 = lr_global(c(0, 0), llmax), lr1 = lr_global(c(1, 1), llmax))
mroz2$lr0$gamma <- ifelse(is.finite(mroz2$lr0$gamma), mroz2$lr0$gamma, -1)
mroz2$lr1$gamma <- ifelse(is.finite(mroz2$lr1$gamma), mroz2$lr1$gamma, -1)

out <- list(
  generated_by = "tests/reference/bcnpower_global_reference.R",
  r_version = R.version.string,
  car_version = as.character(packageVersion("car")),
  gamma_min = GAMMA_MIN,
  cases = cases,
  mroz_lwg_inc = mroz2,
  note_gamma = "gamma = -1 stands for Inf (the column untransformed: its limit)"
)
writeLines(to_json(out), file.path(HERE, "bcnpower_global_reference.json"))
cat("wrote", file.path(HERE, "bcnpower_global_reference.json"), "\n")

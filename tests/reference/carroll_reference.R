# Reference values for Carroll's (1980) robust transformation estimator, written
# independently of boxcoxstat (base R and MASS only), for boxcoxstat's tests.
#
# Run (from any directory):
#     Rscript tests/reference/carroll_reference.R
# Writes carroll_reference.json next to this script.
#
# The estimator (Carroll 1980; Raymaekers & Rousseeuw 2021, section 2.5): replace the normal
# log-likelihood of the transformed data by that of Huber's least favourable distribution,
#     l(lambda) = -n log s - sum rho((T_lambda(x_i) - mu)/s) + sum log T'_lambda(x_i),
# rho(t) = t^2/2 for |t| <= 1.5 and 1.5 |t| - 1.5^2/2 beyond, with (mu, s) Huber's
# proposal 2 (k = 1.5) of the transformed values: MASS::hubers' equations (n - 1 and
# MASS's beta), iterated here to convergence (MASS stops after 30 steps). The maximiser is
# located on a grid of 2001 points of [-4, 6] and refined by optimize() to 1e-12.

suppressPackageStartupMessages(library(MASS))

file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
source(file.path(here, "common.R"), local = globalenv())

K <- 1.5
TH <- 2 * pnorm(K) - 1
BETA <- TH + K^2 * (1 - TH) - 2 * K * dnorm(K)

hubers_converged <- function(y, maxit = 100000L, tol = 1e-15) {
  n <- length(y)
  mu0 <- median(y)
  s0 <- mad(y)
  for (i in seq_len(maxit)) {
    yy <- pmin(pmax(mu0 - K * s0, y), mu0 + K * s0)
    mu1 <- sum(yy) / n
    s1 <- sqrt(sum((yy - mu1)^2) / (n - 1) / BETA)
    if (abs(mu0 - mu1) <= tol * s0 && abs(s0 - s1) <= tol * s0) break
    mu0 <- mu1
    s0 <- s1
  }
  list(mu = mu1, s = s1, iterations = i)
}

bc <- function(x, l) if (l == 0) log(x) else (x^l - 1) / l
yj <- function(x, l) {
  out <- numeric(length(x))
  p <- x >= 0
  out[p] <- if (l == 0) log1p(x[p]) else ((1 + x[p])^l - 1) / l
  out[!p] <- if (l == 2) -log1p(-x[!p]) else -((1 - x[!p])^(2 - l) - 1) / (2 - l)
  out
}
logjac <- function(x, l, type) {
  if (type == "BC") (l - 1) * log(x) else (l - 1) * sign(x) * log1p(abs(x))
}
rho <- function(t) ifelse(abs(t) <= K, t^2 / 2, K * abs(t) - K^2 / 2)

carroll_loglik <- function(l, x, type) {
  y <- if (type == "BC") bc(x, l) else yj(x, l)
  h <- hubers_converged(y)
  -length(x) * log(h$s) - sum(rho((y - h$mu) / h$s)) + sum(logjac(x, l, type))
}

carroll_lambda <- function(x, type) {
  grid <- seq(-4, 6, length.out = 2001)
  vals <- vapply(grid, carroll_loglik, numeric(1), x = x, type = type)
  b <- which.max(vals)
  lo <- grid[max(b - 1, 1)]
  hi <- grid[min(b + 1, length(grid))]
  opt <- optimize(carroll_loglik, c(lo, hi), x = x, type = type, maximum = TRUE,
                  tol = 1e-12)
  opt$maximum
}

qn <- function(n) qnorm((seq_len(n) - 0.5) / n)
yj_inv <- function(y, l) {
  out <- numeric(length(y))
  p <- y >= 0
  out[p] <- if (l == 0) expm1(y[p]) else (1 + l * y[p])^(1 / l) - 1
  out[!p] <- if (l == 2) -expm1(-y[!p]) else 1 - (1 - (2 - l) * y[!p])^(1 / (2 - l))
  out
}

make <- list(
  yj_normal_plus_6 = list(type = "YJ",
    definition = "qnorm(i/100), i = 1..99, and the point 6 (the sensitivity curve's X_z)",
    x = c(qnorm(seq_len(99) / 100), 6)),
  yj_half_10pct_at_10 = list(type = "YJ",
    definition = "YJ inverse at lambda 0.5 of qnorm((i - 0.5)/100), i = 11..100, and 10 times 10",
    x = yj_inv(c(rep(10, 10), qn(100)[11:100]), 0.5)),
  yj_threehalves_clean = list(type = "YJ",
    definition = "YJ inverse at lambda 1.5 of qnorm((i - 0.5)/80)",
    x = yj_inv(qn(80), 1.5)),
  bc_lognormal_10pct_at_e6 = list(type = "BC",
    definition = "exp(qnorm((i - 0.5)/100)), i = 11..100, and 10 times exp(6)",
    x = exp(c(rep(6, 10), qn(100)[11:100]))),
  bc_T1 = list(type = "BC",
    definition = "RewML_SPEC T1: exp(qnorm((i - 0.5)/40)), then x[38:40] <- c(50, 80, 120)",
    x = { x <- exp(qn(40)); x[38:40] <- c(50, 80, 120); x }),
  yj_T2 = list(type = "YJ",
    definition = "RewML_SPEC T2: qnorm((i - 0.5)/60), then x[1:4] <- -10",
    x = { x <- qn(60); x[1:4] <- -10; x })
)

LAMBDAS <- c(-1, 0, 0.5, 1, 1.7, 3)
cases <- lapply(names(make), function(nm) {
  m <- make[[nm]]
  lam <- carroll_lambda(m$x, m$type)
  y <- if (m$type == "BC") bc(m$x, lam) else yj(m$x, lam)
  h <- hubers_converged(y)
  list(name = nm, type = m$type, definition = m$definition, x = m$x, lambda = lam,
       mu = h$mu, s = h$s,
       loglik_lambdas = LAMBDAS,
       loglik = vapply(LAMBDAS, carroll_loglik, numeric(1), x = m$x, type = m$type))
})

# MASS::hubers (30 steps, tol 1e-6 of s) agrees with the converged proposal 2 on these
# transformed values, which checks that the equations are MASS's
mass_check <- lapply(cases, function(cs) {
  y <- if (cs$type == "BC") bc(cs$x, cs$lambda) else yj(cs$x, cs$lambda)
  m <- hubers(y)
  list(name = cs$name, mass_mu = m$mu, mass_s = m$s)
})

out <- list(
  meta = list(
    R = R.version.string,
    MASS = as.character(packageVersion("MASS")),
    generated_by = "tests/reference/carroll_reference.R",
    estimator = paste("argmax of -n log s - sum rho((T(x) - mu)/s) + sum log T'(x), rho",
                      "Huber's (k = 1.5), (mu, s) Huber's proposal 2 as MASS::hubers",
                      "(n - 1, beta = E min(Z^2, k^2)) iterated to 1e-15; grid of 2001",
                      "points on [-4, 6], then optimize(tol = 1e-12)"),
    beta = BETA
  ),
  cases = cases,
  mass_check = mass_check
)
outfile <- file.path(here, "carroll_reference.json")
writeLines(to_json(out), outfile)
cat("wrote", outfile, "with", length(cases), "cases\n")

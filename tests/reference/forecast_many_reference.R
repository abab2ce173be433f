# Reference values from R's forecast for boxcoxstat's many-series lambda: bcs.guerrero on a
# DataFrame of series (issue 31 item 3).
#
# Run from the repository root:
#     Rscript tests/reference/forecast_many_reference.R
# Writes tests/reference/forecast_many_reference.json with the series themselves (simulated
# here with a fixed seed), so the tests need no R. Needs the Debian package r-cran-forecast.
#
# 40 monthly series of 120 values (level times a seasonal wave times noise, with trends and
# variance patterns from additive to multiplicative), and 6 quarterly series of 30 values.
# For each series:
# - "guerrero": forecast's own guer.cv minimised by optimize(tol = 1e-12) on [-1, 2], and what
#   BoxCox.lambda returns with its defaults;
# - "loglik": forecast's loglik objective (tslm trend + season, as in bcloglik) maximised
#   tightly: its analytic derivative in lambda (the residuals of the transformed series and of
#   its derivative, from the same QR) solved by uniroot(tol = 1e-14), an end where the
#   derivative points outwards; optimize(tol = 1e-12) on the objective itself for comparison
#   (it resolves lambda only to about 1e-6 on a flat likelihood).

suppressPackageStartupMessages(library(forecast))

local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
  assign("HERE", here, envir = globalenv())
})

guer_cv <- forecast:::guer.cv

# h(a) = ((a - 1) e^a + 1) / a^2, so that d/dlambda (x^lambda - 1)/lambda = (log x)^2 h(lambda log x)
h_fun <- function(a) {
  out <- ((a - 1) * exp(a) + 1) / a^2
  small <- abs(a) < 1e-2
  s <- a[small]
  out[small] <- 1 / 2 + s / 3 + s^2 / 8 + s^3 / 30 + s^4 / 144 + s^5 / 840
  out
}

loglik_parts <- function(x) {
  n <- length(x)
  logx <- log(x)
  lg <- mean(logx)  # log of forecast's xdot
  fit <- if (frequency(x) > 1) tslm(x ~ trend + season, data = data.frame(x = x)) else
    tslm(x ~ trend, data = data.frame(x = x))
  xqr <- fit$qr
  z <- function(la) {  # forecast's scaled transform, (x^la - 1)/la / xdot^(la - 1)
    xt <- if (abs(la) > 1e-12) expm1(la * logx) / la else logx
    xt * exp(-(la - 1) * lg)
  }
  dz <- function(la) {
    dxt <- logx^2 * h_fun(la * logx)
    (dxt - (if (abs(la) > 1e-12) expm1(la * logx) / la else logx) * lg) * exp(-(la - 1) * lg)
  }
  ll <- function(la) -n / 2 * log(sum(qr.resid(xqr, z(la))^2))
  score <- function(la) {
    r <- qr.resid(xqr, z(la))
    rd <- qr.resid(xqr, dz(la))
    -n * sum(r * rd) / sum(r * r)
  }
  list(ll = ll, score = score)
}

series_case <- function(x, lower = -1, upper = 2) {
  cv <- function(l) guer_cv(l, x)
  o <- optimize(cv, c(lower, upper), tol = 1e-12)
  p <- loglik_parts(x)
  s_lo <- p$score(lower)
  s_hi <- p$score(upper)
  root <- if (s_lo <= 0) lower else if (s_hi >= 0) upper else
    uniroot(p$score, c(lower, upper), f.lower = s_lo, f.upper = s_hi, tol = 1e-14,
            maxiter = 1000)$root
  ol <- optimize(function(l) -p$ll(l), c(lower, upper), tol = 1e-12)
  list(
    x = as.numeric(x),
    guerrero = o$minimum, guerrero_cv = o$objective,
    guerrero_forecast = BoxCox.lambda(x, "guerrero", lower, upper),
    loglik = root, loglik_optimize = ol$minimum,
    loglik_forecast = BoxCox.lambda(x, "loglik", lower, upper)
  )
}

set.seed(20261127)
one_monthly <- function() {
  t <- 1:120
  power <- runif(1, -0.5, 1.5)         # the variance-stabilising power the data are built for
  level <- 20 + runif(1, 0, 3) * t + runif(1, 0, 40) * (t / 120)^2
  wave <- runif(1, 0.05, 0.4) * sin(2 * pi * t / 12 + runif(1, 0, 2 * pi))
  eps <- rnorm(120, 0, runif(1, 0.02, 0.12))
  # on the transformed scale level + season + noise; back to the data scale
  y <- if (abs(power) < 1e-8) log(level) else (level^power - 1) / power
  sdy <- sd(y)
  yt <- y + sdy * (wave + eps)
  x <- if (abs(power) < 1e-8) exp(yt) else (1 + power * yt)^(1 / power)
  ts(x, frequency = 12, start = c(2010, 1))
}
monthly <- list()
while (length(monthly) < 40) {  # a draw whose back-transform leaves the positive values is skipped
  x <- suppressWarnings(one_monthly())
  if (all(is.finite(x)) && all(x > 0)) monthly[[length(monthly) + 1]] <- x
}
quarterly <- lapply(seq_len(6), function(i) {
  t <- 1:30
  x <- exp(2 + runif(1, 0, 0.05) * t + runif(1, 0.05, 0.3) * cos(pi * t / 2) +
             rnorm(30, 0, 0.05)) + runif(1, 0, 5)
  ts(x, frequency = 4, start = c(2000, 1))
})

out <- list(
  generated_by = "tests/reference/forecast_many_reference.R",
  r_version = R.version.string,
  forecast_version = as.character(packageVersion("forecast")),
  lower = -1.0, upper = 2.0,
  monthly = lapply(monthly, series_case),
  quarterly = lapply(quarterly, series_case)
)
writeLines(to_json(out), file.path(HERE, "forecast_many_reference.json"))
cat("wrote", file.path(HERE, "forecast_many_reference.json"), "\n")

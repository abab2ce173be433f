# Reference values from R's forecast for guerrero(bounds=(lo, hi)): BoxCox.lambda(x, method,
# lower = lo, upper = hi) (issue 30, item 3), with the same objectives optimised tightly on
# [lo, hi] (optimize(tol = 1e-10)).
#
# Run from the repository root:
#     Rscript tests/reference/forecast_bounds_reference.R
# Writes tests/reference/forecast_bounds_reference.json (the series included). Needs
# r-cran-forecast.

suppressPackageStartupMessages(library(forecast))

local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
  assign("HERE", here, envir = globalenv())
})

guer_cv <- forecast:::guer.cv

loglik_fun <- function(x) {
  n <- length(x)
  logx <- log(x)
  xdot <- exp(mean(logx))
  fit <- if (frequency(x) > 1) tslm(x ~ trend + season, data = data.frame(x = x)) else
    tslm(x ~ trend, data = data.frame(x = x))
  xqr <- fit$qr
  function(la) {
    xt <- if (abs(la) > 1e-12) (x^la - 1) / la else logx
    -n / 2 * log(sum(qr.resid(xqr, xt / xdot^(la - 1))^2))
  }
}

bounded_case <- function(x, lower, upper, description) {
  o <- optimize(function(l) guer_cv(l, x), c(lower, upper), tol = 1e-10)
  ll <- loglik_fun(x)
  ol <- optimize(function(l) -ll(l), c(lower, upper), tol = 1e-10)
  list(description = description, x = as.numeric(x), frequency = frequency(x),
       lower = lower, upper = upper,
       forecast = list(guerrero = BoxCox.lambda(x, "guerrero", lower, upper),
                       loglik = BoxCox.lambda(x, "loglik", lower, upper)),
       tight = list(guerrero = o$minimum, loglik = ol$minimum))
}

cases <- list(
  # free Guerrero lambda about -0.29: bounds above it make the lower bound the answer
  airpassengers_0_1 = bounded_case(AirPassengers, 0, 1, "AirPassengers on [0, 1]"),
  airpassengers_m05_05 = bounded_case(AirPassengers, -0.5, 0.5,
                                      "AirPassengers on [-0.5, 0.5] (interior)"),
  ukgas_m1_0 = bounded_case(UKgas, -1, 0, "UKgas on [-1, 0]"),
  lynx_05_15 = bounded_case(lynx, 0.5, 1.5, "lynx on [0.5, 1.5]")
)

out <- list(R = R.version.string, forecast = as.character(packageVersion("forecast")),
            cases = cases)
writeLines(to_json(out), file.path(HERE, "forecast_bounds_reference.json"))

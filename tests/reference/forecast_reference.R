# Reference values from R's forecast for boxcoxstat's time-series lambda: BoxCox.lambda
# (method = "guerrero" | "loglik"; Guerrero 1993) and InvBoxCox(biasadj = TRUE).
#
# Run from the repository root:
#     Rscript tests/reference/forecast_reference.R
# Writes tests/reference/forecast_reference.json with the series themselves (R's datasets,
# GPL), so the tests need no R. Needs the Debian package r-cran-forecast.
#
# For every series the JSON stores what BoxCox.lambda returns with its defaults ("forecast")
# and the same objectives optimised tightly here ("tight"): forecast's own guer.cv minimised
# by optimize(tol = 1e-10), and forecast's loglik (tslm trend + season) maximised by
# optimize(tol = 1e-10) instead of forecast's grid of step 0.05.

suppressPackageStartupMessages(library(forecast))

local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
  assign("HERE", here, envir = globalenv())
})

guer_cv <- forecast:::guer.cv

# forecast's bcloglik objective, as a function of lambda (the same regression: tslm with
# trend + season for a seasonal ts, trend for frequency 1)
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

series_case <- function(x, description, lower = -1, upper = 2) {
  cv <- function(l) guer_cv(l, x)
  o <- optimize(cv, c(lower, upper), tol = 1e-10)
  ll <- loglik_fun(x)
  ol <- optimize(function(l) -ll(l), c(lower, upper), tol = 1e-10)
  grid <- c(-1, -0.5, 0, 0.5, 1, 1.5)
  list(
    description = description,
    x = as.numeric(x), frequency = frequency(x), start = as.numeric(start(x)),
    lower = lower, upper = upper,
    forecast = list(guerrero = BoxCox.lambda(x, "guerrero", lower, upper),
                    loglik = BoxCox.lambda(x, "loglik", lower, upper)),
    tight = list(guerrero = o$minimum, guerrero_cv = o$objective,
                 loglik = ol$minimum, loglik_value = -ol$objective,
                 cv_at = lapply(grid, function(l) list(lambda = l, cv = cv(l))),
                 loglik_at = lapply(grid, function(l) list(lambda = l, loglik = ll(l))))
  )
}

cases <- list(
  airpassengers = series_case(AirPassengers, "AirPassengers (monthly, frequency 12)"),
  ukgas = series_case(UKgas, "UKgas (quarterly, frequency 4)"),
  lynx = series_case(lynx, "lynx (annual, frequency 1: subseries of length 2)"),
  # 140 values: 11 whole years, the 8 leading months dropped by guer.cv
  airpassengers_may = series_case(window(AirPassengers, start = c(1949, 5)),
                                  "AirPassengers from May 1949 (140 months; 8 dropped)"),
  # the criterion falls towards the lower end: the minimum is at the bound -2
  usaccdeaths = series_case(USAccDeaths, "USAccDeaths (monthly; minimum at the lower bound)",
                            lower = -2, upper = 3),
  # frequency 1 (subseries of length 2): one of the 50 pairs holds two equal values, so its
  # sd and ratio are 0; guer.cv keeps it (forecast returns 0.99889)
  nile = series_case(Nile, "Nile (annual, frequency 1: pairs, one with two equal values)"),
  # a seasonal series with one constant year (its ratio is 0 at every lambda, and kept)
  ukgas_flat_year = series_case(local({x <- UKgas; x[5:8] <- 120.4; x}),
                                "UKgas with its second year set to 120.4 (a constant subseries)")
)

# InvBoxCox with forecast's bias adjustment (fvar: the forecast variance on the transformed
# scale)
z <- c(4.5, 5.0, 6.2)
fvar <- c(0.01, 0.04, 0.09)
inv <- list(
  z = z, fvar = fvar,
  lambda0 = list(lambda = 0, median = InvBoxCox(z, 0),
                 mean = InvBoxCox(z, 0, biasadj = TRUE, fvar = fvar)),
  lambda_half = list(lambda = 0.5, median = InvBoxCox(z, 0.5),
                     mean = InvBoxCox(z, 0.5, biasadj = TRUE, fvar = fvar)),
  lambda_neg = list(lambda = -0.3, z = c(1.2, 2.0, 3.0),
                    median = InvBoxCox(c(1.2, 2.0, 3.0), -0.3),
                    mean = InvBoxCox(c(1.2, 2.0, 3.0), -0.3, biasadj = TRUE, fvar = fvar)),
  # a value beyond -1/lambda = 3.33 has no inverse: InvBoxCox gives NA there (the JSON keeps
  # the other values and the NA positions, 0-based)
  lambda_neg_outside = local({
    zo <- c(1.2, 4.0, 3.0)
    med <- InvBoxCox(zo, -0.3)
    list(lambda = -0.3, z = zo, median_finite = med[!is.na(med)],
         na_positions = as.integer(which(is.na(med)) - 1L))
  })
)

out <- list(
  generated_by = "tests/reference/forecast_reference.R",
  r_version = R.version.string,
  forecast_version = as.character(packageVersion("forecast")),
  series = cases, inv_boxcox = inv
)
writeLines(to_json(out), file.path(HERE, "forecast_reference.json"))
cat("wrote", file.path(HERE, "forecast_reference.json"), "\n")

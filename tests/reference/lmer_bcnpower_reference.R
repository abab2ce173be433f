# Reference values for bcs.lmer(..., family="bcnpower"): car::powerTransform(lmer(...),
# family = "bcnPower") (car:::estimateTransform.bcnPowerlmer), and a tight optimum of the
# same objective.
#
# Run from the repository root:
#     Rscript tests/reference/lmer_bcnpower_reference.R
# Writes tests/reference/lmer_bcnpower_reference.json (with the data of every case).
#
# car's objective: at (lambda, gamma) the response is replaced by
# bcnPower(y, lambda, gamma, jacobian.adjusted = TRUE) and the lmer model refitted (REML or ML,
# as fitted); its logLik is the objective. car maximises it by alternating optimize() in
# lambda (on [-3, 3]) and in gamma (on [gamma.min / 2, max(y)]) until the log-likelihood
# changes by less than 1e-3 relative, with gamma at gamma.min = 0.1 when it falls below 0.15.
# For each case in "cases" the JSON stores
#   * "car":   what powerTransform returns: lambda, gamma, the log-likelihood, whether gamma
#              was estimated, and lambda's standard error (optimHess of the objective);
#   * "tight": the same objective with the transform computed stably (relative to the
#              geometric mean of the base; it differs from car's by a constant the intercept
#              absorbs) and every refit tightly converged (bobyqa, rhoend 1e-12), maximised as
#              a profile: P(gamma) = max over lambda (optimize on [-3, 3], tol 1e-10), itself
#              maximised over log gamma (optimize on [log 0.1, log(1e3 max|y|)], tol 1e-10;
#              gamma = 0.1 where the profile is highest there). Also lambda's profile
#              log-likelihood (gamma maximised out over [0.1, inf): the supremum, the
#              untransformed response's logLik where gamma -> inf is best) at 0 and 1, the LR statistics
#              against the maximum, and lambda's standard error from Ridders' extrapolation of central
#              second differences of that profile.
# "runaway" holds a case whose objective has no maximum: it rises towards Manly's
# exponential transformation as gamma -> inf with lambda = kappa gamma. car boxes gamma in
# [gamma.min / 2, max(y)] and reports a point of that box. The JSON keeps car's output and
# P(gamma) at car's gamma and at 1, 10, 100 and 1000 times max|y| (lambda searched on
# [-3 - gamma / 20, 3]: its maximiser runs away with gamma), which keeps rising.

suppressPackageStartupMessages({library(car); library(lme4)})

local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
  assign("HERE", here, envir = globalenv())
})

TIGHT <- lmerControl(optimizer = "bobyqa", calc.derivs = FALSE,
                     optCtrl = list(rhobeg = 0.2, rhoend = 1e-12, maxfun = 1e5),
                     check.conv.singular = "ignore")
GAMMA_MIN <- 0.1

data_block <- function(d, cols) {
  res <- list()
  for (cn in cols) {
    v <- d[[cn]]
    res[[cn]] <- if (is.numeric(v)) as.numeric(v) else as.character(v)
  }
  lev <- list()
  for (cn in cols) if (is.factor(d[[cn]])) lev[[cn]] <- levels(d[[cn]])
  res[["_levels"]] <- lev
  res
}

# log of the bcnPower base b = (u + sqrt(u^2 + gamma^2)) / 2, without cancellation for u < 0
log_base <- function(u, gamma) {
  s <- sqrt(u^2 + gamma^2)
  ifelse(u >= 0, log(0.5 * (u + s)), 2 * log(gamma) - log(2 * (s - u)))
}

# car's objective at (lambda, gamma), computed stably: psi(b) / J with
# J = gm(b)^(lambda - 1) gm(b / s), up to a constant the intercept absorbs
objective <- function(mt) {
  y <- mt@resp$y
  mf <- model.frame(mt)
  function(lam, gam) {
    lb <- log_base(y, gam)
    lgm <- mean(lb)
    ls <- log(sqrt(y^2 + gam^2))
    mf$y.lambda <- exp(lgm - mean(lb - ls)) * bc_stable(lb - lgm, lam)
    as.numeric(logLik(update(mt, y.lambda ~ ., data = mf, control = TIGHT)))
  }
}

run_case <- function(name, formula, data, REML, cols) {
  cat(name, "\n")
  m <- eval(bquote(lmer(.(formula), data = data, REML = .(REML))))
  pt <- powerTransform(m, family = "bcnPower")
  mt <- eval(bquote(lmer(.(formula), data = data, REML = .(REML), control = TIGHT)))
  y <- mt@resp$y
  llik <- objective(mt)
  inner <- function(gam) optimize(function(l) llik(l, gam), c(-3, 3), maximum = TRUE,
                                  tol = 1e-10)
  top_t <- log(1e3 * max(abs(y)))
  outer <- optimize(function(t) inner(exp(t))$objective, c(log(GAMMA_MIN), top_t),
                    maximum = TRUE, tol = 1e-10)
  at_min <- inner(GAMMA_MIN)
  if (at_min$objective >= outer$objective) {
    gam <- GAMMA_MIN; status <- "lower bound"
  } else {
    gam <- exp(outer$maximum); status <- "estimated"
  }
  best <- inner(gam)
  lam <- best$maximum
  # lambda's profile log-likelihood, gamma maximised out over [0.1, inf): the supremum,
  # with the bound itself and the limit gamma -> inf as candidates (at a fixed lambda that
  # limit is the untransformed response's log-likelihood, logLik(mt): the transform becomes
  # linear)
  untransformed <- as.numeric(logLik(mt))
  prof <- function(l) {
    max(optimize(function(t) llik(l, exp(t)), c(log(GAMMA_MIN), top_t), maximum = TRUE,
                 tol = 1e-10)$objective, llik(l, GAMMA_MIN), untransformed)
  }
  p0 <- prof(0); p1 <- prof(1)
  curv <- ridders(prof, lam, 0.05, second = TRUE)$value
  list(
    name = name, formula = paste(deparse(formula), collapse = ""), REML = REML,
    nobs = nrow(model.frame(mt)),
    car = list(lmbda = pt$lambda[[1]], gamma = pt$gamma[[1]], llf = as.numeric(pt$llik),
               gamma_estimated = pt$gamma.estimated, bse = sqrt(pt$invHess[1, 1])),
    tight = list(lmbda = lam, gamma = gam, status = status, llf = best$objective,
                 llf0 = p0, llf1 = p1, lr0 = 2 * (best$objective - p0),
                 lr1 = 2 * (best$objective - p1), bse = 1 / sqrt(-curv)),
    data = data_block(data, cols)
  )
}

run_runaway <- function(name, formula, data, REML, cols) {
  cat(name, "\n")
  m <- eval(bquote(lmer(.(formula), data = data, REML = .(REML))))
  pt <- powerTransform(m, family = "bcnPower")
  mt <- eval(bquote(lmer(.(formula), data = data, REML = .(REML), control = TIGHT)))
  y <- mt@resp$y
  llik <- objective(mt)
  gammas <- c(pt$gamma[[1]], max(abs(y)) * c(1, 10, 100, 1000))
  prof <- sapply(gammas, function(g)
    optimize(function(l) llik(l, g), c(-3 - 0.05 * g, 3), maximum = TRUE,
             tol = 1e-9)$objective)
  list(name = name, formula = paste(deparse(formula), collapse = ""), REML = REML,
       car = list(lmbda = pt$lambda[[1]], gamma = pt$gamma[[1]],
                  llf = as.numeric(pt$llik)),
       gammas = gammas, profile = prof, data = data_block(data, cols))
}

sl <- lme4::sleepstudy
sl$R210 <- sl$Reaction - 210  # of both signs: gamma estimated inside its range
sl$R190 <- sl$Reaction - 190  # positive, near 0: gamma at its lower bound
sl$R250 <- sl$Reaction - 250  # no maximum (Manly's limit)
cases <- list(
  run_case("sleepstudy_r210_intercept_ml", R210 ~ Days + (1 | Subject), sl, FALSE,
           c("R210", "Days", "Subject")),
  run_case("sleepstudy_r210_intercept_reml", R210 ~ Days + (1 | Subject), sl, TRUE,
           c("R210", "Days", "Subject")),
  run_case("sleepstudy_r190_intercept_ml", R190 ~ Days + (1 | Subject), sl, FALSE,
           c("R190", "Days", "Subject"))
)
runaway <- list(
  run_runaway("sleepstudy_r250_intercept_ml", R250 ~ Days + (1 | Subject), sl, FALSE,
              c("R250", "Days", "Subject"))
)

result <- list(
  source = paste("R", getRversion(), "car", packageVersion("car"), "lme4",
                 packageVersion("lme4")),
  cases = cases,
  runaway = runaway
)
writeLines(to_json(result), file.path(HERE, "lmer_bcnpower_reference.json"))

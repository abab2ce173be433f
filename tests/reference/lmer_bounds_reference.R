# Reference values for bcs.lmer(..., bounds=(lo, hi)): car's lmer objective maximised on
# [lo, hi]. car has no bounds for lmer models (powerTransform.lmerMod boxes lambda in
# [-3, 3] only), so this script maximises car's own objective itself.
#
# Run from the repository root:
#     Rscript tests/reference/lmer_bounds_reference.R
# Writes tests/reference/lmer_bounds_reference.json (with the data of every case).
#
# The objective is car:::estimateTransform.lmerMod's: at each lambda the response is replaced
# by its Jacobian-adjusted Box-Cox transform and the lmer model refitted (REML or ML, as the
# model was fitted); its logLik is the objective. As in lmer_reference.R the transform is
# computed stably relative to the geometric mean (it differs from car's bcPower by a constant
# that the intercept absorbs) and every refit is tightly converged (bobyqa, rhoend 1e-12).
# For each case the JSON stores
#   * "free":  optimize() on [-3, 3] (tol 1e-10), the unconstrained maximum;
#   * "lambda", "llf": the maximum on [lo, hi]: optimize() on [lo, hi] (tol 1e-10), compared
#     with both ends (a maximum at a bound is the bound itself);
#   * "lower", "upper": the profile interval measured from the bounded maximum: per side,
#     the bound when the maximum sits on it or the objective there is still within
#     qchisq(0.95, 1) / 2 of the maximum, else uniroot() (tol 1e-12) of
#     objective - (max - qchisq(0.95, 1) / 2) between the maximum and the bound;
#   * "bse": 1 / sqrt(-curvature) at an interior maximum (Ridders' extrapolation of central
#     second differences), null at a bound;
#   * "lr0", "lr1": 2 (max - objective(0 or 1)) where 0 / 1 lies within the bounds, else null.

suppressPackageStartupMessages({library(lme4); library(nlme)})

local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
  assign("HERE", here, envir = globalenv())
})

TIGHT <- lmerControl(optimizer = "bobyqa", calc.derivs = FALSE,
                     optCtrl = list(rhobeg = 0.2, rhoend = 1e-12, maxfun = 1e5),
                     check.conv.singular = "ignore")
HALF_Q <- qchisq(0.95, 1) / 2

data_block <- function(d, cols) {
  out <- list()
  for (cn in cols) {
    v <- d[[cn]]
    out[[cn]] <- if (is.numeric(v)) as.numeric(v) else as.character(v)
  }
  lev <- list()
  for (cn in cols) if (is.factor(d[[cn]])) lev[[cn]] <- levels(d[[cn]])
  out[["_levels"]] <- lev
  out
}

nullable <- function(v) if (is.na(v)) NULL else v

run_case <- function(name, formula, data, REML, lo, hi, cols) {
  cat(name, "\n")
  mt <- eval(bquote(lmer(.(formula), data = data, REML = .(REML), control = TIGHT)))
  y <- mt@resp$y
  mf <- model.frame(mt)
  lgm <- mean(log(y))
  llik <- function(lam) {
    mf$y.lambda <- exp(lgm) * bc_stable(log(y) - lgm, lam)
    as.numeric(logLik(update(mt, y.lambda ~ ., data = mf, control = TIGHT)))
  }
  free <- optimize(llik, c(-3, 3), maximum = TRUE, tol = 1e-10)
  opt <- optimize(llik, c(lo, hi), maximum = TRUE, tol = 1e-10)
  cand <- c(opt$maximum, lo, hi)
  vals <- c(opt$objective, llik(lo), llik(hi))
  k <- which.max(vals)
  lam <- cand[k]; top <- vals[k]
  cut <- top - HALF_Q
  end <- function(bound, at_bound, val_bound) {
    if (at_bound || val_bound >= cut) return(bound)
    uniroot(function(l) llik(l) - cut, sort(c(lam, bound)), tol = 1e-12)$root
  }
  lower <- end(lo, lam == lo, vals[2])
  upper <- end(hi, lam == hi, vals[3])
  interior <- lam > lo && lam < hi
  bse <- if (interior) 1 / sqrt(-ridders(llik, lam, 0.05, second = TRUE)$value) else NA
  lr <- function(v) if (v >= lo && v <= hi) 2 * (top - llik(v)) else NA
  list(
    name = name, formula = paste(deparse(formula), collapse = ""), REML = REML,
    lo = lo, hi = hi, nobs = nrow(mf),
    free = free$maximum, free_llf = free$objective,
    lambda = lam, llf = top, at_bound = !interior,
    lower = lower, upper = upper, bse = nullable(bse),
    lr0 = nullable(lr(0)), lr1 = nullable(lr(1)),
    data = data_block(data, cols)
  )
}

ergo <- as.data.frame(nlme::ergoStool); ergo$Subject <- factor(as.character(ergo$Subject))
ergo$Type <- factor(as.character(ergo$Type))
sleep <- lme4::sleepstudy
cases <- list(
  # the unconstrained maximum (-0.97) below the lower bound: lambda is the bound
  run_case("sleepstudy_intercept_ml_lower", Reaction ~ Days + (1 | Subject), sleep, FALSE,
           -0.5, 1, c("Reaction", "Days", "Subject")),
  # bounds wide of the maximum: the interval is the unconstrained one (two roots)
  run_case("sleepstudy_intercept_ml_inactive", Reaction ~ Days + (1 | Subject), sleep, FALSE,
           -3, 0, c("Reaction", "Days", "Subject")),
  # the maximum (1.32) above the upper bound; the other end within the cut-off: the bound
  run_case("dyestuff_reml_upper", Yield ~ 1 + (1 | Batch), lme4::Dyestuff, TRUE, -1, 1,
           c("Yield", "Batch")),
  # interior maximum (0.76), the lower end at its bound, the upper one a root
  run_case("ergostool_reml_inside", effort ~ Type + (1 | Subject), ergo, TRUE, -0.3, 3,
           c("effort", "Type", "Subject"))
)

out <- list(
  source = paste("R", getRversion(), "lme4", packageVersion("lme4")),
  cases = cases
)
writeLines(to_json(out), file.path(HERE, "lmer_bounds_reference.json"))

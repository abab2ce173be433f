# Reference values for bcs.lmer: car::powerTransform of lme4::lmer fits (Box-Cox and
# Yeo-Johnson), and a tight optimum of the same objective.
#
# Run from the repository root:
#     Rscript tests/reference/lmer_reference.R
# Writes tests/reference/lmer_reference.json (with the data of every case).
#
# car's definition (car:::estimateTransform.lmerMod): at each lambda the response is replaced
# by its Jacobian-adjusted transform (bcPower / yjPower, jacobian.adjusted = TRUE), the lmer
# model is refitted (REML or ML, as the model was fitted) and its logLik is the objective.
# For each case the JSON stores
#   * "car":   powerTransform(model) as car returns it (optimize's default tolerance, lambda
#              boxed in [-3, 3]; se from optimHess), its rounded power and its LR tests at 0
#              and 1 (testTransform);
#   * "tight": the same objective (the Box-Cox transform computed stably, see trans()) with
#              every lmer refit tightly converged (bobyqa,
#              rhoend 1e-12), maximised by optimize (tol 1e-11); its curvature by Ridders'
#              extrapolation of central second differences; logLik at 0 and 1 and the LR
#              statistics against the tight maximum; the fit at the tight lambda on the
#              transformed (not Jacobian-adjusted) response: fixed effects, their standard
#              errors, the residual variance and the random-effect (co)variances, and
#              predict() on the transformed scale (with and without random effects) for the
#              first six rows and for row 1 under a new level of the last grouping factor.

suppressPackageStartupMessages({library(car); library(lme4); library(MASS); library(nlme)})

local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
  assign("HERE", here, envir = globalenv())
})

TIGHT <- lmerControl(optimizer = "bobyqa", calc.derivs = FALSE,
                     optCtrl = list(rhobeg = 0.2, rhoend = 1e-12, maxfun = 1e5),
                     check.conv.singular = "ignore")

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

run_case <- function(name, formula, data, REML, family, cols) {
  cat(name, "\n")
  m <- eval(bquote(lmer(.(formula), data = data, REML = .(REML))))
  pt <- powerTransform(m, family = family)
  tst0 <- testTransform(pt, 0)
  tst1 <- testTransform(pt, 1)
  fam <- match.fun(family)
  mt <- eval(bquote(lmer(.(formula), data = data, REML = .(REML), control = TIGHT)))
  y <- mt@resp$y
  mf <- model.frame(mt)
  # car's bcPower forms y^lambda - 1, whose varying part is a tiny fraction of the value when
  # y^lambda is far from 1 (Oxboys' heights at lambda = -2.7: y^lambda ~ 1e-6, so the
  # residuals keep only ~8 digits). The tight objective uses the Jacobian-adjusted transform
  # relative to the geometric mean, gm * expm1(lambda log(y / gm)) / lambda, which differs
  # from car's by a constant (absorbed by the intercept every case has) and keeps every digit.
  # The fit at the power below uses the transform itself, expm1(lambda log y) / lambda.
  lgm <- mean(log(y))
  trans <- function(lam, adjusted) {
    if (family != "bcPower") return(fam(y, lam, jacobian.adjusted = adjusted))
    if (adjusted) exp(lgm) * bc_stable(log(y) - lgm, lam) else bc_stable(log(y), lam)
  }
  llik <- function(lam) {
    mf$y.lambda <- trans(lam, TRUE)
    as.numeric(logLik(update(mt, y.lambda ~ ., data = mf, control = TIGHT)))
  }
  opt <- optimize(llik, c(-3, 3), maximum = TRUE, tol = 1e-11)
  lam <- opt$maximum
  curv <- ridders(llik, lam, 0.05, second = TRUE)$value
  l0 <- llik(0); l1 <- llik(1)
  # the fit at the power: on the well-scaled Jacobian-adjusted response z = c psi - c k
  # (c = gm^(1 - lambda), k = bcPower(gm, lambda)), its numbers then put on psi's scale
  # (Yeo-Johnson: on psi itself)
  mf$y.t <- trans(lam, family == "bcPower")
  fit <- update(mt, y.t ~ ., data = mf, control = TIGHT)
  cc <- if (family == "bcPower") exp((1 - lam) * lgm) else 1
  kk <- if (family == "bcPower") bc_stable(lgm, lam) else 0
  vc <- as.data.frame(VarCorr(fit))
  # predictions on the transformed scale for the first six rows and the first row again
  # under a grouping level the fit has not seen (population level there)
  nd <- mf[c(1:6, 1), ]
  gcols <- names(getME(fit, "flist"))
  first <- strsplit(gcols[length(gcols)], ":", fixed = TRUE)[[1]]
  for (g in unique(unlist(lapply(gcols, function(z) strsplit(z, ":", fixed = TRUE)[[1]])))) {
    nd[[g]] <- as.character(nd[[g]])
  }
  nd[7, first[1]] <- "new-level"
  pred_re <- predict(fit, newdata = nd, allow.new.levels = TRUE) / cc + kk
  pred_pop <- predict(fit, newdata = nd, re.form = NA) / cc + kk
  fe <- fixef(fit) / cc
  if (family == "bcPower") fe[["(Intercept)"]] <- fe[["(Intercept)"]] + kk
  list(
    name = name, formula = paste(deparse(formula), collapse = ""), REML = REML,
    family = family, nobs = nrow(mf),
    car = list(lmbda = pt$lambda[[1]], rounded = pt$roundlam[[1]],
               bse = sqrt(pt$invHess[1, 1]), llf = pt$value,
               lr0 = tst0$LRT, lr1 = tst1$LRT),
    tight = list(lmbda = lam, llf = opt$objective, bse = 1 / sqrt(-curv),
                 llf0 = l0, llf1 = l1, lr0 = 2 * (opt$objective - l0),
                 lr1 = 2 * (opt$objective - l1),
                 fixef = as.list(fe),
                 fixef_se = as.list(sqrt(diag(as.matrix(vcov(fit)))) / cc),
                 sigma2 = sigma(fit)^2 / cc^2,
                 varcorr = list(grp = vc$grp, var1 = ifelse(is.na(vc$var1), "", vc$var1),
                                var2 = ifelse(is.na(vc$var2), "", vc$var2),
                                vcov = vc$vcov / cc^2),
                 llf_fit = as.numeric(logLik(fit)),
                 new_rows = c(0:5, 0), new_level_column = first[1],
                 pred_re = unname(pred_re), pred_pop = unname(pred_pop)),
    data = data_block(data, cols)
  )
}

sleep <- lme4::sleepstudy
oats <- MASS::oats
orth <- as.data.frame(nlme::Orthodont)
orth$Subject <- factor(as.character(orth$Subject))
ox <- as.data.frame(nlme::Oxboys); ox$Subject <- factor(as.character(ox$Subject))
mach <- as.data.frame(nlme::Machines); mach$Worker <- factor(as.character(mach$Worker))
mach$Machine <- factor(as.character(mach$Machine))
ergo <- as.data.frame(nlme::ergoStool); ergo$Subject <- factor(as.character(ergo$Subject))
ergo$Type <- factor(as.character(ergo$Type))
cake <- lme4::cake
sl <- lme4::sleepstudy
sl$Reaction150 <- sl$Reaction - 150  # of both signs: Yeo-Johnson
cases <- list(
  run_case("sleepstudy_slope_reml", Reaction ~ Days + (Days | Subject), sleep, TRUE,
           "bcPower", c("Reaction", "Days", "Subject")),
  run_case("sleepstudy_intercept_ml", Reaction ~ Days + (1 | Subject), sleep, FALSE,
           "bcPower", c("Reaction", "Days", "Subject")),
  run_case("sleepstudy_uncorrelated_reml", Reaction ~ Days + (Days || Subject), sleep, TRUE,
           "bcPower", c("Reaction", "Days", "Subject")),
  run_case("dyestuff_reml", Yield ~ 1 + (1 | Batch), lme4::Dyestuff, TRUE, "bcPower",
           c("Yield", "Batch")),
  run_case("penicillin_crossed_reml", diameter ~ 1 + (1 | plate) + (1 | sample),
           lme4::Penicillin, TRUE, "bcPower", c("diameter", "plate", "sample")),
  run_case("pastes_nested_reml", strength ~ 1 + (1 | batch/cask), lme4::Pastes, TRUE,
           "bcPower", c("strength", "batch", "cask")),
  run_case("oats_nested_ml", Y ~ N + (1 | B/V), oats, FALSE, "bcPower", c("Y", "N", "B", "V")),
  run_case("orthodont_yj_reml", distance ~ age + Sex + (1 | Subject), orth, TRUE, "yjPower",
           c("distance", "age", "Sex", "Subject")),
  run_case("oxboys_slope_ml", height ~ age + (age | Subject), ox, FALSE, "bcPower",
           c("height", "age", "Subject")),
  run_case("machines_nested_reml", score ~ Machine + (1 | Worker/Machine), mach, TRUE,
           "bcPower", c("score", "Machine", "Worker")),
  run_case("ergostool_reml", effort ~ Type + (1 | Subject), ergo, TRUE, "bcPower",
           c("effort", "Type", "Subject")),
  run_case("cake_crossed_ml", angle ~ temp + (1 | recipe) + (1 | replicate), cake, FALSE,
           "bcPower", c("angle", "temp", "recipe", "replicate")),
  run_case("sleepstudy_yj_slope_ml", Reaction150 ~ Days + (Days | Subject), sl, FALSE,
           "yjPower", c("Reaction150", "Days", "Subject"))
)

out <- list(
  source = paste("R", getRversion(), "car", packageVersion("car"), "lme4",
                 packageVersion("lme4")),
  cases = cases
)
writeLines(to_json(out), file.path(HERE, "lmer_reference.json"))

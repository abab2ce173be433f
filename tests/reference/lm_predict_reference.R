# Reference values for boxcoxstat's predictions of a linear model at a fixed response power.
#
# Run from the repository root:
#     Rscript tests/reference/lm_predict_reference.R
# Writes tests/reference/lm_predict_reference.json (R 4.2.2).
#
# Model: R's trees data, Volume ~ log(Girth) + log(Height), fitted to the 24 rows that are not
# held out, at the Box-Cox powers 0 (the log), 1/3 and 1. For each power the response is
# transformed, lm() is fitted, and predict(fit, new, interval = "confidence" / "prediction",
# level = 0.95 and 0.80) is taken on the 7 held-out rows and on 3 made-up trees; the
# intervals are mapped back with the inverse Box-Cox transform (for the log: exp(), which is
# R's exp(predict(lm(log(Volume) ~ ...), new, interval = "prediction"))). The fitted
# coefficients, their standard errors and the residual scale are stored too.

local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
})

held <- c(3L, 8L, 13L, 18L, 23L, 28L, 31L)  # 1-based rows of trees held out
train <- trees[-held, ]
new <- rbind(trees[held, c("Height", "Girth")],
             data.frame(Height = c(60, 75, 90), Girth = c(7.5, 12.0, 22.0)))
inv_bc <- function(z, l) if (l == 0) exp(z) else (1 + l * z)^(1 / l)
bc <- function(y, l) if (l == 0) log(y) else (y^l - 1) / l

powers <- list(list(name = "0", lmbda = 0), list(name = "1/3", lmbda = 1 / 3),
               list(name = "1", lmbda = 1))
fits <- list()
for (p in powers) {
  d <- train; d$z <- bc(d$Volume, p$lmbda)
  fit <- lm(z ~ log(Girth) + log(Height), data = d)
  e <- list(lmbda = p$lmbda, coef = unname(coef(fit)),
            coef_names = names(coef(fit)),
            bse = unname(sqrt(diag(vcov(fit)))), sigma = summary(fit)$sigma,
            df_resid = fit$df.residual)
  for (level in c(0.95, 0.80)) {
    for (kind in c("confidence", "prediction")) {
      pr <- predict(fit, new, interval = kind, level = level)
      key <- sprintf("%s_%g", kind, level)
      e[[key]] <- list(fit = inv_bc(pr[, "fit"], p$lmbda), lower = inv_bc(pr[, "lwr"], p$lmbda),
                       upper = inv_bc(pr[, "upr"], p$lmbda))
    }
  }
  e$se_fit <- unname(predict(fit, new, se.fit = TRUE)$se.fit)
  fits[[p$name]] <- e
}
out <- list(
  meta = list(R = R.version.string, generated_by = "tests/reference/lm_predict_reference.R",
              formula = "Volume ~ log(Girth) + log(Height)",
              py_formula = "Volume ~ np.log(Girth) + np.log(Height)"),
  held_out_rows_0based = held - 1L,
  new = list(Height = new$Height, Girth = new$Girth),
  fits = fits)
writeLines(to_json(out), "tests/reference/lm_predict_reference.json")
cat("wrote tests/reference/lm_predict_reference.json\n")

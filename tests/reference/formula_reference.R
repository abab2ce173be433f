# Reference values for the formula functions R users write in lm formulas: R's orthogonal
# polynomials poly() (its basis, its coefs and predict() on new values) and the elementwise
# log(), exp(), sqrt() -- as stats::lm and MASS::boxcox see them.
# Run from the repository root:  Rscript tests/reference/formula_reference.R
# Writes tests/reference/formula_reference.json (committed; CI needs no R).
suppressPackageStartupMessages({library(MASS)})
local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
})

trees <- datasets::trees
p <- poly(trees$Girth, 3)
newx <- c(7.5, 10, 13.37, 21)
pred <- predict(p, newx)
poly_case <- list(
  x = trees$Girth, degree = 3L,
  basis = lapply(seq_len(ncol(p)), function(j) unname(p[, j])),
  alpha = unname(attr(p, "coefs")$alpha), norm2 = unname(attr(p, "coefs")$norm2),
  new_x = newx, new_basis = lapply(seq_len(ncol(pred)), function(j) unname(pred[, j]))
)

# lm with R's names: coefficients and fitted values at new data
fit1 <- lm(log(Volume) ~ log(Height) + poly(Girth, 2), data = trees)
fit2 <- lm(Volume ~ sqrt(Girth) + exp(Height / 100), data = trees)
newdata <- data.frame(Girth = c(9, 12.5, 17), Height = c(66, 75, 84))
lm_case <- function(fit, formula) list(
  formula = formula, coefficients = unname(coef(fit)), names = names(coef(fit)),
  predict_new = unname(predict(fit, newdata)))

# MASS::boxcox's profile of a model with poly(): tight maximum of MASS's own curve
mass_poly <- function(fit) {
  f <- function(l) MASS::boxcox(fit, lambda = l, plotit = FALSE)$y
  o <- optimize(f, c(-3, 3), maximum = TRUE, tol = 1e-12)
  list(lambda = o$maximum, loglik = o$objective,
       method = "optimize(tol=1e-12) on MASS::boxcox(fit, lambda=l, plotit=FALSE)$y")
}
fit3 <- lm(Volume ~ poly(Girth, 2) + log(Height), data = trees, y = TRUE, qr = TRUE)

out <- list(
  meta = list(R = R.version.string, MASS = as.character(packageVersion("MASS"))),
  poly = poly_case,
  newdata = list(Girth = newdata$Girth, Height = newdata$Height),
  lm = list(r_names = lm_case(fit1, "log(Volume) ~ log(Height) + poly(Girth, 2)"),
            sqrt_exp = lm_case(fit2, "Volume ~ sqrt(Girth) + exp(Height / 100)")),
  boxcox_poly = c(list(formula = "Volume ~ poly(Girth, 2) + log(Height)"), mass_poly(fit3))
)
writeLines(to_json(out), "tests/reference/formula_reference.json")

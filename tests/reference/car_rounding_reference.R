# car's "Rounded Pwr" (summary.powerTransform; the rule in estimateTransform.default, car
# 3.1-1: the first of 1, 0, -1, .5, .33, -.5, -.33, 2, -2 inside lambda -+ 1.96 se, else
# lambda) on R's trees, for boxcoxstat's rounded_power(rule = "car").
#
# Run from the repository root:
#     Rscript tests/reference/car_rounding_reference.R
# Writes tests/reference/car_rounding_reference.json. Needs r-cran-car.

suppressPackageStartupMessages(library(car))

local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
  source(file.path(here, "common.R"), local = globalenv())
  assign("HERE", here, envir = globalenv())
})

one_case <- function(pt, columns, description) {
  res <- summary(pt)$result
  list(description = description, columns = columns,
       lambda = unname(pt$lambda), se = unname(sqrt(diag(pt$invHess))),
       wald_lower = unname(res[, "Wald Lwr Bnd"]), wald_upper = unname(res[, "Wald Upr Bnd"]),
       rounded_pwr = unname(res[, "Rounded Pwr"]), roundlam = unname(pt$roundlam))
}

out <- list(
  generated_by = "tests/reference/car_rounding_reference.R",
  r_version = R.version.string,
  car_version = as.character(packageVersion("car")),
  trees_colsums = unname(colSums(trees)),
  cases = list(
    joint3 = one_case(powerTransform(cbind(Volume, Girth, Height) ~ 1, trees),
                      c("Volume", "Girth", "Height"),
                      "powerTransform(cbind(Volume, Girth, Height) ~ 1, trees)"),
    joint2 = one_case(powerTransform(cbind(Girth, Height) ~ 1, trees), c("Girth", "Height"),
                      "powerTransform(cbind(Girth, Height) ~ 1, trees)"),
    girth = one_case(powerTransform(trees$Girth), "Girth", "powerTransform(trees$Girth)")
  )
)
writeLines(to_json(out), file.path(HERE, "car_rounding_reference.json"))
cat("wrote", file.path(HERE, "car_rounding_reference.json"), "\n")

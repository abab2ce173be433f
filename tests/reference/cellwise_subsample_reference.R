# Reference values of cellWise 2.5.3 on columns with more than 25000 values, where its
# Huber estimates (estLocScale, type "hubhub") use a subsample of 25000 values drawn after
# set.seed(0) with RcppArmadillo's sample(); for boxcoxstat's tests.
#
# Run (from any directory):
#     Rscript tests/reference/cellwise_subsample_reference.R
# Writes cellwise_subsample_reference.json next to this script. Needs R with cellWise 2.5.3
# (see CELLWISE_NOTES.md); only library(cellWise) is used.
#
# Data (q_n(i) = qnorm((i - 0.5)/n)):
#   small: x = (1:10)^2 / 7, estLocScale(..., nLocScale = 5) -- which 5 values are drawn
#   L1: n = 30000, x = exp(q_n(i)) with x[29001:30000] <- 200 * exp(q_1000)   (BC and YJ)
#   L2: n = 27000, x = q_n(i) + 0.3 q_n(i)^2 with x[1:900] <- -15 - q_900     (YJ)
# estLocScale is also run on each column with nLocScale = 0 (all values) for comparison.
# The data are not stored (87000 values): the tests rebuild them from the formulas above.

suppressPackageStartupMessages(library(cellWise))

file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
source(file.path(here, "common.R"), local = globalenv())

qn <- function(n) qnorm((seq_len(n) - 0.5) / n)

small_x <- (1:10)^2 / 7
small <- estLocScale(matrix(small_x, ncol = 1), type = "hubhub", nLocScale = 5,
                     silent = TRUE)

make <- list(
  L1 = { x <- exp(qn(30000)); x[29001:30000] <- 200 * exp(qn(1000)); x },
  L2 = { x <- qn(27000); x <- x + 0.3 * x^2; x[1:900] <- -15 - qn(900); x }
)
types <- list(L1 = c("BC", "YJ"), L2 = "YJ")

cases <- list()
for (nm in names(make)) {
  x <- make[[nm]]
  sub <- estLocScale(matrix(x, ncol = 1), type = "hubhub", silent = TRUE)
  all <- estLocScale(matrix(x, ncol = 1), type = "hubhub", nLocScale = 0, silent = TRUE)
  for (type in types[[nm]]) {
    fit <- transfo(x, type = type, robust = TRUE, standardize = TRUE, quant = 0.99,
                   nbsteps = 2, checkPars = list(silent = TRUE))
    cases[[length(cases) + 1]] <- list(
      name = nm, type = type, n = length(x),
      hubhub_subsample = list(loc = unname(sub$loc), scale = unname(sub$scale)),
      hubhub_all = list(loc = unname(all$loc), scale = unname(all$scale)),
      lambdahats = unname(fit$lambdahats), objective = unname(fit$objective),
      muhat = unname(fit$muhat), sigmahat = unname(fit$sigmahat),
      locx = unname(fit$locx), scalex = unname(fit$scalex),
      sum_weights = as.integer(sum(fit$weights)),
      flagged = as.integer(which(fit$weights[, 1] == 0))
    )
  }
}

out <- list(
  meta = list(
    R = R.version.string,
    cellWise = as.character(packageVersion("cellWise")),
    generated_by = "tests/reference/cellwise_subsample_reference.R",
    call = paste("transfo(x, type = type, robust = TRUE, standardize = TRUE, quant = 0.99,",
                 "nbsteps = 2, checkPars = list(silent = TRUE)); estLocScale(matrix(x,",
                 "ncol = 1), type = 'hubhub') with the default nLocScale = 25000 and with 0"),
    flagged = "1-based positions (in the input order) of the weight-0 values"
  ),
  small = list(x = small_x, nLocScale = 5L, loc = unname(small$loc),
               scale = unname(small$scale)),
  cases = cases
)
outfile <- file.path(here, "cellwise_subsample_reference.json")
writeLines(to_json(out), outfile)
cat("wrote", outfile, "with", length(cases), "cases\n")

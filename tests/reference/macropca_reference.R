# Reference values of MacroPCA (Hubert, Rousseeuw & Van den Bossche 2019) as cellWise 2.5.3
# computes it, for boxcoxstat's robust_pca(method="macropca"), on the DPOSS stars of
# Raymaekers & Rousseeuw (2021), section 4.3 (Figures 12 and 13), and on a small synthetic
# set with missing and outlying cells.
#
# Run (from any directory):
#     Rscript tests/reference/macropca_reference.R [path/to/dposs_j.csv]
# Writes macropca_reference.json next to this script. The default CSV is the project's
# data/dposs_j.csv. Needs cellWise 2.5.3 (see CELLWISE_NOTES.md) with rrcov and robustbase.
#
# Calls, exactly as the authors' vignette inst/doc/transfo_examples.R (cellWise 2.5.3):
#   dpossJ_YJ <- transfo(dpossJ, type = "YJ", robust = TRUE)$Y
#   MacroPCA(dpossJ,    k = 4, MacroPCApars = list(DDCpars = list(fastDDC = FALSE,
#            fracNA = 0.5), scale = TRUE, silent = TRUE))      # Figure 13 right
#   MacroPCA(dpossJ_YJ, k = 4, same pars)                      # Figures 12, 13 left
# and the vignette's colour groups: orange rows 98 and 10894, blue SD > 14, red SD > 25 (SD of
# the transformed fit).
#
# truncPC inside MacroPCA calls svd::propack.svd and falls back to base svd() when that
# fails. The script records which one ran (`svd_package`), and, when the svd package is
# installed, also runs MacroPCA with propack.svd disabled (`fallback_check`) so that the
# two can be compared.

suppressPackageStartupMessages({
  library(cellWise)
  library(rrcov)
})

file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
source(file.path(here, "common.R"), local = globalenv())
args <- commandArgs(trailingOnly = TRUE)
csv <- if (length(args) >= 1) args[1] else file.path(here, "..", "..", "data", "dposs_j.csv")

dposs <- read.csv(csv)
X <- as.matrix(dposs[, -1])
Y <- transfo(X, type = "YJ", robust = TRUE, checkPars = list(silent = TRUE))$Y
colnames(Y) <- colnames(X)
PARS <- list(DDCpars = list(fastDDC = FALSE, fracNA = 0.5), scale = TRUE, silent = TRUE)

SAMPLE_ROWS <- function(n) unique(c(1:20, 98, 10894, round(seq(21, n, length.out = 300))))
has_svd <- requireNamespace("svd", quietly = TRUE)

# which branch of MacroPCA's step 6 ran: recompute DetMCD's criterion is not possible from
# outside, so we record the message MacroPCA prints with silent = FALSE
branch_of <- function(data, pars, k) {
  pars$silent <- FALSE
  pars$DDCpars$silent <- TRUE
  out <- capture.output(fit <- MacroPCA(data, k = k, MacroPCApars = pars))
  if (any(grepl("eigenvectors of MCD scatter", out))) "mcd" else
    if (any(grepl("reweighted covariance", out))) "reweighted" else "unknown"
}

summ <- function(fit, data, label, rows) {
  n <- nrow(data)
  ddc <- fit$DDC
  list(
    label = label, n = n, d = ncol(data), k = fit$k, h = fit$h, alpha = fit$alpha,
    iterations = fit$It, diff = fit$diff,
    scaleX = unname(fit$scaleX), center = unname(fit$center),
    eigenvalues = unname(fit$eigenvalues),
    loadings = lapply(seq_len(fit$k), function(j) unname(fit$loadings[, j])),
    cutoffOD = fit$cutoffOD, cutoffSD = fit$cutoffSD,
    highOD = as.integer(fit$highOD), highSD = as.integer(fit$highSD),
    sd_sum = sum(fit$SD), od_sum = sum(fit$OD), sd_max = max(fit$SD), od_max = max(fit$OD),
    rows = as.integer(rows), SD_rows = unname(fit$SD[rows]), OD_rows = unname(fit$OD[rows]),
    scores_rows = lapply(seq_len(fit$k), function(j) unname(fit$scores[rows, j])),
    residScale = unname(fit$residScale),
    # missing cells have NA residuals: stored as 0 here, their positions in stdResid_missing
    stdResid_rows = lapply(seq_len(ncol(data)), function(j) {
      v <- unname(fit$stdResid[rows, j]); v[is.na(v)] <- 0; v }),
    stdResid_missing = as.integer(which(is.na(fit$stdResid))),
    indcells = as.integer(fit$indcells),
    ddc_locX = unname(ddc$locX), ddc_scaleX = unname(ddc$scaleX),
    ddc_ngbrs = lapply(seq_len(ncol(data)), function(j) as.integer(ddc$ngbrs[j, ])),
    ddc_robcors = lapply(seq_len(ncol(data)), function(j) unname(ddc$robcors[j, ])),
    ddc_robslopes = lapply(seq_len(ncol(data)), function(j) unname(ddc$robslopes[j, ])),
    ddc_deshrinkage = unname(ddc$deshrinkage), ddc_scalestres = unname(ddc$scalestres),
    ddc_indcells = as.integer(ddc$indcells), ddc_indrows = as.integer(ddc$indrows),
    ddc_medTi = ddc$medTi, ddc_madTi = ddc$madTi, ddc_Ti_rows = unname(ddc$Ti[rows]),
    ddc_Ximp_rows = lapply(seq_len(ncol(data)), function(j) unname(ddc$Ximp[rows, j])),
    step6_branch = branch_of(data, PARS, fit$k)
  )
}

# A synthetic set (n = 1200, so that DetMCD uses scaleTau2 as on DPOSS): 5 columns of
# rank 2 plus noise, a few outlying cells,
# missing cells and two outlying rows (the data are rebuilt by the tests from these lines).
synthetic <- local({
  n <- 1200
  i <- seq_len(n)
  t1 <- qnorm((i - 0.5) / n)
  t2 <- sin(1.3 * i)
  Z <- cbind(t1, t1 + t2, t2 - 0.5 * t1, 2 * t1 - t2, t1 + 0.5 * t2)
  Z <- Z + 0.1 * cbind(cos(2 * i), sin(3 * i), cos(5 * i), sin(7 * i), cos(11 * i))
  Z[c(5, 17, 33), 2] <- Z[c(5, 17, 33), 2] + 6
  Z[c(50, 61), 4] <- Z[c(50, 61), 4] - 7
  Z[c(8, 90, 140), 1] <- NA
  Z[c(12, 150), 3] <- NA
  Z[1199:1200, ] <- Z[1199:1200, ] + 5
  colnames(Z) <- paste0("v", 1:5)
  Z
})

step <- function(what) message(format(Sys.time(), "%H:%M:%S "), what)
step("transfo done")
t0 <- proc.time()[["elapsed"]]
fit_y <- MacroPCA(Y, k = 4, MacroPCApars = PARS)
step("transformed")
fit_x <- MacroPCA(X, k = 4, MacroPCApars = PARS)
step("raw")
fit_s <- MacroPCA(synthetic, k = 2, MacroPCApars = PARS)
step("synthetic")
elapsed <- proc.time()[["elapsed"]] - t0
# k = 0: cellWise's scree call (eigenvalues of the initial h-subset, h for kmax components,
# and the cumulative share of the variance it prints and returns)
pdf(NULL)
scree <- lapply(list(transformed = Y, raw = X), function(data) {
  invisible(capture.output(s <- MacroPCA(data, k = 0, MacroPCApars = PARS)))
  list(eigenvalues = unname(s$eigenvalues), cumulativeVar = unname(s$cumulativeVar))
})
invisible(dev.off())
step("scree")

cols <- rep("black", nrow(X))
cols[c(98, 10894)] <- "darkorange"
cols[which(fit_y$SD > 14)] <- "skyblue3"
cols[which(fit_y$SD > 25)] <- "firebrick"

fallback <- NULL
step("fallback")
if (has_svd) {
  # MacroPCA with truncPC's fallback (base svd) forced, to compare with propack.svd
  ns <- asNamespace("svd")
  orig <- get("propack.svd", ns)
  unlockBinding("propack.svd", ns)
  assign("propack.svd", function(...) stop("disabled"), envir = ns)
  fb <- lapply(list(Y, X), function(data)
    tryCatch(MacroPCA(data, k = 4, MacroPCApars = PARS),
             error = function(e) conditionMessage(e)))
  # truncPC's fallback itself, on the call MacroPCA makes in its iterations
  # (ncomp = k < rank): base svd() returns all singular values but only k vectors
  tp <- tryCatch({ cellWise:::truncPC(Y[1:500, ], ncomp = 4); "ran" },
                 error = function(e) conditionMessage(e))
  assign("propack.svd", orig, envir = ns)
  lockBinding("propack.svd", ns)
  cmp <- function(a, b) if (is.character(b)) list(error = b) else list(
    eigenvalues_max_rel = max(abs(a$eigenvalues / b$eigenvalues - 1)),
    SD_max_abs = max(abs(a$SD - b$SD)), OD_max_abs = max(abs(a$OD - b$OD)),
    cutoffOD_abs = abs(a$cutoffOD - b$cutoffOD),
    same_highOD = identical(a$highOD, b$highOD), same_highSD = identical(a$highSD, b$highSD),
    same_indcells = identical(a$indcells, b$indcells), iterations = c(a$It, b$It))
  fallback <- list(transformed = cmp(fit_y, fb[[1]]), raw = cmp(fit_x, fb[[2]]),
                   truncPC_ncomp4_without_propack = tp)
}

step("summaries")
rows <- SAMPLE_ROWS(nrow(X))
out <- list(
  meta = list(
    script = "tests/reference/macropca_reference.R",
    csv = basename(csv), cellWise = as.character(packageVersion("cellWise")),
    rrcov = as.character(packageVersion("rrcov")),
    robustbase = as.character(packageVersion("robustbase")),
    R = R.version.string, svd_package = has_svd,
    svd_version = if (has_svd) as.character(packageVersion("svd")) else NULL,
    seconds = elapsed,
    pars = "k = 4, MacroPCApars = list(DDCpars = list(fastDDC = FALSE, fracNA = 0.5), scale = TRUE, silent = TRUE)"
  ),
  transformed = summ(fit_y, Y, "dposs_transformed", rows),
  raw = summ(fit_x, X, "dposs_raw", rows),
  synthetic = summ(fit_s, synthetic, "synthetic", seq_len(nrow(synthetic))),
  Y_rows = lapply(seq_len(ncol(Y)), function(j) unname(Y[rows, j])),
  colours = list(
    orange = as.integer(which(cols == "darkorange")),
    blue = as.integer(which(cols == "skyblue3")),
    red = as.integer(which(cols == "firebrick"))
  ),
  scree = scree,
  fallback_check = fallback
)
out_file <- file.path(here, "macropca_reference.json")
writeLines(to_json(out), out_file)
cat("wrote", out_file, "in", round(elapsed, 1), "s\n")

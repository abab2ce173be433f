# Reference values of ROBPCA (rrcov's PcaHubert) for boxcoxstat's robust_pca, on the DPOSS
# stars of Raymaekers & Rousseeuw (2021), section 4.3, and on small synthetic data.
#
# Run (from any directory):
#     Rscript tests/reference/robpca_reference.R [path/to/dposs_j.csv]
# Writes robpca_reference.json next to this script. The default CSV is the project's
# data/dposs_j.csv (../../data/dposs_j.csv relative to this script's folder). Needs R with
# rrcov and robustbase (Debian r-cran-rrcov, r-cran-robustbase) and cellWise 2.5.3 (see
# CELLWISE_NOTES.md) for transfo().
#
# Cases (PcaHubert(X, k = k) with all other arguments at their defaults: alpha = 0.75,
# kmax = 10, mcd = TRUE, so with p <= min(n/5, kmax) ROBPCA is the PCA of the reweighted
# MCD of the centred classical scores, robustbase's FastMCD with nsamp = 500):
#   dposs_transformed: cellWise transfo(X, type = "YJ")$Y of the 7 band-J variables
#                      (the paper's Figures 12 and 13 left), k = 4
#   dposs_raw:         the raw variables (Figure 13 right), k = 4
#   synthetic:         n = 300, p = 5 (rows below), k = 2 and k = NULL (chosen by rrcov)
#   wide_projection:   n = 60, p = 20 of rank 20 (rows below), k = 3: the projection stage
# Neither FastMCD nor DetMCD is sure to find the h-subset of smallest covariance
# determinant (on these data they differ by 1-5 points), so the stored PCA is that of the
# best subset found by DetMCD and FastMCD with seeds 1..10, computed by PcaHubert's MCD
# branch written out (checked against PcaHubert itself on FastMCD's seed-1 run).

suppressPackageStartupMessages({
  library(rrcov)
  library(cellWise)
})

file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
source(file.path(here, "common.R"), local = globalenv())
args <- commandArgs(trailingOnly = TRUE)
csv <- if (length(args) >= 1) args[1] else file.path(here, "..", "..", "data", "dposs_j.csv")

dposs <- read.csv(csv)
X <- as.matrix(dposs[, -1])
fit <- transfo(X, type = "YJ", robust = TRUE, standardize = TRUE, quant = 0.99,
               nbsteps = 2, checkPars = list(silent = TRUE))
Y <- fit$Y
colnames(Y) <- colnames(X)

qn <- function(n) qnorm((seq_len(n) - 0.5) / n)
synthetic <- local({
  n <- 300
  t1 <- qn(n)
  t2 <- sin(seq_len(n))
  Z <- cbind(3 * t1, t1 + 2 * t2, t1 * t2, 0.1 * cos(3 * seq_len(n)), 0.05 * sin(7 * seq_len(n)))
  Z[1:15, 1] <- Z[1:15, 1] + 20      # outliers in the plane
  Z[16:25, 4] <- Z[16:25, 4] + 5     # orthogonal outliers
  colnames(Z) <- paste0("v", 1:5)
  Z
})

SAMPLE_ROWS <- function(n) unique(c(1:20, round(seq(21, n, length.out = 200))))

# PcaHubert's MCD branch (p <= min(n/5, kmax)) written out for a given covMcd result, so
# that the PCA of the best h-subset R finds can be stored; checked below against
# PcaHubert itself on the same FastMCD run
mcd_branch <- function(data, mcd, k) {
  Xsvd <- rrcov:::.classPC(data, scale = FALSE, signflip = TRUE, scores = TRUE)
  X <- Xsvd$scores
  s <- svd(mcd$cov)
  ev <- s$d
  if (is.null(k)) {
    test <- which(ev / ev[1] <= 0.001)
    k <- if (length(test) != 0) min(min(ncol(X), test[1]), 10) else min(ncol(X), 10)
    cumulative <- cumsum(ev[1:k]) / sum(ev)
    if (cumulative[k] > 0.8) k <- which(cumulative >= 0.8)[1]
  }
  scores <- sweep(X, 2, mcd$center) %*% s$u[, 1:k, drop = FALSE]
  center <- as.vector(Xsvd$center + mcd$center %*% t(Xsvd$loadings))
  loadings <- Xsvd$loadings %*% s$u[, 1:k, drop = FALSE]
  sd <- sqrt(mahalanobis(scores, rep(0, k), diag(ev[1:k], ncol = k)))
  od <- apply(sweep(data, 2, center) - scores %*% t(loadings), 1, function(v) sqrt(sum(v^2)))
  cutoff_od <- if (k != Xsvd$rank) rrcov:::.crit.od(od, crit = 0.975, method = "medmad") else 0
  list(k = k, eigenvalues = ev[1:k], eig0 = ev, totvar0 = sum(ev), loadings = loadings,
       center = center, scores = scores, sd = sd, od = od,
       cutoff_sd = sqrt(qchisq(0.975, k)), cutoff_od = cutoff_od)
}

one <- function(data, k, label) {
  n <- nrow(data)
  Xsvd <- rrcov:::.classPC(data, scores = TRUE)
  Xs <- Xsvd$scores
  h <- robustbase::h.alpha.n(0.75, n, min(10, Xsvd$rank))  # PcaHubert: kmax <- min(kmax, rank)
  set.seed(1)
  pc <- if (is.null(k)) PcaHubert(data) else PcaHubert(data, k = k)
  # the best h-subset among DetMCD and FastMCD with seeds 1..10 (neither search is sure to
  # find the global minimum of the covariance determinant)
  runs <- c(list(robustbase::covMcd(Xs, alpha = h / n, nsamp = "deterministic")),
            lapply(1:10, function(sd) { set.seed(sd); robustbase::covMcd(Xs, alpha = h / n) }))
  crits <- vapply(runs, function(r) r$crit, numeric(1))
  best <- runs[[which.min(crits)]]
  # PcaHubert itself against the branch written out, on a run with PcaHubert's MCD (same
  # eigenvalues of the MCD covariance); PcaHubert's own draws are not reproducible from
  # outside, so a case may have no such run
  same <- Filter(function(r) isTRUE(all.equal(svd(r$cov)$d, unname(pc@eig0),
                                              tolerance = 1e-13)), runs)
  checked <- length(same) > 0
  if (checked) {
    mine <- mcd_branch(data, same[[1]], k)
    stopifnot(mine$k == pc@k,
              isTRUE(all.equal(mine$eigenvalues, unname(pc@eigenvalues), tolerance = 1e-13)),
              isTRUE(all.equal(unname(mine$sd), unname(pc@sd), tolerance = 1e-12)),
              isTRUE(all.equal(unname(mine$od), unname(pc@od), tolerance = 1e-12)),
              isTRUE(all.equal(mine$cutoff_od, pc@cutoff.od, tolerance = 1e-13)))
  }
  res <- mcd_branch(data, best, k)
  rows <- SAMPLE_ROWS(n)
  list(
    label = label, n = n, p = ncol(data), k_given = if (is.null(k)) NULL else as.integer(k),
    k = res$k, quan = best$quan, h_robpca = h,
    eigenvalues = res$eigenvalues, eig0 = res$eig0, totvar0 = res$totvar0,
    loadings = lapply(seq_len(res$k), function(j) unname(res$loadings[, j])),
    center = unname(res$center),
    cutoff_sd = res$cutoff_sd, cutoff_od = res$cutoff_od,
    n_flagged = as.integer(sum(res$sd > res$cutoff_sd |
                               (res$cutoff_od > 0 & res$od > res$cutoff_od))),
    sd_sum = sum(res$sd), od_sum = sum(res$od), sd_max = max(res$sd), od_max = max(res$od),
    rows = as.integer(rows),
    sd_rows = unname(res$sd[rows]), od_rows = unname(res$od[rows]),
    scores_rows = lapply(seq_len(res$k), function(j) unname(res$scores[rows, j])),
    mcd_crit = best$crit, mcd_crits = crits, mcd_best = as.integer(sort(best$best)),
    mcd_raw_cnp2 = unname(best$raw.cnp2), mcd_cnp2 = unname(best$cnp2),
    pcahubert_seed1_eigenvalues = unname(pc@eigenvalues),
    pcahubert_checked = checked
  )
}

# Wide data (rank 20 > min(n/5, kmax) = 10): PcaHubert's projection stage. Its directions
# come from rrcov's own deterministic generator; only the final MCD in the k-dimensional
# subspace draws R's random numbers, so PcaHubert is run with five seeds and must agree.
wide <- local({
  n <- 60
  p <- 20
  i <- seq_len(n)
  t1 <- qnorm((i - 0.5) / n)
  t2 <- sin(i)
  t3 <- cos(2 * i)
  L <- cbind(sin(1:p), cos(1:p), (1:p) / p)
  X <- cbind(t1, t2, 0.5 * t3) %*% t(L) + 0.05 * outer(sin(3 * i), cos(5 * (1:p))) +
    0.02 * outer(cos(7 * i), sin(2 * (1:p)))
  X <- X + 0.03 * sin(outer(i, seq_len(p), function(a, b) 1.7 * a * b + 0.3 * a^2))
  X[1:5, ] <- X[1:5, ] + 4
  X[6:8, 3] <- X[6:8, 3] + 6
  X
})

projection <- function(data, k, label) {
  fits <- lapply(1:5, function(sd) { set.seed(sd); PcaHubert(data, k = k) })
  for (f in fits[-1])
    stopifnot(isTRUE(all.equal(f@eigenvalues, fits[[1]]@eigenvalues, tolerance = 1e-13)))
  pc <- fits[[1]]
  rows <- seq_len(nrow(data))
  list(
    label = label, n = nrow(data), p = ncol(data), k_given = as.integer(k), k = pc@k,
    quan = pc@quan, h_robpca = pc@quan, eigenvalues = unname(pc@eigenvalues),
    eig0 = unname(pc@eig0), totvar0 = pc@totvar0,
    loadings = lapply(seq_len(pc@k), function(j) unname(pc@loadings[, j])),
    center = unname(pc@center), cutoff_sd = pc@cutoff.sd, cutoff_od = pc@cutoff.od,
    n_flagged = as.integer(sum(!pc@flag)),
    sd_sum = sum(pc@sd), od_sum = sum(pc@od), sd_max = max(pc@sd), od_max = max(pc@od),
    rows = as.integer(rows), sd_rows = unname(pc@sd), od_rows = unname(pc@od),
    scores_rows = lapply(seq_len(pc@k), function(j) unname(pc@scores[, j])),
    pcahubert_checked = TRUE
  )
}

t0 <- proc.time()[["elapsed"]]
cases <- list(
  one(Y, 4, "dposs_transformed"),
  one(X, 4, "dposs_raw"),
  one(synthetic, 2, "synthetic_k2"),
  one(synthetic, NULL, "synthetic_kauto"),
  projection(wide, 3, "wide_projection")
)

if (!any(vapply(cases, function(cs) cs$pcahubert_checked, logical(1))))
  stop("the written-out MCD branch was not checked against PcaHubert on any case")

out <- list(
  meta = list(
    R = R.version.string,
    rrcov = as.character(packageVersion("rrcov")),
    robustbase = as.character(packageVersion("robustbase")),
    cellWise = as.character(packageVersion("cellWise")),
    generated_by = "tests/reference/robpca_reference.R",
    call = paste("PcaHubert(X, k = k) (alpha = 0.75, kmax = 10, mcd = TRUE,",
                 "crit.pca.distances = 0.975), its MCD branch on the best of DetMCD and",
                 "FastMCD (seeds 1..10; mcd_crits lists their log determinants)"),
    dposs_transformed = paste("cellWise transfo(X, type = 'YJ', robust = TRUE, standardize = TRUE,",
                              "quant = 0.99, nbsteps = 2)$Y of data/dposs_j.csv without 'id'"),
    synthetic = paste("n = 300, t1 = qnorm((i - 0.5)/300), t2 = sin(i): columns 3 t1,",
                      "t1 + 2 t2, t1 t2, 0.1 cos(3 i), 0.05 sin(7 i); rows 1-15 column 1",
                      "+20, rows 16-25 column 4 +5"),
    wide = paste("n = 60, p = 20: (qnorm((i - 0.5)/60), sin(i), 0.5 cos(2 i)) times the",
                 "loadings (sin(j), cos(j), j/20), plus 0.05 sin(3 i) cos(5 j), 0.02 cos(7 i)",
                 "sin(2 j) and 0.03 sin(1.7 i j + 0.3 i^2); rows 1-5 +4, rows 6-8 column 3 +6"),
    rows = "1-based rows at which sd, od and scores are stored",
    signs = "loadings and scores are defined up to the sign of each component",
    lambdahats = unname(fit$lambdahats),
    seconds = proc.time()[["elapsed"]] - t0
  ),
  cases = cases
)
outfile <- file.path(here, "robpca_reference.json")
writeLines(to_json(out), outfile)
cat("wrote", outfile, "\n")

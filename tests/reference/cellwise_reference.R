# Generate reference values of cellWise's RewML estimator (transfo()) for boxcoxstat's tests.
#
# Run (from any directory):
#     Rscript tests/reference/cellwise_reference.R [path/to/topgear.csv]
# Writes cellwise_reference.json next to this script.
#
# The optional first argument is the TopGear CSV (columns MPG and Weight used).
# Default: ../../../shared/data/topgear.csv relative to this script's folder.
#
# Needs R with cellWise 2.5.3 (see CELLWISE_NOTES.md for how it was installed).
# Only base R and cellWise are used; cellWise's internal RewML_BC / RewML_YJ
# are called (via :::) solely to record the Step-1 estimate lambda0, which
# transfo() does not return.
#
# Synthetic cases (RewML_SPEC.md section 10), q_n(i) = qnorm((i - 0.5)/n):
#   T1: n = 40, x = exp(q_40), then x[38:40] <- c(50, 80, 120)
#   T2: n = 60, x = q_60, then x[1:4] <- -10
#   T3: n = 50, x = 10 - exp(0.5 * q_50)
#   T4: n = 45, x = exp(exp(q_45))
# Each with type "BC" (not T2: not strictly positive) and "YJ", robust = TRUE
# and FALSE, all other arguments at cellWise's defaults (silent = TRUE).

suppressPackageStartupMessages(library(cellWise))

# Shared helpers (JSON writer); 'here' = this script's folder.
file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "tests/reference"
source(file.path(here, "common.R"), local = globalenv())

args <- commandArgs(trailingOnly = TRUE)
default_topgear <- file.path(here, "..", "..", "..", "shared", "data", "topgear.csv")
topgear_path <- if (length(args) >= 1) args[1] else default_topgear

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
qn <- function(n) qnorm((seq_len(n) - 0.5) / n)

# Run an expression, collecting warnings (muffled) and messages.
capture <- function(expr) {
  warns <- character(0)
  msgs <- character(0)
  val <- withCallingHandlers(
    tryCatch(expr, error = function(e) e),
    warning = function(w) { warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning") },
    message = function(m) { msgs <<- c(msgs, conditionMessage(m)); invokeRestart("muffleMessage") })
  list(value = val, warnings = as.list(warns), messages = as.list(msgs))
}

fit_transfo <- function(X, type, robust) {
  capture(transfo(X, type = type, robust = robust, standardize = TRUE,
                  quant = 0.99, nbsteps = 2, checkPars = list(silent = TRUE)))
}

# Step-1 (raw) estimate from cellWise's internal robust estimators, on the
# first interval [-4, 6] and on the interval transfo() finally accepted.
step1 <- function(x, type, lambdarange) {
  xs <- sort(x)
  if (type == "BC") {
    o <- cellWise:::RewML_BC(xs, lambdarange = lambdarange, standardize = TRUE,
                             init = "BCr", quant = 0.99, nbsteps = 2)
  } else {
    o <- cellWise:::RewML_YJ(xs, lambdarange = lambdarange, standardize = TRUE,
                             init = "YJr", quant = 0.99, nbsteps = 2)
  }
  list(lambdarange = lambdarange, lambdahat_raw = o$lambdahat.raw,
       lambdahat_rew = o$lambdahat.rew)
}

# The interval transfo() accepts (same expansion rule as transfo's while loop),
# recomputed here by rerunning the internal estimator: used to report lambda0
# on the final interval too.
final_interval <- function(x, type, robust) {
  lr <- c(-4, 6)
  expansions <- 0L
  repeat {
    lam <- if (robust) step1(x, type, lr)$lambdahat_rew else
      cellWise:::estML(x, lambdarange = lr, type = type, standardize = TRUE)$lambda
    dist <- abs(lam - lr)
    if (min(dist) > diff(lr) * 0.05) break
    lr <- 1 + (lr - 1) * (1 + (dist == min(dist)))
    expansions <- expansions + 1L
  }
  list(interval = lr, expansions = expansions, lambdahat = lam)
}

fit_block <- function(fit, full = TRUE) {
  v <- fit$value
  b <- list(
    lambdahats = unname(v$lambdahats),
    objective = unname(v$objective),
    muhat = unname(v$muhat),
    sigmahat = unname(v$sigmahat),
    locx = unname(v$locx),
    scalex = unname(v$scalex),
    ttypes = as.character(v$ttypes),
    sum_weights = as.integer(colSums(v$weights))
  )
  W <- v$weights
  storage.mode(W) <- "integer"
  if (ncol(W) == 1) b$weights <- as.vector(W) else
    b$weights <- lapply(seq_len(ncol(W)), function(j) W[, j])
  if (full) b$Y <- as.vector(v$Y)
  b$colInAnalysis <- as.integer(v$colInAnalysis)
  b$warnings <- fit$warnings
  b
}

# ---------------------------------------------------------------------------
# Synthetic cases T1..T4
# ---------------------------------------------------------------------------
make_T <- function(name) {
  switch(name,
    T1 = { x <- exp(qn(40)); x[38:40] <- c(50, 80, 120); x },
    T2 = { x <- qn(60); x[1:4] <- -10; x },
    T3 = 10 - exp(0.5 * qn(50)),
    T4 = exp(exp(qn(45))))
}
T_definition <- c(
  T1 = "n = 40, x_i = exp(qnorm((i - 0.5)/40)), then x[38:40] <- c(50, 80, 120)",
  T2 = "n = 60, x_i = qnorm((i - 0.5)/60), then x[1:4] <- -10",
  T3 = "n = 50, x_i = 10 - exp(0.5 * qnorm((i - 0.5)/50))",
  T4 = "n = 45, x_i = exp(exp(qnorm((i - 0.5)/45)))")
T_types <- list(T1 = c("BC", "YJ"), T2 = "YJ", T3 = c("BC", "YJ"), T4 = c("BC", "YJ"))

cases <- list()
error_cases <- list()
for (nm in names(T_types)) {
  x <- make_T(nm)
  for (type in T_types[[nm]]) {
    for (robust in c(TRUE, FALSE)) {
      fit <- fit_transfo(x, type, robust)
      if (inherits(fit$value, "error")) stop(nm, " ", type, " failed: ", conditionMessage(fit$value))
      b <- fit_block(fit)
      nd <- capture(transfo_newdata(x, fit$value))
      if (inherits(nd$value, "error")) stop("transfo_newdata failed: ", conditionMessage(nd$value))
      fi <- final_interval(x, type, robust)
      if (!isTRUE(all.equal(fi$lambdahat, b$lambdahats, tolerance = 0)))
        stop("interval recomputation disagrees with transfo for ", nm, " ", type)
      case <- list(
        name = nm,
        definition = unname(T_definition[nm]),
        n = length(x),
        type = type,
        robust = robust,
        x = x,
        lambdahats = b$lambdahats,
        lambda0 = NULL,  # transfo() does not return the Step-1 estimate
        step1_first_interval = if (robust) step1(x, type, c(-4, 6)) else NULL,
        step1_final_interval = if (robust) step1(x, type, fi$interval) else NULL,
        final_interval = fi$interval,
        interval_expansions = fi$expansions,
        objective = b$objective,
        muhat = b$muhat,
        sigmahat = b$sigmahat,
        locx = b$locx,
        scalex = b$scalex,
        ttypes = b$ttypes,
        sum_weights = b$sum_weights,
        weights = b$weights,
        Y = b$Y,
        transfo_newdata = as.vector(nd$value),
        transfo_newdata_minus_Y_maxabs = max(abs(as.vector(nd$value) - b$Y)),
        warnings = b$warnings,
        transfo_newdata_warnings = nd$warnings
      )
      cases[[length(cases) + 1]] <- case
      cat(sprintf("%s %s robust=%-5s lambda0=%s lambdahat=%.6f obj=%.6f mu=%.6f sigma=%.6f locx=%.6f scalex=%.6f sumw=%d\n",
                  nm, type, robust,
                  if (robust) sprintf("%.6f", case$step1_first_interval$lambdahat_raw) else "   -    ",
                  b$lambdahats, b$objective, b$muhat, b$sigmahat, b$locx, b$scalex, b$sum_weights))
    }
  }
}
# Box-Cox on T2 (has negative values) must fail.
x2 <- make_T("T2")
for (robust in c(TRUE, FALSE)) {
  fit <- fit_transfo(x2, "BC", robust)
  error_cases[[length(error_cases) + 1]] <- list(
    name = "T2", type = "BC", robust = robust,
    error = inherits(fit$value, "error"),
    message = if (inherits(fit$value, "error")) conditionMessage(fit$value) else "")
}

# ---------------------------------------------------------------------------
# Real data: TopGear MPG and Weight, robust = TRUE, BC and YJ
# ---------------------------------------------------------------------------
topgear <- read.csv(topgear_path)
real <- list()
for (var in c("MPG", "Weight")) {
  raw <- as.numeric(topgear[[var]])
  x <- raw[!is.na(raw)]
  for (type in c("BC", "YJ")) {
    fit <- fit_transfo(x, type, TRUE)
    if (inherits(fit$value, "error")) stop(var, " ", type, " failed: ", conditionMessage(fit$value))
    b <- fit_block(fit, full = FALSE)
    real[[length(real) + 1]] <- list(
      dataset = "topgear", variable = var, type = type, robust = TRUE,
      input = "column with NA dropped, passed to transfo() as a vector",
      n = length(x), n_missing_dropped = sum(is.na(raw)),
      data_check = list(sum = sum(x), min = min(x), max = max(x)),
      lambdahats = b$lambdahats,
      step1_first_interval = step1(x, type, c(-4, 6)),
      objective = b$objective, muhat = b$muhat, sigmahat = b$sigmahat,
      locx = b$locx, scalex = b$scalex, ttypes = b$ttypes,
      sum_weights = b$sum_weights, weights = b$weights, warnings = b$warnings)
    cat(sprintf("topgear %-6s %s lambdahat=%.6f obj=%.6f sumw=%d n=%d\n",
                var, type, b$lambdahats, b$objective, b$sum_weights, length(x)))
  }
}
# Third real-data case: the two-column matrix (MPG, Weight) with its NAs left
# in; transfo() drops NA per column. weights are 0 at missing cells.
Xtg <- as.matrix(topgear[, c("MPG", "Weight")])
storage.mode(Xtg) <- "double"
for (type in c("BC", "YJ")) {
  fit <- fit_transfo(Xtg, type, TRUE)
  if (inherits(fit$value, "error")) stop("matrix ", type, " failed: ", conditionMessage(fit$value))
  b <- fit_block(fit, full = FALSE)
  real[[length(real) + 1]] <- list(
    dataset = "topgear", variable = c("MPG", "Weight"), type = type, robust = TRUE,
    input = "297 x 2 matrix (MPG, Weight) with NA kept; transfo() drops NA per column",
    n = nrow(Xtg), n_missing = as.integer(colSums(is.na(Xtg))),
    lambdahats = b$lambdahats, objective = b$objective, muhat = b$muhat,
    sigmahat = b$sigmahat, locx = b$locx, scalex = b$scalex, ttypes = b$ttypes,
    sum_weights = b$sum_weights, weights = b$weights,
    missing_rows = lapply(seq_len(ncol(Xtg)), function(j) which(is.na(Xtg[, j]))),
    warnings = b$warnings)
  cat(sprintf("topgear matrix %s lambdahats=%s\n", type,
              paste(sprintf("%.6f", b$lambdahats), collapse = ", ")))
}

out <- list(
  meta = list(
    R = R.version.string,
    cellWise = as.character(packageVersion("cellWise")),
    platform = R.version$platform,
    generated_by = "tests/reference/cellwise_reference.R",
    call = paste("transfo(X, type = type, robust = robust, standardize = TRUE, quant = 0.99,",
                 "nbsteps = 2, checkPars = list(silent = TRUE))"),
    topgear_csv = paste("read from the script's first command-line argument; default",
                        "../../../shared/data/topgear.csv relative to the script's folder",
                        "(i.e. /work/shared/data/topgear.csv in the project layout)"),
    lambda0 = paste("transfo() returns no Step-1 estimate, so 'lambda0' is null.",
                    "step1_first_interval.lambdahat_raw is the Step-1 estimate of",
                    "cellWise:::RewML_BC / RewML_YJ on sorted x with lambdarange [-4, 6]",
                    "(the spec's lambda0); step1_final_interval is the same on the",
                    "interval transfo() accepted after expansion (lambdahat_rew there",
                    "equals transfo's lambdahats)."),
    weights = "0/1 integers in the order of the input (0 at missing cells)",
    Y = "transfo()$Y: (T_lambdahat(prestandardized x) - muhat) / sigmahat, input order",
    transfo_newdata = "transfo_newdata(x, fit) on the same input x",
    objective = "robust: robust normality criterion at lambdahat (smaller is better); non-robust: log-likelihood (larger is better)"
  ),
  cases = cases,
  error_cases = error_cases,
  real_data = real
)

outfile <- file.path(here, "cellwise_reference.json")
writeLines(to_json(out), outfile)
cat("wrote", outfile, "with", length(cases), "synthetic and", length(real), "real-data cases\n")

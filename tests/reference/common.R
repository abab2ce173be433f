# Shared helpers of the R scripts that write boxcoxstat's reference JSON files.
# Each script sources this file (found next to the script), so the JSON writer, the
# Richardson derivative and car's rounding rule exist once.

# ---------------------------------------------------------------------------
# JSON writer with full (round-trip) precision; refuses NaN / Inf.
# ---------------------------------------------------------------------------
json_escape <- function(s) {
  s <- gsub("\\", "\\\\", s, fixed = TRUE)
  s <- gsub("\"", "\\\"", s, fixed = TRUE)
  s <- gsub("\n", "\\n", s, fixed = TRUE)
  s <- gsub("\t", "\\t", s, fixed = TRUE)
  paste0("\"", s, "\"")
}

json_num <- function(v, where) {
  if (is.na(v) || !is.finite(v)) stop("non-finite number in JSON at ", where)
  if (is.integer(v)) return(sprintf("%d", v))
  if (v == 0) return("0.0")
  s <- sprintf("%.17g", v)
  # prefer the shortest representation that round-trips exactly
  for (d in 15:16) {
    t <- sprintf(paste0("%.", d, "g"), v)
    if (as.numeric(t) == v) { s <- t; break }
  }
  if (!grepl("[.eE]", s)) s <- paste0(s, ".0")
  s
}

to_json <- function(x, indent = 0, where = "") {
  pad <- strrep("  ", indent)
  pad1 <- strrep("  ", indent + 1)
  if (is.null(x)) return("null")
  if (is.list(x)) {
    if (length(x) == 0) return(if (is.null(names(x))) "[]" else "{}")
    if (!is.null(names(x))) {
      items <- vapply(seq_along(x), function(i) {
        paste0(pad1, json_escape(names(x)[i]), ": ",
               to_json(x[[i]], indent + 1, paste0(where, "/", names(x)[i])))
      }, character(1))
      return(paste0("{\n", paste(items, collapse = ",\n"), "\n", pad, "}"))
    }
    items <- vapply(seq_along(x), function(i) {
      paste0(pad1, to_json(x[[i]], indent + 1, paste0(where, "[", i, "]")))
    }, character(1))
    return(paste0("[\n", paste(items, collapse = ",\n"), "\n", pad, "]"))
  }
  if (length(x) != 1) {
    # atomic vector -> JSON array (on one line)
    return(paste0("[", paste(vapply(seq_along(x), function(i)
      to_json(x[i], indent, paste0(where, "[", i, "]")), character(1)),
      collapse = ", "), "]"))
  }
  if (is.logical(x)) {
    if (is.na(x)) stop("NA logical in JSON at ", where)
    return(if (x) "true" else "false")
  }
  if (is.character(x)) return(json_escape(x))
  if (is.numeric(x)) return(json_num(x, where))
  stop("cannot serialise type ", class(x), " at ", where)
}

# d/dlambda of (exp(lambda*a) - 1)/lambda is a^2 * g(lambda*a), with
# g(t) = (t e^t - e^t + 1)/t^2 = sum_{m>=2} t^(m-2) (m-1)/m!  (series near t = 0)
bc_stable <- function(a, lambda) {
  if (lambda == 0) return(a)
  expm1(lambda * a) / lambda
}
bc_dlambda <- function(a, lambda) {
  t <- lambda * a
  g <- numeric(length(t))
  small <- abs(t) < 1e-3
  ts <- t[small]
  g[small] <- 1/2 + ts * (1/3 + ts * (1/8 + ts * (1/30 + ts * (1/144 + ts / 840))))
  tb <- t[!small]
  g[!small] <- (tb * exp(tb) - expm1(tb)) / tb^2
  a^2 * g
}

# Ridders / Richardson extrapolation of a central difference (Numerical
# Recipes "dfridr" scheme).  'second = TRUE' extrapolates the central second
# difference of f instead of the first difference.
ridders <- function(f, x, h, second = FALSE, con = 1.4, ntab = 12) {
  con2 <- con^2
  a <- matrix(NA_real_, ntab, ntab)
  cd <- function(hh) {
    if (second) (f(x + hh) - 2 * f(x) + f(x - hh)) / hh^2
    else (f(x + hh) - f(x - hh)) / (2 * hh)
  }
  hh <- h
  a[1, 1] <- cd(hh)
  err <- Inf
  ans <- a[1, 1]
  for (i in 2:ntab) {
    hh <- hh / con
    a[1, i] <- cd(hh)
    fac <- con2
    for (j in 2:i) {
      a[j, i] <- (a[j - 1, i] * fac - a[j - 1, i - 1]) / (fac - 1)
      fac <- con2 * fac
      errt <- max(abs(a[j, i] - a[j - 1, i]), abs(a[j, i] - a[j - 1, i - 1]))
      if (errt <= err) { err <- errt; ans <- a[j, i] }
    }
    if (abs(a[i, i] - a[i - 1, i - 1]) >= 2 * err) break
  }
  list(value = ans, err = err)
}

CAND <- c(1, 0, -1, 0.5, 0.33, -0.5, -0.33, 2, -2)
# car's rule (estimateTransform.default): first candidate in CAND (priority
# order) lying in the closed interval lambda -/+ 1.96*se; else lambda itself.
car_round_rule <- function(lambda, se) {
  lo <- lambda - 1.96 * se
  hi <- lambda + 1.96 * se
  r <- lambda
  for (v in rev(CAND)) r[lo <= v & v <= hi] <- v
  r
}

lr_block <- function(stat, df = 1L) {
  list(statistic = stat, df = as.integer(df),
       pvalue = pchisq(stat, df, lower.tail = FALSE),
       log_pvalue = pchisq(stat, df, lower.tail = FALSE, log.p = TRUE))
}

# Bicego & Baldo's (2016) `breast` dataset for vignettes/classify_bicego.py.
#
# Run from the repository root:
#     Rscript vignettes/data/breast_biopsy.R
# Writes vignettes/data/breast_biopsy.csv (R 4.2.2, MASS 7.3-58.2) and prints its row
# count and md5 (see vignettes/data/README.md for the values committed).
#
# Source: MASS's `biopsy` data frame (Venables & Ripley 2002), which is the original
# Wisconsin breast cancer database of Wolberg & Mangasarian (1990), UCI Machine Learning
# Repository `breast-cancer-wisconsin.data` (licence CC BY 4.0): 699 biopsies, sample ID,
# nine cytological features V1..V9 scored 1-10 (clump thickness, uniformity of cell
# size, uniformity of cell shape, marginal adhesion, single epithelial cell size, bare
# nuclei, bland chromatin, normal nucleoli, mitoses) and the class (benign /
# malignant). Sixteen rows lack V6 (bare nuclei); the 683 complete rows, 444 benign and
# 239 malignant, are the 683 x 9 two-class set of Bicego & Baldo's Table 1.
#
# Written: V1..V9 and class, in MASS's row order, without the ID (several biopsies share
# an ID, and it is not a feature). The CI has no R: the vignette reads the CSV.

suppressPackageStartupMessages(library(MASS))

out <- local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "vignettes/data"
  file.path(here, "breast_biopsy.csv")
})

data(biopsy, package = "MASS")
stopifnot(nrow(biopsy) == 699, sum(is.na(biopsy)) == 16, sum(is.na(biopsy$V6)) == 16)
breast <- biopsy[complete.cases(biopsy), c(paste0("V", 1:9), "class")]
stopifnot(nrow(breast) == 683, all(table(breast$class) == c(444, 239)))
breast$class <- as.character(breast$class)

con <- file(out, open = "wb")  # "\n" line endings on every platform
write.csv(breast, con, row.names = FALSE, quote = FALSE, eol = "\n")
close(con)

cat(sprintf("%s: %d rows x %d columns (R %s, MASS %s), md5 %s\n", out, nrow(breast),
            ncol(breast), getRversion(), packageDescription("MASS")$Version, unname(tools::md5sum(out))))

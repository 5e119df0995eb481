# Golden values for Strategist's GO enrichment (internal/catalog/enrich).
#
# Reads enrichment_input.tsv (one 2x2 table per row: k step genes in the
# term, n annotated step genes, K term genes, N annotated genes) and writes
# enrichment_golden.tsv with R's own answers, which the Go tests compare
# against without needing R:
#
#   p_value     phyper(k - 1, K, N - K, n, lower.tail = FALSE), the
#               one-sided hypergeometric test (checked against
#               fisher.test(alternative = "greater"))
#   odds_ratio  the sample odds ratio (k (N-K-n+k)) / ((n-k) (K-k)):
#               Inf when only the denominator is 0, NaN when both are
#   fold        (k / n) / (K / N)
#   benjamini   p.adjust(p_value, "BH") over every row of the file
#   bonferroni  p.adjust(p_value, "bonferroni") over every row
#
# Regenerate from this directory with: Rscript enrichment_golden.R
# (R 4.2 wrote the committed file).
input <- read.delim("enrichment_input.tsv", colClasses = c("character", rep("numeric", 4)))
k <- input$k; n <- input$n; K <- input$K; N <- input$N

p <- phyper(k - 1, K, N - K, n, lower.tail = FALSE)
for (i in seq_along(p)) {
  tab <- matrix(c(k[i], n[i] - k[i], K[i] - k[i], N[i] - K[i] - n[i] + k[i]), nrow = 2, byrow = TRUE)
  if (all(rowSums(tab) > 0) && all(colSums(tab) > 0)) {
    f <- fisher.test(tab, alternative = "greater")$p.value
    stopifnot(isTRUE(all.equal(f, p[i], tolerance = 1e-6)))
  }
}
odds <- (k * (N - K - n + k)) / ((n - k) * (K - k))
fold <- (k / n) / (K / N)

num <- function(x) sprintf("%.17g", x)
out <- data.frame(
  id = input$id, k = k, n = n, K = K, N = N,
  p_value = num(p),
  odds_ratio = num(odds),
  fold = num(fold),
  benjamini = num(p.adjust(p, "BH")),
  bonferroni = num(p.adjust(p, "bonferroni"))
)
write.table(out, "enrichment_golden.tsv", sep = "\t", quote = FALSE, row.names = FALSE)

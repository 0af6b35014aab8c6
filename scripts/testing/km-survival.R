# R survival's Kaplan–Meier as a reference for the statistics oracle (scripts/testing/km-oracle.test.ts), one run
# for many samples: Rscript km-survival.R <in.json> <out.json>.
#
# Each sample is { kind: "left" | "right", x: [numbers], detected: [booleans] }. Left-censored data are flipped,
# t = M − x (../shared/statistics/README.md §4.1, as NADA's cenfit does), right-censored data are fitted as they are
# (§4.2). The curve is read off survfit and §5.1's rules and §5.3's mean are applied here, in R, so the test compares
# two implementations that share nothing but the README.
suppressPackageStartupMessages({ library(survival); library(jsonlite) })

args <- commandArgs(trailingOnly = TRUE)
samples <- fromJSON(args[1], simplifyVector = FALSE)
eps <- 1e-9
probs <- c(0.1, 0.5, 0.9)

# For left-censored data: F(d−) = P(X < d) = P(T > M − d), survfit's survival just after the event at M − d.
left_sample <- function(x, det) {
  M <- max(x)
  fit <- survfit(Surv(M - x, det) ~ 1)
  d <- sort(unique(x[det]))
  Fminus <- rev(summary(fit, times = rev(M - d))$surv)
  F <- c(Fminus[-1], 1)
  low <- Fminus[1]
  pct <- lapply(probs, function(p) {
    if (p <= low + eps) return(list(value = max(x[!det & x <= d[1]]), qualifier = "<"))
    list(value = d[which(F >= p - eps)[1]], qualifier = NULL)
  })
  # survfit's restricted mean up to M − d₁ is E[min(T, M − d₁)] = M − E[max(X, d₁)]: §5.3's mean.
  rmean <- summary(fit, rmean = M - d[1])$table[["rmean"]]
  list(d = d, F = F, Fminus = Fminus, percentiles = pct, mean = M - rmean)
}

# For right-censored data: F(d) = 1 − S(d); the mean only when no weight lies above the largest detected value.
right_sample <- function(x, det) {
  fit <- survfit(Surv(x, det) ~ 1)
  d <- sort(unique(x[det]))
  S <- summary(fit, times = d)$surv
  F <- 1 - S
  Fminus <- c(0, F[-length(F)])
  high <- S[length(S)]
  pct <- lapply(probs, function(p) {
    if (p > 1 - high + eps) return(list(value = min(x[!det & x >= d[length(d)]]), qualifier = ">"))
    list(value = d[which(F >= p - eps)[1]], qualifier = NULL)
  })
  mean <- if (high > 0) NULL else summary(fit, rmean = d[length(d)])$table[["rmean"]]
  list(d = d, F = F, Fminus = Fminus, percentiles = pct, mean = mean)
}

out <- lapply(samples, function(s) {
  x <- as.numeric(unlist(s$x))
  det <- as.logical(unlist(s$detected))
  if (s$kind == "left") left_sample(x, det) else right_sample(x, det)
})
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, null = "null"), args[2])

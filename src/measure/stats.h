/* stats: how sure a figure is. Distribution-free intervals and rank tests
 * for the few rounds a benchmark can afford (benchstat's methods, in C).
 *
 * - The median's 95% interval: order statistics (the binomial argument,
 *   valid for any continuous distribution), interpolated between the two
 *   neighbouring pairs as Hettmansperger and Sheather (1986) do, so that
 *   coverage is close to 95% rather than the 97.9% of the plain pair at
 *   n = 10. Below n = 6 no pair of order statistics reaches 95%: the
 *   interval is [min, max] and .covered is 0.
 * - A NEW/OLD ratio of two independent sets: the Hodges-Lehmann estimate
 *   on the log scale (the median of all pairwise NEW_i/OLD_j) with Moses'
 *   interval from the Mann-Whitney critical value, so that the interval
 *   excludes 1 exactly when the unadjusted U test rejects at 5%.
 * - The Mann-Whitney U test, two-sided: exact null distribution when there
 *   are no ties and both sides are small, the normal approximation with tie
 *   and continuity corrections otherwise.
 * - For paired samples (A/B alternated round by round): the Wilcoxon
 *   signed-rank test and the Hodges-Lehmann ratio with Tukey's interval.
 * - Holm-Bonferroni over a family of p-values.
 * - A percentile bootstrap of the median of paired ratios (paired rounds of
 *   one run), seeded so that a report is reproducible.
 * Every function is pure: no I/O, no globals. */
#ifndef KVTEST_STATS_H
#define KVTEST_STATS_H
#include <stddef.h>
#include <stdint.h>

/* Fewer samples than this on a side: no verdict ("too few samples"). */
#define STATS_MIN_SAMPLES 4

struct stats_ci {
    double est;     /* the point estimate */
    double lo, hi;  /* its 95% interval */
    int covered;    /* 1 when the interval reaches its nominal 95% */
};

/* Median of v[0..n) without changing v; NaN for n == 0. */
double stats_median(const double *v, size_t n);

/* The median and its 95% interval (see above). -1 for n == 0 or a
 * non-finite value, else 0. */
int stats_median_ci(const double *v, size_t n, struct stats_ci *out);

/* Two-sided p-value of the Mann-Whitney U test of a against b; 1.0 when
 * either side is empty, NaN when a value is not finite or when out of
 * memory (never another method's p-value in its place). */
double stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb);

/* Holm-Bonferroni: adj[i] is p[i] adjusted for the n tests (monotone,
 * capped at 1); the order of the rows is kept. adj may be p. 0, or -1
 * when out of memory (adj untouched). */
int stats_holm(const double *p, double *adj, size_t n);

/* NEW/OLD: Hodges-Lehmann ratio and Moses' 95% interval (see above).
 * Every value must be > 0 and finite; -1 otherwise or when a side is
 * empty, or when out of memory. With too few samples for a 95% interval,
 * [min, max] of the pairwise ratios and .covered = 0. */
int stats_ratio_ci(const double *old, size_t nold, const double *nw, size_t nnew,
                   struct stats_ci *out);

/* Paired rounds: the median of num[i]/den[i] and its percentile-bootstrap
 * 95% interval (resamples draws of n pairs with replacement, xoshiro seeded
 * with seed). Every value > 0 and finite, n >= 1, resamples >= 100; -1
 * otherwise. .covered = 0 below STATS_MIN_SAMPLES pairs. */
int stats_paired_ratio_ci(const double *num, const double *den, size_t n, int resamples,
                          uint64_t seed, struct stats_ci *out);

/* One metric measured on two sides: each side's median with its interval,
 * the NEW/OLD ratio with its interval, the U test's p-value (p_adj starts
 * equal to it; stats_holm over a table's rows replaces it). */
enum stats_verdict { STATS_SAME, STATS_FASTER, STATS_SLOWER, STATS_TOO_FEW };

struct stats_cmp {
    struct stats_ci old, nw, ratio;
    double p, p_adj;
    size_t nold, nnew;
};

/* -1 on an empty side, a non-finite value or a value <= 0 (every metric
 * kvtest prints is a positive time, rate or size). */
int stats_compare(const double *old, size_t nold, const double *nw, size_t nnew,
                  struct stats_cmp *out);

/* The same for paired samples: old[i] and nw[i] were measured side by
 * side (one round of an alternating A/B run), so what the rounds share
 * (the machine's speed that minute) cancels in the ratio nw[i]/old[i].
 * The ratio is the Hodges-Lehmann estimate of those ratios on the log
 * scale (the median of the Walsh averages) with its interval from the
 * Wilcoxon signed-rank distribution (Tukey), and p the two-sided
 * signed-rank test: exact below 200 pairs when no log ratio is zero or
 * tied, else the normal approximation with tie and continuity
 * corrections (zero ratios dropped). The interval needs 6 pairs for 95%
 * (.covered). -1 as stats_compare, or n == 0. */
int stats_compare_paired(const double *old, const double *nw, size_t n, struct stats_cmp *out);

/* The verdict on one row at significance alpha (0.05): too few samples
 * below STATS_MIN_SAMPLES a side (no test can show a difference there);
 * otherwise slower or faster only where p_adj < alpha. higher_better: the
 * metric is a rate (MB/s, lookups/s) rather than a time or a size. */
enum stats_verdict stats_decide(const struct stats_cmp *c, int higher_better, double alpha);

/* "~", "faster", "slower", "too few samples". */
const char *stats_verdict_name(enum stats_verdict v);

#endif

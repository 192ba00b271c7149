/* stats: distribution-free intervals and rank tests (see stats.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/keys/rng.h"
#include "measure/stats.h"

#define LEVEL 0.95
#define Z975 1.959963984540054
/* Both sides at most this large and no ties: the exact null distribution
 * of U (a table of about m*m*n/2 doubles, built in O(m*m*n*n)). */
#define EXACT_MAX 50
/* Pairs at most this many, no zero or tied log ratio: the exact null
 * distribution of the signed-rank sum (n*n/2 doubles, O(n^3) to build). */
#define EXACT_PAIRS_MAX 200

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Insertion sort below a few dozen values: the bootstrap sorts thousands
 * of small arrays, where qsort's call per comparison dominates. */
static void sort_doubles(double *v, size_t n)
{
    if (n > 32) {
        qsort(v, n, sizeof *v, cmp_double);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static double median_sorted(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int all_finite(const double *v, size_t n, int positive)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]) || (positive && !(v[i] > 0)))
            return 0;
    return 1;
}

double stats_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return NAN;
    memcpy(c, v, n * sizeof *c);
    sort_doubles(c, n);
    double m = median_sorted(c, n);
    free(c);
    return m;
}

/* P(B <= k) for B ~ Binomial(n, 1/2), k < n, summed in log space so that
 * n in the thousands does not underflow 2^-n. */
static double binom_half_cdf(size_t n, size_t k)
{
    double s = 0, ln2n = (double)n * log(2.0);
    for (size_t i = 0; i <= k; i++)
        s += exp(lgamma((double)n + 1) - lgamma((double)i + 1) -
                 lgamma((double)(n - i) + 1) - ln2n);
    return s;
}

/* Coverage of [X(d), X(n-d+1)] (1-based order statistics). */
static double pair_coverage(size_t n, size_t d)
{
    return 1.0 - 2.0 * binom_half_cdf(n, d - 1);
}

int stats_median_ci(const double *v, size_t n, struct stats_ci *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || !all_finite(v, n, 0))
        return -1;
    double *x = malloc(n * sizeof *x);
    if (!x)
        return -1;
    memcpy(x, v, n * sizeof *x);
    sort_doubles(x, n);
    out->est = median_sorted(x, n);
    out->lo = x[0];
    out->hi = x[n - 1];
    if (pair_coverage(n, 1) >= LEVEL) {
        /* d: the innermost pair that still reaches 95%. Beyond a few
         * thousand rounds the normal approximation places it. */
        size_t d = 1;
        if (n > 2000)
            d = (size_t)fmax(1.0, floor((double)n / 2 - Z975 * sqrt((double)n) / 2));
        while (d + 1 <= n - d && pair_coverage(n, d + 1) >= LEVEL)
            d++;
        double lam = 0;
        if (d + 1 <= n - d) {
            double g0 = pair_coverage(n, d), g1 = pair_coverage(n, d + 1);
            double I = (g0 - LEVEL) / (g0 - g1);
            lam = ((double)(n - d) * I) / ((double)d + (double)(n - 2 * d) * I);
        }
        out->lo = (1 - lam) * x[d - 1] + lam * x[d];
        out->hi = (1 - lam) * x[n - d] + lam * x[n - d - 1];
        out->covered = 1;
    }
    free(x);
    return 0;
}

/* cdf[u] = P(U <= u) under the null for sides m and n, u in [0, m*n]:
 * c(i, j, u) counts arrangements of i values of one side and j of the
 * other with U = u; the largest value belongs to one side or the other,
 * so c(i, j, u) = c(i-1, j, u-j) + c(i, j-1, u). Rolled over j. Returns
 * NULL on out of memory. */
static double *u_null_cdf(size_t m, size_t n)
{
    size_t w = m * n + 1;
    double *prev = calloc((m + 1) * w, sizeof *prev);
    double *cur = calloc((m + 1) * w, sizeof *cur);
    double *cdf = malloc(w * sizeof *cdf);
    if (!prev || !cur || !cdf) {
        free(prev), free(cur), free(cdf);
        return NULL;
    }
    for (size_t i = 0; i <= m; i++)
        prev[i * w] = 1;   /* j = 0: U = 0 whatever i */
    for (size_t j = 1; j <= n; j++) {
        memset(cur, 0, (m + 1) * w * sizeof *cur);
        cur[0] = 1;        /* i = 0 */
        for (size_t i = 1; i <= m; i++)
            for (size_t u = 0; u <= i * j; u++)
                cur[i * w + u] = (u >= j ? cur[(i - 1) * w + u - j] : 0) + prev[i * w + u];
        double *t = prev;
        prev = cur, cur = t;
    }
    double total = 0;
    for (size_t u = 0; u < w; u++)
        total += prev[m * w + u];
    double acc = 0;
    for (size_t u = 0; u < w; u++) {
        acc += prev[m * w + u];
        cdf[u] = acc / total;
    }
    free(prev), free(cur);
    return cdf;
}

/* U of a against b (pairs a > b, ties count one half) and whether the
 * pooled values hold a tie; the tie term of the variance goes to *tie.
 * NaN when out of memory (the ties unknown, which decide the method). */
static double u_statistic(const double *a, size_t na, const double *b, size_t nb,
                          int *ties, double *tie)
{
    double u = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            u += a[i] > b[j] ? 1.0 : a[i] == b[j] ? 0.5 : 0.0;
    size_t n = na + nb;
    double *p = malloc(n * sizeof *p);
    *ties = 0, *tie = 0;
    if (!p)
        return NAN;
    memcpy(p, a, na * sizeof *p);
    memcpy(p + na, b, nb * sizeof *p);
    sort_doubles(p, n);
    for (size_t i = 0; i < n;) {
        size_t k = i + 1;   /* a run is at least its first value */
        while (k < n && p[k] == p[i])
            k++;
        double t = (double)(k - i);
        if (t > 1)
            *ties = 1, *tie += t * t * t - t;
        i = k;
    }
    free(p);
    return u;
}

double stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb)
{
    if (na == 0 || nb == 0)
        return 1.0;
    /* A NaN equals nothing, itself included: it would count in no pair of
     * U and, in the tie scan, as a run of length 0. */
    if (!all_finite(a, na, 0) || !all_finite(b, nb, 0))
        return NAN;
    int ties;
    double tie;
    double u = u_statistic(a, na, b, nb, &ties, &tie);
    if (isnan(u))
        return NAN;
    double mn = (double)na * (double)nb;
    if (!ties && na <= EXACT_MAX && nb <= EXACT_MAX) {
        /* Out of memory is an error, never the normal approximation in
         * its place: the same data must give the same p-value. */
        double *cdf = u_null_cdf(na, nb);
        if (!cdf)
            return NAN;
        /* The null distribution is symmetric: the upper tail of u is the
         * lower tail of mn - u. */
        size_t k = (size_t)fmin(u, mn - u);
        double p = 2 * cdf[k];
        free(cdf);
        return p > 1 ? 1 : p;
    }
    double N = (double)(na + nb);
    double var = mn / 12.0 * ((N + 1) - tie / (N * (N - 1)));
    if (!(var > 0))
        return 1.0;   /* every value tied: nothing to tell apart */
    double z = (fabs(u - mn / 2) - 0.5) / sqrt(var);
    if (z < 0)
        z = 0;
    double p = erfc(z / sqrt(2.0));
    return p > 1 ? 1 : p;
}

int stats_holm(const double *p, double *adj, size_t n)
{
    size_t *ix = malloc((n ? n : 1) * sizeof *ix);
    double *q = malloc((n ? n : 1) * sizeof *q);
    if (!ix || !q) {
        free(ix), free(q);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        ix[i] = i, q[i] = p[i];
    for (size_t i = 1; i < n; i++) {   /* by p ascending, stable */
        size_t t = ix[i], j = i;
        for (; j > 0 && q[ix[j - 1]] > q[t]; j--)
            ix[j] = ix[j - 1];
        ix[j] = t;
    }
    double run = 0;
    for (size_t k = 0; k < n; k++) {
        double v = fmin(1.0, q[ix[k]] * (double)(n - k));
        run = fmax(run, v);   /* adjusted p-values never decrease */
        adj[ix[k]] = run;
    }
    free(ix), free(q);
    return 0;
}

/* The largest w with P(U <= w) <= 2.5% under the null; -1 when even U = 0
 * is likelier than that (too few samples for a 95% interval), -2 when out
 * of memory. */
static long moses_w(size_t m, size_t n)
{
    double mn = (double)m * (double)n;
    if (m > EXACT_MAX || n > EXACT_MAX) {
        double sd = sqrt(mn * (double)(m + n + 1) / 12.0);
        return (long)floor(mn / 2 - Z975 * sd - 0.5);
    }
    double *cdf = u_null_cdf(m, n);
    if (!cdf)
        return -2;
    long w = -1;
    for (size_t u = 0; u <= m * n && cdf[u] <= (1 - LEVEL) / 2; u++)
        w = (long)u;
    free(cdf);
    return w;
}

int stats_ratio_ci(const double *old, size_t nold, const double *nw, size_t nnew,
                   struct stats_ci *out)
{
    memset(out, 0, sizeof *out);
    if (nold == 0 || nnew == 0 || !all_finite(old, nold, 1) || !all_finite(nw, nnew, 1))
        return -1;
    size_t k = nold * nnew;
    double *d = malloc(k * sizeof *d);
    if (!d)
        return -1;
    for (size_t i = 0; i < nold; i++)
        for (size_t j = 0; j < nnew; j++)
            d[i * nnew + j] = log(nw[j]) - log(old[i]);
    qsort(d, k, sizeof *d, cmp_double);
    out->est = exp(median_sorted(d, k));
    long w = moses_w(nold, nnew);
    if (w == -2) {   /* out of memory: no interval rather than a wider one */
        free(d);
        return -1;
    }
    if (w >= 0 && (size_t)w < k / 2) {
        out->lo = exp(d[w]);
        out->hi = exp(d[k - 1 - (size_t)w]);
        out->covered = 1;
    } else {
        out->lo = exp(d[0]);
        out->hi = exp(d[k - 1]);
    }
    free(d);
    return 0;
}

int stats_paired_ratio_ci(const double *num, const double *den, size_t n, int resamples,
                          uint64_t seed, struct stats_ci *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || resamples < 100 || !all_finite(num, n, 1) || !all_finite(den, n, 1))
        return -1;
    double *r = malloc(n * sizeof *r), *s = malloc(n * sizeof *s);
    double *meds = malloc((size_t)resamples * sizeof *meds);
    if (!r || !s || !meds) {
        free(r), free(s), free(meds);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        r[i] = num[i] / den[i];
    memcpy(s, r, n * sizeof *s);
    sort_doubles(s, n);
    out->est = median_sorted(s, n);
    rng_t g;
    rng_seed(&g, seed);
    for (int b = 0; b < resamples; b++) {
        for (size_t i = 0; i < n; i++)
            s[i] = r[rng_below(&g, n)];
        sort_doubles(s, n);
        meds[b] = median_sorted(s, n);
    }
    qsort(meds, (size_t)resamples, sizeof *meds, cmp_double);
    size_t lo = (size_t)floor((1 - LEVEL) / 2 * resamples);
    size_t hi = (size_t)ceil((1 + LEVEL) / 2 * resamples) - 1;
    out->lo = meds[lo];
    out->hi = meds[hi];
    out->covered = n >= STATS_MIN_SAMPLES;
    free(r), free(s), free(meds);
    return 0;
}

int stats_compare(const double *old, size_t nold, const double *nw, size_t nnew,
                  struct stats_cmp *out)
{
    memset(out, 0, sizeof *out);
    if (stats_median_ci(old, nold, &out->old) || stats_median_ci(nw, nnew, &out->nw) ||
        stats_ratio_ci(old, nold, nw, nnew, &out->ratio))
        return -1;
    out->p = out->p_adj = stats_mann_whitney(nw, nnew, old, nold);
    out->nold = nold, out->nnew = nnew;
    return isnan(out->p) ? -1 : 0;   /* out of memory */
}

/* cdf[t] = P(T <= t) for the signed-rank sum T of n pairs under the null,
 * t in [0, n(n+1)/2]: each rank k is in T or not with probability 1/2, so
 * the counts obey c_k(t) = c_{k-1}(t) + c_{k-1}(t-k). NULL on OOM. */
static double *t_null_cdf(size_t n)
{
    size_t w = n * (n + 1) / 2 + 1;
    double *c = calloc(w, sizeof *c);
    if (!c)
        return NULL;
    c[0] = 1;
    for (size_t k = 1; k <= n; k++)
        for (size_t t = w - 1; t >= k; t--)
            c[t] += c[t - k];
    double total = ldexp(1.0, (int)n), acc = 0;
    for (size_t t = 0; t < w; t++) {
        acc += c[t];
        c[t] = acc / total;
    }
    return c;
}

/* By magnitude: the signed-rank test ranks |d|, the sign rides along. */
static int cmp_abs(const void *a, const void *b)
{
    double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
    return (x > y) - (x < y);
}

/* The signed-rank test of the log ratios d[0..n), two-sided; cdf: the
 * null distribution of n pairs (t_null_cdf), or NULL for the normal
 * approximation. NaN when out of memory. */
static double signed_rank_p(const double *d, size_t n, const double *cdf)
{
    /* |d| of the non-zero ratios, sorted with their signs. */
    double *a = malloc((n ? n : 1) * sizeof *a);
    if (!a)
        return NAN;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0)
            a[m++] = d[i];
    if (m == 0) {
        free(a);
        return 1.0;   /* every pair equal: nothing to tell apart */
    }
    qsort(a, m, sizeof *a, cmp_abs);
    double tplus = 0, tie = 0;
    int ties = 0;
    for (size_t i = 0; i < m;) {
        size_t k = i;
        while (k < m && fabs(a[k]) == fabs(a[i]))
            k++;
        double rank = (double)(i + 1 + k) / 2, t = (double)(k - i);   /* mid-rank */
        if (t > 1)
            ties = 1, tie += t * t * t - t;
        for (size_t j = i; j < k; j++)
            if (a[j] > 0)
                tplus += rank;
        i = k;
    }
    free(a);
    double M = (double)m * (double)(m + 1) / 2;
    if (!ties && m == n && cdf) {
        /* Symmetric: the upper tail of T is the lower tail of M - T. */
        double p = 2 * cdf[(size_t)fmin(tplus, M - tplus)];
        return p > 1 ? 1 : p;
    }
    double var = (double)m * (double)(m + 1) * (double)(2 * m + 1) / 24.0 - tie / 48.0;
    if (!(var > 0))
        return 1.0;
    double z = (fabs(tplus - M / 2) - 0.5) / sqrt(var);
    return z < 0 ? 1.0 : fmin(1.0, erfc(z / sqrt(2.0)));
}

/* The largest t with P(T <= t) <= 2.5% under the null for n pairs; -1
 * when even T = 0 is likelier (fewer than 6 pairs). cdf as signed_rank_p
 * (NULL up to EXACT_PAIRS_MAX pairs: out of memory, so no interval). */
static long tukey_t(size_t n, const double *cdf)
{
    double M = (double)n * (double)(n + 1) / 2;
    if (n > EXACT_PAIRS_MAX) {
        double sd = sqrt(M * (double)(2 * n + 1) / 12.0);
        return (long)floor(M / 2 - Z975 * sd - 0.5);
    }
    if (!cdf)
        return -1;
    long t = -1;
    for (size_t u = 0; u <= (size_t)M && cdf[u] <= (1 - LEVEL) / 2; u++)
        t = (long)u;
    return t;
}

int stats_compare_paired(const double *old, const double *nw, size_t n, struct stats_cmp *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || stats_median_ci(old, n, &out->old) || stats_median_ci(nw, n, &out->nw) ||
        !all_finite(old, n, 1) || !all_finite(nw, n, 1))
        return -1;
    size_t k = n * (n + 1) / 2;
    double *d = malloc(n * sizeof *d), *w = malloc(k * sizeof *w);
    if (!d || !w) {
        free(d), free(w);
        return -1;
    }
    /* Rounded to 1e-12 (a ratio of 1 + 1e-12: far below what any timer
     * resolves), so that equal ratios are equal, not one ulp apart: which
     * pairs tie decides between the exact and the normal test. */
    for (size_t i = 0; i < n; i++)
        d[i] = round((log(nw[i]) - log(old[i])) * 1e12) / 1e12;
    size_t x = 0;   /* the Walsh averages (d_i + d_j) / 2, i <= j */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            w[x++] = (d[i] + d[j]) / 2;
    qsort(w, k, sizeof *w, cmp_double);
    out->ratio.est = exp(median_sorted(w, k));
    /* Built once for the interval and the test: O(n^3) at 200 pairs. */
    double *cdf = n <= EXACT_PAIRS_MAX ? t_null_cdf(n) : NULL;
    if (n <= EXACT_PAIRS_MAX && !cdf) {   /* out of memory: an error, not another method */
        free(d), free(w);
        return -1;
    }
    long t = tukey_t(n, cdf);
    if (t >= 0 && (size_t)t < k / 2) {
        out->ratio.lo = exp(w[t]);
        out->ratio.hi = exp(w[k - 1 - (size_t)t]);
        out->ratio.covered = 1;
    } else {
        out->ratio.lo = exp(w[0]);
        out->ratio.hi = exp(w[k - 1]);
    }
    out->p = out->p_adj = signed_rank_p(d, n, cdf);
    out->nold = out->nnew = n;
    free(d), free(w), free(cdf);
    return isnan(out->p) ? -1 : 0;
}

enum stats_verdict stats_decide(const struct stats_cmp *c, int higher_better, double alpha)
{
    if (c->nold < STATS_MIN_SAMPLES || c->nnew < STATS_MIN_SAMPLES)
        return STATS_TOO_FEW;
    if (!(c->p_adj < alpha) || c->ratio.est == 1.0)
        return STATS_SAME;
    int up = c->ratio.est > 1.0;
    return up == !higher_better ? STATS_SLOWER : STATS_FASTER;
}

const char *stats_verdict_name(enum stats_verdict v)
{
    switch (v) {
    case STATS_FASTER: return "faster";
    case STATS_SLOWER: return "slower";
    case STATS_TOO_FEW: return "too few samples";
    default: return "~";
    }
}

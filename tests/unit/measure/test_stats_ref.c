/* stats against references: every expected value below was worked out
 * without stats.c, by hand (the working is in the comment) or by
 * scripts/dev/stats_fixtures.py (scipy, exact integer counts of the null
 * distributions, an independent xoshiro256** port; stats_fixtures.h names
 * the method of each table). The cases sit where the code switches:
 * the exact tables' ends (50 a side, 200 pairs), the median's interval at
 * 5/6 values and at 2000/2001, ties (lowest, highest, mixed), zero log
 * ratios, each input rule with the bad value first and last, each branch
 * of the verdict, and out of memory (ASan's allocator is told to fail
 * anything over 2 MB, see __asan_default_options). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "measure/stats.h"
#include "stats_fixtures.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Out of memory on demand: every allocation over 2 MB fails (returns
 * NULL instead of aborting). The largest one a fixture needs is 0.25 MB
 * (the exact U table at 30 a side); the OOM test asks for more. */
#ifdef __SANITIZE_ADDRESS__
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1:max_allocation_size_mb=2";
}
#endif

/* The fixtures' data (stats_fixtures.py writes the same): distinct,
 * positive, in no order, each exact in a double. */
static double gen(size_t i)
{
    unsigned k = (unsigned)((i * 7919u) % 2003u);
    return 1.0 + k + 0.25 * k * k;
}

/* Exactly n values (a read past the end is an ASan error). */
static double *gens(size_t start, size_t n)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = gen(start + i);
    return v;
}

static void near(double got, double want, double rel, const char *what, size_t n)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("%s (n %zu): got %.17g, want %.17g", what, n, got, want);
}

static int ci_zero(const struct stats_ci *c)
{
    return c->est == 0 && c->lo == 0 && c->hi == 0 && c->covered == 0;
}

static int cmp_zero(const struct stats_cmp *c)
{
    return ci_zero(&c->old) && ci_zero(&c->nw) && ci_zero(&c->ratio) && c->p == 0 &&
           c->p_adj == 0 && c->nold == 0 && c->nnew == 0;
}

/* The two-sided input sweep of the ratio functions: each value no ratio
 * accepts (zero, a negative, NaN, an infinity) first and then last in
 * {1, 2, 3, 4}, on OLD's side (against good) and then on NEW's;
 * refused(old, nw) checks that the function under test refused it. */
static void each_bad_pair(const double *good, void (*refused)(const double *, const double *))
{
    const double bad[] = {0, -2, NAN, INFINITY};
    for (size_t b = 0; b < NELEM(bad); b++)
        for (size_t at = 0; at < 4; at += 3)
            for (int side = 0; side < 2; side++) {
                double w[4] = {1, 2, 3, 4};
                w[at] = bad[b];
                if (side)
                    refused(good, w);
                else
                    refused(w, good);
            }
}

/* stats_ratio_ci refuses with nothing stale in *out; stats_compare too. */
static void ratio_ci_refuses(const double *old, const double *nw)
{
    struct stats_ci c;
    struct stats_cmp m;
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_ratio_ci(old, 4, nw, 4, &c), -1);
    assert_true(ci_zero(&c));
    assert_int_equal(stats_compare(old, 4, nw, 4, &m), -1);
}

static void paired_ratio_ci_refuses(const double *num, const double *den)
{
    struct stats_ci c;
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_paired_ratio_ci(num, den, 4, 100, 1, &c), -1);
    assert_true(ci_zero(&c));
}

static void compare_paired_refuses(const double *old, const double *nw)
{
    struct stats_cmp c;
    assert_int_equal(stats_compare_paired(old, nw, 4, &c), -1);
}

/* ---- the median ------------------------------------------------------ */

/* n = 1 and 2 by definition. Above 32 values (qsort rather than the
 * insertion sort): v[i] = (7i mod 40) + 1 is 1..40 in no order, median
 * 20.5; its first 33 values lack 6, 13, 20, 27, 32, 34 and 39 (i = 33..39),
 * so the 17th smallest is 19 (1..19 without 6 and 13). */
static void test_median_sizes(void **state)
{
    (void)state;
    double one[] = {7.5}, two[] = {9, 4}, many[40];
    assert_true(stats_median(one, 1) == 7.5);
    assert_true(stats_median(two, 2) == 6.5);
    for (int i = 0; i < 40; i++)
        many[i] = (i * 7) % 40 + 1;
    assert_true(stats_median(many, 40) == 20.5);
    assert_true(stats_median(many, 33) == 19);
    assert_true(many[1] == 8 && many[39] == 34);   /* the input is left as it was */
}

/* n = 6 by hand: [x(1), x(6)] covers 1 - 2/64 = 0.96875, [x(2), x(5)]
 * 1 - 2*7/64 = 0.78125; I = (0.96875 - 0.95)/(0.96875 - 0.78125) = 0.1,
 * lambda = 5 * 0.1 / (1 + 4 * 0.1) = 5/14; lo = 1 + 5/14 * (2 - 1),
 * hi = 32 - 5/14 * (32 - 16). */
static void test_median_ci_hand(void **state)
{
    (void)state;
    double v[] = {16, 1, 32, 4, 8, 2};
    struct stats_ci c;
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_median_ci(v, 6, &c), 0);
    near(c.est, 6, 1e-15, "est", 6);
    near(c.lo, 1 + 5.0 / 14, 1e-12, "lo", 6);
    near(c.hi, 32 - 16 * 5.0 / 14, 1e-12, "hi", 6);
    assert_int_equal(c.covered, 1);
    /* one value: itself, no interval; two: [min, max] */
    double one[] = {3.25};
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_median_ci(one, 1, &c), 0);
    assert_true(c.est == 3.25 && c.lo == 3.25 && c.hi == 3.25 && c.covered == 0);
    double two[] = {5, 2};
    assert_int_equal(stats_median_ci(two, 2, &c), 0);
    assert_true(c.est == 3.5 && c.lo == 2 && c.hi == 5 && c.covered == 0);
    /* only finiteness is asked of a median: zero and negatives are fine */
    double neg[] = {-3, 0, -1};
    assert_int_equal(stats_median_ci(neg, 3, &c), 0);
    assert_true(c.est == -1 && c.lo == -3 && c.hi == 0);
}

static void test_median_ci_fixtures(void **state)
{
    (void)state;
    for (size_t i = 0; i < NELEM(fx_median_ci); i++) {
        const struct fx_median_ci *f = &fx_median_ci[i];
        double *v = gens(f->start, f->n);
        struct stats_ci c;
        memset(&c, 0xff, sizeof c);
        assert_int_equal(stats_median_ci(v, f->n, &c), 0);
        near(c.est, f->est, 1e-15, "median", f->n);
        near(c.lo, f->lo, 1e-9, "median lo", f->n);
        near(c.hi, f->hi, 1e-9, "median hi", f->n);
        assert_int_equal(c.covered, f->covered);
        assert_true(stats_median(v, f->n) == f->est);
        free(v);
    }
}

/* -1 for n == 0 and for NaN or an infinity anywhere (first, last), and
 * then nothing stale in *out. */
static void test_median_ci_inputs(void **state)
{
    (void)state;
    const double bad[] = {NAN, INFINITY, -INFINITY};
    struct stats_ci c;
    double v[4] = {1, 2, 3, 4};
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_median_ci(v, 0, &c), -1);
    assert_true(ci_zero(&c));
    for (size_t b = 0; b < NELEM(bad); b++)
        for (size_t at = 0; at < 4; at += 3) {
            double w[4] = {1, 2, 3, 4};
            w[at] = bad[b];
            memset(&c, 0xff, sizeof c);
            assert_int_equal(stats_median_ci(w, 4, &c), -1);
            assert_true(ci_zero(&c));
        }
    assert_true(isnan(stats_median(v, 0)));
}

/* ---- Mann-Whitney ---------------------------------------------------- */

/* Where the exact table ends: 50 a side exact, 51 the normal
 * approximation (fixtures), in either argument. */
static void test_mann_whitney_table_end(void **state)
{
    (void)state;
    for (size_t i = 0; i < NELEM(fx_mw); i++) {
        const struct fx_mw *f = &fx_mw[i];
        double *a = gens(f->a0, f->na), *b = gens(f->b0, f->nb);
        near(stats_mann_whitney(a, f->na, b, f->nb), f->p, 1e-9, "U test p", f->na);
        free(a), free(b);
    }
}

/* By hand. One value against nine above it: U = 0, and each of the 10
 * ranks of the single value is equally likely, so p = 2 * 1/10. Sides of
 * 2 and 2 with U = 2 = mn/2: 2 * P(U <= 2) = 2 * 4/6 > 1, capped at 1.
 * An empty side: 1, and the empty side's pointer is not read. */
static void test_mann_whitney_small(void **state)
{
    (void)state;
    double one[] = {0.5}, nine[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    near(stats_mann_whitney(one, 1, nine, 9), 0.2, 1e-12, "1 vs 9", 1);
    near(stats_mann_whitney(nine, 9, one, 1), 0.2, 1e-12, "9 vs 1", 1);
    double a[] = {1, 4}, b[] = {2, 3};
    assert_true(stats_mann_whitney(a, 2, b, 2) == 1.0);
    assert_true(stats_mann_whitney(NULL, 0, nine, 9) == 1.0);
    assert_true(stats_mann_whitney(nine, 9, NULL, 0) == 1.0);
}

/* A value that is not finite: no p-value (NaN), and an answer at all: a
 * NaN once made the tie scan loop forever (the alarm ends a regression). */
static void test_mann_whitney_not_finite(void **state)
{
    (void)state;
    double nine[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    double first[] = {NAN, 2}, last[] = {2, NAN}, inf[] = {2, INFINITY};
    alarm(10);
    assert_true(isnan(stats_mann_whitney(first, 2, nine, 9)));
    assert_true(isnan(stats_mann_whitney(nine, 9, last, 2)));
    assert_true(isnan(stats_mann_whitney(inf, 2, nine, 9)));
    alarm(0);
}

/* Ties: the normal approximation with tie and continuity corrections.
 * Fixtures: the only tie at the lowest value, at the highest, and mixed.
 * By hand: {1, 1} vs {2}: U = 0, mn = 2, N = 3, tie term 2^3 - 2 = 6,
 * var = 2/12 * (4 - 6/6) = 0.5, z = (|0 - 1| - 0.5)/sqrt(0.5) = 1/sqrt 2,
 * p = erfc(z/sqrt 2) = erfc(1/2). {1, 3} vs {2, 2}: U = 2 = mn/2, so
 * |U - mn/2| - 1/2 < 0: z = 0, p = 1. */
static void test_mann_whitney_ties_ref(void **state)
{
    (void)state;
    near(stats_mann_whitney(fx_mw_low_a, 4, fx_mw_low_b, 4), FX_MW_LOW_P, 1e-9, "low tie", 8);
    near(stats_mann_whitney(fx_mw_high_a, 4, fx_mw_high_b, 4), FX_MW_HIGH_P, 1e-9, "high tie", 8);
    near(stats_mann_whitney(fx_mw_mixed_a, 5, fx_mw_mixed_b, 7), FX_MW_MIXED_P, 1e-9, "mixed", 12);
    double a[] = {1, 1}, b[] = {2};
    near(stats_mann_whitney(a, 2, b, 1), erfc(0.5), 1e-12, "{1,1} vs {2}", 3);
    double c[] = {1, 3}, d[] = {2, 2};
    assert_true(stats_mann_whitney(c, 2, d, 2) == 1.0);
}

/* ---- Holm -------------------------------------------------------------- */

/* By hand. {0.04, 0.001, 0.02, 0.5}: 0.001 x 4 = 0.004, 0.02 x 3 = 0.06,
 * 0.04 x 2 = 0.08, 0.5 x 1 = 0.5. Equal p-values get the same adjusted
 * value whatever their order: {0.01, 0.01, 0.04} -> 0.03, 0.03 (not
 * 0.02), 0.04. One test: unchanged. None: nothing written. */
static void test_holm_ref(void **state)
{
    (void)state;
    double p[] = {0.04, 0.001, 0.02, 0.5}, adj[4];
    stats_holm(p, adj, 4);
    near(adj[0], 0.08, 1e-12, "holm", 0);
    near(adj[1], 0.004, 1e-12, "holm", 1);
    near(adj[2], 0.06, 1e-12, "holm", 2);
    near(adj[3], 0.5, 1e-12, "holm", 3);
    double e[] = {0.01, 0.01, 0.04}, ea[3];
    stats_holm(e, ea, 3);
    near(ea[0], 0.03, 1e-12, "holm tie", 0);
    near(ea[1], 0.03, 1e-12, "holm tie", 1);
    near(ea[2], 0.04, 1e-12, "holm tie", 2);
    double one = 0.3;
    stats_holm(&one, &one, 1);
    assert_true(one == 0.3);
    double untouched = 7;
    stats_holm(&untouched, &untouched, 0);
    assert_true(untouched == 7);
}

/* ---- NEW/OLD of two sets ------------------------------------------------ */

static void test_ratio_ci_fixtures(void **state)
{
    (void)state;
    for (size_t i = 0; i < NELEM(fx_ratio); i++) {
        const struct fx_ratio *f = &fx_ratio[i];
        double *o = gens(f->o0, f->nold), *n = gens(f->n0, f->nnew);
        struct stats_ci c;
        memset(&c, 0xff, sizeof c);
        assert_int_equal(stats_ratio_ci(o, f->nold, n, f->nnew, &c), 0);
        near(c.est, f->est, 1e-12, "ratio", f->nold);
        near(c.lo, f->lo, 1e-12, "ratio lo", f->nold);
        near(c.hi, f->hi, 1e-12, "ratio hi", f->nold);
        assert_int_equal(c.covered, f->covered);
        /* the whole comparison of the same sets */
        struct stats_cmp m;
        memset(&m, 0xff, sizeof m);
        assert_int_equal(stats_compare(o, f->nold, n, f->nnew, &m), 0);
        near(m.p, f->p, 1e-9, "compare p", f->nold);
        assert_true(m.p_adj == m.p);
        near(m.ratio.lo, f->lo, 1e-12, "compare lo", f->nold);
        near(m.ratio.hi, f->hi, 1e-12, "compare hi", f->nold);
        assert_true(m.old.est == f->mold && m.nw.est == f->mnew);
        assert_int_equal(m.nold, f->nold);
        assert_int_equal(m.nnew, f->nnew);
        free(o), free(n);
    }
}

/* -1 for an empty side, and for zero, a negative, NaN or an infinity on
 * either side, first or last; nothing stale in *out. Values below 1 are
 * fine. */
static void test_ratio_ci_inputs(void **state)
{
    (void)state;
    double good[4] = {0.5, 0.25, 0.75, 1};
    struct stats_ci c;
    struct stats_cmp m;
    /* a set against itself: the pairwise log ratios are symmetric about
     * the 4 zeros of the diagonal, so the median is 0 and the ratio 1 */
    assert_int_equal(stats_ratio_ci(good, 4, good, 4, &c), 0);
    assert_true(c.est == 1);
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_ratio_ci(good, 0, good, 4, &c), -1);
    assert_true(ci_zero(&c));
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_ratio_ci(good, 4, good, 0, &c), -1);
    assert_true(ci_zero(&c));
    each_bad_pair(good, ratio_ci_refuses);
    /* a failure on OLD's side leaves nothing in *out */
    double nan_first[4] = {NAN, 2, 3, 4};
    memset(&m, 0xff, sizeof m);
    assert_int_equal(stats_compare(nan_first, 4, good, 4, &m), -1);
    assert_true(cmp_zero(&m));
    memset(&m, 0xff, sizeof m);
    assert_int_equal(stats_compare(good, 0, good, 4, &m), -1);
    assert_true(cmp_zero(&m));
}

/* ---- the paired bootstrap ---------------------------------------------- */

static void test_paired_ratio_ci_fixtures(void **state)
{
    (void)state;
    for (size_t i = 0; i < NELEM(fx_boot); i++) {
        const struct fx_boot *f = &fx_boot[i];
        double *num = gens(f->n0, f->n), *den = gens(f->d0, f->n);
        struct stats_ci c, again;
        memset(&c, 0xff, sizeof c);
        assert_int_equal(stats_paired_ratio_ci(num, den, f->n, f->resamples, f->seed, &c), 0);
        near(c.est, f->est, 1e-15, "bootstrap est", f->n);
        near(c.lo, f->lo, 1e-15, "bootstrap lo", f->n);
        near(c.hi, f->hi, 1e-15, "bootstrap hi", f->n);
        assert_int_equal(c.covered, f->covered);
        assert_int_equal(stats_paired_ratio_ci(num, den, f->n, f->resamples, f->seed, &again), 0);
        assert_memory_equal(&c, &again, sizeof c);
        free(num), free(den);
    }
}

/* -1 for n == 0, fewer than 100 resamples (100 is enough), and zero, a
 * negative, NaN or an infinity in either array, first or last. */
static void test_paired_ratio_ci_inputs(void **state)
{
    (void)state;
    double good[4] = {1, 2, 3, 4};
    struct stats_ci c;
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_paired_ratio_ci(good, good, 0, 1000, 1, &c), -1);
    assert_true(ci_zero(&c));
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_paired_ratio_ci(good, good, 4, 99, 1, &c), -1);
    assert_true(ci_zero(&c));
    assert_int_equal(stats_paired_ratio_ci(good, good, 4, 100, 1, &c), 0);
    assert_true(c.est == 1 && c.lo == 1 && c.hi == 1 && c.covered == 1);
    each_bad_pair(good, paired_ratio_ci_refuses);
}

/* ---- paired: signed rank and Tukey -------------------------------------- */

static void test_compare_paired_fixtures(void **state)
{
    (void)state;
    for (size_t i = 0; i < NELEM(fx_paired); i++) {
        const struct fx_paired *f = &fx_paired[i];
        double *o = gens(0, f->n), *n = gens(0, f->n);
        for (size_t j = 0; j < f->n; j++)
            n[j] = o[j] * (1 + f->q[j] / 1024.0);
        struct stats_cmp c;
        memset(&c, 0xff, sizeof c);
        assert_int_equal(stats_compare_paired(o, n, f->n, &c), 0);
        near(c.p, f->p, 1e-9, f->name, f->n);
        assert_true(c.p_adj == c.p);
        near(c.ratio.est, f->est, 1e-9, f->name, f->n);
        near(c.ratio.lo, f->lo, 1e-9, f->name, f->n);
        near(c.ratio.hi, f->hi, 1e-9, f->name, f->n);
        assert_int_equal(c.ratio.covered, f->covered);
        assert_int_equal(c.nold, f->n);
        assert_int_equal(c.nnew, f->n);
        free(o), free(n);
    }
}

/* -1 for n == 0, and for zero, a negative, NaN or an infinity on either
 * side, first or last. A failure on OLD's side leaves nothing in *out. */
static void test_compare_paired_inputs(void **state)
{
    (void)state;
    double good[4] = {1, 2, 3, 4};
    struct stats_cmp c;
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_compare_paired(good, good, 0, &c), -1);
    assert_true(cmp_zero(&c));
    each_bad_pair(good, compare_paired_refuses);
    double nan_first[4] = {NAN, 2, 3, 4};
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_compare_paired(nan_first, good, 4, &c), -1);
    assert_true(cmp_zero(&c));
}

/* ---- the verdict --------------------------------------------------------- */

static enum stats_verdict decide(size_t nold, size_t nnew, double p, double est, int higher)
{
    struct stats_cmp c;
    memset(&c, 0, sizeof c);
    c.nold = nold, c.nnew = nnew, c.p = c.p_adj = p, c.ratio.est = est;
    return stats_decide(&c, higher, 0.05);
}

static void test_decide_branches(void **state)
{
    (void)state;
    /* 4 a side is enough, 3 on either side is not */
    assert_int_equal(decide(4, 4, 0.01, 1.2, 0), STATS_SLOWER);
    assert_int_equal(decide(3, 4, 0.01, 1.2, 0), STATS_TOO_FEW);
    assert_int_equal(decide(4, 3, 0.01, 1.2, 0), STATS_TOO_FEW);
    assert_int_equal(decide(3, 10, 0.01, 1.2, 0), STATS_TOO_FEW);
    assert_int_equal(decide(10, 3, 0.01, 1.2, 0), STATS_TOO_FEW);
    /* p must be below alpha, not at it */
    assert_int_equal(decide(10, 10, 0.05, 1.2, 0), STATS_SAME);
    assert_int_equal(decide(10, 10, nextafter(0.05, 0), 1.2, 0), STATS_SLOWER);
    assert_int_equal(decide(10, 10, 0.5, 2.0, 0), STATS_SAME);
    assert_int_equal(decide(10, 10, NAN, 2.0, 0), STATS_SAME);
    /* a ratio of exactly 1 is no change however small p */
    assert_int_equal(decide(10, 10, 1e-9, 1.0, 0), STATS_SAME);
    assert_int_equal(decide(10, 10, 1e-9, 1.0, 1), STATS_SAME);
    /* up is slower for a time, faster for a rate; down the reverse */
    assert_int_equal(decide(10, 10, 0.01, 1.01, 1), STATS_FASTER);
    assert_int_equal(decide(10, 10, 0.01, 0.99, 0), STATS_FASTER);
    assert_int_equal(decide(10, 10, 0.01, 0.99, 1), STATS_SLOWER);
    /* p_adj decides, not p */
    struct stats_cmp c;
    memset(&c, 0, sizeof c);
    c.nold = c.nnew = 10, c.p = 0.01, c.p_adj = 0.2, c.ratio.est = 1.5;
    assert_int_equal(stats_decide(&c, 0, 0.05), STATS_SAME);
    c.p = 0.2, c.p_adj = 0.01;
    assert_int_equal(stats_decide(&c, 0, 0.05), STATS_SLOWER);
}

static void test_verdict_names(void **state)
{
    (void)state;
    assert_string_equal(stats_verdict_name(STATS_SAME), "~");
    assert_string_equal(stats_verdict_name(STATS_FASTER), "faster");
    assert_string_equal(stats_verdict_name(STATS_SLOWER), "slower");
    assert_string_equal(stats_verdict_name(STATS_TOO_FEW), "too few samples");
    assert_string_equal(stats_verdict_name((enum stats_verdict)42), "~");
}

/* ---- out of memory ------------------------------------------------------- */

/* 300000 values: a copy (2.4 MB) is over the 2 MB the allocator grants. */
#define BIG 300000
static double big[BIG];

/* Every function fails cleanly when a buffer cannot be had: -1 (or NaN)
 * and *out zeroed, Holm's p-values left as they were (never another
 * method's in their place: they would print as Holm's), nothing leaks
 * (LeakSanitizer checks at exit), nothing is written through NULL. */
static void test_out_of_memory(void **state)
{
    (void)state;
#ifndef __SANITIZE_ADDRESS__
    skip();
#else
    for (size_t i = 0; i < BIG; i++)
        big[i] = 1 + (double)(i % 101);
    struct stats_ci c;
    struct stats_cmp m;
    assert_true(isnan(stats_median(big, BIG)));
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_median_ci(big, BIG, &c), -1);
    assert_true(ci_zero(&c));
    /* 600 x 600 pairwise ratios: 2.9 MB */
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_ratio_ci(big, 600, big + 600, 600, &c), -1);
    assert_true(ci_zero(&c));
    assert_int_equal(stats_compare(big, 600, big + 600, 600, &m), -1);
    /* 800 pairs: 320400 Walsh averages, 2.6 MB */
    assert_int_equal(stats_compare_paired(big, big + 800, 800, &m), -1);
    /* 300000 resampled medians: 2.4 MB */
    memset(&c, 0xff, sizeof c);
    assert_int_equal(stats_paired_ratio_ci(big, big + 8, 8, 300000, 1, &c), -1);
    assert_true(ci_zero(&c));
    /* Holm over 300000 rows, in place: -1, every p-value as it was */
    for (size_t i = 0; i < BIG; i++)
        big[i] = i % 3 ? 1e-9 * (double)(i % 7 + 1) : 0.5;
    assert_int_equal(stats_holm(big, big, BIG), -1);
    for (size_t i = 0; i < BIG; i++)
        assert_true(big[i] == (i % 3 ? 1e-9 * (double)(i % 7 + 1) : 0.5));
#endif
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_median_sizes),
    cmocka_unit_test(test_median_ci_hand),
    cmocka_unit_test(test_median_ci_fixtures),
    cmocka_unit_test(test_median_ci_inputs),
    cmocka_unit_test(test_mann_whitney_table_end),
    cmocka_unit_test(test_mann_whitney_small),
    cmocka_unit_test(test_mann_whitney_not_finite),
    cmocka_unit_test(test_mann_whitney_ties_ref),
    cmocka_unit_test(test_holm_ref),
    cmocka_unit_test(test_ratio_ci_fixtures),
    cmocka_unit_test(test_ratio_ci_inputs),
    cmocka_unit_test(test_paired_ratio_ci_fixtures),
    cmocka_unit_test(test_paired_ratio_ci_inputs),
    cmocka_unit_test(test_compare_paired_fixtures),
    cmocka_unit_test(test_compare_paired_inputs),
    cmocka_unit_test(test_decide_branches),
    cmocka_unit_test(test_verdict_names),
    cmocka_unit_test(test_out_of_memory))

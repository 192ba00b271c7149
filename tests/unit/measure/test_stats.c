/* stats: exact p-values, Holm's order, verdicts, and the coverage of the
 * intervals measured by simulation (fixed seeds: no flapping, no timing). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "tests/unit/unit.h"

#include "measure/keys/rng.h"
#include "measure/stats.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void test_median(void **state)
{
    (void)state;
    double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2};
    assert_true(stats_median(odd, 3) == 3.0);
    assert_true(odd[0] == 5.0);   /* the input is left as it was */
    assert_true(stats_median(even, 4) == 2.5);
    assert_true(isnan(stats_median(odd, 0)));
}

/* Known exact values (the tables of the Mann-Whitney null distribution):
 * 4 vs 4 fully separated 2/70; 5 vs 5 separated 2/252; 4 vs 4 interleaved
 * (U = 6) 48/70; 3 vs 3 separated 2/20. Symmetric in its two sides. */
static void test_mann_whitney_exact(void **state)
{
    (void)state;
    double a4[] = {1, 2, 3, 4}, b4[] = {5, 6, 7, 8};
    assert_float_equal(stats_mann_whitney(a4, 4, b4, 4), 2.0 / 70, 1e-12);
    assert_float_equal(stats_mann_whitney(b4, 4, a4, 4), 2.0 / 70, 1e-12);
    double a5[] = {1, 2, 3, 4, 5}, b5[] = {6, 7, 8, 9, 10};
    assert_float_equal(stats_mann_whitney(a5, 5, b5, 5), 2.0 / 252, 1e-12);
    double odd[] = {1, 3, 5, 7}, even[] = {2, 4, 6, 8};
    assert_float_equal(stats_mann_whitney(odd, 4, even, 4), 48.0 / 70, 1e-12);
    assert_float_equal(stats_mann_whitney(a4, 3, b4, 3), 2.0 / 20, 1e-12);
    assert_float_equal(stats_mann_whitney(a4, 0, b4, 4), 1.0, 0);
}

/* With ties the normal approximation with tie and continuity corrections:
 * a = {1,2,2,3}, b = {2,3,3,4}: U = 0 + 2 x 0.5 + 2 x (1 + 0.5) = 3, tie
 * term (3^3-3) + (3^3-3) = 48, var = 16/12 * (9 - 48/56) = 10.857,
 * z = (|3 - 8| - 0.5)/sqrt(var) = 1.36570, p = erfc(z/sqrt 2) = 0.172034.
 * All tied: p = 1. */
static void test_mann_whitney_ties(void **state)
{
    (void)state;
    double a[] = {1, 2, 2, 3}, b[] = {2, 3, 3, 4};
    assert_float_equal(stats_mann_whitney(a, 4, b, 4), 0.172034, 1e-6);
    assert_float_equal(stats_mann_whitney(b, 4, a, 4), 0.172034, 1e-6);
    double same[] = {7, 7, 7, 7};
    assert_float_equal(stats_mann_whitney(same, 4, same, 4), 1.0, 0);
}

/* p = {0.01, 0.04, 0.03, 0.005}: ordered 0.005 x4 = 0.02, 0.01 x3 = 0.03,
 * 0.03 x2 = 0.06, 0.04 x1 = 0.04 -> kept monotone at 0.06. */
static void test_holm(void **state)
{
    (void)state;
    double p[] = {0.01, 0.04, 0.03, 0.005}, adj[4];
    stats_holm(p, adj, 4);
    assert_float_equal(adj[0], 0.03, 1e-12);
    assert_float_equal(adj[1], 0.06, 1e-12);
    assert_float_equal(adj[2], 0.06, 1e-12);
    assert_float_equal(adj[3], 0.02, 1e-12);
    double big[] = {0.5, 0.6};
    stats_holm(big, big, 2);   /* in place, capped at 1 */
    assert_float_equal(big[0], 1.0, 1e-12);
    assert_float_equal(big[1], 1.0, 1e-12);
}

static double noisy(rng_t *r, double x, double noise)
{
    return x * (1 + noise * (2 * rng_double(r) - 1));
}

static enum stats_verdict verdict_of(const double *o, size_t no, const double *n, size_t nn,
                                     int higher_better, double *p)
{
    struct stats_cmp c;
    assert_int_equal(stats_compare(o, no, n, nn, &c), 0);
    *p = c.p;
    return stats_decide(&c, higher_better, 0.05);
}

static void test_verdicts(void **state)
{
    (void)state;
    rng_t r;
    rng_seed(&r, 7);
    double old[10], slow[10], p;
    for (int i = 0; i < 10; i++) {
        old[i] = noisy(&r, 100, 0.02);
        slow[i] = noisy(&r, 120, 0.02);
    }
    assert_int_equal(verdict_of(old, 10, old, 10, 0, &p), STATS_SAME);
    assert_int_equal(verdict_of(old, 10, slow, 10, 0, &p), STATS_SLOWER);
    assert_true(p < 0.01);
    /* the same numbers as a rate: more is better */
    assert_int_equal(verdict_of(old, 10, slow, 10, 1, &p), STATS_FASTER);
    assert_int_equal(verdict_of(slow, 10, old, 10, 0, &p), STATS_FASTER);
    assert_int_equal(verdict_of(old, 3, slow, 3, 0, &p), STATS_TOO_FEW);
    assert_int_equal(verdict_of(old, 10, slow, 3, 0, &p), STATS_TOO_FEW);
    assert_string_equal(stats_verdict_name(STATS_SAME), "~");
    assert_string_equal(stats_verdict_name(STATS_TOO_FEW), "too few samples");
    /* significant alone, not after Holm over many rows */
    struct stats_cmp c;
    assert_int_equal(stats_compare(old, 4, slow, 4, &c), 0);
    c.p_adj = c.p * 3;
    assert_int_equal(stats_decide(&c, 0, 0.05), STATS_SAME);
    double bad[] = {1, -1, 2, 3};
    assert_int_equal(stats_compare(old, 4, bad, 4, &c), -1);
}

/* A skewed distribution with a known median: exponential, median ln 2. */
static double expo(rng_t *r)
{
    return -log(1 - rng_double(r));
}

#define TRIALS 1000

/* Of TRIALS sets of 10, the median's interval holds the true median in
 * 93-97% (nominal 95%); the ratio's interval holds the true ratio 1.3 of
 * two scaled exponentials as often. */
static void test_coverage(void **state)
{
    (void)state;
    rng_t r;
    rng_seed(&r, 2024);
    int med_in = 0, ratio_in = 0, all_covered = 1;
    for (int t = 0; t < TRIALS; t++) {
        double a[10], b[10];
        for (int i = 0; i < 10; i++) {
            a[i] = expo(&r);
            b[i] = 1.3 * expo(&r);
        }
        struct stats_ci m, q;
        assert_int_equal(stats_median_ci(a, 10, &m), 0);
        assert_int_equal(stats_ratio_ci(a, 10, b, 10, &q), 0);
        assert_true(m.lo <= m.est && m.est <= m.hi);
        assert_true(q.lo <= q.est && q.est <= q.hi);
        med_in += m.lo <= log(2.0) && log(2.0) <= m.hi;
        ratio_in += q.lo <= 1.3 && 1.3 <= q.hi;
        all_covered &= m.covered && q.covered;
    }
    print_message("median CI coverage %d/%d, ratio CI coverage %d/%d\n", med_in, TRIALS,
                  ratio_in, TRIALS);
    assert_true(all_covered);
    assert_in_range(med_in, 930, 970);
    assert_in_range(ratio_in, 930, 970);
}

/* Below 6 values no pair of order statistics reaches 95%: [min, max],
 * marked as not covering. Below 4 a side the ratio's is the full range. */
static void test_small_samples(void **state)
{
    (void)state;
    double v[] = {3, 1, 2, 5, 4};
    struct stats_ci c;
    assert_int_equal(stats_median_ci(v, 5, &c), 0);
    assert_false(c.covered);
    assert_true(c.lo == 1 && c.hi == 5 && c.est == 3);
    double w[] = {1, 2, 3, 4, 5, 6};
    assert_int_equal(stats_median_ci(w, 6, &c), 0);
    assert_true(c.covered);
    assert_true(c.lo >= 1 && c.lo < 2 && c.hi > 5 && c.hi <= 6);
    double o[] = {1, 2, 4}, n[] = {2, 4, 8};
    assert_int_equal(stats_ratio_ci(o, 3, n, 3, &c), 0);
    assert_false(c.covered);
    assert_float_equal(c.lo, 0.5, 1e-12);
    assert_float_equal(c.hi, 8.0, 1e-12);
    assert_float_equal(c.est, 2.0, 1e-12);
    double nan_in[] = {1, NAN};
    assert_int_equal(stats_median_ci(nan_in, 2, &c), -1);
}

/* Paired rounds: constant ratios give a point interval; the same seed the
 * same interval; the interval holds the median of the ratios. */
static void test_paired_bootstrap(void **state)
{
    (void)state;
    double num[] = {2, 4, 6, 8, 10}, den[] = {1, 2, 3, 4, 5};
    struct stats_ci c, d;
    assert_int_equal(stats_paired_ratio_ci(num, den, 5, 1000, 1, &c), 0);
    assert_float_equal(c.est, 2.0, 1e-12);
    assert_float_equal(c.lo, 2.0, 1e-12);
    assert_float_equal(c.hi, 2.0, 1e-12);
    assert_true(c.covered);
    double n2[] = {2.0, 2.2, 1.9, 2.5, 2.1, 1.7}, d2[] = {1, 1, 1, 1, 1, 1};
    assert_int_equal(stats_paired_ratio_ci(n2, d2, 6, 2000, 9, &c), 0);
    assert_int_equal(stats_paired_ratio_ci(n2, d2, 6, 2000, 9, &d), 0);
    assert_true(c.lo == d.lo && c.hi == d.hi);
    assert_float_equal(c.est, 2.05, 1e-12);
    /* the 2.5% and 97.5% quantiles of the resampled medians, not the
     * extremes a resample can reach */
    assert_true(c.lo > 1.7 && c.lo < 2.05 && c.hi > 2.05 && c.hi < 2.5);
    assert_int_equal(stats_paired_ratio_ci(n2, d2, 3, 2000, 9, &c), 0);
    assert_false(c.covered);
    assert_int_equal(stats_paired_ratio_ci(n2, d2, 6, 10, 9, &c), -1);
}

/* Paired samples, the signed-rank test and Tukey's interval. The values
 * of the 10-pair set were enumerated independently (all 2^10 sign
 * assignments of the ranks; every Walsh average sorted): T+ = 51, so
 * p = 2 * P(T <= 4) = 2 * 7/1024; the 95% interval runs from the 9th
 * smallest to the 9th largest Walsh average (P(T <= 8) = 0.0244). */
static void test_signed_rank_exact(void **state)
{
    (void)state;
    double old[] = {10, 12, 9, 15, 11, 14, 8, 13, 10.5, 12.5};
    double nw[] = {10.8, 11.64, 10.08, 15.75, 12.65, 13.86, 8.8, 13.39, 12.705, 13.375};
    struct stats_cmp c;
    assert_int_equal(stats_compare_paired(old, nw, 10, &c), 0);
    assert_float_equal(c.p, 14.0 / 1024, 1e-12);
    assert_float_equal(c.ratio.est, 1.0747092630102342, 1e-9);
    assert_float_equal(c.ratio.lo, 1.0235233265539188, 1e-9);
    assert_float_equal(c.ratio.hi, 1.127164584255556, 1e-9);
    assert_true(c.ratio.covered);
    assert_int_equal(c.nold, 10);
    assert_int_equal(c.nnew, 10);
    assert_float_equal(c.old.est, 11.5, 1e-12);
    /* swapping the sides mirrors the ratio and keeps p */
    struct stats_cmp m;
    assert_int_equal(stats_compare_paired(nw, old, 10, &m), 0);
    assert_float_equal(m.p, c.p, 1e-12);
    assert_float_equal(m.ratio.est, 1 / c.ratio.est, 1e-9);
    /* 6 pairs all up: 2/64; 5 pairs cannot reach 95% (2/32) */
    double o6[] = {1, 2, 3, 4, 5, 6}, n6[] = {1.1, 2.3, 3.2, 4.5, 5.1, 7.0};
    assert_int_equal(stats_compare_paired(o6, n6, 6, &c), 0);
    assert_float_equal(c.p, 2.0 / 64, 1e-12);
    assert_true(c.ratio.covered);
    assert_int_equal(stats_compare_paired(o6, n6, 5, &c), 0);
    assert_float_equal(c.p, 2.0 / 32, 1e-12);
    assert_false(c.ratio.covered);
    double bad[] = {1, 0};
    assert_int_equal(stats_compare_paired(o6, bad, 2, &c), -1);
    assert_int_equal(stats_compare_paired(o6, n6, 0, &c), -1);
}

/* Equal pairs are dropped from the test (and a tie among the rest leaves
 * the exact distribution for the normal one); all equal: p = 1, ratio 1. */
static void test_signed_rank_ties(void **state)
{
    (void)state;
    double o[] = {1, 1, 1, 1, 1, 1, 1, 1}, n[] = {1, 2, 2, 3, 4, 5, 6, 7};
    struct stats_cmp c;
    assert_int_equal(stats_compare_paired(o, n, 8, &c), 0);
    /* 7 non-zero, all up, one tie: z = (28 - 14 - 0.5) / sqrt(35 - 6/48) */
    assert_float_equal(c.p, erfc((28 - 14 - 0.5) / sqrt(35 - 6.0 / 48) / sqrt(2.0)), 1e-12);
    assert_int_equal(stats_compare_paired(o, o, 8, &c), 0);
    assert_float_equal(c.p, 1.0, 0);
    assert_float_equal(c.ratio.est, 1.0, 0);
}

/* What pairing is for: the rounds' speed varies by 2x and NEW is 5%
 * slower in every round. Pairing sees it at once; two independent sets
 * cannot, since the 5% drowns in the spread between rounds. */
static void test_paired_drift(void **state)
{
    (void)state;
    double old[20], nw[20];
    rng_t r;
    rng_seed(&r, 7);
    for (int i = 0; i < 20; i++) {
        old[i] = 1 + rng_double(&r);
        nw[i] = old[i] * 1.05;
    }
    struct stats_cmp p, u;
    assert_int_equal(stats_compare_paired(old, nw, 20, &p), 0);
    assert_int_equal(stats_compare(old, 20, nw, 20, &u), 0);
    print_message("paired p %g, independent p %g\n", p.p, u.p);
    assert_true(p.p < 1e-4);
    assert_float_equal(p.ratio.lo, 1.05, 1e-9);
    assert_float_equal(p.ratio.hi, 1.05, 1e-9);
    assert_true(u.p > 0.05);
    assert_true(u.ratio.lo < 1.0);
}

/* Of TRIALS sets of 12 pairs (round speed drifting 2x, each run's own
 * noise 10%, true ratio 1.1), the interval holds 1.1 in 93-97%. */
static void test_paired_coverage(void **state)
{
    (void)state;
    rng_t r;
    rng_seed(&r, 99);
    int in = 0;
    for (int t = 0; t < TRIALS; t++) {
        double o[12], n[12];
        for (int i = 0; i < 12; i++) {
            double round = 1 + rng_double(&r);
            o[i] = round * (0.9 + 0.2 * rng_double(&r));
            n[i] = 1.1 * round * (0.9 + 0.2 * rng_double(&r));
        }
        struct stats_cmp c;
        assert_int_equal(stats_compare_paired(o, n, 12, &c), 0);
        assert_true(c.ratio.lo <= c.ratio.est && c.ratio.est <= c.ratio.hi);
        in += c.ratio.lo <= 1.1 && 1.1 <= c.ratio.hi;
    }
    print_message("paired ratio CI coverage %d/%d\n", in, TRIALS);
    assert_in_range(in, 930, 975);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_median),
    cmocka_unit_test(test_mann_whitney_exact),
    cmocka_unit_test(test_mann_whitney_ties),
    cmocka_unit_test(test_holm),
    cmocka_unit_test(test_verdicts),
    cmocka_unit_test(test_coverage),
    cmocka_unit_test(test_small_samples),
    cmocka_unit_test(test_paired_bootstrap),
    cmocka_unit_test(test_signed_rank_exact),
    cmocka_unit_test(test_signed_rank_ties),
    cmocka_unit_test(test_paired_drift),
    cmocka_unit_test(test_paired_coverage))

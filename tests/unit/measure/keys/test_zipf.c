/* Zipf sampler: distribution shape, range, reproducibility. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "tests/unit/unit.h"

#include "measure/keys/zipf.h"

#define N 100
#define DRAWS 1000000

/* Draw DRAWS ranks over [1, N] and compare each rank's frequency with
 * k^-s / H(N, s): ranks expected >= 10000 times within 5% (5 sigma at
 * that count, so a correct sampler does not flap), and a chi-square over
 * all ranks below a bound far in the tail of its distribution. */
static void check_shape(double s)
{
    struct zipf z;
    assert_int_equal(zipf_init(&z, N, s), 0);
    rng_t r;
    rng_seed(&r, 12345);
    uint64_t count[N + 1] = {0};
    for (int i = 0; i < DRAWS; i++) {
        uint64_t k = zipf_next(&z, &r);
        assert_true(k >= 1 && k <= N);
        count[k]++;
    }
    double norm = 0;
    for (int k = 1; k <= N; k++)
        norm += pow(k, -s);
    double chi2 = 0;
    for (int k = 1; k <= N; k++) {
        double expect = DRAWS * pow(k, -s) / norm;
        double d = (double)count[k] - expect;
        chi2 += d * d / expect;
        if (expect >= 10000 && fabs(d) / expect >= 0.05) {
            fail_msg("s=%g rank %d: %.0f draws, expected %.0f", s, k, (double)count[k], expect);
        }
    }
    /* 99 degrees of freedom: mean 99, sd 14; 200 is beyond 7 sd. */
    assert_true(chi2 < 200.0);
    /* Rank 1 must be the most frequent, by the expected factor 2^s over
     * rank 2 (within 5%). */
    double ratio = (double)count[1] / (double)count[2];
    assert_true(fabs(ratio / pow(2.0, s) - 1.0) < 0.05);
}

static void test_shape_08(void **st) { (void)st; check_shape(0.8); }
static void test_shape_10(void **st) { (void)st; check_shape(1.0); }
static void test_shape_12(void **st) { (void)st; check_shape(1.2); }
/* Exponents near 1 go through the series branch of the helpers. */
static void test_shape_near_1(void **st) { (void)st; check_shape(1.0 + 1e-10); }
static void test_shape_05(void **st) { (void)st; check_shape(0.5); }

static void test_range_large_n(void **st)
{
    (void)st;
    const double ss[] = {0.1, 0.8, 1.0, 1.2, 3.0};
    for (size_t j = 0; j < sizeof ss / sizeof ss[0]; j++) {
        struct zipf z;
        uint64_t n = 1000000000000ull;
        assert_int_equal(zipf_init(&z, n, ss[j]), 0);
        rng_t r;
        rng_seed(&r, 7);
        for (int i = 0; i < 100000; i++) {
            uint64_t k = zipf_next(&z, &r);
            assert_true(k >= 1 && k <= n);
        }
    }
    /* n = 2: both ranks, never 0 or 3. */
    struct zipf z;
    assert_int_equal(zipf_init(&z, 2, 1.0), 0);
    rng_t r;
    rng_seed(&r, 1);
    int seen[4] = {0};
    for (int i = 0; i < 10000; i++)
        seen[zipf_next(&z, &r)]++;
    assert_int_equal(seen[0], 0);
    assert_int_equal(seen[3], 0);
    assert_true(seen[1] > seen[2] && seen[2] > 0);
}

static void test_n1_and_bad_params(void **st)
{
    (void)st;
    struct zipf z;
    assert_int_equal(zipf_init(&z, 1, 1.0), 0);
    rng_t r;
    rng_seed(&r, 3);
    for (int i = 0; i < 100; i++)
        assert_int_equal(zipf_next(&z, &r), 1);
    assert_int_equal(zipf_init(&z, 0, 1.0), -1);
    assert_int_equal(zipf_init(&z, 10, 0.0), -1);
    assert_int_equal(zipf_init(&z, 10, -1.0), -1);
    assert_int_equal(zipf_init(&z, 10, NAN), -1);
    assert_int_equal(zipf_init(&z, 10, INFINITY), -1);
}

static void test_reproducible(void **st)
{
    (void)st;
    struct zipf z;
    assert_int_equal(zipf_init(&z, 100000, 0.9), 0);
    rng_t a, b, c;
    rng_seed(&a, 42);
    rng_seed(&b, 42);
    rng_seed(&c, 43);
    int differ = 0;
    for (int i = 0; i < 10000; i++) {
        uint64_t x = zipf_next(&z, &a);
        assert_int_equal(x, zipf_next(&z, &b));
        differ += x != zipf_next(&z, &c);
    }
    assert_true(differ > 1000);   /* another seed is another sequence */
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_shape_08),
    cmocka_unit_test(test_shape_10),
    cmocka_unit_test(test_shape_12),
    cmocka_unit_test(test_shape_near_1),
    cmocka_unit_test(test_shape_05),
    cmocka_unit_test(test_range_large_n),
    cmocka_unit_test(test_n1_and_bad_params),
    cmocka_unit_test(test_reproducible))

/* Unit tests of measure/hist on its own: percentiles of uniform and skewed
 * samples, merge and reset (test_hist.c checks the labels through report). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "measure/hist.h"

static void test_hist_percentiles(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    assert_non_null(h);
    assert_int_equal(hist_percentile(h, 50), 0);
    /* Uniform 1..1,000,000: every percentile within 1% of the exact one. */
    for (uint64_t v = 1; v <= 1000000; v++)
        hist_record(h, v);
    double ps[] = {1, 10, 50, 90, 99, 99.9};
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        double exact = ps[i] / 100.0 * 1000000.0;
        double got = (double)hist_percentile(h, ps[i]);
        assert_true(got > exact * 0.99 && got < exact * 1.01);
    }
    assert_int_equal(hist_percentile(h, 0), 1);
    assert_int_equal(hist_percentile(h, 100), 1000000);
    assert_true(hist_mean(h) > 500000.0 && hist_mean(h) < 500001.0);
    /* Small values are exact; huge values do not overflow the buckets. */
    struct hist *g = hist_new();
    hist_record(g, 3); hist_record(g, 3); hist_record(g, 7);
    assert_int_equal(hist_percentile(g, 50), 3);
    assert_int_equal(hist_percentile(g, 99), 7);
    hist_record(g, UINT64_MAX);
    assert_true(hist_percentile(g, 100) == UINT64_MAX);
    /* Merge equals recording everything in one histogram. */
    struct hist *m = hist_new();
    hist_merge(m, h);
    hist_merge(m, g);
    assert_int_equal(m->count, h->count + g->count);
    assert_int_equal(m->min, 1);
    assert_true(m->max == UINT64_MAX);
    hist_reset(m);
    assert_int_equal(m->count, 0);
    hist_free(h); hist_free(g); hist_free(m);
}

static void test_hist_skewed(void **state)
{
    (void)state;
    /* 99% fast at 5 us, 1% slow at 2 ms: p50 and p99.5 land on each. */
    struct hist *h = hist_new();
    for (int i = 0; i < 99000; i++) hist_record(h, 5000);
    for (int i = 0; i < 1000; i++) hist_record(h, 2000000);
    uint64_t p50 = hist_percentile(h, 50), p995 = hist_percentile(h, 99.5);
    assert_true(p50 >= 4950 && p50 <= 5050);
    assert_true(p995 >= 1980000 && p995 <= 2020000);
    hist_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_percentiles),
        cmocka_unit_test(test_hist_skewed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

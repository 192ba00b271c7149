/* hist and report: each percentile label reports that percentile, read
 * from the middle of its bucket (hist.h: <= 0.4% error), through
 * hist_percentile, report_hist_json (the "latency" object of every --json)
 * and report_print_latency (run's text line).
 *
 * The histogram is fed plateaus: every label's rank falls inside its own
 * plateau, each plateau in its own bucket far from the others, so a label
 * that reads another percentile reports another plateau's value. Each
 * plateau holds samples at both edges of one bucket, so a percentile read
 * at either edge instead of the middle is off by half a bucket. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"
#include "tests/unit/capture.h"

#include "measure/hist.h"
#include "measure/report.h"

/* Bucket bounds of v, worked out here from hist.h's description rather
 * than from hist.c: exact below HIST_SUB; above, 2^HIST_SUB_BITS buckets
 * per power of two, so the width is 2^(e - HIST_SUB_BITS) for v's highest
 * set bit e. */
static void bucket_of(uint64_t v, uint64_t *lo, uint64_t *hi)
{
    if (v < HIST_SUB) {
        *lo = *hi = v;
        return;
    }
    int e = 63 - __builtin_clzll(v);
    uint64_t w = (uint64_t)1 << (e - HIST_SUB_BITS);
    *lo = v & ~(w - 1);
    *hi = *lo + w - 1;
}

static uint64_t middle_of(uint64_t v)
{
    uint64_t lo, hi;
    bucket_of(v, &lo, &hi);
    return lo + (hi - lo) / 2;
}

/* 1000 samples. Nearest rank of p in 1000 is round(10 p): p50 -> 500,
 * p90 -> 900, p99 -> 990, p99.9 -> 999, max -> 1000. */
enum { N = 1000 };
static const struct plateau {
    const char *name;
    uint64_t v;          /* ns: any value of the plateau's bucket */
    int n;               /* samples */
} plat[] = {
    {"min", 2000, 100},          /* ranks    1..100 */
    {"p50", 10000, 750},         /* ranks  101..850 */
    {"p90", 50000, 100},         /* ranks  851..950 */
    {"p99", 300000, 45},         /* ranks  951..995 */
    {"p99.9", 2000000, 4},       /* ranks  996..999 */
    {"max", 9000000, 1},         /* rank  1000 */
};
enum { P_MIN, P_50, P_90, P_99, P_999, P_MAX, NPLAT };

/* Plateau i's samples alternate between the low and the high edge of its
 * bucket (the single max sample sits at the high edge). */
static uint64_t sample(int i, int k)
{
    uint64_t lo, hi;
    bucket_of(plat[i].v, &lo, &hi);
    return (k % 2 == 0 && plat[i].n > 1) ? lo : hi;
}

static double exact_sum(void)
{
    double s = 0;
    for (int i = 0; i < NPLAT; i++)
        for (int k = 0; k < plat[i].n; k++)
            s += (double)sample(i, k);
    return s;
}

/* Recorded in two histograms merged at the end, as run merges its runs and
 * the load generator its request kinds. */
static struct hist *plateaus(void)
{
    struct hist *a = hist_new(), *b = hist_new();
    assert_non_null(a);
    assert_non_null(b);
    int total = 0;
    for (int i = NPLAT - 1; i >= 0; i--)
        for (int k = 0; k < plat[i].n; k++, total++)
            hist_record(total % 3 ? a : b, sample(i, k));
    assert_int_equal(total, N);
    hist_merge(a, b);
    hist_free(b);
    assert_int_equal(a->count, N);
    return a;
}

/* What each label must report, in ns: exact min and max, else the middle
 * of the plateau's bucket. */
static uint64_t expected(int i)
{
    if (i == P_MIN)
        return sample(P_MIN, 0);
    if (i == P_MAX)
        return sample(P_MAX, 0);
    return middle_of(plat[i].v);
}

static void test_plateau_values_are_apart(void **state)
{
    (void)state;
    /* The test's own premise: each label's expected value differs from the
     * others' by far more than the text line's 0.1 us, and from its
     * bucket's edges (so an edge read shows). */
    for (int i = 0; i < NPLAT; i++) {
        for (int j = 0; j < i; j++)
            assert_true((double)expected(i) > 1.5 * (double)expected(j));
        uint64_t lo, hi;
        bucket_of(plat[i].v, &lo, &hi);
        if (i != P_MIN && i != P_MAX) {
            assert_true(expected(i) > lo && expected(i) < hi);
            /* The stated error: the middle is within 0.4% of every value of
             * its bucket. */
            assert_true((double)(expected(i) - lo) <= 0.004 * (double)lo);
            assert_true((double)(hi - expected(i)) <= 0.004 * (double)hi);
        }
    }
    /* One bucket worked by hand: 10000 has its highest bit at 2^13, so
     * buckets are 2^6 = 64 ns wide there: [9984, 10047], middle 10015. */
    assert_int_equal(middle_of(10000), 10015);
}

static void test_each_percentile_from_its_bucket_middle(void **state)
{
    (void)state;
    struct hist *h = plateaus();
    assert_int_equal(hist_percentile(h, 0), expected(P_MIN));
    assert_int_equal(hist_percentile(h, 50), expected(P_50));
    assert_int_equal(hist_percentile(h, 90), expected(P_90));
    assert_int_equal(hist_percentile(h, 99), expected(P_99));
    assert_int_equal(hist_percentile(h, 99.9), expected(P_999));
    assert_int_equal(hist_percentile(h, 100), expected(P_MAX));
    /* Nearest rank at the plateaus' borders: rank 100 is the last of the
     * first plateau, 101 the first of the next; 850 and 851 likewise. */
    assert_int_equal(hist_percentile(h, 10), middle_of(plat[P_MIN].v));
    assert_int_equal(hist_percentile(h, 10.1), expected(P_50));
    assert_int_equal(hist_percentile(h, 85), expected(P_50));
    assert_int_equal(hist_percentile(h, 85.1), expected(P_90));
    assert_true(hist_mean(h) == exact_sum() / N);
    hist_free(h);
}

static const cJSON *num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_non_null(v);
    assert_true(cJSON_IsNumber(v));
    return v;
}

/* a and b equal to within the rounding of a decimal conversion. */
static void assert_close(const char *what, double a, double b)
{
    double d = a > b ? a - b : b - a;
    if (d > 1e-9 * (b > 1 ? b : 1)) {
        print_message("%s: got %.6f, expected %.6f\n", what, a, b);
        fail();
    }
}

static void test_json_labels(void **state)
{
    (void)state;
    struct hist *h = plateaus();
    cJSON *o = report_hist_json(h);
    assert_non_null(o);
    static const char *keys[NPLAT] = {"min", "p50", "p90", "p99", "p999", "max"};
    for (int i = 0; i < NPLAT; i++) {
        assert_close(keys[i], num(o, keys[i])->valuedouble, (double)expected(i) / 1000.0);
    }
    assert_close("mean", num(o, "mean")->valuedouble, exact_sum() / N / 1000.0);
    assert_close("count", num(o, "count")->valuedouble, N);
    assert_int_equal(cJSON_GetArraySize(o), NPLAT + 2);   /* nothing else */
    cJSON_Delete(o);

    /* An empty histogram: zeros, not garbage (a run of 0 blobs). */
    hist_reset(h);
    o = report_hist_json(h);
    assert_non_null(o);
    assert_close("count", num(o, "count")->valuedouble, 0);
    assert_close("p50", num(o, "p50")->valuedouble, 0);
    assert_close("max", num(o, "max")->valuedouble, 0);
    cJSON_Delete(o);
    hist_free(h);
}

static void test_text_labels(void **state)
{
    (void)state;
    struct hist *h = plateaus();
    struct capture c;
    report_print_latency(capture_open(&c), "Latency per BLOB read", h);
    char *buf = capture_close(&c);
    /* The labels are part of the format: a line with them in another
     * order, or missing, matches fewer fields. */
    double v[NPLAT + 1];
    int nl = -1;
    int got = sscanf(buf, "Latency per BLOB read (us): min %lf p50 %lf p90 %lf p99 %lf "
                     "p99.9 %lf max %lf mean %lf%n", &v[P_MIN], &v[P_50], &v[P_90],
                     &v[P_99], &v[P_999], &v[P_MAX], &v[NPLAT], &nl);
    if (got != NPLAT + 1)
        print_message("line: %s", buf);
    assert_int_equal(got, NPLAT + 1);
    assert_string_equal(buf + nl, "\n");
    /* Printed with one decimal: within 0.05 us of the value. */
    for (int i = 0; i < NPLAT; i++) {
        double want = (double)expected(i) / 1000.0;
        if (v[i] < want - 0.0501 || v[i] > want + 0.0501) {
            print_message("%s: printed %.1f, expected %.3f\n", plat[i].name, v[i], want);
            fail();
        }
    }
    double mean = exact_sum() / N / 1000.0;
    assert_true(v[NPLAT] > mean - 0.0501 && v[NPLAT] < mean + 0.0501);
    free(buf);

    /* Nothing at all for an empty histogram. */
    hist_reset(h);
    report_print_latency(capture_open(&c), "Latency per BLOB read", h);
    free(capture_close(&c));
    assert_int_equal(c.len, 0);
    hist_free(h);
}

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

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_hist_percentiles),
    cmocka_unit_test(test_hist_skewed),
    cmocka_unit_test(test_plateau_values_are_apart),
    cmocka_unit_test(test_each_percentile_from_its_bucket_middle),
    cmocka_unit_test(test_json_labels),
    cmocka_unit_test(test_text_labels))

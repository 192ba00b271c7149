/* hist and hist_spectrum against values worked out by hand from the
 * layout hist.h describes (every number below is derived in the comment
 * beside it, not from hist.c): values below 2^8 have a bucket each
 * (0..127 by the first rule, 128..255 because [2^7, 2^8) split in
 * HIST_SUB = 128 parts is 1 wide); above, [2^e, 2^(e+1)) is split into 128
 * buckets 2^(e-7) wide, numbered on, so [2^8, 2^9) is 256..383 and the
 * last, [255 * 2^56, 2^64 - 1], is HIST_BUCKETS - 1 = 7423.
 *
 * Percentiles are nearest rank: rank = round(p / 100 * count), at least 1;
 * the answer is the middle lo + (width - 1) / 2 of the bucket holding that
 * rank, kept within [min, max]; p <= 0 and p >= 100 are the exact min and
 * max. Also: the edges of the layout at both ends, merging, the empty
 * histogram, a histogram whose count disagrees with its buckets (read
 * within bounds), and the spectrum text whole, row by row. */
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
#include "measure/hist_spectrum.h"

static struct hist *with(const uint64_t *v, size_t n)
{
    struct hist *h = hist_new();
    assert_non_null(h);
    for (size_t i = 0; i < n; i++)
        hist_record(h, v[i]);
    return h;
}

#define WITH(...) with((const uint64_t[]){__VA_ARGS__}, \
                       sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

static void assert_empty(const struct hist *h)
{
    assert_int_equal(h->count, 0);
    assert_true(h->min == UINT64_MAX);
    assert_int_equal(h->max, 0);
    assert_true(h->sum == 0.0);
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        if (h->b[i])
            fail_msg("bucket %u holds %llu in an empty histogram", i,
                     (unsigned long long)h->b[i]);
}

static void test_new_reset_empty(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    assert_non_null(h);
    assert_empty(h);
    /* Nothing recorded: every percentile and the mean are 0. */
    assert_int_equal(hist_percentile(h, 0), 0);
    assert_int_equal(hist_percentile(h, 50), 0);
    assert_int_equal(hist_percentile(h, 100), 0);
    assert_true(hist_mean(h) == 0.0);
    hist_record(h, 0);
    hist_record(h, 1000);
    hist_record(h, UINT64_MAX);
    hist_reset(h);
    assert_empty(h);
    hist_free(h);
}

/* Bucket i's bounds from the layout above. */
static void test_bucket_bounds_by_hand(void **state)
{
    (void)state;
    static const struct {
        unsigned i;
        uint64_t lo, hi;
    } want[] = {
        {0, 0, 0},
        {1, 1, 1},
        {127, 127, 127},
        {128, 128, 128},          /* [2^7, 2^8): 1 wide */
        {255, 255, 255},
        {256, 256, 257},          /* [2^8, 2^9): 2 wide, 256 + 2k */
        {257, 258, 259},
        {383, 510, 511},
        {384, 512, 515},          /* [2^9, 2^10): 4 wide */
        {506, 1000, 1003},        /* 384 + (1000 - 512) / 4 = 506 */
        {7296, 1ull << 63, (1ull << 63) + (1ull << 56) - 1},   /* 128 * 57: [2^63, ..) */
        {7423, 255ull << 56, UINT64_MAX},                      /* the last */
    };
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        uint64_t lo = 1, hi = 0;
        hist_bucket_bounds(want[k].i, &lo, &hi);
        if (lo != want[k].lo || hi != want[k].hi)
            fail_msg("bucket %u: [%llu, %llu], not [%llu, %llu]", want[k].i,
                     (unsigned long long)lo, (unsigned long long)hi,
                     (unsigned long long)want[k].lo, (unsigned long long)want[k].hi);
    }
}

/* Where hist_record puts a value: the same table read the other way. */
static void test_record_into_buckets(void **state)
{
    (void)state;
    static const struct {
        uint64_t v;
        unsigned i;
    } want[] = {
        {0, 0}, {127, 127}, {128, 128}, {129, 129}, {255, 255}, {256, 256}, {257, 256},
        {258, 257}, {511, 383}, {512, 384}, {1000, 506}, {1003, 506}, {1004, 507},
        {1ull << 63, 7296}, {UINT64_MAX, 7423},
    };
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        struct hist *h = hist_new();
        assert_non_null(h);
        hist_record(h, want[k].v);
        if (h->b[want[k].i] != 1)
            fail_msg("%llu not in bucket %u", (unsigned long long)want[k].v, want[k].i);
        assert_int_equal(h->count, 1);
        assert_true(h->min == want[k].v && h->max == want[k].v);
        assert_true(h->sum == (double)want[k].v);
        hist_free(h);
    }
}

static void test_min_max_sum(void **state)
{
    (void)state;
    /* Rising, falling and repeated values: min and max are the exact
     * extremes in any order, sum the exact sum (5 + 1000 + 70000 + 5). */
    struct hist *up = WITH(5, 5, 1000, 70000), *down = WITH(70000, 1000, 5, 5);
    assert_true(up->min == 5 && up->max == 70000);
    assert_true(down->min == 5 && down->max == 70000);
    assert_true(up->sum == 71010.0 && down->sum == 71010.0);
    assert_int_equal(up->count, 4);
    assert_true(hist_mean(up) == 71010.0 / 4);
    hist_free(up);
    hist_free(down);
}

/* Ten samples in wide buckets:
 *   1000, 1002        [1000, 1003]       4 wide, middle 1000 + 3/2 = 1001
 *   3000 x2           [2992, 3007]      16 wide (2^11..), middle 2992 + 7 = 2999
 *   20000 x3          [19968, 20095]   128 wide (2^14..), middle 19968 + 63 = 20031
 *   500000 x2         [499712, 501759] 2048 wide (2^18..), middle 499712 + 1023 = 500735
 *   1003519 (max)     [999424, 1003519] 4096 wide (2^19..), middle 999424 + 2047 = 1001471
 * The min sits at its bucket's low edge and the max at its high edge, so
 * reading them from a middle shows. */
static void test_percentiles_wide_buckets(void **state)
{
    (void)state;
    struct hist *h = WITH(20000, 1003519, 1000, 500000, 3000, 20000, 1002, 3000, 500000, 20000);
    static const struct {
        double p;
        uint64_t want;
    } want[] = {
        {-1, 1000},           /* p <= 0: the exact min */
        {0, 1000},
        {0.01, 1001},         /* rank round(0.001) = 0, raised to 1 */
        {1, 1001},            /* rank round(0.1) = 0 -> 1 */
        {5, 1001},            /* rank round(0.5) = 1 (0.5 + 0.5 truncated) */
        {15, 1001},           /* rank 2: the second sample, same bucket */
        {20, 1001},           /* rank round(2.0) = 2 */
        {25, 2999},           /* rank round(2.5) = 3: the third sample */
        {40, 2999},           /* rank 4 */
        {45, 20031},          /* rank round(4.5) = 5 */
        {50, 20031},          /* rank 5 */
        {70, 20031},          /* rank 7 */
        {75, 500735},         /* rank round(7.5) = 8 */
        {90, 500735},         /* rank 9 */
        {95, 1001471},        /* rank round(9.5) = 10: the max's bucket, its middle */
        {99.9, 1001471},      /* rank round(9.99) = 10 */
        {100, 1003519},       /* p >= 100: the exact max */
        {100.5, 1003519},
    };
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        uint64_t got = hist_percentile(h, want[k].p);
        if (got != want[k].want)
            fail_msg("p%g: %llu, not %llu", want[k].p, (unsigned long long)got,
                     (unsigned long long)want[k].want);
    }
    hist_free(h);
}

/* Exact buckets: 0, 5, 5, 200 (count 4). p25: rank round(1.0) = 1, the 0
 * in bucket 0; p50: rank 2, bucket 5; p75: rank 3, still 5; p90: rank
 * round(3.6) = 4, 200 (1 wide: [2^7, 2^8) has 128 buckets). */
static void test_percentiles_exact_buckets(void **state)
{
    (void)state;
    struct hist *h = WITH(200, 5, 0, 5);
    assert_int_equal(hist_percentile(h, 0), 0);
    assert_int_equal(hist_percentile(h, 25), 0);
    assert_int_equal(hist_percentile(h, 50), 5);
    assert_int_equal(hist_percentile(h, 75), 5);
    assert_int_equal(hist_percentile(h, 90), 200);
    assert_int_equal(hist_percentile(h, 100), 200);
    hist_free(h);
    /* One sample: every percentile is it (its bucket's middle kept within
     * [min, max] = [v, v]). */
    h = WITH(1000000);
    assert_int_equal(hist_percentile(h, 1), 1000000);
    assert_int_equal(hist_percentile(h, 50), 1000000);
    hist_free(h);
    /* The top of the layout: UINT64_MAX in bucket 7423, whose middle is
     * below it; the max is exact. */
    h = WITH(UINT64_MAX, 0);
    assert_int_equal(hist_percentile(h, 50), 0);
    assert_true(hist_percentile(h, 100) == UINT64_MAX);
    /* rank 2 of 2: bucket 7423's middle, 255 * 2^56 + (2^56 - 1) / 2 */
    assert_true(hist_percentile(h, 99) == (255ull << 56) + ((1ull << 56) - 1) / 2);
    hist_free(h);
}

static void assert_same(const struct hist *a, const struct hist *b)
{
    assert_int_equal(a->count, b->count);
    assert_true(a->min == b->min);
    assert_true(a->max == b->max);
    assert_true(a->sum == b->sum);
    assert_memory_equal(a->b, b->b, sizeof(a->b));
}

static void test_merge(void **state)
{
    (void)state;
    /* Into an empty histogram: a copy, bucket 0 included. */
    struct hist *src = WITH(0, 1000, 70000), *dst = hist_new();
    hist_merge(dst, src);
    assert_same(dst, src);
    assert_int_equal(dst->b[0], 1);
    hist_free(dst);

    /* The extremes stay where they are: dst [500, 80000] takes src [0,
     * 70000]'s min and keeps its own max; the reverse likewise. */
    dst = WITH(500, 80000);
    hist_merge(dst, src);
    assert_true(dst->min == 0 && dst->max == 80000);
    assert_int_equal(dst->count, 5);
    assert_true(dst->sum == 151500.0);   /* 500 + 80000 + 0 + 1000 + 70000 */
    assert_int_equal(dst->b[506], 1);    /* 1000's bucket */
    hist_free(dst);
    dst = WITH(0, 1000, 70000);
    struct hist *wide = WITH(500, 80000);
    hist_merge(dst, wide);
    assert_true(dst->min == 0 && dst->max == 80000);
    hist_free(dst);
    dst = WITH(1000);
    struct hist *low = WITH(500, 600);
    hist_merge(dst, low);
    assert_true(dst->min == 500 && dst->max == 1000);
    hist_free(low);

    /* A one-sample histogram is merged; an empty one changes nothing. */
    struct hist *one = WITH(3), *empty = hist_new(), *before = hist_new();
    hist_merge(dst, one);
    assert_int_equal(dst->count, 4);
    assert_int_equal(dst->b[3], 1);
    assert_true(dst->min == 3);
    hist_merge(before, dst);
    hist_merge(dst, empty);
    assert_same(dst, before);
    hist_free(one);
    hist_free(empty);
    hist_free(before);
    hist_free(dst);
    hist_free(wide);
    hist_free(src);
}

/* A histogram whose count says more than its buckets hold (made by hand,
 * or corrupted): no bucket past the last is read, and a rank beyond the
 * buckets answers the max. */
static void test_count_beyond_buckets(void **state)
{
    (void)state;
    struct hist *h = WITH(1000, 2000);
    h->count = 10;
    assert_int_equal(hist_percentile(h, 10), 1001);   /* rank 1 */
    assert_int_equal(hist_percentile(h, 50), 2000);   /* rank 5: past the buckets */
    hist_free(h);
}

static char *spectrum(const struct hist *h)
{
    struct capture c;
    assert_int_equal(hist_spectrum_write(h, capture_open(&c)), 0);
    return capture_close(&c);
}

static const char head[] = "       Value   Percentile   TotalCount 1/(1-Percentile)\n\n";
static const char layout[] = "#[Buckets =           58, SubBuckets     =          128]\n";

/* Four samples in four buckets, the whole text by hand.
 *   0         bucket 0, top 0                          -> 0.000 ms
 *   2^20      [1048576, 1056767] (8192 wide), top      -> 1.057
 *   2^21      [2097152, 2113535] (16384 wide), top     -> 2.114
 *   2^23      [8388608, 8454143], top cut to the max 8388608 -> 8.389
 * Ticks: 0, 10, ..., 50 (step 10 until half way), 55, ..., 75 (step 5),
 * 77.5 (step 2.5). The buckets reach 25%, 50%, 75%, 100%: the first gets
 * the rows at 0, 10, 20; the second 30, 40, 50 (50 reached exactly); the
 * third 55 to 75; the fourth, which completes the count, one row (77.5),
 * then the row at 1.0. 1/(1-p): 1/0.7 = 1.43, 1/0.35 = 2.86, 1/0.225 =
 * 4.44. Mean (0 + 1048576 + 2097152 + 8388608) / 4 = 2883584 ns. Standard
 * deviation over the buckets' middles 0, 1052671.5, 2105343.5, 8421375.5
 * (lo + (width - 1) / 2): deviations -2883584, -1830912.5, -778240.5,
 * 5537791.5, squares summing to 42940090241024.75, / 4, square root:
 * 3276434.4 ns -> 3.276 ms. */
static void test_spectrum_by_hand(void **state)
{
    (void)state;
    struct hist *h = WITH(1ull << 23, 0, 1ull << 21, 1ull << 20);
    char *text = spectrum(h);
    const char *want =
        "       Value   Percentile   TotalCount 1/(1-Percentile)\n"
        "\n"
        "       0.000     0.000000            1         1.00\n"
        "       0.000     0.100000            1         1.11\n"
        "       0.000     0.200000            1         1.25\n"
        "       1.057     0.300000            2         1.43\n"
        "       1.057     0.400000            2         1.67\n"
        "       1.057     0.500000            2         2.00\n"
        "       2.114     0.550000            3         2.22\n"
        "       2.114     0.600000            3         2.50\n"
        "       2.114     0.650000            3         2.86\n"
        "       2.114     0.700000            3         3.33\n"
        "       2.114     0.750000            3         4.00\n"
        "       8.389     0.775000            4         4.44\n"
        "       8.389     1.000000            4          inf\n"
        "#[Mean    =        2.884, StdDeviation   =        3.276]\n"
        "#[Max     =        8.389, Total count    =            4]\n"
        "#[Buckets =           58, SubBuckets     =          128]\n";
    assert_string_equal(text, want);
    free(text);
    hist_free(h);
}

/* One sample at the low edge of a wide bucket: 2^24 in [2^24, 2^24 +
 * 2^17 - 1]. One row at 0, the final row, both the exact value (the top
 * is cut to the max); the standard deviation is the middle's distance
 * from it, (2^17 - 1) / 2 = 65535.5 ns -> 0.066 ms. */
static void test_spectrum_one_sample(void **state)
{
    (void)state;
    struct hist *h = WITH(1ull << 24);
    char *text = spectrum(h);
    const char *want =
        "       Value   Percentile   TotalCount 1/(1-Percentile)\n"
        "\n"
        "      16.777     0.000000            1         1.00\n"
        "      16.777     1.000000            1          inf\n"
        "#[Mean    =       16.777, StdDeviation   =        0.066]\n"
        "#[Max     =       16.777, Total count    =            1]\n"
        "#[Buckets =           58, SubBuckets     =          128]\n";
    assert_string_equal(text, want);
    free(text);
    hist_free(h);
}

/* The standard deviation is the exact one over the middles: 13, 104 (their
 * own buckets) and 3232 in [3232, 3247] (middle 3239.5). The mean is
 * 3349/3; the deviations are -3310/3, -3037/3 and 12739/6, whose squares
 * sum to (4 * 3310^2 + 4 * 3037^2 + 12739^2) / 36 = 242999997 / 36; / 3
 * gives a variance of 242999997 / 108, 1/36 ns^2 short of 1500^2: the
 * deviation is 1499.99999 ns and prints as 0.001 ms, where a sum of
 * squares off by even 1 ns^2 would print 0.002. */
static void test_spectrum_stddev_on_the_edge(void **state)
{
    (void)state;
    struct hist *h = WITH(13, 104, 3232);
    char *text = spectrum(h);
    assert_non_null(strstr(text, "#[Mean    =        0.001, StdDeviation   =        0.001]\n"));
    free(text);
    hist_free(h);
}

static int rows(const char *text)
{
    int n = 0;
    for (const char *l = text + strlen(head); *l && *l != '#'; l = strchr(l, '\n') + 1)
        n++;
    return n;
}

/* Counts that disagree with the buckets (a hand-made or corrupted
 * histogram): the rows follow the count and read no bucket past the last.
 * Count 1 with buckets holding 1 (at 1000) and then 5 (at 3000): the
 * first completes the count, its row and the final row are all. Count 5
 * with one sample: 20% reached, rows at 0, 10, 20 and the final row. */
static void test_spectrum_follows_the_count(void **state)
{
    (void)state;
    struct hist *h = WITH(1000, 3000, 3000, 3000, 3000, 3000);
    h->count = 1;
    char *text = spectrum(h);
    assert_int_equal(rows(text), 2);
    assert_non_null(strstr(text, head));
    assert_non_null(strstr(text, "\n       0.001     0.000000            1         1.00\n"
                                 "       0.001     1.000000            1          inf\n"));
    free(text);
    hist_free(h);

    h = WITH(1000);
    h->count = 5;
    text = spectrum(h);
    assert_int_equal(rows(text), 4);
    assert_non_null(strstr(text, "\n       0.001     0.200000            1         1.25\n"
                                 "       0.001     1.000000            5          inf\n"));
    assert_non_null(strstr(text, layout));
    free(text);
    hist_free(h);
}

/* A stream that fails to take the text: -1. */
static void test_spectrum_write_error(void **state)
{
    (void)state;
    struct hist *h = WITH(1000, 2000);
    FILE *f = fopen("/dev/null", "r");   /* writes to a read-only stream fail */
    assert_non_null(f);
    assert_int_equal(hist_spectrum_write(h, f), -1);
    fclose(f);
    hist_free(h);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_new_reset_empty),
    cmocka_unit_test(test_bucket_bounds_by_hand),
    cmocka_unit_test(test_record_into_buckets),
    cmocka_unit_test(test_min_max_sum),
    cmocka_unit_test(test_percentiles_wide_buckets),
    cmocka_unit_test(test_percentiles_exact_buckets),
    cmocka_unit_test(test_merge),
    cmocka_unit_test(test_count_beyond_buckets),
    cmocka_unit_test(test_spectrum_by_hand),
    cmocka_unit_test(test_spectrum_one_sample),
    cmocka_unit_test(test_spectrum_stddev_on_the_edge),
    cmocka_unit_test(test_spectrum_follows_the_count),
    cmocka_unit_test(test_spectrum_write_error))

/* Unit tests of the shared base modules: units, rng, hist, cli, order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/cli.h"
#include "measure/hist.h"
#include "measure/order.h"
#include "measure/rng.h"
#include "base/units.h"

static void test_units_parse_int(void **state)
{
    (void)state;
    int64_t v;
    assert_int_equal(units_parse_int("1000", &v), 0); assert_int_equal(v, 1000);
    assert_int_equal(units_parse_int("10k", &v), 0); assert_int_equal(v, 10000);
    assert_int_equal(units_parse_int("10K", &v), 0); assert_int_equal(v, 10000);
    assert_int_equal(units_parse_int("4KiB", &v), 0); assert_int_equal(v, 4096);
    assert_int_equal(units_parse_int("2MiB", &v), 0); assert_int_equal(v, 2097152);
    assert_int_equal(units_parse_int("3G", &v), 0); assert_int_equal(v, 3000000000LL);
    assert_int_equal(units_parse_int("1GiB", &v), 0); assert_int_equal(v, 1073741824LL);
    assert_int_equal(units_parse_int("5MB", &v), 0); assert_int_equal(v, 5000000);
    assert_int_equal(units_parse_int("0x10", &v), 0); assert_int_equal(v, 16);
    assert_int_equal(units_parse_int("9223372036854775807", &v), 0);
    assert_true(v == INT64_MAX);
    /* rejected */
    assert_int_equal(units_parse_int("", &v), -1);
    assert_int_equal(units_parse_int("-5", &v), -1);
    assert_int_equal(units_parse_int("+5", &v), -1);
    assert_int_equal(units_parse_int(" 5", &v), -1);
    assert_int_equal(units_parse_int("5x", &v), -1);
    assert_int_equal(units_parse_int("10 k", &v), -1);
    assert_int_equal(units_parse_int("abc", &v), -1);
    assert_int_equal(units_parse_int("0x", &v), -1);
    assert_int_equal(units_parse_int("9223372036854775808", &v), -1);
    assert_int_equal(units_parse_int("99999999999999999999", &v), -1);
    assert_int_equal(units_parse_int("9223372036854775807K", &v), -1);
    assert_int_equal(units_parse_int("10000000000G", &v), -1);
}

static void test_units_other(void **state)
{
    (void)state;
    double d;
    assert_int_equal(units_parse_double("1.25", &d), 0); assert_true(d == 1.25);
    assert_int_equal(units_parse_double("-1", &d), -1);
    assert_int_equal(units_parse_double("1.2.3", &d), -1);
    assert_int_equal(units_parse_double("nan", &d), -1);
    assert_int_equal(units_parse_duration("10", &d), 0); assert_true(d == 10);
    assert_int_equal(units_parse_duration("500ms", &d), 0); assert_true(d == 0.5);
    assert_int_equal(units_parse_duration("2m", &d), 0); assert_true(d == 120);
    assert_int_equal(units_parse_duration("2y", &d), -1);
    char buf[32];
    units_format_bytes(buf, sizeof(buf), 512); assert_string_equal(buf, "512 B");
    units_format_bytes(buf, sizeof(buf), 10240); assert_string_equal(buf, "10.0 KiB");
    units_format_bytes(buf, sizeof(buf), 3LL << 30); assert_string_equal(buf, "3.0 GiB");
}

static void test_rng_reproducible_and_uniform(void **state)
{
    (void)state;
    rng_t a, b, c;
    rng_seed(&a, 42); rng_seed(&b, 42); rng_seed(&c, 43);
    int same_c = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = rng_next(&a);
        assert_true(x == rng_next(&b));
        same_c += x == rng_next(&c);
    }
    assert_true(same_c < 2);
    /* rng_below: every bucket of 10 within 5% of its expected share. */
    uint64_t n[10] = {0};
    rng_seed(&a, 7);
    for (int i = 0; i < 200000; i++) {
        uint64_t x = rng_below(&a, 10);
        assert_true(x < 10);
        n[x]++;
    }
    for (int i = 0; i < 10; i++)
        assert_true(n[i] > 19000 && n[i] < 21000);
    /* Fill: reproducible, not constant, odd lengths. */
    unsigned char p[37], q[37];
    rng_seed(&a, 9); rng_fill(&a, p, sizeof(p));
    rng_seed(&a, 9); rng_fill(&a, q, sizeof(q));
    assert_memory_equal(p, q, sizeof(p));
    int distinct = 0;
    for (size_t i = 1; i < sizeof(p); i++)
        distinct += p[i] != p[0];
    assert_true(distinct > 30);
    assert_true(rng_mix(1, 2) != rng_mix(2, 1));
    assert_int_equal(rng_os_bytes(p, sizeof(p)), 0);
    assert_int_equal(rng_os_bytes(q, sizeof(q)), 0);
    assert_memory_not_equal(p, q, sizeof(p));
    double d = rng_double(&a);
    assert_true(d >= 0 && d < 1);
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

static void test_cli_parse(void **state)
{
    (void)state;
    int64_t count = 1000;
    int flag = 0, ord = 0;
    double z = 0;
    const char *name = NULL;
    const struct cli_opt opts[] = {
        {"count", CLI_INT, &count, 1, 1000000, 0, 0},
        {"nosync", CLI_FLAG, &flag, 0, 0, 0, 0},
        {"asc", CLI_SET, &ord, 0, 0, 0, 0},
        {"desc", CLI_SET, &ord, 1, 0, 0, 0},
        {"zipf", CLI_DOUBLE, &z, 0, 0, 0.01, 10},
        {"name", CLI_STR, &name, 0, 0, 0, 0},
    };
    const int n = sizeof(opts) / sizeof(opts[0]);
    const char *pos[2];
    int npos;
    char *a1[] = {"x.db", "-count", "10k", "--nosync", "--desc", "--zipf=1.5", "--name", "q"};
    assert_int_equal(cli_parse("t", 8, a1, opts, n, pos, 2, &npos), 0);
    assert_int_equal(npos, 1);
    assert_string_equal(pos[0], "x.db");
    assert_int_equal(count, 10000);
    assert_int_equal(flag, 1);
    assert_int_equal(ord, 1);
    assert_true(z == 1.5);
    assert_string_equal(name, "q");
    /* Each a misuse: exit status 2. */
    struct { int argc; char *argv[3]; } bad[] = {
        {2, {"--asc", "--desc"}}, {1, {"--bogus"}}, {1, {"--count"}},
        {2, {"--count", "0"}}, {2, {"--count", "-3"}}, {3, {"a", "b", "c"}},
        {1, {"--nosync=1"}}, {2, {"--zipf", "0"}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (cli_parse("t", bad[i].argc, bad[i].argv, opts, n, pos, 2, &npos) != 2)
            fail_msg("misuse %zu (%s) was accepted", i, bad[i].argv[0]);
    char *a10[] = {"--", "-file"};
    assert_int_equal(cli_parse("t", 2, a10, opts, n, pos, 2, &npos), 0);
    assert_string_equal(pos[0], "-file");
}

static void test_order_asc_desc(void **state)
{
    (void)state;
    struct order o;
    assert_int_equal(order_init(&o, ORDER_ASC, 5, 4, 1, 0, 0), 0);
    int64_t want[] = {4, 5, 1, 2, 3, 4};
    for (int i = 0; i < 6; i++) assert_int_equal(order_next(&o), want[i]);
    assert_int_equal(order_init(&o, ORDER_DESC, 5, 0, 1, 0, 0), 0);
    int64_t want2[] = {5, 4, 3, 2, 1, 5};
    for (int i = 0; i < 6; i++) assert_int_equal(order_next(&o), want2[i]);
    assert_int_equal(order_init(&o, ORDER_ASC, 0, 0, 1, 0, 0), -1);
    assert_int_equal(order_init(&o, ORDER_ASC, 5, 6, 1, 0, 0), -1);
}

/* --random must visit every key of 1..max_id once per max_id draws, look
 * shuffled, and be reproducible by seed: otherwise db and files runs would
 * not be asked for comparable work. */
static void test_order_random_is_permutation(void **state)
{
    (void)state;
    int64_t sizes[] = {1, 2, 3, 1000, 1024, 1025, 100000};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        int64_t n = sizes[s];
        unsigned char *seen = calloc((size_t)n + 1, 1);
        struct order o;
        assert_int_equal(order_init(&o, ORDER_RANDOM, n, 0, 12345, 0, 0), 0);
        int64_t ascending = 0, prev = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t k = order_next(&o);
            assert_true(k >= 1 && k <= n);
            assert_int_equal(seen[k], 0);
            seen[k] = 1;
            ascending += k == prev + 1;
            prev = k;
        }
        if (n >= 1000)
            assert_true(ascending < n / 100);   /* not a disguised --asc */
        free(seen);
    }
    /* Same seed, same sequence; another seed or stream, another one. */
    struct order a, b, c, d;
    assert_int_equal(order_init(&a, ORDER_RANDOM, 100000, 0, 1, 0, 0), 0);
    assert_int_equal(order_init(&b, ORDER_RANDOM, 100000, 0, 1, 0, 0), 0);
    assert_int_equal(order_init(&c, ORDER_RANDOM, 100000, 0, 2, 0, 0), 0);
    assert_int_equal(order_init(&d, ORDER_RANDOM, 100000, 0, 1, 1, 0), 0);
    int diff_c = 0, diff_d = 0;
    for (int i = 0; i < 1000; i++) {
        int64_t x = order_next(&a);
        assert_int_equal(x, order_next(&b));
        diff_c += x != order_next(&c);
        diff_d += x != order_next(&d);
    }
    assert_true(diff_c > 990 && diff_d > 990);
    /* Spread: the first 10% of draws hit every tenth of the key range. */
    struct order e;
    assert_int_equal(order_init(&e, ORDER_RANDOM, 100000, 0, 3, 0, 0), 0);
    int deciles[10] = {0};
    for (int i = 0; i < 10000; i++)
        deciles[(order_next(&e) - 1) / 10000]++;
    for (int i = 0; i < 10; i++)
        assert_true(deciles[i] > 800 && deciles[i] < 1200);
}

static void test_order_zipf(void **state)
{
    (void)state;
    struct order o;
    assert_int_equal(order_init(&o, ORDER_ZIPF, 10000, 0, 5, 0, 1.0), 0);
    int *hits = calloc(10001, sizeof(int));
    for (int i = 0; i < 200000; i++) {
        int64_t k = order_next(&o);
        assert_true(k >= 1 && k <= 10000);
        hits[k]++;
    }
    /* Skewed: the hottest key far above the uniform share (20) ... */
    int maxk = 1;
    for (int k = 1; k <= 10000; k++)
        if (hits[k] > hits[maxk]) maxk = k;
    assert_true(hits[maxk] > 1000);
    /* ... and the hot keys are not all at the start of the range. */
    int hot_high = 0;
    for (int k = 5001; k <= 10000; k++)
        hot_high += hits[k] > 200;
    assert_true(hot_high > 0);
    free(hits);
    assert_int_equal(order_init(&o, ORDER_ZIPF, 100, 0, 5, 0, 0.0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_parse_int),
        cmocka_unit_test(test_units_other),
        cmocka_unit_test(test_rng_reproducible_and_uniform),
        cmocka_unit_test(test_hist_percentiles),
        cmocka_unit_test(test_hist_skewed),
        cmocka_unit_test(test_cli_parse),
        cmocka_unit_test(test_order_asc_desc),
        cmocka_unit_test(test_order_random_is_permutation),
        cmocka_unit_test(test_order_zipf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

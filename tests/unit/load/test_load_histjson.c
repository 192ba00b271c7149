/* load_histjson on its own: the numbers it prints read back exactly and
 * are the shortest that do, and a histogram whose sum or bucket counts no
 * run could have recorded is refused with its reason, the destination
 * untouched. (The round trip and the refusals that reach it through a
 * whole load run are in test_load_merge.c.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"

#include <cjson/cJSON.h>

#include "load/load_histjson.h"

/* The text `name` holds in j, a raw number as load_histjson_new makes it. */
static const char *printed(const cJSON *j, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, name);
    assert_true(cJSON_IsRaw(v));
    return v->valuestring;
}

/* v printed with p significant digits reads back as v. */
static int reads_back(double v, int p)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.*g", p, v);
    return strtod(buf, NULL) == v;
}

/* The sum of a histogram printed: it reads back as v, and it is the text
 * of the fewest digits (15, 16 or 17) that reads back. */
static void check_sum(double v)
{
    struct hist *h = hist_new();
    h->sum = v;
    cJSON *j = load_histjson_new(h);
    assert_non_null(j);
    const char *s = printed(j, "sum");
    if (strtod(s, NULL) != v)
        fail_msg("sum %.17g printed as \"%s\", which reads back as %.17g", v, s,
                 strtod(s, NULL));
    int p = 15;
    while (p <= 17 && !reads_back(v, p))
        p++;
    char want[40];
    snprintf(want, sizeof want, "%.*g", p, v);
    if (strcmp(s, want) != 0)
        fail_msg("sum %.17g printed as \"%s\", not the shortest text that reads back, \"%s\"", v,
                 s, want);
    cJSON_Delete(j);
    hist_free(h);
}

/* A value of each length: 15 digits enough, 16 needed, 17 needed; and a
 * spread of sums a run could hold, from sub-nanosecond rounding to 1e66. */
static void test_shortest_exact(void **state)
{
    (void)state;
    int need[3] = {0, 0, 0};
    int longer = 0;   /* 15 digits enough, yet 16 print other text */
    uint64_t x = 88172645463325252u;   /* xorshift64: the same values every run */
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v = (double)(x >> 11) / 9007199254740992.0 * 1e9;   /* [0, 1e9) */
        if (i % 4 == 1 || i % 4 == 2) {   /* a decimal of 15 or 16 digits */
            char buf[40];
            snprintf(buf, sizeof buf, "%.*g", 14 + i % 4, v);
            v = strtod(buf, NULL);
        }
        if (i % 4 == 3)
            v *= 1e57;
        check_sum(v);
        int p = 15;
        while (p < 17 && !reads_back(v, p))
            p++;
        need[p - 15]++;
        char t15[40], t16[40];
        snprintf(t15, sizeof t15, "%.15g", v);
        snprintf(t16, sizeof t16, "%.16g", v);
        longer += p == 15 && strcmp(t15, t16) != 0;
    }
    check_sum(0.0);
    check_sum(0.30000000000000004);   /* 17 digits */
    check_sum(7.8e66);
    /* every length was printed, so each bound of the search was used */
    for (int k = 0; k < 3; k++)
        if (need[k] == 0)
            fail_msg("no sum needed %d digits: the test did not reach that length", 15 + k);
    if (longer == 0)
        fail_msg("no sum of 15 digits printed otherwise with 16: a search from 16 went unseen");
}

/* The histogram of an empty run, as text, with `field` set to `value`
 * (a JSON number's text). */
static cJSON *empty_with(const char *field, const char *value)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"unit\": \"ns\", \"sub_bits\": %d, \"nbuckets\": %d, \"count\": 0, \"min\": 0, "
             "\"max\": 0, \"sum\": 0, \"buckets\": []}",
             HIST_SUB_BITS, HIST_BUCKETS);
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    cJSON *v = cJSON_Parse(value);
    assert_non_null(v);
    assert_true(cJSON_ReplaceItemInObjectCaseSensitive(j, field, v));
    return j;
}

/* j is refused saying `says`, and dst (holding one sample) is unchanged. */
static void refused(cJSON *j, const char *says)
{
    struct hist *dst = hist_new(), *was = hist_new();
    hist_record(dst, 12345);
    hist_record(was, 12345);
    char why[256] = "";
    assert_int_equal(load_histjson_add(dst, j, why, sizeof why), -1);
    if (!strstr(why, says))
        fail_msg("refused with \"%s\", not \"%s\"", why, says);
    assert_memory_equal(dst, was, sizeof *dst);
    cJSON_Delete(j);
    hist_free(dst);
    hist_free(was);
}

/* j read into a new histogram (the caller frees it); j is freed. */
static struct hist *accepted(cJSON *j)
{
    struct hist *h = hist_new();
    char why[256] = "";
    if (load_histjson_add(h, j, why, sizeof why) != 0)
        fail_msg("refused: %s", why);
    cJSON_Delete(j);
    return h;
}

static void test_sum_refused(void **state)
{
    (void)state;
    refused(empty_with("sum", "-1"), "sum is not a finite number of at least 0");
    refused(empty_with("sum", "-1e-300"), "sum is not a finite number of at least 0");
    refused(empty_with("sum", "1e500"), "sum is not a finite number of at least 0");
    refused(empty_with("sum", "\"5\""), "lacks unit, count, min, max, sum or buckets");
    hist_free(accepted(empty_with("sum", "0")));   /* the edge */
}

/* A histogram handed on in memory holds load_histjson_new's raw numbers:
 * one with anything after the number is no number. */
static void test_raw_number_refused(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    hist_record(h, 1000);
    cJSON *j = load_histjson_new(h);
    assert_true(cJSON_ReplaceItemInObjectCaseSensitive(j, "sum", cJSON_CreateRaw("1000x")));
    refused(j, "lacks unit, count, min, max, sum or buckets");
    j = load_histjson_new(h);
    assert_true(cJSON_ReplaceItemInObjectCaseSensitive(j, "count", cJSON_CreateRaw("1 ")));
    refused(j, "lacks unit, count, min, max, sum or buckets");
    /* the same fields as clean raw numbers are read */
    struct hist *back = accepted(load_histjson_new(h));
    assert_memory_equal(back, h, sizeof *h);
    hist_free(back);
    hist_free(h);
}

/* Each count may be up to 2^53, the total may not: past it the sum of
 * uint64 counts could wrap round to any count at all. */
static void test_total_over_2_53_refused(void **state)
{
    (void)state;
    refused(empty_with("buckets", "[0, 9007199254740992, 1, 9007199254740992]"),
            "histogram buckets hold more than 2^53 samples");
    refused(empty_with("buckets", "[0, 9007199254740991, 1, 2]"),
            "histogram buckets hold more than 2^53 samples");
    /* exactly 2^53 in all is a histogram (its count must say so) */
    cJSON *j = empty_with("buckets", "[0, 9007199254740991, 1, 1]");
    assert_true(cJSON_ReplaceItemInObjectCaseSensitive(j, "count",
                                                       cJSON_Parse("9007199254740992")));
    struct hist *h = accepted(j);
    assert_true(h->count == UINT64_C(9007199254740992));
    hist_free(h);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_shortest_exact),
    cmocka_unit_test(test_sum_refused),
    cmocka_unit_test(test_raw_number_refused),
    cmocka_unit_test(test_total_over_2_53_refused))

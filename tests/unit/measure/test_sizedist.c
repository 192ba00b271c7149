/* sizedist: size percentiles and buckets of a known set, the printed
 * lines, and the JSON form of a distribution read back (as stat writes it
 * and init --sizes-from reads it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"
#include "tests/unit/capture.h"

#include "measure/sizedist.h"

static int64_t *copy(const int64_t *v, int64_t n)
{
    int64_t *c = malloc((size_t)n * sizeof *c);
    assert_non_null(c);
    memcpy(c, v, (size_t)n * sizeof *c);
    return c;
}

static void test_percentiles_known_set(void **st)
{
    (void)st;
    /* Unsorted on purpose: 4 x 1, 4 x 4096, 2 x 102400. */
    const int64_t v[] = {4096, 1, 102400, 1, 4096, 1, 4096, 102400, 1, 4096};
    struct sizedist d;
    sizedist_own(&d, copy(v, 10), 10);
    assert_int_equal(sizedist_pct(&d, 0), 1);
    assert_int_equal(sizedist_pct(&d, 10), 1);
    assert_int_equal(sizedist_pct(&d, 40), 1);      /* rank 4 */
    assert_int_equal(sizedist_pct(&d, 41), 4096);   /* rank 5 */
    assert_int_equal(sizedist_pct(&d, 50), 4096);
    assert_int_equal(sizedist_pct(&d, 90), 102400);
    assert_int_equal(sizedist_pct(&d, 100), 102400);
    assert_true(sizedist_mean(&d) > 22118.79 && sizedist_mean(&d) < 22118.81);
    int64_t c[SIZEDIST_BUCKETS];
    sizedist_buckets(&d, c);
    assert_int_equal(c[1], 4);    /* [1, 2) */
    assert_int_equal(c[13], 4);   /* [4096, 8192) */
    assert_int_equal(c[17], 2);   /* [65536, 131072) */
    sizedist_free(&d);
    struct sizedist e;
    sizedist_own(&e, NULL, 0);
    assert_int_equal(sizedist_pct(&e, 50), 0);
}

static void test_bucket_edges(void **st)
{
    (void)st;
    assert_int_equal(sizedist_bucket(0), 0);
    assert_int_equal(sizedist_bucket(1), 1);
    assert_int_equal(sizedist_bucket(2), 2);
    assert_int_equal(sizedist_bucket(3), 2);
    assert_int_equal(sizedist_bucket(4095), 12);
    assert_int_equal(sizedist_bucket(4096), 13);
    assert_int_equal(sizedist_bucket(INT64_MAX), 63);
}

static void test_print_lines(void **st)
{
    (void)st;
    const int64_t v[] = {3, 1, 9};
    struct sizedist d;
    sizedist_own(&d, copy(v, 3), 3);
    struct capture c;
    sizedist_print(&d, capture_open(&c));
    char *buf = capture_close(&c);
    assert_string_equal(buf, "Size distribution:  count=3 min=1 p10=1 p50=3 p90=9 p99=9 max=9 "
                             "mean=4\nSize histogram:     1:1 2:1 4:0 8:1\n");
    free(buf);
    sizedist_free(&d);
}

/* JSON written as stat prints it, read back as init --sizes-from does. */
static void roundtrip(int64_t n, int64_t *got_n, int64_t **got, int *exact)
{
    int64_t *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = 1 + (i * 7919) % 1000003;
    struct sizedist d;
    sizedist_own(&d, v, n);
    cJSON *j = cJSON_CreateObject(), *r = cJSON_AddObjectToObject(j, "result");
    sizedist_json(&d, r);
    *exact = cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "size_distribution"),
                                              "sizes_exact"));
    char *s = cJSON_PrintUnformatted(j);
    char path[] = "/tmp/test_userdata_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "{\"command\":\"run\"}\n%s\n", s);
    fclose(f);
    char err[256];
    assert_int_equal(sizedist_load_json(path, got, got_n, err, sizeof err), 0);
    unlink(path);
    free(s);
    cJSON_Delete(j);
    sizedist_free(&d);
}

static void test_json_roundtrip(void **st)
{
    (void)st;
    int64_t n, *v;
    int exact;
    roundtrip(1000, &n, &v, &exact);
    assert_true(exact);
    assert_int_equal(n, 1000);
    for (int64_t i = 1; i < n; i++)
        assert_true(v[i - 1] <= v[i]);
    free(v);
    /* Over the cap: evenly spaced quantiles, same median within a rank. */
    roundtrip(SIZEDIST_JSON_MAX * 3 + 1, &n, &v, &exact);
    assert_false(exact);
    assert_int_equal(n, SIZEDIST_JSON_MAX);
    assert_true(v[0] >= 1 && v[n - 1] <= 1000003);
    free(v);
    char err[256];
    assert_int_equal(sizedist_load_json("/nonexistent/x.jsonl", &v, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "No such file"));
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_percentiles_known_set),
    cmocka_unit_test(test_bucket_edges),
    cmocka_unit_test(test_print_lines),
    cmocka_unit_test(test_json_roundtrip))

/* load_merge and load_histjson: runs written by load's own --json code
 * (load_report_json_new) from known samples, read back and added. The
 * merged percentiles must equal, at every percentile, those of one
 * histogram that recorded both runs' samples; the shared interval and the
 * rates are worked out by hand; every refusal is seen. */
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
#include "load/load_merge.h"
#include "load/load_report.h"

static const struct load_scenario_ops no_ops;

/* Sample i of run `run`: spread over microseconds to tens of ms, the two
 * runs different, so every bucket range is used. */
static uint64_t sample(int run, int i)
{
    uint64_t x = (uint64_t)i * 2654435761u + (uint64_t)run * 977;
    return 1000 + (x % (run ? 40000000u : 3000000u));
}

/* One run as load --json prints it: kinds POST and GET, n requests of
 * which a third are POSTs, timed from t0 to t1; its samples also go into
 * ref (both kinds together, the "all" row). The caller frees the text. */
static char *run_text(int run, int n, double t0, double t1, const char *url, struct hist *ref,
                      cJSON **out)
{
    struct load_scenario sc = {.name = "shortener", .kinds = {"POST", "GET"}, .nkinds = 2,
                               .ops = &no_ops};
    struct load_totals t;
    assert_int_equal(load_totals_init(&t, &sc), 0);
    for (int i = 0; i < n; i++) {
        int k = i % 3 == 0 ? 0 : 1;
        hist_record(t.c.h[k], sample(run, i));
        hist_record(ref, sample(run, i));
        t.c.ok[k]++;
    }
    t.c.fail[1][LOAD_FAIL_TIMEOUT] = (uint64_t)run + 1;   /* failed: no latency */
    t.c.tasks_ok = (uint64_t)n;
    t.c.tasks_failed = (uint64_t)run + 1;
    load_totals_finish(&t, t1 - t0);
    t.started_at = t0;
    t.ended_at = t1;
    struct load_opts o = {.command = "shortener load", .connections = 2, .workers = 1,
                          .tasks = 10};
    cJSON *root = load_report_json_new(&o, &t, url);
    assert_non_null(root);
    load_totals_free(&t);
    char *s = cJSON_PrintUnformatted(root);
    if (out)
        *out = root;
    else
        cJSON_Delete(root);
    return s;
}

static int add(struct load_merge *m, const char *s, char *why)
{
    return load_merge_add(m, s, strlen(s), why, 256);
}

static void test_histjson_round_trip(void **state)
{
    (void)state;
    struct hist *h = hist_new(), *back = hist_new();
    for (int i = 0; i < 5000; i++)
        hist_record(h, sample(1, i));
    cJSON *j = load_histjson_new(h);
    char why[256];
    assert_int_equal(load_histjson_add(back, j, why, sizeof(why)), 0);
    assert_memory_equal(back, h, sizeof(*h));   /* every bucket, count, min, max, sum */
    cJSON_Delete(j);
    hist_free(h);
    hist_free(back);
}

static void test_merged_percentiles_exact(void **state)
{
    (void)state;
    struct hist *ref = hist_new();
    char *a = run_text(0, 3000, 100.0, 110.0, "http://h:1", ref, NULL);
    char *b = run_text(1, 7001, 104.0, 124.0, "http://h:1", ref, NULL);
    struct load_merge m;
    char why[256];
    load_merge_init(&m);
    assert_int_equal(add(&m, a, why), 0);
    assert_int_equal(add(&m, b, why), 0);
    assert_int_equal(load_merge_finish(&m, why, sizeof(why)), 0);
    /* Counts add up: 3000 + 7001 answered, 1 + 2 timeouts. */
    assert_int_equal(m.t.nreq, 10001 + 3);
    assert_int_equal(m.t.nfail, 3);
    assert_int_equal(m.t.c.tasks_ok, 10001);
    assert_int_equal(m.t.c.tasks_failed, 3);
    assert_int_equal(m.t.all->count, ref->count);
    for (double p = 0; p <= 100.0; p += 0.1)
        assert_int_equal(hist_percentile(m.t.all, p), hist_percentile(ref, p));
    assert_int_equal(hist_percentile(m.t.all, 99.99), hist_percentile(ref, 99.99));
    assert_true(hist_mean(m.t.all) == hist_mean(ref));
    /* The shared interval: latest start 104, earliest end 110. */
    assert_true(m.from == 104.0 && m.to == 110.0);
    assert_true(m.t.secs == 6.0);
    /* Rates: each run's own, summed (requests include the failed). */
    double want = 3001.0 / 10.0 + 7003.0 / 20.0;
    assert_true(m.rates.all > want - 1e-9 && m.rates.all < want + 1e-9);
    assert_int_equal(m.connections, 4);
    load_merge_free(&m);
    free(a);
    free(b);
    hist_free(ref);
}

/* Two runs, the second edited by edit(), must be refused saying `says`. */
static void refused(void (*edit)(cJSON *root), double t0b, const char *url_b, const char *says)
{
    struct hist *ref = hist_new();
    cJSON *rb = NULL;
    char *a = run_text(0, 300, 100.0, 110.0, "http://h:1", ref, NULL);
    char *b0 = run_text(1, 300, t0b, t0b + 10, url_b, ref, &rb);
    if (edit)
        edit(rb);
    char *b = cJSON_PrintUnformatted(rb);
    struct load_merge m;
    char why[256] = "";
    load_merge_init(&m);
    assert_int_equal(add(&m, a, why), 0);
    int rc = add(&m, b, why);
    if (rc == 0)
        rc = load_merge_finish(&m, why, sizeof(why));
    assert_int_equal(rc, -1);
    if (!strstr(why, says))
        fail_msg("refused with \"%s\", not \"%s\"", why, says);
    load_merge_free(&m);
    cJSON_Delete(rb);
    free(a);
    free(b0);
    free(b);
    hist_free(ref);
}

static cJSON *get_hist(cJSON *root)
{
    cJSON *by = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "result"), "by_type");
    return cJSON_GetObjectItem(cJSON_GetObjectItem(by, "get"), "histogram");
}

static void other_scenario(cJSON *root)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(root, "result"), "scenario",
                              cJSON_CreateString("get"));
}

static void scheduled(cJSON *root)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(root, "result"), "latency_from",
                              cJSON_CreateString("schedule"));
}

static void no_histogram(cJSON *root)
{
    cJSON *by = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "result"), "by_type");
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(by, "get"), "histogram");
}

static void older_kvtest(cJSON *root)
{
    cJSON *r = cJSON_GetObjectItem(root, "result");
    cJSON_DeleteItemFromObject(r, "started_at");
    cJSON_DeleteItemFromObject(r, "scenario");
}

static void bucket_lost(cJSON *root)
{
    cJSON *b = cJSON_GetObjectItem(get_hist(root), "buckets");
    /* The first pair gone: the buckets no longer add up to "count". */
    cJSON_DeleteItemFromArray(b, 1);
    cJSON_DeleteItemFromArray(b, 0);
}

static void other_layout(cJSON *root)
{
    cJSON_ReplaceItemInObject(get_hist(root), "sub_bits", cJSON_CreateNumber(HIST_SUB_BITS - 1));
}

static void bad_index(cJSON *root)
{
    cJSON *b = cJSON_GetObjectItem(get_hist(root), "buckets");
    cJSON_ReplaceItemInArray(b, 0, cJSON_CreateNumber(HIST_BUCKETS));
}

static void test_refusals(void **state)
{
    (void)state;
    refused(NULL, 110.0, "http://h:1", "did not overlap");   /* b starts as a ends */
    refused(NULL, 90.0, "http://h:1", "did not overlap");    /* b ends as a starts */
    refused(NULL, 104.0, "http://h:2", "another service");
    refused(other_scenario, 104.0, "http://h:1", "another scenario");
    refused(scheduled, 104.0, "http://h:1", "--rate");
    refused(no_histogram, 104.0, "http://h:1", "no latency histograms");
    refused(older_kvtest, 104.0, "http://h:1", "no latency histograms");
    refused(bucket_lost, 104.0, "http://h:1", "its count says");
    refused(other_layout, 104.0, "http://h:1", "layout differs");
    refused(bad_index, 104.0, "http://h:1", "is not an index below");
}

static void test_bad_text(void **state)
{
    (void)state;
    struct load_merge m;
    char why[256];
    load_merge_init(&m);
    assert_int_equal(add(&m, "{\"result\": ", why), -1);
    assert_non_null(strstr(why, "not valid JSON"));
    assert_int_equal(add(&m, "[1, 2]", why), -1);
    assert_non_null(strstr(why, "not the --json of kvtest shortener load"));
    assert_int_equal(add(&m, "{\"options\": {}, \"result\": {}}", why), -1);
    assert_non_null(strstr(why, "not the --json of kvtest shortener load"));
    assert_int_equal(load_merge_finish(&m, why, sizeof(why)), -1);
    load_merge_free(&m);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_histjson_round_trip),
    cmocka_unit_test(test_merged_percentiles_exact),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_bad_text))

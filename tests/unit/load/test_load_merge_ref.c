/* load_merge and load_histjson against figures worked out by hand. The
 * runs are written here field by field (not by load's own --json code), so
 * every field can be left out, mistyped or set to an edge; their
 * histograms are written from hist.h's description of the layout (values
 * below 2^8 have a bucket each; [2^e, 2^(e+1)) is split into 128 buckets
 * 2^(e-7) wide, numbered on: bucket 128 * (e - 6) + (v - 2^e) / 2^(e-7)).
 * Each merged figure is recomputed in the comment beside it: counts,
 * failures, rates, the shared interval, percentiles, errors; then the
 * refusals, each with its exact message, and allocation failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "tests/unit/unit.h"

#include <cjson/cJSON.h>

#include "load/load_histjson.h"
#include "load/load_merge.h"
#include "load/load_report.h"

enum { WHY = 512 };

/* Bucket of v, from the layout above. */
static unsigned index_of(uint64_t v)
{
    if (v < 256)
        return (unsigned)v;
    int e = 63 - __builtin_clzll(v);
    return 128u * (unsigned)(e - 6) + (unsigned)((v - (1ull << e)) >> (e - 7));
}

/* The histogram of v[0..n) as load --json writes it (load_histjson.h). */
static cJSON *hist_json(const uint64_t *v, int n)
{
    unsigned idx[16];
    int cnt[16], nb = 0;
    double sum = 0;
    uint64_t mn = n ? v[0] : 0, mx = 0;
    assert_true(n <= 16);
    for (int i = 0; i < n; i++) {
        unsigned b = index_of(v[i]);
        int j = 0;
        while (j < nb && idx[j] != b)
            j++;
        if (j == nb) {
            idx[nb] = b;
            cnt[nb++] = 0;
        }
        cnt[j]++;
        sum += (double)v[i];
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    /* ascending, as load writes them */
    for (int a = 0; a < nb; a++)
        for (int b = a + 1; b < nb; b++)
            if (idx[b] < idx[a]) {
                unsigned ti = idx[a];
                int tc = cnt[a];
                idx[a] = idx[b], cnt[a] = cnt[b];
                idx[b] = ti, cnt[b] = tc;
            }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "unit", "ns");
    cJSON_AddNumberToObject(o, "sub_bits", 7);
    cJSON_AddNumberToObject(o, "nbuckets", 7424);
    cJSON_AddNumberToObject(o, "count", n);
    cJSON_AddNumberToObject(o, "min", (double)mn);
    cJSON_AddNumberToObject(o, "max", (double)mx);
    cJSON_AddNumberToObject(o, "sum", sum);
    cJSON *b = cJSON_AddArrayToObject(o, "buckets");
    for (int j = 0; j < nb; j++) {
        cJSON_AddItemToArray(b, cJSON_CreateNumber(idx[j]));
        cJSON_AddItemToArray(b, cJSON_CreateNumber(cnt[j]));
    }
    return o;
}

/* One request kind of a run. */
struct kind {
    const char *name;
    double requests, ok;
    double fail[LOAD_NFAIL];   /* by enum load_fail ([LOAD_OK] unused) */
    uint64_t v[16];            /* latencies in ns */
    int n;
};

/* One run, as the fields of its load --json. */
struct run {
    const char *url, *scenario, *from;
    double t0, t1, secs, tasks, ok, failed, requests;
    double rate;                                /* options.rate; < 0: null */
    double connections, workers, tasks_opt;     /* options; < 0: absent */
    double seed;
    struct kind k[LOAD_KINDS_MAX + 2];
    int nk;
    const char *err[8];
    int nerr;                                   /* < 0: no "errors" */
    int all_first;                              /* "all" before the kinds */
};

static cJSON *kind_json(const struct kind *k)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "requests", k->requests);
    cJSON_AddNumberToObject(o, "successful", k->ok);
    cJSON_AddNumberToObject(o, "failed", k->requests - k->ok);
    cJSON *fo = cJSON_AddObjectToObject(o, "failures");
    static const char *const names[LOAD_NFAIL] = {"ok", "connect", "timeout", "io",
                                                  "http_status", "bad_body"};
    for (int f = 1; f < LOAD_NFAIL; f++)
        cJSON_AddNumberToObject(fo, names[f], k->fail[f]);
    cJSON_AddItemToObject(o, "histogram", hist_json(k->v, k->n));
    return o;
}

/* "all" holds what load sums over the kinds; load_merge must not read it,
 * so it holds nonsense here: counts of 999 and one sample of 7 ns. */
static cJSON *all_json(void)
{
    struct kind all = {.name = "all", .requests = 999, .ok = 999, .fail = {0, 9, 9, 9, 9, 9},
                       .v = {7}, .n = 1};
    return kind_json(&all);
}

static cJSON *run_json(const struct run *r)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "command", "shortener load");
    cJSON *op = cJSON_AddObjectToObject(root, "options");
    cJSON_AddStringToObject(op, "url", r->url);
    if (r->tasks_opt >= 0)
        cJSON_AddNumberToObject(op, "tasks", r->tasks_opt);
    if (r->connections >= 0) {
        cJSON_AddNumberToObject(op, "threads", r->connections);
        cJSON_AddNumberToObject(op, "connections", r->connections);
    }
    if (r->workers >= 0)
        cJSON_AddNumberToObject(op, "workers", r->workers);
    cJSON_AddNumberToObject(op, "seed", r->seed);
    if (r->rate >= 0)
        cJSON_AddNumberToObject(op, "rate", r->rate);
    else
        cJSON_AddNullToObject(op, "rate");
    cJSON *res = cJSON_AddObjectToObject(root, "result");
    cJSON_AddNumberToObject(res, "tasks", r->tasks);
    cJSON_AddNumberToObject(res, "successful", r->ok);
    cJSON_AddNumberToObject(res, "failed", r->failed);
    cJSON_AddNumberToObject(res, "seconds", r->secs);
    cJSON_AddNumberToObject(res, "requests", r->requests);
    cJSON *by = cJSON_AddObjectToObject(res, "by_type");
    if (r->all_first)
        cJSON_AddItemToObject(by, "all", all_json());
    for (int i = 0; i < r->nk; i++)
        cJSON_AddItemToObject(by, r->k[i].name, kind_json(&r->k[i]));
    if (!r->all_first)
        cJSON_AddItemToObject(by, "all", all_json());
    if (r->nerr >= 0) {
        cJSON *e = cJSON_AddArrayToObject(res, "errors");
        for (int i = 0; i < r->nerr; i++)
            cJSON_AddItemToArray(e, cJSON_CreateString(r->err[i]));
    }
    cJSON_AddStringToObject(res, "latency_from", r->from);
    cJSON_AddStringToObject(res, "scenario", r->scenario);
    cJSON_AddNumberToObject(res, "started_at", r->t0);
    cJSON_AddNumberToObject(res, "ended_at", r->t1);
    return root;
}

static int add_json(struct load_merge *m, cJSON *root, char *why)
{
    char *s = cJSON_PrintUnformatted(root);
    assert_non_null(s);
    int rc = load_merge_add(m, s, strlen(s), why, WHY);
    free(s);
    return rc;
}

static int add_run(struct load_merge *m, const struct run *r, char *why)
{
    cJSON *root = run_json(r);
    int rc = add_json(m, root, why);
    cJSON_Delete(root);
    return rc;
}

static cJSON *res(cJSON *root)
{
    return cJSON_GetObjectItem(root, "result");
}

/* A merge whose struct held garbage before load_merge_init. */
static void init(struct load_merge *m)
{
    memset(m, 0xA5, sizeof(*m));
    assert_int_equal(load_merge_init(m), 0);
}

static void assert_near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-12 * (fabs(want) > 1 ? fabs(want) : 1)))
        fail_msg("%.17g, not %.17g", got, want);
}

/* Run A: 10 s from t = 1000, --rate 2.5, 2 connections, 1 worker; 20
 * tasks (19 ok), 11 requests: POST 5 (4 answered, 1 timeout), GET 6 (5
 * answered, 1 bad body); "all" listed first. */
static const struct run run_a = {
    .url = "http://svc:8080", .scenario = "shortener", .from = "schedule",
    .t0 = 1000, .t1 = 1010, .secs = 10, .tasks = 20, .ok = 19, .failed = 1, .requests = 11,
    .rate = 2.5, .connections = 2, .workers = 1, .tasks_opt = 20, .seed = 7,
    .k = {{.name = "post", .requests = 5, .ok = 4, .fail = {[LOAD_FAIL_TIMEOUT] = 1},
           .v = {1000, 1002, 3000, 20000}, .n = 4},
          {.name = "get", .requests = 6, .ok = 5, .fail = {[LOAD_FAIL_BODY] = 1},
           .v = {20000, 20000, 500000, 100, 0}, .n = 5}},
    .nk = 2, .err = {"e1", "e2", "e3"}, .nerr = 3, .all_first = 1,
};

/* Run B: 20 s from t = 1004, --rate 1.5, 3 connections, no "workers"; 30
 * tasks (28 ok), 7 requests: POST 3 (2 answered, 1 connect), GET 4 (2
 * answered, 1 timeout, 1 io); "all" last. */
static const struct run run_b = {
    .url = "http://svc:8080", .scenario = "shortener", .from = "schedule",
    .t0 = 1004, .t1 = 1024, .secs = 20, .tasks = 30, .ok = 28, .failed = 2, .requests = 7,
    .rate = 1.5, .connections = 3, .workers = -1, .tasks_opt = 30, .seed = 9,
    .k = {{.name = "post", .requests = 3, .ok = 2, .fail = {[LOAD_FAIL_CONNECT] = 1},
           .v = {1003519, 500000}, .n = 2},
          {.name = "get", .requests = 4, .ok = 2,
           .fail = {[LOAD_FAIL_TIMEOUT] = 1, [LOAD_FAIL_IO] = 1}, .v = {3000, 1000}, .n = 2}},
    .nk = 2, .err = {"e4", "e5", "e6", "e7"}, .nerr = 4,
};

static void test_two_runs_by_hand(void **state)
{
    (void)state;
    struct load_merge m;
    char why[WHY] = "";
    init(&m);
    assert_int_equal(add_run(&m, &run_a, why), 0);
    assert_int_equal(add_run(&m, &run_b, why), 0);
    assert_int_equal(load_merge_finish(&m, why, sizeof(why)), 0);
    assert_int_equal(m.nruns, 2);
    assert_string_equal(m.url, "http://svc:8080");
    assert_string_equal(m.scenario, "shortener");
    assert_string_equal(m.latency_from, "schedule");
    /* The kinds, upper case, in the runs' order ("all" left out). */
    assert_int_equal(m.sc.nkinds, 2);
    assert_string_equal(m.sc.name, "shortener");
    assert_string_equal(m.sc.kinds[0], "POST");
    assert_string_equal(m.sc.kinds[1], "GET");
    assert_true(m.t.sc == &m.sc);
    assert_int_equal(m.t.c.nkinds, 2);
    /* Answered: POST 4 + 2, GET 5 + 2. Failures by kind and cause. */
    assert_int_equal(m.t.c.ok[0], 6);
    assert_int_equal(m.t.c.ok[1], 7);
    const uint64_t post_fail[LOAD_NFAIL] = {[LOAD_FAIL_CONNECT] = 1, [LOAD_FAIL_TIMEOUT] = 1};
    const uint64_t get_fail[LOAD_NFAIL] = {[LOAD_FAIL_TIMEOUT] = 1, [LOAD_FAIL_IO] = 1,
                                           [LOAD_FAIL_BODY] = 1};
    assert_memory_equal(m.t.c.fail[0], post_fail, sizeof(post_fail));
    assert_memory_equal(m.t.c.fail[1], get_fail, sizeof(get_fail));
    /* Requests: POST 6 + 2 failed = 8, GET 7 + 3 = 10; 18 in all, 5 failed. */
    assert_int_equal(m.t.requests[0], 8);
    assert_int_equal(m.t.requests[1], 10);
    assert_int_equal(m.t.nreq, 18);
    assert_int_equal(m.t.nfail, 5);
    /* Tasks: 19 + 28 ok, 1 + 2 failed. */
    assert_int_equal(m.t.c.tasks_ok, 47);
    assert_int_equal(m.t.c.tasks_failed, 3);
    /* Rates, each run's own summed: POST 5/10 + 3/20 = 0.65, GET 6/10 +
     * 4/20 = 0.8, requests 11/10 + 7/20 = 1.45, tasks 20/10 + 30/20 = 3.5. */
    assert_near(m.rates.kind[0], 0.65);
    assert_near(m.rates.kind[1], 0.8);
    assert_near(m.rates.all, 1.45);
    assert_near(m.rates.tasks, 3.5);
    assert_true(m.t.rates == &m.rates);
    /* Options summed: --rate 2.5 + 1.5, connections 2 + 3, workers 1 + 0
     * (absent), tasks 20 + 30; the rest is the first run's. */
    assert_true(m.rate == 4.0);
    assert_int_equal(m.connections, 5);
    assert_int_equal(m.workers, 1);
    assert_int_equal(m.tasks, 50);
    assert_non_null(m.options);
    assert_true(cJSON_GetObjectItem(m.options, "seed")->valuedouble == 7);
    assert_string_equal(cJSON_GetObjectItem(m.options, "url")->valuestring, "http://svc:8080");
    /* The shared interval: the latest start 1004, the earliest end 1010. */
    assert_true(m.from == 1004 && m.to == 1010);
    assert_true(m.t.secs == 6);
    assert_true(m.t.started_at == 1004 && m.t.ended_at == 1010);
    /* The first five messages: A's three, then B's first two. */
    assert_int_equal(m.t.c.nerr, 5);
    const char *msgs[] = {"e1", "e2", "e3", "e4", "e5"};
    for (int i = 0; i < 5; i++)
        assert_string_equal(m.t.c.err[i].msg, msgs[i]);

    /* Histograms. POST: 1000, 1002, 3000, 20000 + 1003519, 500000. GET: 0,
     * 100, 20000, 20000, 500000 + 1000, 3000. Middles: [1000, 1003] 1001,
     * [2992, 3007] 2999, [19968, 20095] 20031, [499712, 501759] 500735,
     * [999424, 1003519] 1001471. */
    const struct hist *post = m.t.c.h[0], *get = m.t.c.h[1], *all = m.t.all;
    assert_int_equal(post->count, 6);
    assert_true(post->min == 1000 && post->max == 1003519);
    assert_true(post->sum == 1528521.0);   /* 1000 + 1002 + 3000 + 20000 + 500000 + 1003519 */
    assert_int_equal(post->b[506], 2);     /* 1000 and 1002 */
    assert_int_equal(hist_percentile(post, 50), 2999);   /* rank round(3.0) = 3: 3000 */
    assert_int_equal(get->count, 7);
    assert_true(get->min == 0 && get->max == 500000);
    assert_true(get->sum == 544100.0);     /* 0 + 100 + 20000 * 2 + 500000 + 1000 + 3000 */
    assert_int_equal(get->b[0], 1);
    assert_int_equal(hist_percentile(get, 50), 2999);    /* rank round(3.5) = 4: 3000 */
    /* All 13: 0, 100, 1000, 1000, 1002, 3000, 3000, 20000 x3, 500000 x2,
     * 1003519 (not "all"'s 7 ns). */
    assert_int_equal(all->count, 13);
    assert_int_equal(all->b[7], 0);
    assert_true(hist_mean(all) == 2072621.0 / 13);
    static const struct {
        double p;
        uint64_t want;
    } pct[] = {
        {0, 0}, {10, 0},          /* rank round(1.3) = 1 */
        {15, 100},                /* rank round(1.95) = 2 */
        {25, 1001},               /* rank round(3.25) = 3: 1000 */
        {50, 2999},               /* rank round(6.5) = 7: 3000 */
        {75, 20031},              /* rank round(9.75) = 10: 20000 */
        {90, 500735},             /* rank round(11.7) = 12: 500000 */
        {99, 1001471},            /* rank round(12.87) = 13: 1003519's bucket */
        {100, 1003519},
    };
    for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
        if (hist_percentile(all, pct[i].p) != pct[i].want)
            fail_msg("p%g: %llu, not %llu", pct[i].p,
                     (unsigned long long)hist_percentile(all, pct[i].p),
                     (unsigned long long)pct[i].want);

    /* The merged result through load's --json and back: one run whose
     * histograms are the merged ones, bucket for bucket. */
    struct load_opts o = {.command = "shortener load-merge", .rate = m.rate};
    cJSON *again = load_report_json_new(&o, &m.t, m.url);
    assert_non_null(again);
    struct load_merge back;
    init(&back);
    assert_int_equal(add_json(&back, again, why), 0);
    assert_int_equal(load_merge_finish(&back, why, sizeof(why)), 0);
    for (int k = 0; k < 2; k++)
        assert_memory_equal(back.t.c.h[k], m.t.c.h[k], sizeof(struct hist));
    assert_memory_equal(back.t.all, m.t.all, sizeof(struct hist));
    assert_int_equal(back.t.nreq, 18);
    assert_true(back.from == 1004 && back.to == 1010);
    cJSON_Delete(again);
    load_merge_free(&back);
    load_merge_free(&m);
    assert_null(m.options);
}

/* One run of 0.5 s, one kind, no --rate (null), no failures (every count
 * of failures 0), no "workers", an empty "errors": merged alone it is
 * itself, its rates count / 0.5. */
static const struct run run_c = {
    .url = "http://h:1/", .scenario = "get", .from = "send",
    .t0 = 1700000000.25, .t1 = 1700000000.75, .secs = 0.5, .tasks = 3, .ok = 3, .failed = 0,
    .requests = 3, .rate = -1, .connections = 1, .workers = -1, .tasks_opt = 3, .seed = 1,
    .k = {{.name = "get", .requests = 3, .ok = 3, .v = {128, 255, 256}, .n = 3}},
    .nk = 1, .nerr = 0,
};

static void test_one_run(void **state)
{
    (void)state;
    struct load_merge m;
    char why[WHY] = "";
    init(&m);
    assert_int_equal(add_run(&m, &run_c, why), 0);
    assert_int_equal(load_merge_finish(&m, why, sizeof(why)), 0);
    assert_int_equal(m.nruns, 1);
    assert_int_equal(m.sc.nkinds, 1);
    assert_string_equal(m.sc.kinds[0], "GET");
    assert_string_equal(m.scenario, "get");
    assert_string_equal(m.latency_from, "send");
    assert_int_equal(m.t.c.ok[0], 3);
    assert_int_equal(m.t.nreq, 3);
    assert_int_equal(m.t.nfail, 0);
    assert_int_equal(m.t.c.tasks_ok, 3);
    assert_int_equal(m.t.c.tasks_failed, 0);
    assert_near(m.rates.all, 6);      /* 3 / 0.5 */
    assert_near(m.rates.tasks, 6);
    assert_near(m.rates.kind[0], 6);
    assert_true(m.rate == 0);         /* "rate": null */
    assert_int_equal(m.connections, 1);
    assert_int_equal(m.workers, 0);
    assert_int_equal(m.tasks, 3);
    assert_true(m.from == 1700000000.25 && m.to == 1700000000.75);
    assert_true(m.t.secs == 0.5);
    assert_int_equal(m.t.c.nerr, 0);
    /* 128, 255 and 256: buckets 128, 255 and 256 ([256, 257]); p50 is rank
     * 2, 255 itself; p100 the exact max. */
    assert_int_equal(m.t.all->b[128] + m.t.all->b[255] + m.t.all->b[256], 3);
    assert_int_equal(hist_percentile(m.t.all, 50), 255);
    assert_int_equal(hist_percentile(m.t.all, 100), 256);
    load_merge_free(&m);

    /* No "rate" at all, no "errors": the same. */
    cJSON *root = run_json(&run_c);
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(root, "options"), "rate");
    cJSON_DeleteItemFromObject(res(root), "errors");
    init(&m);
    assert_int_equal(add_json(&m, root, why), 0);
    assert_true(m.rate == 0);
    assert_int_equal(m.t.c.nerr, 0);
    load_merge_free(&m);
    cJSON_Delete(root);

    /* 2^53, the largest count a double holds exactly, is still taken: as
     * the run's "seconds" (a number read like every count) and as an
     * option the merge sums. */
    /* (cJSON prints 2^53 with 15 digits, 2^53 - 2: the text is written
     * here, the number put in place of a marker.) */
    root = run_json(&run_c);
    cJSON_ReplaceItemInObject(res(root), "seconds", cJSON_CreateNumber(424242));
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(root, "options"), "connections",
                              cJSON_CreateNumber(424242));
    char *text = cJSON_PrintUnformatted(root), big[8192], *o = big;
    assert_non_null(text);
    for (const char *p = text, *q; *p; p = q + 6) {
        q = strstr(p, "424242");
        if (!q) {
            o += snprintf(o, sizeof(big) - (size_t)(o - big), "%s", p);
            break;
        }
        o += snprintf(o, sizeof(big) - (size_t)(o - big), "%.*s9007199254740992", (int)(q - p), p);
    }
    assert_true(o < big + sizeof(big) - 1);
    init(&m);
    assert_int_equal(load_merge_add(&m, big, strlen(big), why, WHY), 0);
    assert_int_equal(m.connections, INT64_C(9007199254740992));
    load_merge_free(&m);
    free(text);
    cJSON_Delete(root);
}

static void test_no_run(void **state)
{
    (void)state;
    struct load_merge m;
    char why[WHY] = "";
    init(&m);
    assert_int_equal(load_merge_finish(&m, why, sizeof(why)), -1);
    assert_string_equal(why, "no run to merge");
    load_merge_free(&m);
}

/* run_c with one change, refused on its own with exactly `says`. */
static void refused_alone(void (*edit)(cJSON *root), const char *says)
{
    cJSON *root = run_json(&run_c);
    edit(root);
    struct load_merge m;
    char why[WHY] = "";
    init(&m);
    int rc = add_json(&m, root, why);
    if (rc != -1 || strcmp(why, says) != 0)
        fail_msg("%d \"%s\", not -1 \"%s\"", rc, why, says);
    load_merge_free(&m);
    cJSON_Delete(root);
}

static cJSON *get_kind(cJSON *root)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(res(root), "by_type"), "get");
}

static const char *g_field;   /* the field an edit below acts on */

static void drop_result_field(cJSON *root)
{
    cJSON_DeleteItemFromObject(res(root), g_field);
}

static void result_field_text(cJSON *root)
{
    cJSON_ReplaceItemInObject(res(root), g_field, cJSON_CreateString("1"));
}

static void result_field_negative(cJSON *root)
{
    cJSON_ReplaceItemInObject(res(root), g_field, cJSON_CreateNumber(-1));
}

/* 1e30 fits a double but no 64-bit count: refused, not converted. */
static void result_field_huge(cJSON *root)
{
    cJSON_ReplaceItemInObject(res(root), g_field, cJSON_CreateNumber(1e30));
}

static void drop_kind_field(cJSON *root)
{
    cJSON_DeleteItemFromObject(get_kind(root), g_field);
}

static void drop_failure(cJSON *root)
{
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(get_kind(root), "failures"), g_field);
}

static void drop_url(cJSON *root)
{
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(root, "options"), "url");
}

static void drop_options(cJSON *root)
{
    cJSON_DeleteItemFromObject(root, "options");
}

static void drop_result(cJSON *root)
{
    cJSON_DeleteItemFromObject(root, "result");
}

static void by_type_array(cJSON *root)
{
    cJSON_ReplaceItemInObject(res(root), "by_type", cJSON_CreateArray());
}

static void no_length(cJSON *root)
{
    cJSON_ReplaceItemInObject(res(root), "seconds", cJSON_CreateNumber(0));
}

static void ends_first(cJSON *root)
{
    cJSON_ReplaceItemInObject(res(root), "ended_at", cJSON_CreateNumber(1700000000.0));
}

static void miscounted(cJSON *root)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(get_kind(root), "histogram"), "count",
                              cJSON_CreateNumber(4));
}

static void test_missing_fields(void **state)
{
    (void)state;
    const char *older = "has no latency histograms (made by a kvtest before load-merge: run "
                        "it again)";
    const char *foreign = "is not the --json of kvtest shortener load";
    char says[WHY];
    static const char *const numbers[] = {"ended_at", "seconds", "tasks", "successful",
                                          "failed", "requests"};
    for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
        g_field = numbers[i];
        snprintf(says, sizeof(says), "no number \"%s\" where load --json has one", g_field);
        refused_alone(drop_result_field, says);
        refused_alone(result_field_text, says);
        refused_alone(result_field_negative, says);
        snprintf(says, sizeof(says), "\"%s\" is 1e+30, beyond any count load --json writes",
                 g_field);
        refused_alone(result_field_huge, says);
    }
    /* started_at: missing means an older kvtest; present, it must be a number. */
    g_field = "started_at";
    refused_alone(drop_result_field, older);
    refused_alone(result_field_text, "no number \"started_at\" where load --json has one");
    g_field = "scenario";
    refused_alone(drop_result_field, older);
    g_field = "latency_from";
    refused_alone(drop_result_field, foreign);
    g_field = "by_type";
    refused_alone(drop_result_field, foreign);
    refused_alone(by_type_array, foreign);
    refused_alone(drop_url, foreign);
    refused_alone(drop_options, foreign);
    refused_alone(drop_result, foreign);
    /* In a kind: its counts, each failure count, its histogram. */
    static const char *const kind_numbers[] = {"requests", "successful"};
    for (size_t i = 0; i < 2; i++) {
        g_field = kind_numbers[i];
        snprintf(says, sizeof(says), "no number \"%s\" where load --json has one", g_field);
        refused_alone(drop_kind_field, says);
    }
    static const char *const failures[] = {"connect", "timeout", "io", "http_status",
                                           "bad_body"};
    for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++) {
        g_field = failures[i];
        snprintf(says, sizeof(says), "no number \"%s\" where load --json has one", g_field);
        refused_alone(drop_failure, says);
    }
    g_field = "failures";
    refused_alone(drop_kind_field, "no number \"connect\" where load --json has one");
    g_field = "histogram";
    refused_alone(drop_kind_field, older);
    refused_alone(miscounted, "histogram buckets hold 3 samples, its count says 4");
    refused_alone(no_length, "has a run of no length");
    refused_alone(ends_first, "has a run of no length");
}

/* r's kinds: n of them, named names[i] or, without names, "k0", "k1", ...;
 * one answered request each, at 1000 ns. */
static void kinds(struct run *r, int n, const char *const *names)
{
    static char gen[LOAD_KINDS_MAX + 2][16];
    r->nk = n;
    for (int i = 0; i < n; i++) {
        snprintf(gen[i], sizeof(gen[i]), "k%d", i);
        r->k[i] = (struct kind){.name = names ? names[i] : gen[i], .requests = 1, .ok = 1,
                                .v = {1000}, .n = 1};
    }
}

/* The first run, then the second: the second refused with exactly `says`. */
static void refused_second(const struct run *first, const struct run *second, const char *says)
{
    struct load_merge m;
    char why[WHY] = "";
    init(&m);
    assert_int_equal(add_run(&m, first, why), 0);
    int rc = add_run(&m, second, why);
    if (rc != -1 || strcmp(why, says) != 0)
        fail_msg("%d \"%s\", not -1 \"%s\"", rc, why, says);
    load_merge_free(&m);
}

static void test_other_runs_refused(void **state)
{
    (void)state;
    const char *other = "has other request kinds than the first run";
    struct run b = run_b;
    b.url = "http://other:1";
    refused_second(&run_a, &b, "targeted another service: http://other:1, not http://svc:8080");
    b = run_b;
    b.scenario = "get";
    refused_second(&run_a, &b, "ran another scenario: get, not shortener");
    b = run_b;
    b.from = "send";
    refused_second(&run_a, &b, "timed latency from send, not from schedule (--rate and not)");
    /* Kinds: swapped, renamed, one fewer, one more, none. */
    b = run_b;
    b.k[0] = run_b.k[1];
    b.k[1] = run_b.k[0];
    refused_second(&run_a, &b, other);
    b = run_b;
    b.k[1].name = "put";
    refused_second(&run_a, &b, other);
    b = run_b;
    b.nk = 1;
    refused_second(&run_a, &b, other);
    b = run_b;
    b.k[2] = run_b.k[1];
    b.k[2].name = "put";
    b.nk = 3;
    refused_second(&run_a, &b, other);
    b = run_b;
    b.nk = 0;
    refused_second(&run_a, &b, other);

    /* A first run with no kind but "all" is refused itself. */
    struct load_merge m;
    char why[WHY] = "";
    struct run a = run_a;
    a.nk = 0;
    init(&m);
    assert_int_equal(add_run(&m, &a, why), -1);
    assert_string_equal(why, other);
    load_merge_free(&m);

    /* Seven kinds, then the same seven and two more (the first named ""):
     * other kinds, not "more than 8". */
    a = run_c;
    kinds(&a, 7, NULL);
    b = a;
    static const char *const nine[] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "", "x"};
    kinds(&b, 9, nine);
    refused_second(&a, &b, other);
}

static void test_kinds_at_the_limit(void **state)
{
    (void)state;
    struct load_merge m;
    char why[WHY] = "";
    struct run r = run_c;
    /* LOAD_KINDS_MAX (8) kinds, twice: each named, counted, its own. */
    kinds(&r, LOAD_KINDS_MAX, NULL);
    init(&m);
    assert_int_equal(add_run(&m, &r, why), 0);
    assert_int_equal(add_run(&m, &r, why), 0);
    assert_int_equal(load_merge_finish(&m, why, sizeof(why)), 0);
    assert_int_equal(m.sc.nkinds, LOAD_KINDS_MAX);
    for (int i = 0; i < LOAD_KINDS_MAX; i++) {
        char up[16];
        snprintf(up, sizeof(up), "K%d", i);
        assert_string_equal(m.sc.kinds[i], up);
        assert_int_equal(m.t.c.ok[i], 2);
        assert_int_equal(m.t.c.h[i]->count, 2);
    }
    assert_int_equal(m.t.all->count, 2 * LOAD_KINDS_MAX);
    load_merge_free(&m);
    /* One more is refused. */
    kinds(&r, LOAD_KINDS_MAX + 1, NULL);
    init(&m);
    assert_int_equal(add_run(&m, &r, why), -1);
    assert_string_equal(why, "more than 8 request kinds");
    load_merge_free(&m);

    /* A long kind name is cut to the 31 characters a name holds. */
    r = run_c;
    r.k[0].name = "abcdefghijklmnopqrstuvwxyz0123456789";
    init(&m);
    assert_int_equal(add_run(&m, &r, why), 0);
    assert_int_equal(add_run(&m, &r, why), 0);
    assert_string_equal(m.sc.kinds[0], "ABCDEFGHIJKLMNOPQRSTUVWXYZ01234");
    load_merge_free(&m);
}

static struct run span(double t0, double t1)
{
    struct run r = run_c;
    r.t0 = t0;
    r.t1 = t1;
    return r;
}

/* Runs over [1000, 1010] and others: the shared interval, or the refusal. */
static void test_intervals(void **state)
{
    (void)state;
    struct load_merge m;
    char why[WHY] = "";
    static const struct {
        double t0, t1;      /* the second run (and the third) */
        double u0, u1;
        double from, to;
    } cases[] = {
        {995, 1020, -1, -1, 1000, 1010},     /* it spans the first */
        {1004, 1008, -1, -1, 1004, 1008},    /* inside it */
        {995, 1020, 1004, 1008, 1004, 1008}, /* both: the latest start, earliest end */
        {1004, 1008, 995, 1020, 1004, 1008},
        {1002, 1012, -1, -1, 1002, 1010},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct run a = span(1000, 1010), b = span(cases[i].t0, cases[i].t1),
                   c = span(cases[i].u0, cases[i].u1);
        init(&m);
        assert_int_equal(add_run(&m, &a, why), 0);
        assert_int_equal(add_run(&m, &b, why), 0);
        if (c.t0 >= 0)
            assert_int_equal(add_run(&m, &c, why), 0);
        assert_int_equal(load_merge_finish(&m, why, sizeof(why)), 0);
        if (m.from != cases[i].from || m.to != cases[i].to)
            fail_msg("case %zu: [%g, %g], not [%g, %g]", i, m.from, m.to, cases[i].from,
                     cases[i].to);
        assert_true(m.t.secs == cases[i].to - cases[i].from);
        load_merge_free(&m);
    }
    /* No overlap: one ends as (or before) the other starts; a run of no
     * length overlaps nothing, not even itself. */
    static const struct {
        double a0, a1, b0, b1;
        const char *gap;
    } apart[] = {
        {1000, 1010, 1010, 1020, "0.000"},
        {1000, 1010, 1012.5, 1020, "2.500"},
        {1012.5, 1020, 1000, 1010, "2.500"},
        {1000, 1000, 1000, 1000, "0.000"},
    };
    for (size_t i = 0; i < sizeof(apart) / sizeof(apart[0]); i++) {
        struct run a = span(apart[i].a0, apart[i].a1), b = span(apart[i].b0, apart[i].b1);
        char says[WHY];
        snprintf(says, sizeof(says), "the runs did not overlap in time: one started %s s "
                 "after another had ended", apart[i].gap);
        init(&m);
        assert_int_equal(add_run(&m, &a, why), 0);
        assert_int_equal(add_run(&m, &b, why), 0);
        assert_int_equal(load_merge_finish(&m, why, sizeof(why)), -1);
        assert_string_equal(why, says);
        load_merge_free(&m);
    }
}

/* Text with every `from` replaced by `to` (the caller frees). */
static char *replaced(const char *s, const char *from, const char *to)
{
    size_t n = strlen(s), lf = strlen(from), lt = strlen(to);
    char *out = malloc(n * (lt > lf ? lt : lf) + 1), *o = out;
    assert_non_null(out);
    while (*s) {
        if (strncmp(s, from, lf) == 0) {
            memcpy(o, to, lt);
            o += lt;
            s += lf;
        } else {
            *o++ = *s++;
        }
    }
    *o = '\0';
    return out;
}

/* Starts and ends that tie keep the first run's: equal numbers, told apart
 * only by the sign of a zero, which JSON keeps ("-0"). */
static void test_ties_keep_the_first(void **state)
{
    (void)state;
    struct run a = span(0, 0), b = span(123456789, 123456789);
    a.secs = b.secs = 1;
    cJSON *rb = run_json(&b);
    char *text = cJSON_PrintUnformatted(rb), *neg = replaced(text, "123456789", "-0");
    struct load_merge m;
    char why[WHY] = "";
    init(&m);
    assert_int_equal(add_run(&m, &a, why), 0);
    assert_int_equal(load_merge_add(&m, neg, strlen(neg), why, sizeof(why)), 0);
    assert_true(m.from == 0 && !signbit(m.from));
    assert_true(m.to == 0 && !signbit(m.to));
    load_merge_free(&m);
    /* The other way round: -0 first, kept. */
    init(&m);
    assert_int_equal(load_merge_add(&m, neg, strlen(neg), why, sizeof(why)), 0);
    assert_int_equal(add_run(&m, &a, why), 0);
    assert_true(m.from == 0 && signbit(m.from));
    assert_true(m.to == 0 && signbit(m.to));
    load_merge_free(&m);
    free(text);
    free(neg);
    cJSON_Delete(rb);
}

static void test_errors(void **state)
{
    (void)state;
    struct load_merge m;
    char why[WHY] = "";
    /* The first message that is not text ends the list. */
    cJSON *root = run_json(&run_c);
    cJSON *e = cJSON_GetObjectItem(res(root), "errors");
    cJSON_AddItemToArray(e, cJSON_CreateString("first"));
    cJSON_AddItemToArray(e, cJSON_CreateNumber(7));
    cJSON_AddItemToArray(e, cJSON_CreateString("third"));
    init(&m);
    assert_int_equal(add_json(&m, root, why), 0);
    assert_int_equal(m.t.c.nerr, 1);
    assert_string_equal(m.t.c.err[0].msg, "first");
    load_merge_free(&m);
    cJSON_Delete(root);
    /* Six and more: the first five, over the runs in order. */
    struct run r = run_c;
    r.err[0] = "a";
    r.err[1] = "b";
    r.nerr = 2;
    struct run s = r;
    static const char *const more[] = {"c", "d", "e", "f", "g"};
    for (int i = 0; i < 5; i++)
        s.err[i] = more[i];
    s.nerr = 5;
    init(&m);
    assert_int_equal(add_run(&m, &r, why), 0);
    assert_int_equal(add_run(&m, &s, why), 0);
    assert_int_equal(add_run(&m, &s, why), 0);
    assert_int_equal(m.t.c.nerr, LOAD_NERR_KEEP);
    const char *want[] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < LOAD_NERR_KEEP; i++)
        assert_string_equal(m.t.c.err[i].msg, want[i]);
    load_merge_free(&m);
}

static void test_bad_text(void **state)
{
    (void)state;
    struct load_merge m;
    char why[WHY] = "";
    init(&m);
    assert_int_equal(load_merge_add(&m, NULL, 0, why, sizeof(why)), -1);
    assert_string_equal(why, "is not valid JSON (at byte 0)");
    assert_int_equal(load_merge_add(&m, "", 0, why, sizeof(why)), -1);
    assert_string_equal(why, "is not valid JSON (at byte 0)");
    /* 'x' is byte 26 of {"options": {}, "result": x} */
    const char *bad = "{\"options\": {}, \"result\": x}";
    assert_int_equal(load_merge_add(&m, bad, strlen(bad), why, sizeof(why)), -1);
    assert_string_equal(why, "is not valid JSON (at byte 26)");
    static const char *const foreign[] = {"[1, 2]", "42", "\"text\"", "null"};
    for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
        assert_int_equal(load_merge_add(&m, foreign[i], strlen(foreign[i]), why, sizeof(why)),
                         -1);
        assert_string_equal(why, "is not the --json of kvtest shortener load");
    }
    /* Only text[0..len) is read: a whole run cut short by one byte (its
     * closing brace) is not JSON; the parser stops at the last byte. */
    cJSON *root = run_json(&run_c);
    char *s = cJSON_PrintUnformatted(root);
    size_t len = strlen(s);
    char says[WHY];
    snprintf(says, sizeof(says), "is not valid JSON (at byte %zu)", len - 2);
    assert_int_equal(load_merge_add(&m, s, len - 1, why, sizeof(why)), -1);
    assert_string_equal(why, says);
    assert_int_equal(m.nruns, 0);
    load_merge_free(&m);
    free(s);
    cJSON_Delete(root);
}

/* cJSON's allocations, the `fail_at`th refused (counted from 1; 0: none). */
static long n_allocs, fail_at;
static int refused_one;

static void *counting_malloc(size_t n)
{
    if (++n_allocs == fail_at) {
        refused_one = 1;
        return NULL;
    }
    return malloc(n);
}

static void refuse_cjson_alloc(long k)
{
    cJSON_Hooks hooks = {.malloc_fn = counting_malloc, .free_fn = free};
    n_allocs = 0;
    fail_at = k;
    refused_one = 0;
    cJSON_InitHooks(&hooks);
}

/* Histograms are allocated with malloc (hist_new), not through cJSON:
 * under the address sanitizer this binary's malloc refuses the
 * `hist_fail_at`th allocation the size of a histogram and passes every
 * other to the sanitizer's (gcc's libasan exports it as
 * __interceptor_malloc; clang's runtime names it otherwise). Elsewhere
 * the test that needs it is skipped. */
#if defined(__SANITIZE_ADDRESS__) && !defined(__clang__)
void *__interceptor_malloc(size_t n);
static long hist_allocs, hist_fail_at;

void *malloc(size_t n)
{
    if (n == sizeof(struct hist) && hist_fail_at && ++hist_allocs == hist_fail_at) {
        refused_one = 1;
        return NULL;
    }
    return __interceptor_malloc(n);
}

static void refuse_hist_alloc(long k)
{
    hist_allocs = 0;
    hist_fail_at = k;
    refused_one = 0;
}
#define CAN_REFUSE_HISTS 1
#else
static void refuse_hist_alloc(long k)
{
    (void)k;
}
#define CAN_REFUSE_HISTS 0
#endif

/* Every allocation of a run's reading refused in turn: the run is refused
 * each time (as not JSON while parsing; "out of memory" when keeping its
 * options), never taken half read; with none refused it is taken. */
static void test_out_of_memory(void **state)
{
    (void)state;
    cJSON *root = run_json(&run_c);
    char *s = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    int oom = 0, not_json = 0;
    for (long k = 1;; k++) {
        struct load_merge m;
        char why[WHY] = "";
        init(&m);
        refuse_cjson_alloc(k);
        int rc = load_merge_add(&m, s, strlen(s), why, sizeof(why));
        int refused = refused_one;
        cJSON_InitHooks(NULL);
        load_merge_free(&m);
        if (!refused) {
            assert_int_equal(rc, 0);
            break;
        }
        if (rc != -1)
            fail_msg("allocation %ld refused, the run taken (%d)", k, rc);
        oom += strcmp(why, "out of memory") == 0;
        not_json += strncmp(why, "is not valid JSON", 17) == 0;
        assert_int_equal(oom + not_json, k);
    }
    assert_true(oom > 0 && not_json > 0);
    free(s);

    /* load_histjson_new: the object, then its bucket array, refused. */
    struct hist *h = hist_new();
    hist_record(h, 1000);
    for (long k = 1; k <= 2; k++) {
        refuse_cjson_alloc(k);
        cJSON *j = load_histjson_new(h);
        cJSON_InitHooks(NULL);
        assert_null(j);
    }
    hist_free(h);
}

/* Each histogram's allocation refused in turn (the totals' "all" and
 * per kind ones, then the one a kind's histogram is read into): "out of
 * memory", never a run taken half read; load_histjson_add alone leaves its
 * histogram as it was. */
static void test_histograms_out_of_memory(void **state)
{
    (void)state;
    if (!CAN_REFUSE_HISTS)
        skip();
    cJSON *root = run_json(&run_c);
    char *s = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    long k;
    for (k = 1;; k++) {
        struct load_merge m;
        char why[WHY] = "";
        init(&m);
        refuse_hist_alloc(k);
        int rc = load_merge_add(&m, s, strlen(s), why, sizeof(why));
        int refused = refused_one;
        refuse_hist_alloc(0);
        load_merge_free(&m);
        if (!refused) {
            assert_int_equal(rc, 0);
            break;
        }
        if (rc != -1 || strcmp(why, "out of memory") != 0)
            fail_msg("histogram %ld refused: %d \"%s\"", k, rc, why);
    }
    /* "all", GET's, the four status classes', GET's read: 7 to refuse */
    assert_int_equal(k, 8);
    free(s);

    struct hist *h = hist_new(), *dst = hist_new(), *was = hist_new();
    hist_record(h, 5);
    hist_record(dst, 1000);
    hist_record(was, 1000);
    cJSON *j = load_histjson_new(h);
    char why[WHY] = "";
    refuse_hist_alloc(1);
    assert_int_equal(load_histjson_add(dst, j, why, sizeof(why)), -1);
    refuse_hist_alloc(0);
    assert_string_equal(why, "out of memory");
    assert_memory_equal(dst, was, sizeof(*dst));
    cJSON_Delete(j);
    hist_free(h);
    hist_free(dst);
    hist_free(was);
}

/* load_histjson, by hand: 0, 5, 5, 128, 1000, 1003, 70000 fill buckets 0, 5
 * (twice), 128, 506 ([1000, 1003], twice) and 1288 (70000 is 2^16 + 4464,
 * 512 wide there: 128 * 10 + 4464 / 512 = 1288); sum 72141. */
static void test_histjson_by_hand(void **state)
{
    (void)state;
    const uint64_t v[] = {70000, 5, 1000, 0, 128, 1003, 5};
    struct hist *h = hist_new();
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        hist_record(h, v[i]);
    cJSON *j = load_histjson_new(h);
    char *s = cJSON_PrintUnformatted(j);
    assert_string_equal(s, "{\"unit\":\"ns\",\"sub_bits\":7,\"nbuckets\":7424,\"count\":7,"
                        "\"min\":0,\"max\":70000,\"sum\":72141,"
                        "\"buckets\":[0,1,5,2,128,1,506,2,1288,1]}");
    free(s);
    /* Read back into an empty histogram: the same, field for field. */
    struct hist *back = hist_new();
    char why[WHY] = "";
    assert_int_equal(load_histjson_add(back, j, why, sizeof(why)), 0);
    assert_memory_equal(back, h, sizeof(*h));
    /* Into one holding 2000 ns already: added. */
    struct hist *more = hist_new();
    hist_record(more, 2000);
    assert_int_equal(load_histjson_add(more, j, why, sizeof(why)), 0);
    assert_int_equal(more->count, 8);
    assert_true(more->min == 0 && more->max == 70000);
    assert_true(more->sum == 74141.0);
    assert_int_equal(more->b[index_of(2000)], 1);
    assert_int_equal(more->b[506], 2);
    cJSON_Delete(j);

    /* Empty: zeros and no buckets; read back, nothing changes. */
    hist_reset(h);
    j = load_histjson_new(h);
    s = cJSON_PrintUnformatted(j);
    assert_string_equal(s, "{\"unit\":\"ns\",\"sub_bits\":7,\"nbuckets\":7424,\"count\":0,"
                        "\"min\":0,\"max\":0,\"sum\":0,\"buckets\":[]}");
    free(s);
    struct hist *was = hist_new();
    hist_merge(was, more);
    assert_int_equal(load_histjson_add(more, j, why, sizeof(why)), 0);
    assert_memory_equal(more, was, sizeof(*more));
    cJSON_Delete(j);
    hist_free(was);
    hist_free(more);
    hist_free(back);
    hist_free(h);
}

/* Read `text` into a histogram holding one sample (1000 ns): 0, or -1 with
 * exactly `says` and the histogram as it was. */
static struct hist *read_text(const char *text, int want, const char *says)
{
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    struct hist *h = hist_new(), *was = hist_new();
    hist_record(h, 1000);
    hist_record(was, 1000);
    char why[WHY] = "";
    int rc = load_histjson_add(h, j, why, sizeof(why));
    if (rc != want || (want && strcmp(why, says) != 0))
        fail_msg("%s: %d \"%s\", not %d \"%s\"", text, rc, why, want, says ? says : "");
    if (want)
        assert_memory_equal(h, was, sizeof(*h));
    cJSON_Delete(j);
    hist_free(was);
    return h;
}

#define HEAD "\"unit\":\"ns\",\"sub_bits\":7,\"nbuckets\":7424,"

static void test_histjson_edges(void **state)
{
    (void)state;
    /* The first and the last bucket; a pair counting 0; an index twice
     * (its counts add); 2^53 samples, the most a double counts exactly. */
    struct hist *h = read_text("{" HEAD "\"count\":3,\"min\":0,\"max\":9,\"sum\":9,"
                               "\"buckets\":[0,1,7423,1,5,0,9,1]}", 0, NULL);
    assert_int_equal(h->count, 4);
    assert_int_equal(h->b[0], 1);
    assert_int_equal(h->b[7423], 1);
    assert_int_equal(h->b[5], 0);
    assert_int_equal(h->b[9], 1);
    assert_true(h->min == 0 && h->max == 1000);   /* the 1000 already there */
    hist_free(h);
    h = read_text("{" HEAD "\"count\":3,\"min\":5,\"max\":5,\"sum\":15,\"buckets\":[5,1,5,2]}",
                  0, NULL);
    assert_int_equal(h->b[5], 3);
    hist_free(h);
    h = read_text("{" HEAD "\"count\":9007199254740992,\"min\":5,\"max\":5,\"sum\":1,"
                  "\"buckets\":[5,9007199254740992]}", 0, NULL);
    assert_true(h->b[5] == 9007199254740992ull && h->count == 9007199254740993ull);
    hist_free(h);
}

static void test_histjson_refusals(void **state)
{
    (void)state;
    const char *lacks = "histogram lacks unit, count, min, max, sum or buckets";
    const char *layout = "histogram layout differs from this kvtest's (unit ns, sub_bits 7, "
                         "nbuckets 7424)";
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"{\"sub_bits\":7,\"nbuckets\":7424,\"count\":1,\"min\":5,\"max\":5,\"sum\":5,"
         "\"buckets\":[5,1]}", NULL},
        {"{\"unit\":1,\"sub_bits\":7,\"nbuckets\":7424,\"count\":1,\"min\":5,\"max\":5,"
         "\"sum\":5,\"buckets\":[5,1]}", NULL},
        {"{" HEAD "\"min\":5,\"max\":5,\"sum\":5,\"buckets\":[5,1]}", NULL},
        {"{" HEAD "\"count\":\"1\",\"min\":5,\"max\":5,\"sum\":5,\"buckets\":[5,1]}", NULL},
        {"{" HEAD "\"count\":1.5,\"min\":5,\"max\":5,\"sum\":5,\"buckets\":[5,1]}", NULL},
        {"{" HEAD "\"count\":-1,\"min\":5,\"max\":5,\"sum\":5,\"buckets\":[5,1]}", NULL},
        {"{" HEAD "\"count\":9007199254740994,\"min\":5,\"max\":5,\"sum\":5,"
         "\"buckets\":[5,9007199254740994]}", NULL},
        {"{" HEAD "\"count\":18014398509481984,\"min\":5,\"max\":5,\"sum\":5,"
         "\"buckets\":[5,18014398509481984]}", NULL},
        {"{" HEAD "\"count\":1,\"max\":5,\"sum\":5,\"buckets\":[5,1]}", NULL},
        {"{" HEAD "\"count\":1,\"min\":-1,\"max\":5,\"sum\":5,\"buckets\":[5,1]}", NULL},
        {"{" HEAD "\"count\":1,\"min\":5,\"sum\":5,\"buckets\":[5,1]}", NULL},
        {"{" HEAD "\"count\":1,\"min\":5,\"max\":-1,\"sum\":5,\"buckets\":[5,1]}", NULL},
        {"{" HEAD "\"count\":1,\"min\":5,\"max\":5,\"buckets\":[5,1]}", NULL},
        {"{" HEAD "\"count\":1,\"min\":5,\"max\":5,\"sum\":\"5\",\"buckets\":[5,1]}", NULL},
        {"{" HEAD "\"count\":1,\"min\":5,\"max\":5,\"sum\":5}", NULL},
        {"{" HEAD "\"count\":1,\"min\":5,\"max\":5,\"sum\":5,\"buckets\":{\"5\":1}}", NULL},
        {"{\"unit\":\"us\",\"sub_bits\":7,\"nbuckets\":7424,\"count\":1,\"min\":5,\"max\":5,"
         "\"sum\":5,\"buckets\":[5,1]}", "layout"},
        {"{\"unit\":\"ns\",\"sub_bits\":6,\"nbuckets\":7424,\"count\":1,\"min\":5,\"max\":5,"
         "\"sum\":5,\"buckets\":[5,1]}", "layout"},
        {"{\"unit\":\"ns\",\"nbuckets\":7424,\"count\":1,\"min\":5,\"max\":5,"
         "\"sum\":5,\"buckets\":[5,1]}", "layout"},
        {"{\"unit\":\"ns\",\"sub_bits\":7,\"nbuckets\":7423,\"count\":1,\"min\":5,\"max\":5,"
         "\"sum\":5,\"buckets\":[5,1]}", "layout"},
        {"{" HEAD "\"count\":1,\"min\":5,\"max\":5,\"sum\":5,\"buckets\":[5,1,7]}",
         "histogram buckets are not index/count pairs"},
        {"{" HEAD "\"count\":1,\"min\":5,\"max\":5,\"sum\":5,\"buckets\":[5]}",
         "histogram buckets are not index/count pairs"},
        {"{" HEAD "\"count\":2,\"min\":5,\"max\":5,\"sum\":5,\"buckets\":[7424,1,5,1]}",
         "histogram bucket pair 0 is not an index below 7424 and a count"},
        {"{" HEAD "\"count\":2,\"min\":5,\"max\":5,\"sum\":5,\"buckets\":[5,1,7424,1]}",
         "histogram bucket pair 1 is not an index below 7424 and a count"},
        {"{" HEAD "\"count\":3,\"min\":5,\"max\":5,\"sum\":5,\"buckets\":[5,1,6,1,-1,1]}",
         "histogram bucket pair 2 is not an index below 7424 and a count"},
        {"{" HEAD "\"count\":2,\"min\":5,\"max\":5,\"sum\":5,\"buckets\":[5,1,6,0.5]}",
         "histogram bucket pair 1 is not an index below 7424 and a count"},
        {"{" HEAD "\"count\":2,\"min\":5,\"max\":5,\"sum\":5,\"buckets\":[5,1,\"6\",1]}",
         "histogram bucket pair 1 is not an index below 7424 and a count"},
        {"{" HEAD "\"count\":2,\"min\":5,\"max\":5,\"sum\":5,\"buckets\":[5,1,6,-1]}",
         "histogram bucket pair 1 is not an index below 7424 and a count"},
        {"{" HEAD "\"count\":4,\"min\":5,\"max\":6,\"sum\":5,\"buckets\":[5,1,6,2]}",
         "histogram buckets hold 3 samples, its count says 4"},
        {"{" HEAD "\"count\":2,\"min\":5,\"max\":6,\"sum\":5,\"buckets\":[5,1,6,2]}",
         "histogram buckets hold 3 samples, its count says 2"},
        {"{" HEAD "\"count\":1,\"min\":5,\"max\":6,\"sum\":5,\"buckets\":[]}",
         "histogram buckets hold 0 samples, its count says 1"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *says = !bad[i].says ? lacks
                           : strcmp(bad[i].says, "layout") == 0 ? layout : bad[i].says;
        hist_free(read_text(bad[i].text, -1, says));
    }
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_two_runs_by_hand),
    cmocka_unit_test(test_one_run),
    cmocka_unit_test(test_no_run),
    cmocka_unit_test(test_missing_fields),
    cmocka_unit_test(test_other_runs_refused),
    cmocka_unit_test(test_kinds_at_the_limit),
    cmocka_unit_test(test_intervals),
    cmocka_unit_test(test_ties_keep_the_first),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_bad_text),
    cmocka_unit_test(test_out_of_memory),
    cmocka_unit_test(test_histograms_out_of_memory),
    cmocka_unit_test(test_histjson_by_hand),
    cmocka_unit_test(test_histjson_edges),
    cmocka_unit_test(test_histjson_refusals))

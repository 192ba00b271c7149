/* load_report: text, JSON and progress output of the load engine (see
 * load_report.h). */
#include "load/load_report.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "load/load_histjson.h"
#include "measure/report.h"

int load_totals_init(struct load_totals *t, const struct load_scenario *sc)
{
    memset(t, 0, sizeof(*t));
    t->sc = sc;
    t->c.nkinds = sc->nkinds;
    t->all = hist_new();
    int ok = t->all != NULL;
    for (int r = 0; r < sc->nkinds; r++)
        ok = (t->c.h[r] = hist_new()) != NULL && ok;
    for (int k = 0; k < LOAD_CLASSES; k++)
        ok = (t->c.cls[k] = hist_new()) != NULL && ok;
    if (!ok) {
        load_totals_free(t);
        return -1;
    }
    return 0;
}

void load_totals_finish(struct load_totals *t, double secs)
{
    t->secs = secs;
    t->nreq = t->nfail = 0;
    for (int r = 0; r < t->c.nkinds; r++) {
        hist_merge(t->all, t->c.h[r]);
        t->failed_req[r] = 0;
        for (int f = 1; f < LOAD_NFAIL; f++)
            t->failed_req[r] += t->c.fail[r][f];
        t->requests[r] = t->c.ok[r] + t->failed_req[r];
        t->nreq += t->requests[r];
        t->nfail += t->failed_req[r];
    }
}

void load_totals_free(struct load_totals *t)
{
    hist_free(t->all);
    t->all = NULL;
    hist_free(t->c.hs);
    t->c.hs = NULL;
    hist_free(t->c.sent);
    t->c.sent = NULL;
    for (int k = 0; k < LOAD_CLASSES; k++) {
        hist_free(t->c.cls[k]);
        t->c.cls[k] = NULL;
    }
    for (int r = 0; r < LOAD_KINDS_MAX; r++) {
        hist_free(t->c.h[r]);
        t->c.h[r] = NULL;
    }
}

/* A failure kind summed over the request kinds. */
static uint64_t fail_all(const struct load_counts *c, int f)
{
    uint64_t n = 0;
    for (int r = 0; r < c->nkinds; r++)
        n += c->fail[r][f];
    return n;
}

static double ms(uint64_t ns) { return (double)ns / 1e6; }

static double per_s(uint64_t n, double secs) { return secs > 0 ? (double)n / secs : 0.0; }

/* Rates: count / secs for one run, load-merge's own over several. kind -1
 * is all requests, -2 tasks. */
static double rate_of(const struct load_totals *t, int kind)
{
    const struct load_counts *c = &t->c;
    if (t->rates)
        return kind == -2 ? t->rates->tasks : kind == -1 ? t->rates->all : t->rates->kind[kind];
    uint64_t n = kind == -2 ? c->tasks_ok + c->tasks_failed : kind == -1 ? t->nreq
                 : t->requests[kind];
    return per_s(n, t->secs);
}

static const char *const class_names[LOAD_CLASSES] = {"2xx", "3xx", "4xx", "5xx"};

/* The share of the run's requests in h: its rate is that share of the
 * run's (so load-merge's rates over the shared interval carry over). */
static double share(const struct load_totals *t, const struct hist *h)
{
    return t->nreq ? (double)h->count / (double)t->nreq : 0.0;
}

static void print_latency_row(const char *label, uint64_t req, uint64_t failed, double rate,
                              const struct hist *h)
{
    printf("  %-5s %9llu %8llu %10.1f", label, (unsigned long long)req,
           (unsigned long long)failed, rate);
    if (h->count == 0) {
        printf("         -\n");
        return;
    }
    printf(" %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n", ms(hist_percentile(h, 0)),
           ms(hist_percentile(h, 50)), hist_mean(h) / 1e6, ms(hist_percentile(h, 90)),
           ms(hist_percentile(h, 99)), ms(hist_percentile(h, 99.9)),
           ms(hist_percentile(h, 100)));
}

/* https: the handshakes, timed apart from the requests. */
static void print_tls(const struct load_counts *c)
{
    printf("TLS handshakes: %llu (%llu resumed a session)", (unsigned long long)c->hs_n,
           (unsigned long long)c->hs_resumed);
    if (c->hs->count > 0)
        printf(", ms from TCP connect: min %.3f p50 %.3f p99 %.3f max %.3f",
               ms(hist_percentile(c->hs, 0)), ms(hist_percentile(c->hs, 50)),
               ms(hist_percentile(c->hs, 99)), ms(hist_percentile(c->hs, 100)));
    printf("\n");
}

static void print_rate(const struct load_opts *o, double got)
{
    double share = got / o->rate;
    printf("Target rate: %.1f requests/s, achieved %.1f (%.1f%% of target)\n", o->rate, got,
           100.0 * share);
    if (share < LOAD_RATE_REACHED)
        printf("Target rate NOT reached: achieved under %.0f%% of the target (the service "
               "or the client could not keep up; try more --connections)\n",
               100.0 * LOAD_RATE_REACHED);
}

void load_report_text(const struct load_opts *o, const struct load_totals *t)
{
    const struct load_counts *c = &t->c;
    uint64_t tasks = c->tasks_ok + c->tasks_failed;
    uint64_t nreq = t->nreq, nfail = t->nfail;
    const struct hist *a = t->all;
    printf("\n==================================================\n");
    printf("STRESS TEST RESULTS\n");
    printf("==================================================\n");
    printf("Total tasks: %llu\n", (unsigned long long)tasks);
    printf("Successful: %llu\n", (unsigned long long)c->tasks_ok);
    printf("Failed: %llu\n", (unsigned long long)c->tasks_failed);
    printf("Total time: %.2f seconds\n", t->secs);
    printf("Tasks/second: %.2f\n", rate_of(t, -2));
    printf("\nResponse times:\n");
    printf("  Min: %.2f ms\n", ms(hist_percentile(a, 0)));
    printf("  Max: %.2f ms\n", ms(hist_percentile(a, 100)));
    printf("  Mean: %.2f ms\n", hist_mean(a) / 1e6);
    printf("  Median: %.2f ms\n", ms(hist_percentile(a, 50)));
    printf("\nErrors (first 5):\n");
    if (c->nerr == 0)
        printf("  (none)\n");
    for (int i = 0; i < c->nerr; i++)
        printf("  %s\n", c->err[i].msg);

    printf("\nRequests: %llu (", (unsigned long long)nreq);
    for (int r = 0; r < c->nkinds; r++)
        printf("%s%llu %s", r ? ", " : "", (unsigned long long)t->requests[r], t->sc->kinds[r]);
    printf("), %llu failed\n", (unsigned long long)nfail);
    printf("Requests/second: %.1f\n", rate_of(t, -1));
    if (o->rate > 0)
        print_rate(o, rate_of(t, -1));
    printf("Failures by kind:");
    for (int f = 1; f < LOAD_NFAIL; f++)
        /* HTTP/1.1 over plain http: the line as it was */
        if ((f != LOAD_FAIL_TLS || c->hs) && (f < LOAD_FAIL_H2_REFUSED || c->http2))
            printf(" %s %llu", load_fail_name((enum load_fail)f),
                   (unsigned long long)fail_all(c, f));
    printf("\n");
    if (c->hs)   /* https */
        print_tls(c);
    printf("\nLatency (ms, requests with an HTTP answer):\n");
    if (o->rate > 0)
        printf("  (--rate: from each request's scheduled send time, so queueing behind a\n"
               "  slow answer counts)\n");
    printf("  %-5s %9s %8s %10s %8s %8s %8s %8s %8s %8s %8s\n", "type", "requests", "failed",
           "req/s", "min", "p50", "mean", "p90", "p99", "p99.9", "max");
    for (int r = 0; r < c->nkinds; r++)
        print_latency_row(t->sc->kinds[r], t->requests[r], t->failed_req[r], rate_of(t, r),
                          c->h[r]);
    print_latency_row("all", nreq, nfail, rate_of(t, -1), a);
    if (c->sent) {
        printf("  uncorrected: all from each request's actual send (the service's part; "
               "not for\n  judging a rate, see coordinated omission):\n");
        print_latency_row("all", c->sent->count, 0, rate_of(t, -1) * share(t, c->sent), c->sent);
    }
    printf("  by status class (answers of every type; failed: judged so by the checks):\n");
    for (int k = 0; k < LOAD_CLASSES; k++)
        if (c->cls[k] && c->cls[k]->count > 0)
            print_latency_row(class_names[k], c->cls[k]->count, c->cls_fail[k],
                              rate_of(t, -1) * share(t, c->cls[k]), c->cls[k]);
}

/* h into o twice: its percentiles as name (report_hist_json, us) and
 * whole as "histogram" (load_histjson, for load-merge). */
static void hist_json_pair(cJSON *o, const char *name, const struct hist *h)
{
    cJSON *lat = report_hist_json(h);
    if (lat)
        cJSON_AddItemToObject(o, name, lat);
    cJSON *whole = load_histjson_new(h);
    if (whole)
        cJSON_AddItemToObject(o, "histogram", whole);
}

static cJSON *type_json(uint64_t req, uint64_t ok, const uint64_t *fail, double rate,
                        const struct hist *h)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "requests", (double)req);
    cJSON_AddNumberToObject(o, "successful", (double)ok);
    cJSON_AddNumberToObject(o, "failed", (double)(req - ok));
    cJSON_AddNumberToObject(o, "requests_per_s", rate);
    cJSON *fo = cJSON_AddObjectToObject(o, "failures");
    for (int f = 1; f < LOAD_NFAIL; f++)
        cJSON_AddNumberToObject(fo, load_fail_name((enum load_fail)f), (double)fail[f]);
    hist_json_pair(o, "latency", h);
    return o;
}

/* The "options" object, by hand rather than from the command's option
 * table: that table is shortener/cli/load.c's, above this layer, and the
 * object is not its rows in order: derived keys (url, mode), renamed ones
 * (timeout_ms, allow_failures, threads for --connections), parsed values
 * (duration in seconds), keys shown only when set (pipeline, walk) or null
 * (rate, keys), and the scenario's keys between the engine's. */
static void options_json(cJSON *op, const struct load_opts *o, const struct load_scenario *sc,
                         const char *url)
{
    cJSON_AddStringToObject(op, "url", url);
    cJSON_AddStringToObject(op, "mode", o->duration > 0 ? "duration" : "tasks");
    cJSON_AddNumberToObject(op, "tasks", (double)o->tasks);
    cJSON_AddNumberToObject(op, "threads", (double)o->connections);
    if (sc->ops->options_json)
        sc->ops->options_json(sc->state, op, 0);
    cJSON_AddNumberToObject(op, "duration", o->duration);
    if (sc->ops->options_json)
        sc->ops->options_json(sc->state, op, 1);
    cJSON_AddNumberToObject(op, "timeout_ms", (double)o->timeout_ms);
    cJSON_AddNumberToObject(op, "workers", (double)o->workers);
    cJSON_AddNumberToObject(op, "seed", (double)o->seed);
    cJSON_AddBoolToObject(op, "allow_failures", o->allow_failures);
    cJSON_AddNumberToObject(op, "connections", (double)o->connections);
    if (o->rate > 0)
        cJSON_AddNumberToObject(op, "rate", o->rate);
    else
        cJSON_AddNullToObject(op, "rate");
    /* Only when pipelining, so that the output of a run without it stays
     * what it always was. */
    if (o->pipeline > 1 && !o->http2)
        cJSON_AddNumberToObject(op, "pipeline", (double)o->pipeline);
    if (o->http2) {
        cJSON_AddBoolToObject(op, "http2", 1);
        cJSON_AddNumberToObject(op, "streams", (double)o->pipeline);
    }
    if (o->reconnect)
        cJSON_AddBoolToObject(op, "reconnect", 1);
    if (o->no_resume)
        cJSON_AddBoolToObject(op, "no_resume", 1);
}

static void rate_json(cJSON *r, const struct load_opts *o, double got)
{
    if (o->rate <= 0) {
        cJSON_AddNullToObject(r, "rate");
        return;
    }
    cJSON *ro = cJSON_AddObjectToObject(r, "rate");
    cJSON_AddNumberToObject(ro, "target_per_s", o->rate);
    cJSON_AddNumberToObject(ro, "achieved_per_s", got);
    cJSON_AddNumberToObject(ro, "achieved_share", got / o->rate);
    cJSON_AddBoolToObject(ro, "reached", got / o->rate >= LOAD_RATE_REACHED);
}

/* "by_status": {"2xx", "3xx", "4xx", "5xx"}, each {"requests" (answers in
 * the class), "failed" (those the checks failed), "requests_per_s",
 * "latency", "histogram"}; and "latency_uncorrected": with --rate, the
 * latency from each request's actual send, else null. */
static void classes_json(cJSON *r, const struct load_totals *t)
{
    const struct load_counts *c = &t->c;
    cJSON *bs = cJSON_AddObjectToObject(r, "by_status");
    for (int k = 0; k < LOAD_CLASSES && c->cls[k]; k++) {
        cJSON *o = cJSON_AddObjectToObject(bs, class_names[k]);
        cJSON_AddNumberToObject(o, "requests", (double)c->cls[k]->count);
        cJSON_AddNumberToObject(o, "failed", (double)c->cls_fail[k]);
        cJSON_AddNumberToObject(o, "requests_per_s", rate_of(t, -1) * share(t, c->cls[k]));
        hist_json_pair(o, "latency", c->cls[k]);
    }
    if (!c->sent) {
        cJSON_AddNullToObject(r, "latency_uncorrected");
        return;
    }
    cJSON *u = cJSON_AddObjectToObject(r, "latency_uncorrected");
    hist_json_pair(u, "latency", c->sent);
}

/* "tls": null over plain http, else the handshakes: count, resumed,
 * "handshake" latency (us) and its whole "histogram" (for load-merge). */
static void tls_json(cJSON *r, const struct load_counts *c)
{
    if (!c->hs) {
        cJSON_AddNullToObject(r, "tls");
        return;
    }
    cJSON *to = cJSON_AddObjectToObject(r, "tls");
    cJSON_AddNumberToObject(to, "handshakes", (double)c->hs_n);
    cJSON_AddNumberToObject(to, "resumed", (double)c->hs_resumed);
    hist_json_pair(to, "handshake", c->hs);
}

void load_report_json(const struct load_opts *o, const struct load_totals *t, const char *url)
{
    report_json_print(load_report_json_new(o, t, url));
}

cJSON *load_report_json_new(const struct load_opts *o, const struct load_totals *t,
                            const char *url)
{
    cJSON *root = report_json_new(o->command, NULL);
    if (!root)
        return NULL;
    options_json(cJSON_AddObjectToObject(root, "options"), o, t->sc, url);
    const struct load_counts *c = &t->c;
    uint64_t tasks = c->tasks_ok + c->tasks_failed;
    uint64_t nreq = t->nreq, okall = 0;
    uint64_t fall[LOAD_NFAIL];
    for (int f = 0; f < LOAD_NFAIL; f++)
        fall[f] = fail_all(c, f);
    for (int r = 0; r < c->nkinds; r++)
        okall += c->ok[r];
    cJSON *r = cJSON_AddObjectToObject(root, "result");
    cJSON_AddNumberToObject(r, "tasks", (double)tasks);
    cJSON_AddNumberToObject(r, "successful", (double)c->tasks_ok);
    cJSON_AddNumberToObject(r, "failed", (double)c->tasks_failed);
    cJSON_AddNumberToObject(r, "seconds", t->secs);
    cJSON_AddNumberToObject(r, "tasks_per_s", rate_of(t, -2));
    cJSON_AddNumberToObject(r, "requests", (double)nreq);
    cJSON_AddNumberToObject(r, "requests_failed", (double)t->nfail);
    cJSON_AddNumberToObject(r, "requests_per_s", rate_of(t, -1));
    cJSON *fo = cJSON_AddObjectToObject(r, "failures");
    for (int f = 1; f < LOAD_NFAIL; f++)
        cJSON_AddNumberToObject(fo, load_fail_name((enum load_fail)f), (double)fall[f]);
    cJSON *by = cJSON_AddObjectToObject(r, "by_type");
    for (int k = 0; k < c->nkinds; k++) {
        char key[32];
        size_t i = 0;
        for (const char *n = t->sc->kinds[k]; *n && i + 1 < sizeof(key); n++)
            key[i++] = (char)tolower((unsigned char)*n);
        key[i] = '\0';
        cJSON_AddItemToObject(by, key, type_json(t->requests[k], c->ok[k], c->fail[k],
                                                 rate_of(t, k), c->h[k]));
    }
    cJSON_AddItemToObject(by, "all", type_json(nreq, okall, fall, rate_of(t, -1), t->all));
    cJSON *errs = cJSON_AddArrayToObject(r, "errors");
    for (int i = 0; i < c->nerr; i++)
        cJSON_AddItemToArray(errs, cJSON_CreateString(c->err[i].msg));
    rate_json(r, o, rate_of(t, -1));
    tls_json(r, c);
    classes_json(r, t);
    cJSON_AddStringToObject(r, "latency_from", o->rate > 0 ? "schedule" : "send");
    cJSON_AddStringToObject(r, "scenario", t->sc->name);
    /* Wall clock, so runs on several machines can be lined up (load-merge). */
    cJSON_AddNumberToObject(r, "started_at", t->started_at);
    cJSON_AddNumberToObject(r, "ended_at", t->ended_at);
    return root;
}

void load_report_progress(const struct load_opts *o, const struct load_progress *p, int final)
{
    if (o->duration > 0) {
        fprintf(stderr, "Completed: %lld tasks in %.0f/%g s (%lld requests)\n", p->tasks_done,
                p->elapsed < o->duration ? p->elapsed : o->duration, o->duration,
                p->requests_done);
    } else if (final || p->tasks_done > 0) {
        fprintf(stderr, "Completed: %lld/%lld\n", p->tasks_done, (long long)o->tasks);
    }
}

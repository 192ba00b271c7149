/* load_report: what the load engine prints, for any scenario: the classic
 * stress test's text (labels kept for scripts that grep them), the latency
 * table with one row per request kind, the --json object and progress
 * lines on stderr.
 *
 * --json prints one object (scripts/study/tables.sh reads it; add fields, never
 * rename them):
 *   {"command": "shortener load", "cmdline", "env",
 *    "options": {"url", "mode": "tasks"|"duration", "tasks", "threads",
 *                SCENARIO PART 0, "duration", SCENARIO PART 1, "timeout_ms",
 *                "workers", "seed", "allow_failures",
 *                "connections" (= "threads"), "rate": R|null,
 *                "pipeline" (only above 1), "http2": true and "streams" (only
 *                with --http2), "reconnect": true, "no_resume": true (only
 *                when given)},
 *    "result": {"tasks", "successful", "failed", "seconds", "tasks_per_s",
 *               "requests", "requests_failed", "requests_per_s",
 *               "failures": {"connect", "timeout", "io", "http_status", "bad_body",
 *                            "tls", "h2_refused", "h2_reset", "h2_protocol"},
 *               "by_type": {KIND (lower case: "post", "get")|"all": {"requests",
 *                           "successful", "failed", "requests_per_s", "failures": {...},
 *                           "latency": report_hist_json() in us}},
 *               "errors": ["first five messages, oldest first"],
 *               "rate": null (closed loop) | {"target_per_s", "achieved_per_s",
 *                        "achieved_share", "reached": achieved >= 98% of target},
 *               "tls": null (http) | {"handshakes", "resumed", "handshake":
 *                      report_hist_json() in us, "histogram"},
 *               "by_status": {"2xx", "3xx", "4xx", "5xx": {"requests", "failed",
 *                      "requests_per_s", "latency", "histogram"}}: answers by class,
 *               "latency_uncorrected": null | with --rate, {"latency", "histogram"}
 *                      timed from each request's actual send,
 *               "latency_from": "send" | "schedule",
 *               "scenario": "shortener" | "get",
 *               "started_at", "ended_at": the timed run's wall-clock start and
 *                         end, seconds since the epoch}}
 * and in each by_type entry, beside "latency", "histogram": the whole
 * histogram (load_histjson.h), so load-merge can add runs exactly.
 * The shortener's parts are "gets" and "keys", "zipf", "create_ratio"; the
 * get scenario's are none and "scenario", "paths". */
#ifndef KVTEST_LOAD_REPORT_H
#define KVTEST_LOAD_REPORT_H
#include <stdint.h>

#include "base/json.h"
#include "load/load_engine.h"

/* A --rate run "reached" its target when it achieved at least this share. */
#define LOAD_RATE_REACHED 0.98

struct load_rates {
    double tasks, all, kind[LOAD_KINDS_MAX];   /* per second */
};

struct load_totals {
    const struct load_scenario *sc;
    struct load_counts c;      /* summed over the workers */
    struct hist *all;
    uint64_t failed_req[LOAD_KINDS_MAX], requests[LOAD_KINDS_MAX];
    uint64_t nreq, nfail;      /* over all kinds */
    double secs;
    double started_at, ended_at;   /* wall clock, epoch seconds */
    /* load-merge: the rates over the interval the runs shared (each run's
     * counts pro rata); NULL for one run, whose rates are count / secs. */
    const struct load_rates *rates;
};

/* Allocate the histograms for sc's kinds; 0 ok, -1 out of memory. */
int load_totals_init(struct load_totals *t, const struct load_scenario *sc);
/* Derive all, failed_req, requests, nreq and nfail from c (after the run). */
void load_totals_finish(struct load_totals *t, double secs);
void load_totals_free(struct load_totals *t);

void load_report_text(const struct load_opts *o, const struct load_totals *t);
void load_report_json(const struct load_opts *o, const struct load_totals *t, const char *url);
/* The object load_report_json prints, for a caller that adds to it (NULL
 * on out of memory). */
cJSON *load_report_json_new(const struct load_opts *o, const struct load_totals *t,
                            const char *url);
/* The progress line on stderr (a load_progress_fn). */
void load_report_progress(const struct load_opts *o, const struct load_progress *p, int final);

#endif

/* load_report: what "kvtest shortener load" prints: the classic stress
 * test's text (labels kept for scripts that grep them), the latency table,
 * the --json object and progress lines on stderr.
 *
 * --json prints one object (scripts/study/tables.sh reads it; add fields, never
 * rename them):
 *   {"command": "shortener load", "cmdline", "env",
 *    "options": {"url", "mode": "tasks"|"duration", "tasks", "threads", "gets",
 *                "duration", "keys", "zipf", "create_ratio", "timeout_ms",
 *                "workers", "seed", "allow_failures",
 *                "connections" (= "threads"), "rate": R|null},
 *    "result": {"tasks", "successful", "failed", "seconds", "tasks_per_s",
 *               "requests", "requests_failed", "requests_per_s",
 *               "failures": {"connect", "timeout", "io", "http_status", "bad_body"},
 *               "by_type": {"post"|"get"|"all": {"requests", "successful",
 *                           "failed", "requests_per_s", "failures": {...},
 *                           "latency": report_hist_json() in us}},
 *               "errors": ["first five messages, oldest first"],
 *               "rate": null (closed loop) | {"target_per_s", "achieved_per_s",
 *                        "achieved_share", "reached": achieved >= 98% of target},
 *               "latency_from": "send" | "schedule"}} */
#ifndef KVTEST_LOAD_REPORT_H
#define KVTEST_LOAD_REPORT_H
#include <stdint.h>

#include "load/load_engine.h"

/* A --rate run "reached" its target when it achieved at least this share. */
#define LOAD_RATE_REACHED 0.98

struct load_totals {
    struct load_counts c;      /* summed over the workers */
    struct hist *all;
    uint64_t failed_req[LOAD_NREQ], requests[LOAD_NREQ];
    double secs;
};

/* Allocate the histograms; 0 ok, -1 out of memory. */
int load_totals_init(struct load_totals *t);
/* Derive all, failed_req and requests from c (after the run). */
void load_totals_finish(struct load_totals *t, double secs);
void load_totals_free(struct load_totals *t);

void load_report_text(const struct load_opts *o, const struct load_totals *t);
void load_report_json(const struct load_opts *o, const struct load_totals *t, const char *url);
/* The progress line on stderr (a load_progress_fn). */
void load_report_progress(const struct load_opts *o, const struct load_progress *p, int final);

#endif

/* load_engine: the event loop of an HTTP load generator, built the way wrk
 * is built; what it sends is a scenario's choice (load_scenario.h). Each
 * worker OS thread (--workers) runs one epoll loop over its share of the
 * connections (--connections); each connection is a virtual user with one
 * request in flight on a non-blocking keep-alive socket, or up to
 * --pipeline of them, answers matched to requests in order.
 *
 * Closed loop (default): a connection sends its next request as soon as the
 * previous answer is checked, and a request is timed from its write to its
 * full answer. Constant rate (--rate R): connection i of N sends its k-th
 * request at t0 + (i + k*N)/R, and a request is timed from that scheduled
 * time, so a server that stalls shows the stall as latency instead of
 * quietly receiving fewer requests (coordinated omission, as wrk2 corrects
 * it). */
#ifndef KVTEST_LOAD_ENGINE_H
#define KVTEST_LOAD_ENGINE_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "load/load_http.h"
#include "load/load_scenario.h"
#include "measure/hist.h"
#include "measure/report.h"
#include "measure/timeline.h"

struct ssl_ctx_st;

struct load_opts {
    const char *command;       /* the JSON "command": "shortener load" */
    const char *base;          /* URL without trailing '/', as reported */
    const struct load_url *url;   /* base, parsed (load_url_parse) */
    int64_t tasks;             /* task mode: tasks the scenario runs (for progress) */
    int64_t connections, timeout_ms, workers, seed;
    int64_t pipeline;          /* requests in flight per connection (1..LOAD_PIPELINE_MAX);
                                * with http2, the streams (--streams) */
    int http2;                 /* --http2: h2 (ALPN) over https, h2c prior knowledge over http */
    double duration;           /* 0: task mode, the scenario ends the run */
    double rate;               /* requests/s over all connections; 0: closed loop */
    uint64_t timeline_ns;      /* --interval of --timeline; 0: no timeline */
    struct report_out out;     /* --json, --csv: how the report prints */
    int allow_failures, progress;
    struct ssl_ctx_st *tls;    /* https: every connection's context (load_tls.h); else NULL */
    const char *cacert;        /* --cacert, as given (for the report); or NULL */
    int insecure;              /* --insecure: certificates not verified */
    int reconnect;             /* --reconnect: one request per connection, timed
                                * from the connect (handshake included) */
    int no_resume;             /* --no-resume: https offers no session back */
};

#define LOAD_NERR_KEEP 5

/* Answers by status class: 2xx, 3xx, 4xx, 5xx (index status / 100 - 2). */
#define LOAD_CLASSES 4

struct load_err {
    uint64_t t;                /* when it happened, to merge workers in order */
    char msg[1024];
};

/* What one worker counted, per request kind; the totals have the same
 * shape. */
struct load_counts {
    int nkinds;
    struct hist *h[LOAD_KINDS_MAX];
    uint64_t ok[LOAD_KINDS_MAX], fail[LOAD_KINDS_MAX][LOAD_NFAIL];
    uint64_t tasks_ok, tasks_failed;
    struct load_err err[LOAD_NERR_KEEP];
    int nerr;
    struct timeline *tl;       /* per interval, all kinds (--timeline); or NULL */
    /* --rate: latency from each request's actual send, all kinds (the
     * service's part of it; the rest is the wait to be sent). Allocated by
     * the caller of load_engine_run in the totals when it wants it; the
     * workers keep their own whenever the rate is set. */
    struct hist *sent;
    /* https: TLS handshakes (from TCP connected to finished; not part of
     * any request's latency unless --rate), how many resumed a session.
     * hs is allocated as sent is, whenever the URL is https. */
    struct hist *hs;
    uint64_t hs_n, hs_resumed;
    /* Every answer's latency by its status class, all kinds together, and
     * how many of them the scenario judged failed; allocated with h. */
    struct hist *cls[LOAD_CLASSES];
    uint64_t cls_fail[LOAD_CLASSES];
    int http2;                 /* the run spoke HTTP/2: its failure kinds are reported */
};

/* Set by the first SIGINT/SIGTERM: connections stop starting requests, the
 * run ends when those in flight are done. (A signal flag is the one
 * process-wide mutable state here.) */
extern volatile sig_atomic_t load_interrupted;

/* Progress, polled by the calling thread while the workers run. */
struct load_progress {
    long long tasks_done, requests_done;
    double elapsed;
};
typedef void (*load_progress_fn)(const struct load_opts *o, const struct load_progress *p,
                                 int final);

/* Run the load described by o, each request chosen by scenario sc, and
 * add what the workers counted into *total (histograms allocated by the
 * caller for sc's kinds). *secs is the run's wall time. 0 ok; -1 with err
 * set (nothing counted). */
int load_engine_run(const struct load_opts *o, const struct load_scenario *sc,
                    load_progress_fn progress, struct load_counts *total, double *secs,
                    char *err, size_t errcap);

/* Fold one worker's counts into the totals: the first LOAD_NERR_KEEP
 * errors over all workers, by time. */
void load_counts_add(struct load_counts *dst, const struct load_counts *src);

#endif

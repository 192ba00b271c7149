/* service: the shortener's request handler, independent of the HTTP
 * library (service_http.h puts libh2o around it; serve.c is the
 * "shortener serve" subcommand).
 *
 * A service owns one worker per server thread; a worker is one links
 * connection, one optional cache connection and its own counters (single
 * writer, summed for /stats). service_handle() turns one parsed request into
 * one reply; the HTTP glue and the fuzz target both call it. */
#ifndef KVTEST_SHORTENER_SERVICE_H
#define KVTEST_SHORTENER_SERVICE_H
#include <stddef.h>
#include <stdint.h>

#include "shortener/cache/cache.h"
#include "shortener/store/links.h"

/* The service's own options; the store and its engine options are the
 * struct links_store service_new takes. */
struct service_opts {
    int workers;                       /* >= 1 */
    const struct cache_config *cache;  /* NULL: no Valkey */
};

struct service_reply {
    int status;
    char *body;          /* malloc'd JSON, free with service_reply_free */
    size_t len;
    const char *allow;   /* static; set for 405 */
};

struct service;
struct service_worker;

/* Open the store once per worker (and a cache connection each), with
 * its options (links.h). NULL on failure with a one-line reason in err. */
struct service *service_new(const struct links_store *store, const struct service_opts *o,
                            char *err, size_t errcap);
void service_free(struct service *s);   /* after all workers stopped */

struct service_worker *service_worker_at(struct service *s, int i);
/* Hand out the next worker nobody claimed yet, NULL when all are taken:
 * each server thread claims one and keeps it. Thread-safe. */
struct service_worker *service_claim_worker(struct service *s);
/* Cache of worker i (NULL without one). */
struct cache *service_worker_cache(struct service_worker *w);

/* Answer one request. path excludes the query string. authority: the
 * request's Host, which a created link may not point back at (NULL: not
 * known). body_too_large says the body exceeded REQUEST_BODY_MAX (then
 * body is ignored). */
void service_handle(struct service *s, struct service_worker *w,
                    const char *method, const char *path, const char *authority,
                    const char *body, size_t bodylen, int body_too_large,
                    struct service_reply *r);
void service_reply_free(struct service_reply *r);

/* One of several processes (serve --processes): from now on every request
 * also publishes this worker's counters into row k of sh (which must have
 * this service's worker count), and /stats adds "process", "processes",
 * "pid", "restarts" and "all" (the sum over sh). Counters another process
 * left in slot k carry on in "all"; this process's own fields count from
 * its start. 0, or -1 when k or the worker count do not fit. */
struct service_share;
int service_attach_share(struct service *s, struct service_share *sh, int k);

/* Counters of all workers as a cJSON-printed object (malloc'd string).
 * Safe while workers run. */
char *service_stats_json(struct service *s);
/* The same counters as text lines, for the shutdown summary. */
void service_stats_print(struct service *s, void *fp /* FILE * */);

#endif

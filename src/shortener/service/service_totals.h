/* service_totals: the counters of the shortener service as plain numbers
 * (a worker's, a process's or the sum over processes) and how /stats and
 * the shutdown summary show them. Used by service.c and service_share.c
 * inside shortener/service/. */
#ifndef KVTEST_SHORTENER_SERVICE_TOTALS_H
#define KVTEST_SHORTENER_SERVICE_TOTALS_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "shortener/cache/cache.h"
#include "shortener/service/request.h"
#include "shortener/store/links.h"

#define SERVICE_NSTATUS 9   /* 200 201 400 404 405 413 500 503, other */

/* How the workers are configured: which blocks /stats and the summary
 * show. */
struct service_kind {
    int has_cache;     /* any cache URL */
    int has_track;     /* client-side caching */
    int has_cluster;   /* valkey-cluster:// */
    enum links_kind store;
};

/* Counters of a worker, a process or all processes. Everything up to
 * the cache's per-node list is uint64_t counters: a worker publishes those
 * words into the shared mapping and sums add them word by word, so
 * whatever counter cache_stats gains is shared without an edit here. The
 * per-node list (cluster primaries by address) is not a counter array:
 * one process merges it by address (cache_stats_add), and the sum over
 * processes leaves it out (nnodes 0). */
struct service_totals {
    uint64_t req[ROUTE_COUNT][SERVICE_NSTATUS];
    uint64_t sqlite_errors;     /* store errors (named for /stats' "sqlite") */
    struct links_stats store;   /* PostgreSQL routing (all uint64_t) */
    struct cache_stats cache;   /* last: its per-node list ends the struct */
};
#define SERVICE_TALLY_BYTES \
    (offsetof(struct service_totals, cache) + offsetof(struct cache_stats, nnodes))
#define SERVICE_TALLY_WORDS (SERVICE_TALLY_BYTES / sizeof(uint64_t))
_Static_assert(SERVICE_TALLY_BYTES % sizeof(uint64_t) == 0,
               "the summed part of service_totals must be whole uint64_t words");

/* The index of an HTTP status among the counted ones (the last: other). */
int service_status_index(int status);

/* Add the counters to o: requests, routes, cache, sqlite, and store for
 * a PostgreSQL store (the fields of /stats and of the shutdown --json). */
void service_totals_json(cJSON *o, const struct service_totals *t,
                         const struct service_kind *kind);
/* The same as the shutdown summary's text lines. */
void service_totals_print(const struct service_totals *t, const struct service_kind *kind,
                          FILE *fp);

/* A new object with "uptime_s" (since started_ns, clock_now_ns) and the
 * fields of service_totals_json; NULL when out of memory. */
cJSON *service_totals_object(const struct service_totals *t, const struct service_kind *kind,
                             uint64_t started_ns);

#endif

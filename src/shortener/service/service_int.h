/* service_int.h: what service.c and service_share.c share inside
 * shortener/service/ (nobody else includes it): the counters of one or
 * more workers as plain numbers, and the words of the shared mapping. */
#ifndef KVTEST_SHORTENER_SERVICE_INT_H
#define KVTEST_SHORTENER_SERVICE_INT_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "shortener/cache/cache.h"
#include "shortener/service/request.h"
#include "shortener/service/service_share.h"

#define SERVICE_NSTATUS 9   /* 200 201 400 404 405 413 500 503, other */

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

/* Add the counters to o: requests, routes, cache, sqlite, and store for
 * a PostgreSQL store (the fields of /stats and of the shutdown --json). */
void service_totals_json(cJSON *o, const struct service_totals *t,
                         const struct service_kind *kind);
/* The same as the shutdown summary's text lines. */
void service_totals_print(const struct service_totals *t, const struct service_kind *kind,
                          FILE *fp);

/* The published counters of worker i of process k: SERVICE_TALLY_WORDS
 * words, written only by that worker's thread (relaxed), read by anyone. */
_Atomic uint64_t *service_share_tally(struct service_share *sh, int k, int i);
/* The sum over every process and worker (no per-node list), and the
 * settings. */
void service_share_sum(struct service_share *sh, struct service_totals *out);
int service_share_workers(const struct service_share *sh);
const struct service_kind *service_share_kind(const struct service_share *sh);
uint64_t service_share_started_ns(const struct service_share *sh);

#endif

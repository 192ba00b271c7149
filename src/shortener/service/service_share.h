/* service_share: the counters of several service processes ("shortener
 * serve --processes N") in one MAP_SHARED anonymous mapping, made by the
 * parent before it forks, so that any process can report the sum of all.
 *
 * Process k's worker i owns one row of the mapping and is its only writer
 * (relaxed atomic stores after each request, service.c); readers sum the
 * rows with relaxed loads (a figure may lag by a request in flight). A row
 * belongs to the slot k, not to a pid: a process restarted in slot k
 * starts from the row as its predecessor left it, so the sum never goes
 * backwards (the predecessor is dead, so the single-writer rule holds). */
#ifndef KVTEST_SHORTENER_SERVICE_SHARE_H
#define KVTEST_SHORTENER_SERVICE_SHARE_H
#include <stdint.h>
#include <stdio.h>

#include "shortener/service/service_totals.h"

#define SERVICE_SHARE_PROCS_MAX 256

struct service_share;

/* The mapping for nprocs (1..SERVICE_SHARE_PROCS_MAX) processes of
 * nworkers workers each, zeroed; kind is copied (for the summary). NULL
 * when mmap fails (errno set). */
struct service_share *service_share_new(int nprocs, int nworkers,
                                        const struct service_kind *kind);
void service_share_free(struct service_share *sh);   /* NULL is fine */

int service_share_procs(const struct service_share *sh);
/* The pid serving slot k now (0: none yet); set by the parent at fork. */
void service_share_set_pid(struct service_share *sh, int k, long pid);
long service_share_pid(const struct service_share *sh, int k);
/* Processes restarted so far (the parent counts them). */
void service_share_restarted(struct service_share *sh);
uint64_t service_share_restarts(const struct service_share *sh);

/* The sum of every process since the mapping was made: a cJSON-printed
 * object {uptime_s, requests, routes, cache, sqlite, processes, restarts}
 * (malloc'd string; NULL when out of memory). */
char *service_share_stats_json(struct service_share *sh);
/* The same as the shutdown summary's text lines. */
void service_share_stats_print(struct service_share *sh, FILE *fp);

/* Inside shortener/service/ (service.c): */
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

/* service_totals: the service's counters as numbers, and how /stats and
 * the shutdown summary show them (see service_totals.h); one process's
 * counters (service.c) and the sum over processes (service_share.c) are
 * shown by the same code. */
#include "shortener/service/service_totals.h"

#include <stdio.h>

#include "measure/clock.h"
#include "shortener/service/request.h"

static const int statuses[] = {200, 201, 400, 404, 405, 413, 500, 503};
#define NSTATUS SERVICE_NSTATUS
_Static_assert((int)(sizeof statuses / sizeof statuses[0]) + 1 == SERVICE_NSTATUS,
               "SERVICE_NSTATUS is the statuses + other");

int service_status_index(int status)
{
    for (int i = 0; i < NSTATUS - 1; i++)
        if (statuses[i] == status)
            return i;
    return NSTATUS - 1;
}

static void status_label(int k, char *buf, size_t cap)
{
    if (k < NSTATUS - 1)
        snprintf(buf, cap, "%d", statuses[k]);
    else
        snprintf(buf, cap, "other");
}

/* valkey-cluster://: redirects followed and lookups per primary. The
 * per-primary list exists only where the counters were summed node by
 * node (one process's /stats); the sum over processes ("all") has none. */
static void stats_json_cluster(cJSON *cache, const struct cache_stats *cs)
{
    cJSON_AddNumberToObject(cache, "moved", (double)cs->moved);
    cJSON_AddNumberToObject(cache, "ask", (double)cs->ask);
    cJSON_AddNumberToObject(cache, "map_refreshes", (double)cs->map_refreshes);
    if (cs->nnodes <= 0)
        return;
    cJSON *nodes = cJSON_AddObjectToObject(cache, "nodes");
    for (int k = 0; k < cs->nnodes; k++)
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(nodes, cs->nodes[k].addr), "lookups",
                                (double)cs->nodes[k].lookups);
}

/* A PostgreSQL store's routing counters ("store"); the store's errors
 * are also "sqlite"'s, where every client has always read them. */
static void stats_json_store(cJSON *o, const struct service_totals *t,
                             const struct service_kind *kind)
{
    if (kind->store != LINKS_KIND_POSTGRES)
        return;
    const struct links_stats *ls = &t->store;
    cJSON *st = cJSON_AddObjectToObject(o, "store");
    cJSON_AddStringToObject(st, "kind", links_kind_name(kind->store));
    cJSON_AddNumberToObject(st, "errors", (double)t->sqlite_errors);
    cJSON_AddNumberToObject(st, "primary_reads", (double)ls->primary_reads);
    cJSON_AddNumberToObject(st, "replica_reads", (double)ls->replica_reads);
    cJSON_AddNumberToObject(st, "fallbacks", (double)ls->fallbacks);
    cJSON_AddNumberToObject(st, "failovers", (double)ls->failovers);
    cJSON_AddNumberToObject(st, "reconnects", (double)ls->reconnects);
    cJSON_AddNumberToObject(st, "unavailable", (double)ls->unavailable);
}

void service_totals_json(cJSON *o, const struct service_totals *t,
                         const struct service_kind *kind)
{
    uint64_t total = 0;
    cJSON *routes = cJSON_CreateObject();
    cJSON *cache = cJSON_CreateObject();
    cJSON *sq = cJSON_CreateObject();
    if (!routes || !cache || !sq) {
        cJSON_Delete(routes);
        cJSON_Delete(cache);
        cJSON_Delete(sq);
        return;
    }
    for (int r = 0; r < ROUTE_COUNT; r++) {
        cJSON *byst = cJSON_CreateObject();
        for (int k = 0; k < NSTATUS; k++) {
            if (!t->req[r][k])
                continue;
            char lab[16];
            status_label(k, lab, sizeof lab);
            cJSON_AddNumberToObject(byst, lab, (double)t->req[r][k]);
            total += t->req[r][k];
        }
        cJSON_AddItemToObject(routes, request_route_name((enum request_route)r), byst);
    }
    const struct cache_stats *cs = &t->cache;
    cJSON_AddNumberToObject(o, "requests", (double)total);
    cJSON_AddItemToObject(o, "routes", routes);
    cJSON_AddBoolToObject(cache, "enabled", kind->has_cache);
    cJSON_AddNumberToObject(cache, "hits", (double)cs->hits);
    cJSON_AddNumberToObject(cache, "misses", (double)cs->misses);
    cJSON_AddNumberToObject(cache, "errors", (double)cs->errors);
    cJSON_AddNumberToObject(cache, "skipped", (double)cs->skipped);
    cJSON_AddNumberToObject(cache, "sets", (double)cs->sets);
    cJSON_AddNumberToObject(cache, "connects", (double)cs->connects);
    /* client-side caching (valkey+track://): hits split by where */
    cJSON_AddBoolToObject(cache, "track", kind->has_track);
    cJSON_AddNumberToObject(cache, "local_hits", (double)cs->local_hits);
    cJSON_AddNumberToObject(cache, "valkey_hits", (double)cs->hits);
    cJSON_AddNumberToObject(cache, "invalidations", (double)cs->invalidations);
    cJSON_AddNumberToObject(cache, "local_flushes", (double)cs->local_flushes);
    cJSON_AddNumberToObject(cache, "local_evictions", (double)cs->local_evictions);
    if (kind->has_cluster)
        stats_json_cluster(cache, cs);
    cJSON_AddItemToObject(o, "cache", cache);
    cJSON_AddNumberToObject(sq, "errors", (double)t->sqlite_errors);
    cJSON_AddItemToObject(o, "sqlite", sq);
    stats_json_store(o, t, kind);
}

cJSON *service_totals_object(const struct service_totals *t, const struct service_kind *kind,
                             uint64_t started_ns)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "uptime_s", (double)(clock_now_ns() - started_ns) / 1e9);
    service_totals_json(o, t, kind);
    return o;
}

void service_totals_print(const struct service_totals *t, const struct service_kind *kind,
                          FILE *fp)
{
    uint64_t total = 0;
    const struct cache_stats *cs = &t->cache;
    for (int r = 0; r < ROUTE_COUNT; r++)
        for (int k = 0; k < NSTATUS; k++)
            total += t->req[r][k];
    fprintf(fp, "Requests: %llu\n", (unsigned long long)total);
    for (int r = 0; r < ROUTE_COUNT; r++) {
        uint64_t sum = 0;
        for (int k = 0; k < NSTATUS; k++)
            sum += t->req[r][k];
        if (!sum)
            continue;
        fprintf(fp, "  %-16s", request_route_name((enum request_route)r));
        for (int k = 0; k < NSTATUS; k++) {
            if (!t->req[r][k])
                continue;
            char lab[16];
            status_label(k, lab, sizeof lab);
            fprintf(fp, " %s: %llu", lab, (unsigned long long)t->req[r][k]);
        }
        fputc('\n', fp);
    }
    if (kind->has_cache)
        fprintf(fp, "Cache: hits %llu, misses %llu, errors %llu, skipped %llu, "
                    "sets %llu, connects %llu\n",
                (unsigned long long)cs->hits, (unsigned long long)cs->misses,
                (unsigned long long)cs->errors, (unsigned long long)cs->skipped,
                (unsigned long long)cs->sets, (unsigned long long)cs->connects);
    if (kind->has_track)
        fprintf(fp, "Local (client-side) cache: hits %llu, invalidations %llu, flushes %llu, "
                    "evictions %llu\n",
                (unsigned long long)cs->local_hits, (unsigned long long)cs->invalidations,
                (unsigned long long)cs->local_flushes, (unsigned long long)cs->local_evictions);
    if (kind->has_cluster) {
        fprintf(fp, "Cluster: moved %llu, ask %llu, map refreshes %llu",
                (unsigned long long)cs->moved, (unsigned long long)cs->ask,
                (unsigned long long)cs->map_refreshes);
        for (int k = 0; k < cs->nnodes; k++)
            fprintf(fp, "%s %s %llu", k ? "," : "; lookups per primary:", cs->nodes[k].addr,
                    (unsigned long long)cs->nodes[k].lookups);
        fputc('\n', fp);
    }
    if (!kind->has_cache)
        fprintf(fp, "Cache: none\n");
    fprintf(fp, "SQLite errors: %llu\n", (unsigned long long)t->sqlite_errors);
    if (kind->store == LINKS_KIND_POSTGRES)
        fprintf(fp, "Store: postgres, primary reads %llu, replica reads %llu, fallbacks %llu, "
                    "failovers %llu, reconnects %llu, unavailable %llu\n",
                (unsigned long long)t->store.primary_reads,
                (unsigned long long)t->store.replica_reads,
                (unsigned long long)t->store.fallbacks, (unsigned long long)t->store.failovers,
                (unsigned long long)t->store.reconnects,
                (unsigned long long)t->store.unavailable);
}

/* bench_out: the text table and the JSON object of "shortener bench"
 * (field list in bench.c's header comment). */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/cli.h"
#include "base/url_mask.h"
#include "measure/report.h"
#include "measure/stats.h"
#include "shortener/bench/bench_out.h"

static double median_of(const double *v, int n)
{
    double tmp[BENCH_MAXREPEAT];
    memcpy(tmp, v, (size_t)n * sizeof(*v));
    return report_median(tmp, n);
}

/* The median lookups/s and its 95% interval over the measured rounds
 * (order statistics; [min, max] and not covered below 6 rounds). */
static struct stats_ci rate_ci(const struct bench_result *r, int n)
{
    struct stats_ci ci;
    if (stats_median_ci(r->rate, (size_t)n, &ci) != 0) {
        ci.est = median_of(r->rate, n);
        ci.lo = ci.hi = ci.est;
        ci.covered = 0;
    }
    return ci;
}

#define DELTA(r, f) ((double)((r)->after.f - (r)->before.f))

/* Share of lookups answered by a cache, Valkey or process memory. */
static double hit_ratio(const struct bench_result *r, int *valid)
{
    double hits = DELTA(r, hits) + DELTA(r, local_hits);
    double all = hits + (double)(r->after.misses - r->before.misses) +
                 (double)(r->after.errors - r->before.errors) +
                 (double)(r->after.skipped - r->before.skipped);
    *valid = all > 0;
    return all > 0 ? hits / all : 0.0;
}

/* Median lookups/s of the sqlite row, 0 without one. */
static double base_rate(const struct bench *b, const int *conf, int nconf,
                        const struct bench_result *res)
{
    for (int i = 0; i < nconf; i++)
        if (conf[i] == BENCH_CONF_SQLITE)
            return median_of(res[i].rate, (int)b->o->repeat);
    return 0;
}

static void json_options(cJSON *root, const struct bench *b, const int *conf, int nconf)
{
    const struct bench_opts *o = b->o;
    cJSON *op = cJSON_AddObjectToObject(root, "options");
    cJSON *cl = cJSON_AddArrayToObject(op, "configs");
    for (int i = 0; i < nconf; i++)
        cJSON_AddItemToArray(cl, cJSON_CreateString(bench_conf_name(b, conf[i])));
    if (o->cache_url) {
        char cache[512];
        url_mask(o->cache_url, cache, sizeof cache);
        cJSON_AddStringToObject(op, "cache", cache);
    } else {
        cJSON_AddNullToObject(op, "cache");
    }
    cJSON_AddNumberToObject(op, "lookups", (double)o->lookups);
    cJSON_AddNumberToObject(op, "threads", (double)o->threads);
    cJSON_AddNumberToObject(op, "zipf", o->zipf);
    cJSON_AddNumberToObject(op, "miss", o->miss);
    cJSON_AddNumberToObject(op, "repeat", (double)o->repeat);
    cJSON_AddNumberToObject(op, "warmup", (double)o->warmup);
    cJSON_AddBoolToObject(op, "cold", o->cold);
    cJSON_AddNumberToObject(op, "seed", (double)o->seed);
    if (o->compare.text)
        cJSON_AddStringToObject(op, "compare_db", o->compare.shown);
    else
        cJSON_AddNullToObject(op, "compare_db");
    cJSON_AddNumberToObject(op, "track_size", (double)o->track_size);
    cJSON_AddNumberToObject(op, "cache_timeout_ms", (double)o->cache_timeout);
    cJSON_AddStringToObject(op, "store", links_kind_name(o->store.kind));
    cJSON_AddNumberToObject(op, "replicas", o->store.opts.nreplicas);
    if (o->mem_limit)   /* only then: output without it stays as it was */
        cJSON_AddNumberToObject(op, "mem_limit", (double)o->mem_limit);
}

/* --mem-limit: the group and what it held, as the kernel reports it. */
static void json_mem(cJSON *result, const struct bench *b)
{
    if (!b->o->mem_limit)
        return;
    const struct memlimit_info *m = &b->mem;
    cJSON *j = cJSON_AddObjectToObject(result, "mem_limit");
    cJSON_AddStringToObject(j, "cgroup", m->dir);
    cJSON_AddNumberToObject(j, "cgroup_version", m->version);
    cJSON_AddNumberToObject(j, "limit_bytes", (double)m->limit);
    cJSON_AddNumberToObject(j, "peak_bytes", (double)m->peak);
    cJSON_AddNumberToObject(j, "file_cache_bytes", (double)m->file_cache);
    cJSON_AddNumberToObject(j, "read_bytes", (double)b->mem_read_bytes);
}

/* valkey-cluster://: redirects followed and lookups per primary, this
 * configuration's share (after - before). */
static void json_cluster(cJSON *cs, const struct bench_result *r)
{
    cJSON_AddNumberToObject(cs, "moved", DELTA(r, moved));
    cJSON_AddNumberToObject(cs, "ask", DELTA(r, ask));
    cJSON_AddNumberToObject(cs, "map_refreshes", DELTA(r, map_refreshes));
    cJSON *nodes = cJSON_AddObjectToObject(cs, "nodes");
    for (int k = 0; k < r->after.nnodes; k++) {
        const struct cache_node_stats *n = &r->after.nodes[k];
        cJSON *x = cJSON_AddObjectToObject(nodes, n->addr);
        cJSON_AddNumberToObject(x, "lookups",
                                (double)(n->lookups -
                                         cache_stats_node_lookups(&r->before, n->addr)));
    }
}

static void json_row(cJSON *row, const struct bench *b, int conf,
                     const struct bench_result *r, double base)
{
    const struct bench_opts *o = b->o;
    cJSON_AddStringToObject(row, "config", bench_conf_name(b, conf));
    cJSON_AddStringToObject(row, "schema",
                            conf == BENCH_CONF_COMPARE ? b->compare_name + 7 : b->schema);
    cJSON_AddStringToObject(row, "path", conf == BENCH_CONF_COMPARE ? o->compare.shown : o->store.shown);
    cJSON_AddStringToObject(row, "store",
                            links_kind_name(conf == BENCH_CONF_COMPARE ? o->compare.kind : o->store.kind));
    cJSON_AddBoolToObject(row, "sqlite_cache", bench_conf_sqlite_cache(conf));
    cJSON_AddBoolToObject(row, "valkey", bench_conf_valkey(conf));
    double rate = median_of(r->rate, (int)o->repeat);
    cJSON_AddNumberToObject(row, "lookups_per_s", rate);
    if (base > 0)
        cJSON_AddNumberToObject(row, "ratio_to_sqlite", rate / base);
    else
        cJSON_AddNullToObject(row, "ratio_to_sqlite");
    double tmp[BENCH_MAXREPEAT];
    memcpy(tmp, r->rate, (size_t)o->repeat * sizeof(double));
    cJSON *sp = report_spread_json(tmp, (int)o->repeat);
    struct stats_ci ci = rate_ci(r, (int)o->repeat);
    report_ci_json(sp, &ci, (int)o->repeat);
    cJSON_AddItemToObject(row, "lookups_per_s_spread", sp);
    cJSON *rr = cJSON_AddArrayToObject(row, "runs");
    for (int64_t m = 0; m < o->repeat; m++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "seconds", r->secs[m]);
        cJSON_AddNumberToObject(x, "lookups_per_s", r->rate[m]);
        cJSON_AddItemToArray(rr, x);
    }
    cJSON_AddItemToObject(row, "latency", report_hist_json(r->h));
    int valid;
    double hr = hit_ratio(r, &valid);
    if (valid)
        cJSON_AddNumberToObject(row, "hit_ratio", hr);
    else
        cJSON_AddNullToObject(row, "hit_ratio");
    if (bench_conf_valkey(conf)) {
        cJSON *cs = cJSON_AddObjectToObject(row, "cache");
        cJSON_AddNumberToObject(cs, "hits", (double)(r->after.hits - r->before.hits));
        cJSON_AddNumberToObject(cs, "misses", (double)(r->after.misses - r->before.misses));
        cJSON_AddNumberToObject(cs, "errors", (double)(r->after.errors - r->before.errors));
        cJSON_AddNumberToObject(cs, "skipped", (double)(r->after.skipped - r->before.skipped));
        cJSON_AddNumberToObject(cs, "local_hits", DELTA(r, local_hits));
        cJSON_AddNumberToObject(cs, "invalidations", DELTA(r, invalidations));
        cJSON_AddNumberToObject(cs, "local_flushes", DELTA(r, local_flushes));
        cJSON_AddNumberToObject(cs, "local_evictions", DELTA(r, local_evictions));
        if (b->ccfg.cluster)
            json_cluster(cs, r);
    }
    if (bench_conf_track(conf) && valid)
        cJSON_AddNumberToObject(row, "local_hit_ratio",
                                DELTA(r, local_hits) / (DELTA(r, local_hits) + DELTA(r, hits) +
                                                        DELTA(r, misses) + DELTA(r, errors) +
                                                        DELTA(r, skipped)));
    if (o->cold) {
        cJSON *cj = cJSON_AddObjectToObject(row, "cold");
        cJSON_AddStringToObject(cj, "method", "posix_fadvise(POSIX_FADV_DONTNEED)");
        double frac = r->pages > 0 ? (double)r->resident_max / (double)r->pages : 0;
        cJSON_AddNumberToObject(cj, "resident_fraction", frac);
        cJSON_AddBoolToObject(cj, "effective", r->cold_effective);
    }
    cJSON_AddNumberToObject(row, "wrong_answers", (double)r->wrong);
    cJSON_AddNumberToObject(row, "sqlite_errors", (double)r->errors);
}

/* The cache break-even from this run's medians: a cache-aside hit (the
 * valkey row's p50; its hit ratio says how pure that is) against an SQLite
 * lookup (the sqlite row's p50, warm or with --cold, whichever this run
 * measured). Cache-aside can only win when SQLite costs more than a hit. */
struct break_even {
    int valid, has_track;
    double hit_us, hit_ratio, sqlite_us, track_us, track_local;
    char text[600];
};

static int conf_index(const int *conf, int nconf, int want)
{
    for (int i = 0; i < nconf; i++)
        if (conf[i] == want)
            return i;
    return -1;
}

static void break_even(const struct bench *b, const int *conf, int nconf,
                       const struct bench_result *res, struct break_even *be)
{
    memset(be, 0, sizeof(*be));
    int s = conf_index(conf, nconf, BENCH_CONF_SQLITE);
    int v = conf_index(conf, nconf, BENCH_CONF_VALKEY);
    int t = conf_index(conf, nconf, BENCH_CONF_TRACK);
    if (s < 0 || v < 0)
        return;
    int valid;
    be->valid = 1;
    be->hit_us = hist_percentile(res[v].h, 50) / 1e3;
    be->hit_ratio = hit_ratio(&res[v], &valid);
    be->sqlite_us = hist_percentile(res[s].h, 50) / 1e3;
    const char *store = b->o->store.kind == LINKS_KIND_POSTGRES ? "PostgreSQL" : "SQLite";
    int n = snprintf(be->text, sizeof(be->text),
                     "Valkey cache-aside pays off only when %s %s lookup costs more than "
                     "%.3g \u00b5s (the median cost of a cache hit here); %s lookups cost "
                     "%.3g \u00b5s %s",
                     b->o->store.kind == LINKS_KIND_POSTGRES ? "a" : "an", store, be->hit_us, store,
                     be->sqlite_us, b->o->cold ? "with --cold" : "warm");
    n += snprintf(be->text + n, sizeof(be->text) - (size_t)n, " (%s)",
                  b->o->cold ? "run without --cold for the warm cost"
                             : "run with --cold for the cost from disk");
    if (t >= 0) {
        const struct bench_result *r = &res[t];
        double all = DELTA(r, local_hits) + DELTA(r, hits) + DELTA(r, misses) +
                     DELTA(r, errors) + DELTA(r, skipped);
        be->has_track = 1;
        be->track_us = hist_percentile(r->h, 50) / 1e3;
        be->track_local = all > 0 ? DELTA(r, local_hits) / all : 0;
        n += snprintf(be->text + n, sizeof(be->text) - (size_t)n,
                      "; with client-side caching (valkey-track) a lookup costs %.3g \u00b5s, "
                      "%.0f%% answered from process memory",
                      be->track_us, be->track_local * 100);
    }
    snprintf(be->text + n, sizeof(be->text) - (size_t)n, ".");
}

static void json_break_even(cJSON *result, const struct bench *b, const int *conf, int nconf,
                            const struct bench_result *res)
{
    struct break_even be;
    break_even(b, conf, nconf, res, &be);
    if (!be.valid) {
        cJSON_AddNullToObject(result, "break_even");
        return;
    }
    cJSON *j = cJSON_AddObjectToObject(result, "break_even");
    cJSON_AddStringToObject(j, "statement", be.text);
    cJSON_AddNumberToObject(j, "cache_hit_us", be.hit_us);
    cJSON_AddNumberToObject(j, "cache_hit_ratio", be.hit_ratio);
    cJSON_AddNumberToObject(j, "sqlite_us", be.sqlite_us);
    cJSON_AddStringToObject(j, "sqlite_state", b->o->cold ? "cold" : "warm");
    if (b->o->cold) {
        cJSON_AddNullToObject(j, "sqlite_warm_us");
        cJSON_AddNumberToObject(j, "sqlite_cold_us", be.sqlite_us);
    } else {
        cJSON_AddNumberToObject(j, "sqlite_warm_us", be.sqlite_us);
        cJSON_AddNullToObject(j, "sqlite_cold_us");
    }
    cJSON_AddBoolToObject(j, "pays_off", be.sqlite_us > be.hit_us);
    /* sqlite_us above is the store's own lookup, whichever engine */
    cJSON_AddStringToObject(j, "store", links_kind_name(b->o->store.kind));
    if (be.has_track) {
        cJSON_AddNumberToObject(j, "track_us", be.track_us);
        cJSON_AddNumberToObject(j, "track_local_hit_ratio", be.track_local);
    } else {
        cJSON_AddNullToObject(j, "track_us");
        cJSON_AddNullToObject(j, "track_local_hit_ratio");
    }
}

int bench_print_json(const struct bench *b, const int *conf, int nconf,
                     const struct bench_result *res)
{
    cJSON *root = report_json_new(BENCH_CMD, b->o->store.shown);
    if (!root)
        return -1;
    json_options(root, b, conf, nconf);
    cJSON *result = cJSON_AddObjectToObject(root, "result");
    cJSON_AddNumberToObject(result, "links", (double)b->nids);
    cJSON *rows = cJSON_AddArrayToObject(result, "configs");
    double base = base_rate(b, conf, nconf, res);
    for (int i = 0; i < nconf; i++) {
        cJSON *row = cJSON_CreateObject();
        cJSON_AddItemToArray(rows, row);
        json_row(row, b, conf[i], &res[i], base);
    }
    json_break_even(result, b, conf, nconf, res);
    json_mem(result, b);
    report_json_print(root);
    return 0;
}

/* "Median lookups/s, CONFIG: M (95% CI LO-HI, N rounds)", worded as
 * "kvtest run --repeat" words its median. */
static void text_rate_ci(const char *name, const struct bench_result *r, int n)
{
    struct stats_ci ci = rate_ci(r, n);
    char label[96];
    snprintf(label, sizeof label, "lookups/s, %s", name);
    report_print_median_ci(label, &ci, n, 0);
}

/* "Cluster, CONFIG: moved M, ask A, map refreshes R; lookups per primary:
 * HOST:PORT N, ..." (valkey-cluster:// only). */
static void text_cluster(const char *name, const struct bench_result *r)
{
    printf("Cluster, %s: moved %.0f, ask %.0f, map refreshes %.0f; lookups per primary:", name,
           DELTA(r, moved), DELTA(r, ask), DELTA(r, map_refreshes));
    for (int k = 0; k < r->after.nnodes; k++)
        printf("%s %s %llu", k ? "," : "", r->after.nodes[k].addr,
               (unsigned long long)(r->after.nodes[k].lookups -
                                    cache_stats_node_lookups(&r->before, r->after.nodes[k].addr)));
    printf("\n");
}

void bench_print_text(const struct bench *b, const int *conf, int nconf,
                      const struct bench_result *res)
{
    const struct bench_opts *o = b->o;
    int64_t T = o->threads;
    double base = base_rate(b, conf, nconf, res);
    printf("# %s\n", cli_cmdline());
    printf("%s: %lld links; %lld lookups x %lld runs per configuration (+%lld warm-up), "
           "%lld thread%s, %s ids, %.0f%% misses%s\n",
           o->store.shown, (long long)b->nids, (long long)o->lookups, (long long)o->repeat,
           (long long)o->warmup, (long long)T, T == 1 ? "" : "s",
           o->zipf > 0 ? "zipf" : "uniform", o->miss * 100, o->cold ? ", cold" : "");
    /* The mean next to the percentiles: lookups/s is 1/mean, so a mean
     * far above p50 says where the time goes (a rare slow lookup). */
    printf("%-15s %11s %8s %8s %8s %8s %9s %8s %9s %9s\n", "config", "lookups/s", "p50 us",
           "p90 us", "p99 us", "p99.9 us", "max us", "mean us", "hit ratio",
           o->store.kind == LINKS_KIND_POSTGRES ? "vs postgres" : "vs sqlite");
    for (int i = 0; i < nconf; i++) {
        const struct hist *h = res[i].h;
        double rate = median_of(res[i].rate, (int)o->repeat);
        printf("%-15s %11.0f %8.1f %8.1f %8.1f %8.1f %9.1f", bench_conf_name(b, conf[i]), rate,
               hist_percentile(h, 50) / 1e3, hist_percentile(h, 90) / 1e3,
               hist_percentile(h, 99) / 1e3, hist_percentile(h, 99.9) / 1e3,
               hist_percentile(h, 100) / 1e3);
        printf(" %8.2f", hist_mean(h) / 1e3);
        int valid;
        double hr = hit_ratio(&res[i], &valid);
        if (valid)
            printf(" %9.3f", hr);
        else
            printf(" %9s", "-");
        if (base > 0)
            printf(" %9.2f\n", rate / base);
        else
            printf(" %9s\n", "-");
    }
    for (int i = 0; i < nconf; i++)
        text_rate_ci(bench_conf_name(b, conf[i]), &res[i], (int)o->repeat);
    for (int i = 0; i < nconf && b->ccfg.cluster; i++)
        if (bench_conf_valkey(conf[i]))
            text_cluster(bench_conf_name(b, conf[i]), &res[i]);
    struct break_even be;
    break_even(b, conf, nconf, res, &be);
    if (be.valid)
        printf("%s\n", be.text);
    if (o->mem_limit)
        printf("Memory limit %lld bytes (cgroup v%d %s): peak usage %lld, page cache at the "
               "end %lld, bytes read from storage by this process %lld\n",
               (long long)b->mem.limit, b->mem.version, b->mem.dir, (long long)b->mem.peak,
               (long long)b->mem.file_cache, (long long)b->mem_read_bytes);
    if (o->cold)
        for (int i = 0; i < nconf; i++)
            if (res[i].pages > 0 && !res[i].cold_effective)
                cli_warn(BENCH_CMD, "%s: %lld of %lld pages stayed resident after eviction; "
                         "these runs were not cold", bench_conf_name(b, conf[i]),
                         (long long)res[i].resident_max, (long long)res[i].pages);
}

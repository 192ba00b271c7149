/* run_out: the result of "kvtest run" as text (the upstream lines first,
 * then ours) or as one JSON object (schema in report.h), made from the
 * plan and the summary alone (see run_int.h). */
#include <stdio.h>
#include <string.h>

#include "commands/run/run_int.h"
#include "measure/clock.h"
#include "base/cli.h"
#include "base/cli_json.h"
#include "stores/layout.h"
#include "stores/kv/store_kv.h"
#include "measure/report.h"
#include "stores/store.h"

const char *run_order_name(enum order_kind k)
{
    switch (k) {
    case ORDER_DESC: return "desc";
    case ORDER_RANDOM: return "random";
    case ORDER_ZIPF: return "zipf";
    default: return "asc";
    }
}

/* --- options: the table's rows (run_opts.c), with these exceptions ----- */

static void add_str_or_null(cJSON *j, const char *key, const char *s)
{
    if (s)
        cJSON_AddStringToObject(j, key, s);
    else
        cJSON_AddNullToObject(j, key);
}

/* Derived: the largest key present when --max-id is not given. */
static void json_max_id(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    (void)obj;
    cJSON_AddNumberToObject(j, key, (double)((const struct run_plan *)ctx)->max_id);
}

/* --asc, --desc, --random and --zipf settle one order: one member, named
 * at the first of them. */
static void json_order(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    (void)key, (void)ctx;
    cJSON_AddStringToObject(j, "order", run_order_name(((const struct run_opts *)obj)->order));
}

/* Parsed as int64 (the table's type), kept as the generator's uint64. */
static void json_seed(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    (void)ctx;
    cJSON_AddNumberToObject(j, key, (double)((const struct run_opts *)obj)->seed);
}

/* Parsed as text (a sign means KiB), stated as the number. */
static void json_cache_size(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    (void)ctx;
    cJSON_AddNumberToObject(j, key, (double)((const struct run_opts *)obj)->cache_size);
}

/* The pragma names, as passed on to SQLite; null: SQLite's own. */
static void json_jmode(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    (void)ctx;
    add_str_or_null(j, key, ((const struct run_opts *)obj)->jmode);
}

static void json_synchronous(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    (void)ctx;
    add_str_or_null(j, key, ((const struct run_opts *)obj)->synchronous);
}

/* run_opts holds it as readahead off (1) or on (0), -1 left alone: null. */
static void json_fadvise(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    (void)ctx;
    int f = ((const struct run_opts *)obj)->fadvise;
    add_str_or_null(j, key, f < 0 ? NULL : f ? "random" : "normal");
}

/* --no-latency, stated the other way round: whether accesses were timed. */
static void json_latency(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    (void)key, (void)ctx;
    cJSON_AddBoolToObject(j, "latency", ((const struct run_opts *)obj)->latency);
}

/* The exceptions. Rows outside run_opts are left out by cli_json_options:
 * --desc and --random (json_order speaks for them), --timeline, --interval
 * and --keys-out (where and how to write, not what was measured); so are
 * the rows named here with no writer (--json and --csv: how to print). */
static const struct cli_json_rule json_rules[] = {
    {"max-id", json_max_id},
    {"asc", json_order},
    {"seed", json_seed},
    {"cache-size", json_cache_size},
    {"block-cache", NULL},   /* the result states the cache in effect
                                (result.block_cache, RocksDB only) */
    {"jmode", json_jmode},
    {"synchronous", json_synchronous},
    {"fadvise", json_fadvise},
    {"no-latency", json_latency},
    {"json", NULL},
    {"csv", NULL},
};

static cJSON *options_json(const struct run_plan *p)
{
    struct run_args scratch;
    struct cli_opt rows[RUN_MAX_OPTS];
    int n = run_opts_table(&scratch, rows);
    cJSON *j = cJSON_CreateObject();
    cli_json_options(j, rows, n, &scratch.o, sizeof scratch.o, p->o, json_rules,
                     CLI_COUNT(json_rules), p);
    return j;
}

/* What the per-access timer costs on this machine: one clock read and one
 * histogram record, as the loop does them (chained). The least of a few
 * batches, so a preempted batch does not inflate it. Reported beside the
 * figures so the timer's share of each access is visible in every result. */
static double timer_cost_ns(void)
{
    struct hist *h = hist_new();
    if (!h)
        return 0;
    double best = 0;
    for (int b = 0; b < 8; b++) {
        uint64_t t0 = clock_now_ns(), prev = t0;
        for (int i = 0; i < 10000; i++) {
            uint64_t t = clock_now_ns();
            hist_record(h, t - prev);
            prev = t;
        }
        double ns = (double)(clock_now_ns() - t0) / 10000.0;
        if (b == 0 || ns < best)
            best = ns;
    }
    hist_free(h);
    return best;
}

static const char *api_name(const struct run_plan *p)
{
    if (layout_is_kv(p->kind))
        return layout_kind_name(p->kind);
    return !p->is_db ? "stdio" : p->o->blob_api ? "blob" : "sql";
}

static cJSON *run_json(const struct run_fig *f, double us, double mb)
{
    cJSON *x = cJSON_CreateObject();
    cJSON_AddNumberToObject(x, "seconds", f->seconds);
    cJSON_AddNumberToObject(x, "us_per_blob", us);
    cJSON_AddNumberToObject(x, "mb_per_s", mb);
    cJSON_AddNumberToObject(x, "bytes", (double)f->bytes);
    cJSON_AddNumberToObject(x, "count", (double)f->count);
    cJSON_AddNumberToObject(x, "misses", (double)f->misses);
    cJSON_AddNumberToObject(x, "storage_read_bytes", (double)f->io_read);
    cJSON_AddNumberToObject(x, "storage_write_bytes", (double)f->io_write);
    if (f->cold) {
        cJSON *cj = cJSON_AddObjectToObject(x, "cold");
        cJSON_AddNumberToObject(cj, "pages", (double)f->cst.pages);
        cJSON_AddNumberToObject(cj, "resident_pages", (double)f->cst.resident);
        cJSON_AddNumberToObject(cj, "resident_fraction", f->resident);
        cJSON_AddNumberToObject(cj, "files", (double)f->cst.files);
        cJSON_AddNumberToObject(cj, "errors", (double)f->cst.errors);
    }
    return x;
}

/* min/median/max and the median's 95% interval over the n rounds (with
 * ci_covered false below 6 rounds, where the interval is min..max). */
static void spread_json(cJSON *parent, const char *name, const double v[3],
                        const struct stats_ci *ci, int n)
{
    cJSON *a = cJSON_AddObjectToObject(parent, name);
    cJSON_AddNumberToObject(a, "min", v[0]);
    cJSON_AddNumberToObject(a, "median", v[1]);
    cJSON_AddNumberToObject(a, "max", v[2]);
    report_ci_json(a, ci, n);
}

/* The figures of the median run and the latency, first in "result". */
static void figures_json(cJSON *res, const struct run_plan *p, const struct run_summary *s)
{
    const struct run_fig *fm = &s->figs[s->med];
    double us_med = s->us[s->med];
    cJSON_AddStringToObject(res, "op", p->o->update ? "write" : "read");
    cJSON_AddStringToObject(res, "store", layout_kind_name(p->kind));
    cJSON_AddStringToObject(res, "api", api_name(p));
    if (p->is_db) {
        cJSON_AddNumberToObject(res, "page_size", (double)p->desc.page_size);
        cJSON_AddNumberToObject(res, "cache_size", (double)p->desc.cache_size);
    }
    cJSON_AddNumberToObject(res, "count", (double)fm->count);
    cJSON_AddNumberToObject(res, "misses", (double)fm->misses);
    cJSON_AddNumberToObject(res, "bytes", (double)fm->bytes);
    cJSON_AddNumberToObject(res, "seconds", fm->seconds);
    cJSON_AddNumberToObject(res, "us_per_blob", us_med);
    cJSON_AddNumberToObject(res, "mb_per_s", s->mb[s->med]);
    if (p->is_db)
        cJSON_AddStringToObject(res, "jmode", fm->jmode);
    if (layout_is_kv(p->kind)) {
        cJSON_AddStringToObject(res, "engine_version", store_kv_version(p->kind));
        if (p->kind == LAYOUT_LMDB)
            cJSON_AddNumberToObject(res, "page_size", (double)p->desc.page_size);
        else
            cJSON_AddNumberToObject(res, "block_cache", (double)p->desc.block_cache);
    }
    if (s->merged) {
        cJSON_AddItemToObject(res, "latency", report_hist_json(s->merged));
        double tc = timer_cost_ns();
        cJSON_AddNumberToObject(res, "timer_ns", tc);
        cJSON_AddNumberToObject(res, "timer_share", us_med > 0 ? tc / (us_med * 1000.0) : 0);
    }
    cJSON *runs = cJSON_AddArrayToObject(res, "runs");
    for (int i = 0; i < s->nruns; i++)
        cJSON_AddItemToArray(runs, run_json(&s->figs[i], s->us[i], s->mb[i]));
    cJSON *rep = cJSON_AddObjectToObject(res, "repeat");
    spread_json(rep, "us_per_blob", s->us_spread, &s->us_ci, s->nruns);
    spread_json(rep, "mb_per_s", s->mb_spread, &s->mb_ci, s->nruns);
}

/* The parts that depend on options, after the figures. */
static void extras_json(cJSON *res, const struct run_plan *p, const struct run_summary *s)
{
    const struct run_opts *o = p->o;
    if (o->cold) {
        cJSON *cj = cJSON_AddObjectToObject(res, "cold");
        cJSON_AddStringToObject(cj, "method", COLDCACHE_METHOD);
        cJSON_AddNumberToObject(cj, "resident_fraction", s->resident_max);
        cJSON_AddBoolToObject(cj, "effective", s->cold_effective);
        cJSON_AddNumberToObject(cj, "storage_bytes_per_blob", s->storage_per_blob);
    }
    if (o->threads > 1)
        cJSON_AddNumberToObject(res, "threads", (double)o->threads);
    if (o->verify) {
        cJSON *v = cJSON_AddObjectToObject(res, "verify");
        if (p->vs == RUN_VERIFY_UNVERIFIABLE) {
            cJSON_AddStringToObject(v, "status", "unverifiable");
        } else {
            cJSON_AddStringToObject(v, "status", "ok");
            cJSON_AddNumberToObject(v, "checked", (double)s->checked);
            cJSON_AddNumberToObject(v, "unverifiable", (double)s->unverifiable);
        }
    }
    if (o->stats && s->io_sum.ok) {
        cJSON *io = cJSON_AddObjectToObject(res, "io");
        for (int k = 0; k < 7; k++)
            cJSON_AddNumberToObject(io, runstats_io_labels[k].key, (double)s->io_sum.v[k]);
    }
    if (s->integrity.ran) {
        cJSON *arr = cJSON_AddArrayToObject(res, "integrity_check");
        for (int i = 0; i < s->integrity.n; i++)
            cJSON_AddItemToArray(arr, cJSON_CreateString(s->integrity.rows[i]));
    }
    if (p->missing_keys >= 0)
        cJSON_AddNumberToObject(res, "missing_keys", (double)p->missing_keys);
}

static void report_json(const struct run_plan *p, const struct run_summary *s)
{
    cJSON *j = report_json_new("run", p->o->path);
    cJSON_AddItemToObject(j, "options", options_json(p));
    cJSON *res = cJSON_AddObjectToObject(j, "result");
    figures_json(res, p, s);
    extras_json(res, p, s);
    report_json_print(j);
}

/* The lines before SQLite's: cold-cache residency, --stats, misses. */
static void text_preamble(const struct run_plan *p, const struct run_summary *s, const char *cmd)
{
    const struct run_opts *o = p->o;
    const struct run_fig *fm = &s->figs[s->med];
    if (p->is_db && o->fsync)
        cli_warn(cmd, "--fsync applies to files; ignored for a database (see --nosync)");
    if (o->cold)
        for (int i = 0; i < s->nruns; i++) {
            printf("Cold cache, run %d: %.1f%% of %lld pages resident before the run "
                   "(evicted by %s)\n", i + 1, 100.0 * s->figs[i].resident,
                   (long long)s->figs[i].cst.pages, COLDCACHE_METHOD);
            if (!coldcache_is_cold(s->figs[i].resident))
                printf("Cold cache, run %d: eviction did not take hold; this run is NOT cold\n",
                       i + 1);
        }
    if (o->stats)
        runstats_print(&fm->stats, &s->io_sum);
    if (fm->misses)
        printf("%lld cycles due to %lld misses\n", (long long)(fm->count + fm->misses),
               (long long)fm->misses);
}

/* SQLite's kvtest's lines, with its labels. */
static void text_upstream(const struct run_plan *p, const struct run_summary *s, const char *rw)
{
    const struct run_opts *o = p->o;
    const struct run_fig *fm = &s->figs[s->med];
    if (p->kind == LAYOUT_LMDB)
        printf("LMDB version: %s\n", store_kv_version(p->kind));
    if (p->kind == LAYOUT_ROCKSDB)
        printf("RocksDB version: %s, block cache %lld bytes\n", store_kv_version(p->kind),
               (long long)p->desc.block_cache);
    if (layout_is_kv(p->kind) && (o->nosync || o->multitrans))
        printf("%s%s%s\n", o->nosync ? "--nosync" : "", o->nosync && o->multitrans ? " " : "",
               o->multitrans ? "--multitrans" : "");
    if (p->is_db) {
        printf("SQLite version: %s\n", store_db_version());
        for (int i = 0; i < s->integrity.n; i++)
            printf("integrity-check: %s\n", s->integrity.rows[i]);
    }
    printf("--count %lld --max-id %lld --%s", (long long)o->count, (long long)p->max_id,
           run_order_name(o->order));
    if (o->order == ORDER_ZIPF)
        printf(" %g", o->zipf);
    printf("\n");
    if (p->is_db) {
        printf("--cache-size %lld --jmode %s\n", (long long)p->desc.cache_size,
               fm->jmode[0] ? fm->jmode : "???");
        printf("--mmap %lld%s\n", (long long)o->mmap, o->blob_api ? " --blob-api" : "");
        if (o->nosync)
            printf("--nosync\n");
        if (o->synchronous)
            printf("--synchronous %s\n", o->synchronous);
    }
    if (p->desc.page_size)
        printf("%s page size: %lld\n", p->kind == LAYOUT_LMDB ? "LMDB" : "Database",
               (long long)p->desc.page_size);
    printf("Total elapsed time: %.3f\n", fm->seconds);
    printf("Microseconds per BLOB %s: %.3f\n", rw, s->us[s->med]);
    printf("Content %s rate: %.1f MB/s\n", rw, s->mb[s->med]);
}

/* Our lines, after upstream's. */
static void text_extras(const struct run_plan *p, const struct run_summary *s, const char *rw)
{
    const struct run_opts *o = p->o;
    const struct run_fig *fm = &s->figs[s->med];
    char label[64];
    snprintf(label, sizeof label, "Latency per BLOB %s", rw);
    if (s->merged)
        report_print_latency(stdout, label, s->merged);
    if (s->nruns > 1 || o->warmup)
        printf("Repeat %d (after %lld warm-up): us per BLOB min %.3f median %.3f max %.3f; "
               "MB/s min %.1f median %.1f max %.1f\n", s->nruns, (long long)o->warmup,
               s->us_spread[0], s->us_spread[1], s->us_spread[2], s->mb_spread[0],
               s->mb_spread[1], s->mb_spread[2]);
    if (s->nruns > 1) {
        report_print_median_ci("us per BLOB", &s->us_ci, s->nruns, 3);
        report_print_median_ci("MB/s", &s->mb_ci, s->nruns, 1);
    }
    if (o->threads > 1)
        printf("Threads: %lld readers, total throughput %.0f blobs/s\n", (long long)o->threads,
               fm->seconds > 0 ? (double)(fm->count + fm->misses) / fm->seconds : 0.0);
    if (o->cold)
        printf("Bytes read from storage per blob: %.0f%s\n", s->storage_per_blob,
               s->cold_effective ? "" : " (not a cold run: eviction did not take hold)");
    if (!o->verify)
        return;
    if (p->vs == RUN_VERIFY_UNVERIFIABLE) {
        printf("Verify: unverifiable (sampled blobs carry no kvtest checksum: "
               "data not made by kvtest)\n");
        return;
    }
    printf("Verify: ok, %lld blobs checked%s", (long long)s->checked,
           o->update ? " (read back after the update)" : "");
    if (s->unverifiable)
        printf(p->vs == RUN_VERIFY_USER ? ", %lld of the user's files (no kvtest checksum)"
                                    : ", %lld too small to carry a checksum",
               (long long)s->unverifiable);
    printf("\n");
}

int run_report(const struct run_plan *p, const struct run_summary *s, const char *cmd)
{
    if (p->o->out.json) {
        report_json(p, s);
    } else {
        const char *rw = p->o->update ? "write" : "read";
        text_preamble(p, s, cmd);
        text_upstream(p, s, rw);
        text_extras(p, s, rw);
    }
    fflush(stdout);
    return s->integrity.bad;
}

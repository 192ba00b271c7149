/* run_out: the result of "kvtest run" as text (the upstream lines first,
 * then ours) or as one JSON object (schema in report.h). */
#include <stdio.h>
#include <string.h>

#include "commands/run_int.h"
#include "measure/clock.h"
#include "base/cli.h"
#include "stores/layout.h"
#include "measure/report.h"
#include "sqlite3.h"

const char *run_order_name(enum order_kind k)
{
    switch (k) {
    case ORDER_DESC: return "desc";
    case ORDER_RANDOM: return "random";
    case ORDER_ZIPF: return "zipf";
    default: return "asc";
    }
}

static cJSON *options_json(const struct run_opts *o, int64_t max_id)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "count", (double)o->count);
    cJSON_AddNumberToObject(j, "max_id", (double)max_id);
    cJSON_AddNumberToObject(j, "start", (double)o->start);
    cJSON_AddStringToObject(j, "order", run_order_name(o->order));
    cJSON_AddNumberToObject(j, "zipf", o->zipf);
    cJSON_AddNumberToObject(j, "seed", (double)o->seed);
    cJSON_AddBoolToObject(j, "blob_api", o->blob_api);
    cJSON_AddNumberToObject(j, "cache_size", (double)o->cache_size);
    cJSON_AddNumberToObject(j, "mmap", (double)o->mmap);
    if (o->jmode)
        cJSON_AddStringToObject(j, "jmode", o->jmode);
    else
        cJSON_AddNullToObject(j, "jmode");
    cJSON_AddBoolToObject(j, "nosync", o->nosync);
    if (o->synchronous)
        cJSON_AddStringToObject(j, "synchronous", o->synchronous);
    else
        cJSON_AddNullToObject(j, "synchronous");
    cJSON_AddBoolToObject(j, "fsync", o->fsync);
    cJSON_AddBoolToObject(j, "nocheckpoint", o->nocheckpoint);
    cJSON_AddBoolToObject(j, "multitrans", o->multitrans);
    cJSON_AddBoolToObject(j, "update", o->update);
    cJSON_AddBoolToObject(j, "integrity_check", o->integrity_check);
    cJSON_AddBoolToObject(j, "stats", o->stats);
    cJSON_AddNumberToObject(j, "repeat", (double)o->repeat);
    cJSON_AddNumberToObject(j, "warmup", (double)o->warmup);
    cJSON_AddBoolToObject(j, "cold", o->cold);
    if (o->fadvise < 0)
        cJSON_AddNullToObject(j, "fadvise");
    else
        cJSON_AddStringToObject(j, "fadvise", o->fadvise ? "random" : "normal");
    cJSON_AddNumberToObject(j, "threads", (double)o->threads);
    cJSON_AddBoolToObject(j, "verify", o->verify);
    cJSON_AddBoolToObject(j, "latency", o->latency);
    return j;
}

static int integrity(const char *path, cJSON *r, int print, const char *cmd)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int bad = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK) {
        int rc = cli_fail(cmd, "%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return rc;
    }
    cJSON *arr = r ? cJSON_AddArrayToObject(r, "integrity_check") : NULL;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (!t)
            t = "";
        if (strcmp(t, "ok") != 0)
            bad = 1;
        if (print)
            printf("integrity-check: %s\n", t);
        if (arr)
            cJSON_AddItemToArray(arr, cJSON_CreateString(t));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return bad;
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

int run_emit(const struct run_summary *s, const char *cmd)
{
    const struct run_opts *o = s->o;
    enum layout_kind kind = s->kind;
    int is_db = s->is_db;
    int64_t max_id = s->max_id, page_size = s->page_size, cache_size = s->cache_size;
    int64_t threads = s->threads;
    int nruns = s->nruns;
    const struct run_fig *figs = s->figs;
    const struct run_fig *fm = &figs[s->med];
    const double *us = s->us, *mb = s->mb;
    const double *us_spread = s->us_spread, *mb_spread = s->mb_spread;
    double us_med = us[s->med], mb_med = mb[s->med];
    int64_t cycles_med = fm->count + fm->misses;
    double resident_max = s->resident_max, storage_per_blob = s->storage_per_blob;
    int cold_effective = s->cold_effective;
    const struct io_counters io_sum = s->io_sum;
    const struct hist *merged = s->merged;
    enum verify_state vs = s->vs;
    int64_t checked_after = s->checked_after, unver_after = s->unver_after;
    const char *op = o->update ? "write" : "read";
    const char *rw = op;
    const char *method = RUN_COLD_METHOD;
    const double cold_threshold = RUN_COLD_THRESHOLD;
    char jmode[32];
    int ret = 0;

    if (o->json && !o->quiet) {
        cJSON *j = report_json_new("run", o->path);
        cJSON_AddItemToObject(j, "options", options_json(o, max_id));
        cJSON *res = cJSON_AddObjectToObject(j, "result");
        cJSON_AddStringToObject(res, "op", op);
        cJSON_AddStringToObject(res, "store", layout_kind_name(kind));
        cJSON_AddStringToObject(res, "api", !is_db ? "stdio" : o->blob_api ? "blob" : "sql");
        if (is_db) {
            cJSON_AddNumberToObject(res, "page_size", (double)page_size);
            cJSON_AddNumberToObject(res, "cache_size", (double)cache_size);
        }
        cJSON_AddNumberToObject(res, "count", (double)fm->count);
        cJSON_AddNumberToObject(res, "misses", (double)fm->misses);
        cJSON_AddNumberToObject(res, "bytes", (double)fm->bytes);
        cJSON_AddNumberToObject(res, "seconds", fm->seconds);
        cJSON_AddNumberToObject(res, "us_per_blob", us_med);
        cJSON_AddNumberToObject(res, "mb_per_s", mb_med);
        if (is_db)
            cJSON_AddStringToObject(res, "jmode", fm->jmode);
        if (merged) {
            cJSON_AddItemToObject(res, "latency", report_hist_json(merged));
            double tc = timer_cost_ns();
            cJSON_AddNumberToObject(res, "timer_ns", tc);
            cJSON_AddNumberToObject(res, "timer_share", us_med > 0 ? tc / (us_med * 1000.0) : 0);
        }
        cJSON *runs = cJSON_AddArrayToObject(res, "runs");
        for (int i = 0; i < nruns; i++) {
            cJSON *x = cJSON_CreateObject();
            cJSON_AddNumberToObject(x, "seconds", figs[i].seconds);
            cJSON_AddNumberToObject(x, "us_per_blob", us[i]);
            cJSON_AddNumberToObject(x, "mb_per_s", mb[i]);
            cJSON_AddNumberToObject(x, "bytes", (double)figs[i].bytes);
            cJSON_AddNumberToObject(x, "count", (double)figs[i].count);
            cJSON_AddNumberToObject(x, "misses", (double)figs[i].misses);
            cJSON_AddNumberToObject(x, "storage_read_bytes", (double)figs[i].io_read);
            cJSON_AddNumberToObject(x, "storage_write_bytes", (double)figs[i].io_write);
            if (figs[i].cold) {
                cJSON *cj = cJSON_AddObjectToObject(x, "cold");
                cJSON_AddNumberToObject(cj, "pages", (double)figs[i].cst.pages);
                cJSON_AddNumberToObject(cj, "resident_pages", (double)figs[i].cst.resident);
                cJSON_AddNumberToObject(cj, "resident_fraction", figs[i].resident);
                cJSON_AddNumberToObject(cj, "files", (double)figs[i].cst.files);
                cJSON_AddNumberToObject(cj, "errors", (double)figs[i].cst.errors);
            }
            cJSON_AddItemToArray(runs, x);
        }
        cJSON *rep = cJSON_AddObjectToObject(res, "repeat");
        cJSON *a = cJSON_AddObjectToObject(rep, "us_per_blob");
        cJSON_AddNumberToObject(a, "min", us_spread[0]);
        cJSON_AddNumberToObject(a, "median", us_spread[1]);
        cJSON_AddNumberToObject(a, "max", us_spread[2]);
        a = cJSON_AddObjectToObject(rep, "mb_per_s");
        cJSON_AddNumberToObject(a, "min", mb_spread[0]);
        cJSON_AddNumberToObject(a, "median", mb_spread[1]);
        cJSON_AddNumberToObject(a, "max", mb_spread[2]);
        if (o->cold) {
            cJSON *cj = cJSON_AddObjectToObject(res, "cold");
            cJSON_AddStringToObject(cj, "method", method);
            cJSON_AddNumberToObject(cj, "resident_fraction", resident_max);
            cJSON_AddBoolToObject(cj, "effective", cold_effective);
            cJSON_AddNumberToObject(cj, "storage_bytes_per_blob", storage_per_blob);
        }
        if (threads > 1)
            cJSON_AddNumberToObject(res, "threads", (double)threads);
        if (o->verify) {
            cJSON *v = cJSON_AddObjectToObject(res, "verify");
            if (vs == VERIFY_UNVERIFIABLE) {
                cJSON_AddStringToObject(v, "status", "unverifiable");
            } else {
                int64_t chk = 0, unv = 0;
                for (int i = 0; i < nruns; i++)
                    chk += figs[i].checked, unv += figs[i].unverifiable;
                cJSON_AddStringToObject(v, "status", "ok");
                cJSON_AddNumberToObject(v, "checked", (double)(chk + checked_after));
                cJSON_AddNumberToObject(v, "unverifiable", (double)(unv + unver_after));
            }
        }
        if (o->stats && io_sum.ok) {
            cJSON *io = cJSON_AddObjectToObject(res, "io");
            for (int k = 0; k < 7; k++)
                cJSON_AddNumberToObject(io, runstats_io_labels[k].key, (double)io_sum.v[k]);
        }
        if (is_db && o->integrity_check) {
            if (integrity(o->path, res, 0, cmd) != 0)
                ret = 1;
        }
        report_json_print(j);
    } else if (!o->quiet) {
        if (is_db && o->fsync)
            cli_warn(cmd, "--fsync applies to files; ignored for a database (see --nosync)");
        if (o->cold)
            for (int i = 0; i < nruns; i++) {
                printf("Cold cache, run %d: %.1f%% of %lld pages resident before the run "
                       "(evicted by %s)\n", i + 1, 100.0 * figs[i].resident,
                       (long long)figs[i].cst.pages, method);
                if (figs[i].resident > cold_threshold)
                    printf("Cold cache, run %d: eviction did not take hold; this run is NOT cold\n",
                           i + 1);
            }
        if (o->stats)
            runstats_print(&fm->stats, &io_sum);
        if (fm->misses)
            printf("%lld cycles due to %lld misses\n", (long long)cycles_med,
                   (long long)fm->misses);
        if (is_db) {
            printf("SQLite version: %s\n", sqlite3_libversion());
            if (o->integrity_check && integrity(o->path, NULL, 1, cmd) != 0)
                ret = 1;
        }
        printf("--count %lld --max-id %lld --%s", (long long)o->count, (long long)max_id,
               run_order_name(o->order));
        if (o->order == ORDER_ZIPF)
            printf(" %g", o->zipf);
        printf("\n");
        if (is_db) {
            snprintf(jmode, sizeof jmode, "%s", fm->jmode[0] ? fm->jmode : "???");
            printf("--cache-size %lld --jmode %s\n", (long long)cache_size, jmode);
            printf("--mmap %lld%s\n", (long long)o->mmap, o->blob_api ? " --blob-api" : "");
            if (o->nosync)
                printf("--nosync\n");
            if (o->synchronous)
                printf("--synchronous %s\n", o->synchronous);
        }
        if (page_size)
            printf("Database page size: %lld\n", (long long)page_size);
        printf("Total elapsed time: %.3f\n", fm->seconds);
        printf("Microseconds per BLOB %s: %.3f\n", rw, us_med);
        printf("Content %s rate: %.1f MB/s\n", rw, mb_med);
        /* Beyond SQLite's kvtest. */
        char label[64];
        snprintf(label, sizeof label, "Latency per BLOB %s", rw);
        if (merged)
            report_print_latency(stdout, label, merged);
        if (nruns > 1 || o->warmup)
            printf("Repeat %d (after %lld warm-up): us per BLOB min %.3f median %.3f max %.3f; "
                   "MB/s min %.1f median %.1f max %.1f\n", nruns, (long long)o->warmup,
                   us_spread[0], us_spread[1], us_spread[2], mb_spread[0], mb_spread[1],
                   mb_spread[2]);
        if (threads > 1)
            printf("Threads: %lld readers, total throughput %.0f blobs/s\n", (long long)threads,
                   fm->seconds > 0 ? (double)cycles_med / fm->seconds : 0.0);
        if (o->cold)
            printf("Bytes read from storage per blob: %.0f%s\n", storage_per_blob,
                   cold_effective ? "" : " (not a cold run: eviction did not take hold)");
        if (o->verify) {
            if (vs == VERIFY_UNVERIFIABLE) {
                printf("Verify: unverifiable (sampled blobs carry no kvtest checksum: "
                       "data not made by kvtest)\n");
            } else {
                int64_t chk = checked_after, unv = unver_after;
                for (int i = 0; i < nruns; i++)
                    chk += figs[i].checked, unv += figs[i].unverifiable;
                printf("Verify: ok, %lld blobs checked%s", (long long)chk,
                       o->update ? " (read back after the update)" : "");
                if (unv)
                    printf(", %lld too small to carry a checksum", (long long)unv);
                printf("\n");
            }
        }
    }
    fflush(stdout);
    return ret;
}

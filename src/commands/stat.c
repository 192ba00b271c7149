/* stat: describe a database (the labels of SQLite's kvtest), or a flat or
 * tree export (space accounting, src/space.c). */
#include <stdio.h>
#include <string.h>

#include "base/cli.h"
#include "commands/commands.h"
#include "stores/layout.h"
#include "measure/report.h"
#include "commands/space.h"
#include "sqlite3.h"
#include "stores/store.h"
#include "stores/kv/store_kv.h"
#include "stores/walk.h"
#include "measure/sizedist.h"
#include <stdlib.h>
#include <stdint.h>

const char help_stat[] =
    "Usage: kvtest stat PATH [options]\n"
    "\n"
    "Describe PATH. For a database, the lines of SQLite's kvtest:\n"
    "  Number of entries, Average/Minimum/Maximum value size, Page-size,\n"
    "  Page-count, Freelist-count, Integrity-check\n"
    "followed by space accounting (file size, allocated bytes, payload\n"
    "bytes, page utilisation). For a flat or tree export: number of files,\n"
    "apparent bytes, allocated bytes and directory overhead. For lmdb:DIR or\n"
    "rocksdb:DIR: the entry lines, the engine's own figures (LMDB's pages in\n"
    "use as mdb_stat counts them; RocksDB's SST files) and bytes on disk.\n"
    "\n"
    "Then, for a database or any directory, the size distribution of the\n"
    "blobs (files): count, min, p10, p50, p90, p99, max, mean (nearest-rank\n"
    "percentiles, exact) and a one-line histogram by powers of two, each\n"
    "bucket named by its lower bound (4Ki:12 = 12 sizes in [4096, 8192)).\n"
    "In a directory, regular files of 1 byte or more count; empty files,\n"
    "symbolic links (never followed) and special files are counted apart.\n"
    "--json adds \"size_distribution\" with the buckets and the sizes\n"
    "themselves (all of them up to 100000, else 100000 evenly spaced\n"
    "quantiles), which \"kvtest init --sizes-from FILE\" reads back.\n"
    "\n"
    "Options:\n"
    "  --vacuum         run VACUUM on the database first\n"
    "  --json           print one JSON object instead of text\n"
    "  --csv            the --json fields as CSV, one row (the store)\n";

static int fail_db(const char *cmd, const char *path, sqlite3 *db)
{
    return cli_fail(cmd, "%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
}

/* Print the JSON object built so far if all went well; free it either way. */
static int json_finish(cJSON *j, int rc)
{
    if (j) {
        if (rc == 0)
            report_json_print(j);
        else
            cJSON_Delete(j);
    }
    return rc;
}

static int stat_vacuum(sqlite3 *db, const char *path, int json)
{
    if (!json) {
        printf("Vacuuming....");
        fflush(stdout);
    }
    if (sqlite3_exec(db, "VACUUM", NULL, NULL, NULL) != SQLITE_OK) {
        if (!json)
            printf("\n");
        return fail_db("stat", path, db);
    }
    if (!json)
        printf("       done\n");
    return 0;
}

/* Number of entries, average/min/max value size: SQLite kvtest's lines. */
static int stat_sizes(sqlite3 *db, const char *path, cJSON *r)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT count(*), min(length(v)), max(length(v)), avg(length(v)) "
                           "FROM kv", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return fail_db("stat", path, db);
    }
    long long n = sqlite3_column_int64(st, 0);
    long long avg = (long long)sqlite3_column_double(st, 3);
    long long mn = sqlite3_column_int64(st, 1), mx = sqlite3_column_int64(st, 2);
    if (r) {
        cJSON_AddNumberToObject(r, "entries", (double)n);
        cJSON_AddNumberToObject(r, "avg_size", sqlite3_column_double(st, 3));
        cJSON_AddNumberToObject(r, "min_size", (double)mn);
        cJSON_AddNumberToObject(r, "max_size", (double)mx);
    } else {
        printf("Number of entries:  %8lld\n", n);
        printf("Average value size: %8lld\n", avg);
        printf("Minimum value size: %8lld\n", mn);
        printf("Maximum value size: %8lld\n", mx);
    }
    sqlite3_finalize(st);
    return 0;
}

static int stat_pragmas(sqlite3 *db, const char *path, cJSON *r)
{
    static const struct {
        const char *sql, *label, *key;
    } pr[] = {
        {"PRAGMA page_size", "Page-size:          %8lld\n", "page_size"},
        {"PRAGMA page_count", "Page-count:         %8lld\n", "page_count"},
        {"PRAGMA freelist_count", "Freelist-count:     %8lld\n", "freelist_count"},
    };
    for (size_t i = 0; i < sizeof pr / sizeof pr[0]; i++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, pr[i].sql, -1, &st, NULL) != SQLITE_OK ||
            sqlite3_step(st) != SQLITE_ROW) {
            sqlite3_finalize(st);
            return fail_db("stat", path, db);
        }
        long long v = sqlite3_column_int64(st, 0);
        if (r)
            cJSON_AddNumberToObject(r, pr[i].key, (double)v);
        else
            printf(pr[i].label, v);
        sqlite3_finalize(st);
    }
    return 0;
}

static int stat_integrity(sqlite3 *db, const char *path, cJSON *r)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check(10)", -1, &st, NULL) != SQLITE_OK)
        return fail_db("stat", path, db);
    cJSON *ic = r ? cJSON_AddArrayToObject(r, "integrity_check") : NULL;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (r)
            cJSON_AddItemToArray(ic, cJSON_CreateString(t ? t : ""));
        else
            printf("Integrity-check:    %s\n", t ? t : "");
    }
    sqlite3_finalize(st);
    return s == SQLITE_DONE ? 0 : fail_db("stat", path, db);
}

/* The sizes of every blob, for the distribution. */
static int stat_db_dist(const char *path, cJSON *r)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int64_t *v = NULL, n = 0, cap = 0;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    /* length() reads the record header only, not the overflow chain. */
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "SELECT length(v) FROM kv", -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            int64_t *nv = realloc(v, (size_t)(cap = cap ? 2 * cap : 4096) * sizeof *v);
            if (!nv) {
                rc = SQLITE_NOMEM;
                break;
            }
            v = nv;
        }
        v[n++] = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(v);
        rc = rc == SQLITE_NOMEM ? cli_fail("stat", "%s: out of memory", path)
                                : fail_db("stat", path, db);
        sqlite3_close(db);
        return rc;
    }
    sqlite3_close(db);
    struct sizedist d;
    sizedist_own(&d, v, n);
    if (r)
        sizedist_json(&d, r);
    else
        sizedist_print(&d, stdout);
    sizedist_free(&d);
    return 0;
}

/* A directory: the distribution of its regular files' sizes. */
static int stat_dir_dist(const char *path, cJSON *r)
{
    struct walk w;
    char err[4200];
    if (walk_dir(path, INT64_MAX, &w, err, sizeof err) != 0) {
        walk_free(&w);
        return cli_fail("stat", "%s", err);
    }
    int64_t *v = malloc((size_t)(w.n ? w.n : 1) * sizeof *v);
    if (!v) {
        walk_free(&w);
        return cli_fail("stat", "%s: out of memory", path);
    }
    for (int64_t i = 0; i < w.n; i++)
        v[i] = w.f[i].size;
    struct sizedist d;
    sizedist_own(&d, v, w.n);
    if (r) {
        sizedist_json(&d, r);
        cJSON *o = cJSON_AddObjectToObject(r, "not_in_distribution");
        cJSON_AddNumberToObject(o, "empty_files", (double)w.empty);
        cJSON_AddNumberToObject(o, "symlinks", (double)w.symlinks);
        cJSON_AddNumberToObject(o, "special_files", (double)w.special);
        cJSON_AddNumberToObject(o, "unreadable", (double)w.unreadable);
    } else {
        sizedist_print(&d, stdout);
        if (w.empty || w.symlinks || w.special || w.unreadable)
            printf("Not in distribution: %lld empty, %lld symlinks, %lld special, "
                   "%lld unreadable\n", (long long)w.empty, (long long)w.symlinks,
                   (long long)w.special, (long long)w.unreadable);
    }
    sizedist_free(&d);
    walk_free(&w);
    return 0;
}

struct sizes {
    int64_t *v, n, cap;
    int oom;
};

static void add_size(void *arg, int64_t n)
{
    struct sizes *z = arg;
    if (z->n == z->cap) {
        int64_t cap = z->cap ? 2 * z->cap : 4096;
        int64_t *nv = realloc(z->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            z->oom = 1;
            return;
        }
        z->v = nv;
        z->cap = cap;
    }
    z->v[z->n++] = n;
}

/* lmdb:DIR or rocksdb:DIR: the entry lines of a database, the engine's
 * figures and the space, then the size distribution. */
static int stat_kv(const char *path, int json)
{
    struct store_kv_facts f;
    struct sizes z = {0};
    char err[4200];
    if (store_kv_facts(path, add_size, &z, &f, err, sizeof err) != 0 || z.oom) {
        free(z.v);
        return cli_fail("stat", "%s", z.oom ? "out of memory" : err);
    }
    struct sizedist d;
    sizedist_own(&d, z.v, z.n);
    cJSON *j = NULL, *r = NULL;
    enum layout_kind k = layout_prefix_kind(path);
    if (json) {
        j = report_json_new("stat", path);
        r = cJSON_AddObjectToObject(j, "result");
        cJSON_AddStringToObject(r, "layout", layout_kind_name(k));
        cJSON_AddStringToObject(r, "engine_version", store_kv_version(k));
        cJSON_AddNumberToObject(r, "entries", (double)f.entries);
        cJSON_AddNumberToObject(r, "avg_size", sizedist_mean(&d));
        cJSON_AddNumberToObject(r, "min_size", (double)sizedist_pct(&d, 0));
        cJSON_AddNumberToObject(r, "max_size", (double)sizedist_pct(&d, 100));
        cJSON_AddNumberToObject(r, "blob_bytes", (double)f.value_bytes);
    } else {
        printf("Store:              %s %s\n", k == LAYOUT_LMDB ? "LMDB" : "RocksDB",
               store_kv_version(k));
        printf("Number of entries:  %8lld\n", (long long)f.entries);
        printf("Average value size: %8lld\n", (long long)sizedist_mean(&d));
        printf("Minimum value size: %8lld\n", (long long)sizedist_pct(&d, 0));
        printf("Maximum value size: %8lld\n", (long long)sizedist_pct(&d, 100));
    }
    int rc = space_stat_kv(path, &f, r);
    if (rc == 0) {
        if (r)
            sizedist_json(&d, r);
        else
            sizedist_print(&d, stdout);
    }
    sizedist_free(&d);
    return json_finish(j, rc);
}

static int stat_db(const char *path, int vacuum, int json)
{
    char why[600];
    if (store_db_check(path, why, sizeof why) != 0)
        return cli_fail("stat", "%s", why);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, vacuum ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY,
                        NULL) != SQLITE_OK) {
        int rc = fail_db("stat", path, db);
        sqlite3_close(db);
        return rc;
    }
    cJSON *j = NULL, *r = NULL;
    if (json) {
        j = report_json_new("stat", path);
        r = cJSON_AddObjectToObject(j, "result");
        cJSON_AddStringToObject(r, "layout", "db");
    }
    int rc = vacuum ? stat_vacuum(db, path, json) : 0;
    if (rc == 0)
        rc = stat_sizes(db, path, r);
    if (rc == 0)
        rc = stat_pragmas(db, path, r);
    if (rc == 0)
        rc = stat_integrity(db, path, r);
    sqlite3_close(db);
    if (rc == 0) {
        fflush(stdout);
        rc = space_stat_db(path, r);
    }
    if (rc == 0)
        rc = stat_db_dist(path, r);
    return json_finish(j, rc);
}

int cmd_stat(int argc, char **argv)
{
    int vacuum = 0;
    struct report_out out = {0};
    char err[128];
    const struct cli_opt opts[] = {
        CLI_FLAG_OPT("vacuum", &vacuum),
        REPORT_OUT_OPTS(&out),
    };
    const char *path;
    int rc = cli_parse_one("stat", argc, argv, opts, CLI_COUNT(opts), &path,
                           "missing PATH (usage: kvtest stat PATH [--vacuum])");
    if (rc || (rc = cli_status("stat", report_out_begin(&out, NULL, err, sizeof err), err)))
        return rc;
    char why[600];
    enum layout_kind k = layout_detect(path, why, sizeof why);
    switch (k) {
    case LAYOUT_DB:
        return stat_db(path, vacuum, out.json);
    case LAYOUT_FLAT:
    case LAYOUT_TREE: {
        if (vacuum)
            return cli_usage("stat", "--vacuum applies to a database, and %s is a directory",
                             path);
        cJSON *j = NULL, *r = NULL;
        if (out.json) {
            j = report_json_new("stat", path);
            r = cJSON_AddObjectToObject(j, "result");
            cJSON_AddStringToObject(r, "layout", layout_kind_name(k));
        }
        int rc2 = space_stat_dir(path, r);
        if (rc2 == 0) {
            fflush(stdout);
            rc2 = stat_dir_dist(path, r);
        }
        return json_finish(j, rc2);
    }
    case LAYOUT_LMDB:
    case LAYOUT_ROCKSDB:
        if (vacuum)
            return cli_usage("stat", "--vacuum applies to a database, not to %s (%s)",
                             path, layout_kind_name(k));
        if (store_kv_missing(k))
            return cli_usage("stat", "%s: %s", path, store_kv_missing(k));
        return stat_kv(path, out.json);
    default:
        return cli_fail("stat", "%s", why);
    }
}

/* space: how much disk each layout really takes.
 *
 * Apparent size (st_size) is what the blobs hold; allocated size
 * (st_blocks * 512) is what the filesystem spends on them, rounded up to
 * whole blocks per file; the directories themselves (their entries, and for
 * a tree the 00/00 levels) are extra blocks a database does not need. The
 * article's "about 20% more space" for files is the sum of those two
 * overheads, so both are shown separately. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqlite3.h"
#include "base/cleanup.h"
#include "base/cli.h"
#include "commands/commands.h"
#include "measure/report.h"
#include "commands/space.h"
#include "commands/space_int.h"
#include "stores/layout.h"
#include "stores/kv/store_kv.h"


struct db_space {
    int64_t file_bytes, allocated;        /* the database file */
    int64_t wal_bytes, wal_allocated;     /* its -wal, if present */
    int64_t page_size, page_count, freelist;
    int64_t entries, blob_bytes;          /* rows of kv and sum(length(v)); -1 if no kv */
    int64_t payload;                      /* dbstat: payload bytes on all pages */
    int64_t used;                         /* dbstat: bytes in use on all pages */
};

static int64_t query_int(sqlite3 *db, const char *sql, int col, int *ok)
{
    sqlite3_stmt *st = NULL;
    int64_t v = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        *ok = 0;
        return 0;
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        v = sqlite3_column_int64(st, col);
    else if (rc != SQLITE_DONE)
        *ok = 0;
    sqlite3_finalize(st);
    return v;
}

/* 0 ok; 1 runtime failure (err set). */
static int db_measure(const char *path, struct db_space *s, char *err, size_t errcap)
{
    memset(s, 0, sizeof *s);
    s->entries = s->blob_bytes = -1;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return 1;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(err, errcap, "%s: not a database file", path);
        return 1;
    }
    s->file_bytes = (int64_t)sb.st_size;
    s->allocated = (int64_t)sb.st_blocks * 512;
    char wal[4096];
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (stat(wal, &sb) == 0) {
        s->wal_bytes = (int64_t)sb.st_size;
        s->wal_allocated = (int64_t)sb.st_blocks * 512;
    }

    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errcap, "%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return 1;
    }
    int ok = 1;
    s->page_size = query_int(db, "PRAGMA page_size", 0, &ok);
    s->page_count = query_int(db, "PRAGMA page_count", 0, &ok);
    s->freelist = query_int(db, "PRAGMA freelist_count", 0, &ok);
    if (!ok) {
        snprintf(err, errcap, "%s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return 1;
    }
    /* length() of a blob reads only the record header, not the overflow
     * chain, so this is cheap even for a large database. */
    int kv_ok = 1;
    int64_t n = query_int(db, "SELECT count(*) FROM kv", 0, &kv_ok);
    int64_t b = query_int(db, "SELECT total(length(v)) FROM kv", 0, &kv_ok);
    if (kv_ok) {
        s->entries = n;
        s->blob_bytes = b;
    }
    ok = 1;
    s->payload = query_int(db, "SELECT total(payload) FROM dbstat", 0, &ok);
    s->used = query_int(db, "SELECT total(pgsize - unused) FROM dbstat", 0, &ok);
    if (!ok) {
        /* A build without dbstat is not a failure: payload is unknown. */
        s->payload = s->used = -1;
    }
    sqlite3_close(db);
    return 0;
}

int space_stat_dir(const char *path, cJSON *json)
{
    struct dir_space d;
    char err[4200];
    int rc = space_dir_measure(path, &d, err, sizeof err);
    if (rc != 0)
        return rc == 2 ? cli_usage("stat", "%s", err) : cli_fail("stat", "%s", err);
    int64_t total = d.allocated + d.dir_bytes;
    if (json) {
        if (!cJSON_GetObjectItemCaseSensitive(json, "layout"))
            cJSON_AddStringToObject(json, "layout", d.tree ? "tree" : "flat");
        space_dir_json(&d, 1, json);
        return 0;
    }
    space_print_line("Layout:", d.tree ? "tree" : "flat");
    space_print_int("Number of files:", d.files);
    space_print_int("Directories:", d.dirs);
    if (d.others)
        space_print_int("Other entries:", d.others);
    space_print_int("Average file size:", d.files ? (d.apparent + d.files / 2) / d.files : 0);
    space_print_int("Apparent bytes:", d.apparent);
    space_print_int("Allocated bytes:", d.allocated);
    space_print_int("Directory overhead:", d.dir_bytes);
    space_print_int("Total on disk:", total);
    space_print_pct("Space overhead:", space_pct(total - d.apparent, d.apparent),
                    "on disk vs apparent");
    return 0;
}

int space_stat_db(const char *path, cJSON *json)
{
    struct db_space s;
    char err[4200];
    if (db_measure(path, &s, err, sizeof err) != 0)
        return cli_fail("stat", "%s", err);
    int64_t pages_bytes = s.page_size * s.page_count;
    int64_t total = s.allocated + s.wal_allocated;
    if (json) {
        cJSON_AddNumberToObject(json, "file_bytes", (double)s.file_bytes);
        cJSON_AddNumberToObject(json, "allocated_bytes", (double)s.allocated);
        cJSON_AddNumberToObject(json, "wal_bytes", (double)s.wal_bytes);
        cJSON_AddNumberToObject(json, "total_bytes", (double)total);
        if (s.blob_bytes >= 0)
            cJSON_AddNumberToObject(json, "blob_bytes", (double)s.blob_bytes);
        if (s.payload >= 0) {
            cJSON_AddNumberToObject(json, "payload_bytes", (double)s.payload);
            cJSON_AddNumberToObject(json, "page_utilisation",
                                    pages_bytes ? (double)s.used / (double)pages_bytes : 0.0);
        }
        return 0;
    }
    space_print_int("File size:", s.file_bytes);
    space_print_int("Allocated bytes:", s.allocated);
    if (s.wal_bytes || s.wal_allocated) {
        space_print_int("WAL file size:", s.wal_bytes);
        space_print_int("WAL allocated:", s.wal_allocated);
    }
    if (s.blob_bytes >= 0)
        space_print_int("Blob bytes:", s.blob_bytes);
    if (s.payload >= 0) {
        space_print_int("Payload bytes:", s.payload);
        space_print_pct("Page utilisation:", space_pct(s.used, pages_bytes), NULL);
    }
    if (s.blob_bytes > 0)
        space_print_pct("Space overhead:", space_pct(total - s.blob_bytes, s.blob_bytes),
                        "on disk vs blob bytes");
    return 0;
}

/* ---- kvtest space ---------------------------------------------------- */

const char help_space[] =
    "Usage: kvtest space DBFILE STORE... [--json]\n"
    "\n"
    "Disk space of the same blobs in each layout, side by side: the database\n"
    "and up to four of its exports: a flat DIR, a tree TREE, lmdb:DIR and\n"
    "rocksdb:DIR (made with \"kvtest export DBFILE DIR\", \"... TREE --tree\",\n"
    "\"... lmdb:DIR\" and \"... rocksdb:DIR\").\n"
    "\n"
    "Columns:\n"
    "  files       regular files (1 for the database; its -wal counts too)\n"
    "  content     bytes the blobs hold: sum(length(v)) for the database,\n"
    "              total file size for an export, the values' bytes in LMDB\n"
    "              and RocksDB\n"
    "  allocated   bytes the filesystem spends on the files (st_blocks*512)\n"
    "  dirs        bytes spent on the directories themselves\n"
    "  on disk     allocated + dirs\n"
    "  vs db       on disk relative to the database (+20% = 20% more)\n"
    "\n"
    "Options:\n"
    "  --json      one JSON object with every figure\n"
    "  --csv       the --json fields as CSV: one row per layout (layouts)\n"
    "\n"
    "\"kvtest stat PATH\" prints the same figures for one layout, with the\n"
    "database's payload bytes and page utilisation from SQLite's dbstat.\n"
    "For LMDB a line gives the pages in use as mdb_stat counts them (its\n"
    "\"Number of pages used\" times the page size); for RocksDB its SST bytes.\n";

struct row {
    const char *layout, *path;
    int64_t files, content, allocated, dir_bytes;
};

static cJSON *row_json(const struct row *r, int64_t db_total)
{
    cJSON *o = cJSON_CreateObject();
    int64_t total = r->allocated + r->dir_bytes;
    cJSON_AddStringToObject(o, "layout", r->layout);
    cJSON_AddStringToObject(o, "path", r->path);
    cJSON_AddNumberToObject(o, "files", (double)r->files);
    cJSON_AddNumberToObject(o, "content_bytes", (double)r->content);
    cJSON_AddNumberToObject(o, "allocated_bytes", (double)r->allocated);
    cJSON_AddNumberToObject(o, "directory_bytes", (double)r->dir_bytes);
    cJSON_AddNumberToObject(o, "total_bytes", (double)total);
    cJSON_AddNumberToObject(o, "vs_db", db_total ? (double)total / (double)db_total : 0.0);
    return o;
}

/* Measure the database and each export, then print them side by side. */
static int space_compare(const char **pos, int npos, int json)
{
    int rc;
    char err[4200];
    struct db_space s;
    if (db_measure(pos[0], &s, err, sizeof err) != 0)
        return cli_fail("space", "%s", err);
    if (s.entries < 0)
        return cli_fail("space", "%s: no kv table (not a kvtest database)", pos[0]);

    struct row rows[5];
    struct store_kv_facts kvf[5];
    int nrows = 0;
    rows[nrows++] = (struct row){"database", pos[0], 1 + (s.wal_bytes > 0),
                                 s.blob_bytes, s.allocated + s.wal_allocated, 0};
    for (int i = 1; i < npos; i++) {
        struct dir_space d;
        enum layout_kind kk = layout_prefix_kind(pos[i]);
        if (kk != LAYOUT_MISSING) {
            const char *missing = store_kv_missing(kk);
            if (missing)
                return cli_usage("space", "%s: %s", pos[i], missing);
            char why[600];
            if (layout_detect(pos[i], why, sizeof why) != kk)
                return cli_fail("space", "%s", why);
        }
        rc = space_dir_measure(layout_fs_path(pos[i]), &d, err, sizeof err);
        if (rc == 2)
            return cli_usage("space", "%s", err);
        if (rc != 0)
            return cli_fail("space", "%s", err);
        int64_t blobs = d.files, content = d.apparent;
        memset(&kvf[nrows], 0, sizeof kvf[nrows]);
        if (kk != LAYOUT_MISSING) {
            if (store_kv_facts(pos[i], NULL, NULL, &kvf[nrows], err, sizeof err) != 0)
                return cli_fail("space", "%s", err);
            blobs = kvf[nrows].entries;
            content = kvf[nrows].value_bytes;
        }
        if (blobs != s.entries)
            cli_warn("space", "%s holds %" PRId64 " %s but %s has %" PRId64
                     " blobs: not the same data, the comparison is unfair",
                     pos[i], blobs, kk != LAYOUT_MISSING ? "blobs" : "files", pos[0],
                     s.entries);
        rows[nrows++] = (struct row){kk != LAYOUT_MISSING ? layout_kind_name(kk)
                                     : d.tree ? "tree" : "flat",
                                     pos[i], d.files, content, d.allocated, d.dir_bytes};
    }
    int64_t db_total = rows[0].allocated;

    if (json) {
        cJSON *o = report_json_new("space", pos[0]);
        if (!o)
            return cli_fail("space", "out of memory");
        cJSON *arr = cJSON_AddArrayToObject(o, "layouts");
        for (int i = 0; i < nrows; i++) {
            cJSON *rj = row_json(&rows[i], db_total);
            if (i > 0 && layout_prefix_kind(rows[i].path) != LAYOUT_MISSING)
                space_kv_engine(rows[i].path, &kvf[i], rj);
            cJSON_AddItemToArray(arr, rj);
        }
        if (s.payload >= 0) {
            cJSON *dbo = cJSON_AddObjectToObject(o, "database");
            cJSON_AddNumberToObject(dbo, "page_size", (double)s.page_size);
            cJSON_AddNumberToObject(dbo, "page_count", (double)s.page_count);
            cJSON_AddNumberToObject(dbo, "freelist_count", (double)s.freelist);
            cJSON_AddNumberToObject(dbo, "payload_bytes", (double)s.payload);
            int64_t pb = s.page_size * s.page_count;
            cJSON_AddNumberToObject(dbo, "page_utilisation",
                                    pb ? (double)s.used / (double)pb : 0.0);
        }
        report_json_print(o);
        return 0;
    }

    printf("%-9s %9s %14s %14s %12s %14s %8s  %s\n", "layout", "files", "content",
           "allocated", "dirs", "on disk", "vs db", "path");
    for (int i = 0; i < nrows; i++) {
        const struct row *r = &rows[i];
        int64_t total = r->allocated + r->dir_bytes;
        char vs[32];
        if (i == 0)
            snprintf(vs, sizeof vs, "%s", "-");
        else
            snprintf(vs, sizeof vs, "%+.1f%%", space_pct(total - db_total, db_total));
        printf("%-9s %9" PRId64 " %14" PRId64 " %14" PRId64 " %12" PRId64 " %14" PRId64
               " %8s  %s\n", r->layout, r->files, r->content, r->allocated, r->dir_bytes,
               total, vs, r->path);
    }
    if (s.payload >= 0)
        printf("Database: page size %" PRId64 ", %" PRId64 " pages (%" PRId64
               " free), page utilisation %.1f%%\n", s.page_size, s.page_count,
               s.freelist, space_pct(s.used, s.page_size * s.page_count));
    for (int i = 1; i < nrows; i++)
        if (layout_prefix_kind(rows[i].path) != LAYOUT_MISSING)
            space_kv_engine(rows[i].path, &kvf[i], NULL);
    return 0;
}

int cmd_space(int argc, char **argv)
{
    struct report_out out = {0};
    char err[128];
    const struct cli_opt opts[] = {
        REPORT_OUT_OPTS(&out),
    };
    const char *pos[5];
    int npos = 0;
    int rc = cli_parse("space", argc, argv, opts, CLI_COUNT(opts), pos, 5, &npos);
    if (rc || (rc = cli_status("space", report_out_begin(&out, "layouts", err, sizeof err), err)))
        return rc;
    if (npos < 2)
        return cli_usage("space", "expected DBFILE STORE... (try: kvtest help space)");
    /* space creates nothing, but a walk over a large tree takes a while:
     * Ctrl-C ends it with the same one line and status as the others. */
    cleanup_begin("space");
    rc = space_compare(pos, npos, out.json);
    cleanup_end();
    return rc;
}

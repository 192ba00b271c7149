/* export_kv: "kvtest export DBFILE lmdb:DIR" and "rocksdb:DIR": every blob
 * of the database put into a new key-value store, in key order, by one
 * writer (LMDB has one writer at a time; RocksDB takes the keys sorted, so
 * one writer appending them is its fast path too). The store is built in
 * the directory export_stage.c made and takes DIR's place only when
 * complete, as a file export does. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "commands/export/export_int.h"
#include "measure/progress.h"
#include "stores/db_scan.h"
#include "stores/kv/store_kv.h"

/* An engine's message into r->err, naming the store as the user will look
 * for it: DIR, not the directory it is built in (as a file export names
 * DIR/file). A message that names no directory gets DIR in front. */
static void kv_fail(struct export_run *r, const char *msg)
{
    const char *build = r->build, *dir = r->o->dir, *hit = strstr(msg, build);
    size_t cap = sizeof r->err, n = 0, bl = strlen(build);
    if (!hit || !bl) {
        snprintf(r->err, cap, "%s: %s", dir, msg);
        return;
    }
    for (const char *p = msg; *p && n + 1 < cap;) {
        if (strncmp(p, build, bl) == 0) {
            for (const char *d = dir; *d && n + 1 < cap; d++)
                r->err[n++] = *d;
            p += bl;
        } else {
            r->err[n++] = *p++;
        }
    }
    r->err[n] = '\0';
}

int export_kv_run(struct export_run *r, const char *cmd)
{
    const struct export_opts *o = r->o;
    char err[512];   /* one engine or SQLite message */
    if (db_scan_bounds(o->db, &r->lo, &r->hi, &r->count, err, sizeof err) != 0) {
        snprintf(r->err, sizeof r->err, "%s: %s", o->db, err);
        return -1;
    }
    /* The database file's size bounds its blob bytes: enough to size an
     * LMDB map without reading every blob twice. */
    struct stat st;
    int64_t bytes = stat(o->db, &st) == 0 ? (int64_t)st.st_size : 0;
    struct store_kv_writer *w;
    if (store_kv_create(&w, o->kv, r->build, r->count, bytes, err, sizeof err) != 0) {
        kv_fail(r, err);
        return -1;
    }
    struct db_scan *scan = NULL;
    int rc = r->count > 0 ? db_scan_open(&scan, o->db, r->lo, r->hi, err, sizeof err) : 0;
    if (rc != 0)
        snprintf(r->err, sizeof r->err, "%s: %s", o->db, err);
    struct progress pr;
    progress_start(&pr, cmd, r->count);
    int64_t k, n;
    const void *v;
    int more = 0;
    while (rc == 0 && scan && !cleanup_interrupted() && (more = db_scan_next(scan, &k, &v, &n)) == 1) {
        if (k < 0) {
            snprintf(r->err, sizeof r->err, "%s: negative key: not a kvtest database", o->db);
            rc = -1;
        } else if (store_kv_put(w, k, v ? v : "", n, err, sizeof err) != 0) {
            kv_fail(r, err);
            rc = -1;
        } else {
            r->done++;
            r->bytes += n;
            if ((r->done & 63) == 0)
                progress_update(&pr, r->done, r->bytes);
        }
    }
    if (rc == 0 && more < 0) {
        snprintf(r->err, sizeof r->err, "%s: %s", o->db, db_scan_error(scan));
        rc = -1;
    }
    progress_end(&pr);
    db_scan_close(scan);
    if (rc == 0 && cleanup_interrupted()) {
        snprintf(r->err, sizeof r->err, "interrupted");
        rc = -1;
    }
    if (rc != 0) {
        store_kv_abandon(w);
        return -1;
    }
    if (store_kv_finish(w, err, sizeof err) != 0) {
        kv_fail(r, err);
        return -1;
    }
    return 0;
}

/* store_db: blobs in an SQLite table kv(k INTEGER PRIMARY KEY, v BLOB),
 * read by SQL or by incremental blob I/O, as SQLite's kvtest does. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3.h"
#include "stores/store_int.h"
#include "stores/blobsum.h"
#include "measure/coldcache.h"

/* The database store's private state. */
struct db_store {
    struct store base;         /* first: struct store * <-> struct db_store * */
    const char *path;
    int update;
    struct store_db_opts o;
    sqlite3 *db;
    sqlite3_stmt *stmt;        /* SELECT v / UPDATE kv SET v=kvtest_fresh(...) */
    sqlite3_blob *blob;        /* incremental blob handle, reopened per key */
    int in_txn;
    int64_t page_size, cache_size;
    char jmode[32];
    rng_t *fresh_rng;          /* content source of kvtest_fresh() for this call */
    int64_t fresh_n;           /* size of the last blob kvtest_fresh() made */
    struct store_buf buf;
};

static struct db_store *db_of(struct store *s)
{
    return (struct db_store *)s;
}

static int fail(struct db_store *s, char *err, size_t errcap, const char *what)
{
    snprintf(err, errcap, "%s: %s: %s", s->path, what,
             s->db ? sqlite3_errmsg(s->db) : "out of memory");
    return -1;
}

static int exec(struct db_store *s, const char *sql, char *err, size_t errcap)
{
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return fail(s, err, errcap, sql);
    return 0;
}

/* One-row, one-column pragma read. */
static int pragma_text(struct db_store *s, const char *sql, char *out, size_t cap)
{
    sqlite3_stmt *st = NULL;
    int ok = -1;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(out, cap, "%s", t ? (const char *)t : "");
        ok = 0;
    }
    sqlite3_finalize(st);
    return ok;
}

/* kvtest_fresh(n): n fresh pseudo-random bytes, sealed, from the rng of the
 * update in progress; the SQL update path's counterpart of the
 * randomblob(remember(length(v))) trick of SQLite's kvtest, but with
 * content --verify can check afterwards. */
static void fresh_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    struct db_store *s = sqlite3_user_data(ctx);
    int64_t n = sqlite3_value_int64(argv[0]);
    if (n <= 0 || !s->fresh_rng) {
        s->fresh_n = 0;
        sqlite3_result_zeroblob(ctx, 0);
        return;
    }
    if (store_buf_reserve(&s->buf, n) != 0) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    rng_fill(s->fresh_rng, s->buf.p, (size_t)n);
    blobsum_seal(s->buf.p, (size_t)n);
    s->fresh_n = n;
    sqlite3_result_blob64(ctx, s->buf.p, (sqlite3_uint64)n, SQLITE_STATIC);
}

/* The PRAGMAs of the options, in the order SQLite's kvtest issues them,
 * then the facts describe() reports. */
static int db_configure(struct db_store *s, const struct store_db_opts *o, char *err, size_t errcap)
{
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA mmap_size=%" PRId64, o->mmap);
    if (exec(s, sql, err, errcap))
        return -1;
    snprintf(sql, sizeof sql, "PRAGMA cache_size=%" PRId64, o->cache_size);
    if (exec(s, sql, err, errcap))
        return -1;
    if (o->nosync && exec(s, "PRAGMA synchronous=OFF", err, errcap))
        return -1;
    if (o->synchronous) {
        /* Validated by run against a fixed list, so safe to splice in. */
        snprintf(sql, sizeof sql, "PRAGMA synchronous=%s", o->synchronous);
        if (exec(s, sql, err, errcap))
            return -1;
    }
    char v[64];
    if (pragma_text(s, "PRAGMA page_size", v, sizeof v) != 0)
        return fail(s, err, errcap, "cannot read the page size");
    s->page_size = strtoll(v, NULL, 10);
    if (pragma_text(s, "PRAGMA cache_size", v, sizeof v) == 0)
        s->cache_size = strtoll(v, NULL, 10);
    if (o->jmode) {
        snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s", o->jmode);
        char got[32];
        if (pragma_text(s, sql, got, sizeof got) != 0)
            return fail(s, err, errcap, "cannot set the journal mode");
    }
    if (o->nocheckpoint && exec(s, "PRAGMA wal_autocheckpoint=0", err, errcap))
        return -1;
    if (pragma_text(s, "PRAGMA journal_mode", s->jmode, sizeof s->jmode) != 0)
        snprintf(s->jmode, sizeof s->jmode, "???");
    return 0;
}

static int db_close(struct store *base, char *err, size_t errcap);

static int db_open(struct store **out, const struct store_opts *so, char *err, size_t errcap)
{
    struct db_store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    s->base.ops = &store_db_ops;
    s->path = so->path;
    s->update = so->update;
    s->o = so->db;
    if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        fail(s, err, errcap, "cannot open");
        goto fail;
    }
    sqlite3_busy_timeout(s->db, 5000);
    if (so->fadvise >= 0)
        coldcache_advise_path(s->path, so->fadvise);
    if (db_configure(s, &s->o, err, errcap) != 0)
        goto fail;
    const char *q = "SELECT v FROM kv WHERE k=?1";
    if (s->update && !s->o.blob_api) {
        if (sqlite3_create_function(s->db, "kvtest_fresh", 1, SQLITE_UTF8, s, fresh_func,
                                    NULL, NULL) != SQLITE_OK) {
            fail(s, err, errcap, "cannot register kvtest_fresh");
            goto fail;
        }
        q = "UPDATE kv SET v=kvtest_fresh(length(v)) WHERE k=?1";
    }
    /* Prepared here, not lazily inside the loop: a missing kv table is
     * reported before any timing starts to mean something. */
    if (sqlite3_prepare_v2(s->db, q, -1, &s->stmt, NULL) != SQLITE_OK) {
        fail(s, err, errcap, "cannot prepare");
        goto fail;
    }
    if (!s->o.multitrans) {
        if (exec(s, "BEGIN", err, errcap))
            goto fail;
        s->in_txn = 1;
    }
    *out = &s->base;
    return 0;
fail:;
    char dummy[8];
    db_close(&s->base, dummy, sizeof dummy);
    return -1;
}

/* The row is absent, or its value is not a blob we can read. */
static int is_missing_msg(const char *m)
{
    return strncmp(m, "no such rowid", 13) == 0 || strncmp(m, "cannot open value of type", 25) == 0;
}

static int blob_seek(struct db_store *s, int64_t key, char *err, size_t errcap)
{
    int rc;
    if (!s->blob)
        rc = sqlite3_blob_open(s->db, "main", "kv", "v", key, s->update, &s->blob);
    else
        rc = sqlite3_blob_reopen(s->blob, key);
    if (rc == SQLITE_OK)
        return 1;
    const char *m = sqlite3_errmsg(s->db);
    int missing = is_missing_msg(m);
    if (!missing)
        snprintf(err, errcap, "%s: key %" PRId64 ": %s", s->path, key, m);
    /* A failed reopen leaves the handle aborted: start afresh next time. */
    if (s->blob) {
        sqlite3_blob_close(s->blob);
        s->blob = NULL;
    }
    return missing ? 0 : -1;
}

/* Position the blob handle on key and make room for its bytes in s->buf.
 * 1 = ready (*len bytes), 0 = missing or empty, -1 = error in err. */
static int blob_at(struct db_store *s, int64_t key, int64_t *len, char *err, size_t errcap)
{
    int rc = blob_seek(s, key, err, errcap);
    if (rc <= 0)
        return rc;
    *len = sqlite3_blob_bytes(s->blob);
    if (*len <= 0)
        return 0;
    if (store_buf_reserve(&s->buf, *len) != 0) {
        snprintf(err, errcap, "out of memory for a %" PRId64 "-byte blob", *len);
        return -1;
    }
    return 1;
}

static int key_error(struct db_store *s, int64_t key, char *err, size_t errcap)
{
    snprintf(err, errcap, "%s: key %" PRId64 ": %s", s->path, key, sqlite3_errmsg(s->db));
    return -1;
}

/* The incremental-blob path (--blob-api) of db_read (r NULL: read into
 * s->buf, *data) and db_update (r given: rewrite in place with fresh bytes
 * from r). 1 = done, *n bytes; 0 = missing; -1 = error in err. */
static int blob_io(struct db_store *s, int64_t key, rng_t *r, const void **data, int64_t *n,
                   char *err, size_t errcap)
{
    int64_t len;
    int rc = blob_at(s, key, &len, err, errcap);
    if (rc <= 0)
        return rc;
    if (r) {
        rng_fill(r, s->buf.p, (size_t)len);
        blobsum_seal(s->buf.p, (size_t)len);
        rc = sqlite3_blob_write(s->blob, s->buf.p, (int)len, 0);
    } else {
        rc = sqlite3_blob_read(s->blob, s->buf.p, (int)len, 0);
    }
    if (rc != SQLITE_OK)
        return key_error(s, key, err, errcap);
    if (data)
        *data = s->buf.p;
    *n = len;
    return 1;
}

static int db_read(struct store *base, int64_t key, const void **data, int64_t *n, char *err,
                   size_t errcap)
{
    struct db_store *s = db_of(base);
    *n = 0;
    if (s->o.blob_api)
        return blob_io(s, key, NULL, data, n, err, errcap);
    /* Reset here rather than after the step, so the column pointer stays
     * valid for the caller (verification) until the next read. */
    sqlite3_reset(s->stmt);
    sqlite3_bind_int64(s->stmt, 1, key);
    int rc = sqlite3_step(s->stmt);
    if (rc == SQLITE_ROW) {
        int64_t len = sqlite3_column_bytes(s->stmt, 0);
        if (len <= 0)
            return 0;
        *data = sqlite3_column_blob(s->stmt, 0);
        *n = len;
        return 1;
    }
    if (rc == SQLITE_DONE)
        return 0;
    return key_error(s, key, err, errcap);
}

static int db_update(struct store *base, int64_t key, rng_t *r, int64_t *n, char *err, size_t errcap)
{
    struct db_store *s = db_of(base);
    *n = 0;
    if (s->o.blob_api)
        return blob_io(s, key, r, NULL, n, err, errcap);
    s->fresh_rng = r;
    s->fresh_n = 0;
    sqlite3_bind_int64(s->stmt, 1, key);
    int rc = sqlite3_step(s->stmt);
    sqlite3_reset(s->stmt);
    s->fresh_rng = NULL;
    if (rc != SQLITE_DONE)
        return key_error(s, key, err, errcap);
    if (sqlite3_changes64(s->db) == 0 || s->fresh_n == 0)
        return 0;
    *n = s->fresh_n;
    return 1;
}

static int db_commit(struct store *base, char *err, size_t errcap)
{
    struct db_store *s = db_of(base);
    if (s->stmt)
        sqlite3_reset(s->stmt);
    if (s->blob) {
        sqlite3_blob_close(s->blob);
        s->blob = NULL;
    }
    if (!s->in_txn)
        return 0;
    s->in_txn = 0;
    return exec(s, "COMMIT", err, errcap);
}

static int db_close(struct store *base, char *err, size_t errcap)
{
    struct db_store *s = db_of(base);
    int ret = 0;
    if (s->blob)
        sqlite3_blob_close(s->blob);
    sqlite3_finalize(s->stmt);
    if (s->db && sqlite3_close(s->db) != SQLITE_OK) {
        snprintf(err, errcap, "%s: close: %s", s->path, sqlite3_errmsg(s->db));
        sqlite3_close_v2(s->db);
        ret = -1;
    }
    store_buf_free(&s->buf);
    free(s);
    return ret;
}

static void db_describe(struct store *base, struct store_desc *d, int with_stats)
{
    struct db_store *s = db_of(base);
    d->page_size = s->page_size;
    d->cache_size = s->cache_size;
    snprintf(d->jmode, sizeof d->jmode, "%s", s->jmode);
    d->user_blobs = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM sqlite_schema WHERE name='kv_path'", -1, &st,
                           NULL) == SQLITE_OK) {
        d->user_blobs = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
    }
    if (with_stats)
        runstats_sql_take(&d->stats, s->db);
}

const struct store_ops store_db_ops = {
    .name = "db",
    .open = db_open,
    .read = db_read,
    .update = db_update,
    .commit = db_commit,
    .close = db_close,
    .describe = db_describe,
};

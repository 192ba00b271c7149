/* db_create: the SQLite side of "kvtest init" (see db_create.h). The
 * statements, pragmas and their order decide the bytes of the file, which
 * must not change from one version of kvtest to the next: same options,
 * same seed, same database. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3.h"
#include "stores/db_create.h"
#include "stores/wbuf.h"

struct db_create {
    sqlite3 *db;
    sqlite3_stmt *ins;    /* INSERT INTO kv, between begin and puts_done */
};

int db_create_open(struct db_create **out, const char *path, int coalesce)
{
    struct db_create *c = calloc(1, sizeof *c);
    *out = c;
    if (!c)
        return SQLITE_NOMEM;
    return sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE,
                           coalesce ? wbuf_vfs_name() : NULL);
}

int db_create_randomblob(struct db_create *c, int64_t pagesize, int64_t count, int64_t size,
                         int64_t variance)
{
    char *sql = sqlite3_mprintf(
        "PRAGMA page_size=%lld;"
        "VACUUM;"
        "BEGIN;"
        "CREATE TABLE kv(k INTEGER PRIMARY KEY, v BLOB);"
        "WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x+1 FROM c WHERE x<%lld)"
        " INSERT INTO kv(k,v) SELECT x, randomblob(%lld+(random()%%(%lld))) FROM c;"
        "COMMIT;",
        (long long)pagesize, (long long)count, (long long)size, (long long)variance + 1);
    int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
    sqlite3_free(sql);
    return rc;
}

int db_create_begin(struct db_create *c, int64_t pagesize)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "PRAGMA page_size=%lld; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
             "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536;"
             "CREATE TABLE kv(k INTEGER PRIMARY KEY, v BLOB); BEGIN;",
             (long long)pagesize);
    int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "INSERT INTO kv(k,v) VALUES(?1,?2)", -1, &c->ins, NULL);
    return rc;
}

int db_create_put(struct db_create *c, int64_t k, const void *blob, int64_t n)
{
    sqlite3_bind_int64(c->ins, 1, k);
    sqlite3_bind_blob64(c->ins, 2, blob, (sqlite3_uint64)n, SQLITE_STATIC);
    int rc = sqlite3_step(c->ins);
    sqlite3_reset(c->ins);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int db_create_put_chunked(struct db_create *c, int64_t k, int64_t n, unsigned char *buf,
                          int64_t chunk, db_create_read_fn *read, void *ctx, int *rrc)
{
    sqlite3_bind_int64(c->ins, 1, k);
    sqlite3_bind_zeroblob64(c->ins, 2, (sqlite3_uint64)n);
    int rc = sqlite3_step(c->ins);
    sqlite3_reset(c->ins);
    if (rc != SQLITE_DONE)
        return rc;
    sqlite3_blob *b = NULL;
    rc = sqlite3_blob_open(c->db, "main", "kv", "v", k, 1, &b);
    *rrc = 0;
    for (int64_t off = 0; rc == SQLITE_OK && *rrc == 0 && off < n; off += chunk) {
        int64_t len = n - off < chunk ? n - off : chunk;
        *rrc = read(ctx, buf, len, off + len == n);
        if (*rrc == 0)
            rc = sqlite3_blob_write(b, buf, (int)len, (int)off);
    }
    int rc2 = sqlite3_blob_close(b);
    if (rc == SQLITE_OK)
        rc = rc2;
    if (rc == SQLITE_OK && *rrc != 0) {
        char sql[80];
        snprintf(sql, sizeof sql, "DELETE FROM kv WHERE k=%lld", (long long)k);
        rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
    }
    return rc;
}

int db_create_batch(struct db_create *c)
{
    return sqlite3_exec(c->db, "COMMIT; BEGIN", NULL, NULL, NULL);
}

void db_create_puts_done(struct db_create *c)
{
    if (!c)
        return;
    sqlite3_finalize(c->ins);
    c->ins = NULL;
}

int db_create_paths(struct db_create *c, int64_t count, db_create_path_fn *path_of, void *ctx)
{
    int rc = sqlite3_exec(c->db,
                          "CREATE TABLE kv_path(k INTEGER PRIMARY KEY, path TEXT NOT NULL)",
                          NULL, NULL, NULL);
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "INSERT INTO kv_path(k,path) VALUES(?1,?2)", -1, &st,
                                NULL);
    for (int64_t k = 1; rc == SQLITE_OK && k <= count; k++) {
        sqlite3_bind_int64(st, 1, k);
        sqlite3_bind_text(st, 2, path_of(ctx, k), -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    sqlite3_finalize(st);
    return rc;
}

int db_create_commit(struct db_create *c)
{
    return sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
}

void db_create_error(const struct db_create *c, char *err, size_t errcap)
{
    sqlite3 *db = c ? c->db : NULL;
    /* SQLite says only "disk I/O error": the shim and the VFS know why. */
    int e = wbuf_last_errno() ? wbuf_last_errno() : db ? sqlite3_system_errno(db) : 0;
    snprintf(err, errcap, "%s%s%s", db ? sqlite3_errmsg(db) : "out of memory", e ? ": " : "",
             e ? strerror(e) : "");
}

int db_create_close(struct db_create *c, char *err, size_t errcap)
{
    db_create_puts_done(c);
    if (sqlite3_close(c->db) == SQLITE_OK) {
        free(c);
        return 0;
    }
    snprintf(err, errcap, "%s", sqlite3_errmsg(c->db));
    db_create_discard(c);
    return -1;
}

void db_create_discard(struct db_create *c)
{
    if (!c)
        return;
    db_create_puts_done(c);
    sqlite3_close_v2(c->db);
    free(c);
}

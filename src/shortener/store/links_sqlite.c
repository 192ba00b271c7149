/* links_sqlite: the embedded link store, one SQLite connection (links.h
 * for the contract, links_int.h for the operations table). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sqlite3.h"
#include "measure/clock.h"
#include "shortener/store/links_sqlite_int.h"


void links_sqlite_set_err(struct links_sqlite *l, const char *what)
{
    snprintf(l->base.err, sizeof l->base.err, "%s: %s", what,
             l->db ? sqlite3_errmsg(l->db) : "out of memory");
}

int links_sqlite_exec(struct links_sqlite *l, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(l->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(l->base.err, sizeof l->base.err, "%s", msg ? msg : sqlite3_errmsg(l->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* Busy handler: SQLite's own sleeps 1, 2, 5, 10 ... ms between retries,
 * which turns a writer lock held for tens of microseconds (one WAL commit)
 * into multi-millisecond stalls for every queued writer. Retry after short,
 * growing, jittered sleeps (50 us .. 1 ms) until LINKS_BUSY_MS has passed. */
static int on_busy(void *arg, int count)
{
    struct links_sqlite *l = arg;
    uint64_t now = clock_now_ns();
    if (count == 0)
        l->busy_since_ns = now;
    else if (now - l->busy_since_ns > (uint64_t)LINKS_BUSY_MS * 1000000u)
        return 0;
    long us = count < 5 ? 50L << count : 1000;
    us += (long)(now % (uint64_t)(us / 2 + 1));   /* jitter: queued writers spread out */
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
    return 1;
}

/* Connection settings shared by the service and init: WAL so readers never
 * wait for the writer; synchronous=NORMAL, which in WAL mode still makes
 * every commit durable against a crash of this process (the WAL is written
 * before the commit returns; only an OS crash or power loss can drop the
 * last commits); a busy timeout so concurrent writers queue. */
int links_sqlite_configure(struct links_sqlite *l, int sqlite_cache)
{
    sqlite3_busy_handler(l->db, on_busy, l);
    if (links_sqlite_exec(l, "PRAGMA journal_mode=WAL") != 0 ||
        links_sqlite_exec(l, "PRAGMA synchronous=NORMAL") != 0)
        return -1;
    if (!sqlite_cache && (links_sqlite_exec(l, "PRAGMA cache_size=0") != 0 ||
                          links_sqlite_exec(l, "PRAGMA temp_store=0") != 0))
        return -1;
    return 0;
}

static const struct links_ops sqlite_ops;

/* --sqlite-exclusive: a read transaction sizes the database file (an
 * fstat per lookup) whenever the WAL holds no frame, as it holds none
 * after the last connection closed and checkpointed it away. A write of
 * the header page that changes nothing (user_version set to its own value)
 * leaves a frame; the WAL then stays non-empty while the process runs (a
 * checkpoint's restart happens inside the next write, which adds frames).
 * Only where no frame is there yet, so one connection of the process
 * writes it. 0, or -1 with the reason in l->base.err. */
static int keep_wal_frame(struct links_sqlite *l)
{
    int frames = -1, ckpt = -1;
    if (sqlite3_wal_checkpoint_v2(l->db, NULL, SQLITE_CHECKPOINT_PASSIVE, &frames, &ckpt) !=
        SQLITE_OK) {
        links_sqlite_set_err(l, "checkpoint");
        return -1;
    }
    if (frames > 0)
        return 0;
    if (links_sqlite_exec(l, "BEGIN IMMEDIATE") != 0)
        return -1;
    sqlite3_stmt *q = NULL;
    int ok = sqlite3_prepare_v2(l->db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK &&
             sqlite3_step(q) == SQLITE_ROW;
    int uv = ok ? sqlite3_column_int(q, 0) : 0;
    if (!ok)
        links_sqlite_set_err(l, "user_version");
    sqlite3_finalize(q);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version=%d", uv);
    if (!ok || links_sqlite_exec(l, sql) != 0 || links_sqlite_exec(l, "COMMIT") != 0) {
        sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

struct links_sqlite *links_sqlite_new(const char *path, int flags, const char *vfs, char *err,
                                      size_t errcap)
{
    struct links_sqlite *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    l->base.ops = &sqlite_ops;
    int rc = sqlite3_open_v2(path, &l->db, flags | SQLITE_OPEN_NOMUTEX, vfs);
    if (rc != SQLITE_OK) {
        snprintf(err, errcap, "%s: %s", path,
                 l->db ? sqlite3_errmsg(l->db) : "out of memory");
        links_close(&l->base);
        return NULL;
    }
    sqlite3_extended_result_codes(l->db, 1);
    return l;
}

int links_sqlite_prepare(struct links_sqlite *l)
{
    /* One lookup statement for both schemas: the planner finds the UNIQUE
     * index (seed) or the primary key (covering) by itself. The covering
     * table has no rowid to number new links, so the insert takes the next
     * id from its id index (one descent); the INSERT holds the write lock
     * from its first step, so two writers cannot read the same maximum. */
    const char *put = l->base.schema == LINKS_SCHEMA_COVERING
        ? "INSERT INTO links(link_hash, link_target, created_at, id) "
          "VALUES(?1, ?2, ?3, (SELECT coalesce(max(id), 0) + 1 FROM links))"
        : "INSERT INTO links(link_hash, link_target, created_at) VALUES(?1, ?2, ?3)";
    if (sqlite3_prepare_v3(l->db,
            "SELECT link_target FROM links WHERE link_hash=?1",
            -1, SQLITE_PREPARE_PERSISTENT, &l->get, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(l->db, put, -1, SQLITE_PREPARE_PERSISTENT, &l->put,
                           NULL) != SQLITE_OK) {
        links_sqlite_set_err(l, "prepare");
        return -1;
    }
    return 0;
}

struct links *links_sqlite_open(const char *path, const struct links_opts *o, char *err,
                                size_t errcap)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(err, errcap, "%s: not a regular file", path);
        return NULL;
    }
    if (sb.st_size == 0) {
        snprintf(err, errcap, "%s: empty file, not a links database "
                 "(create one with kvtest shortener init)", path);
        return NULL;
    }
    /* unix-excl: the process takes the file's lock for itself at the first
     * transaction and keeps the WAL index in its own memory, shared by its
     * connections; every read transaction then takes its WAL read mark in
     * memory instead of with fcntl on the -shm file, under a mutex held for
     * nanoseconds instead of around a system call. */
    struct links_sqlite *l = links_sqlite_new(path, SQLITE_OPEN_READWRITE,
                                              o->sqlite_exclusive ? "unix-excl" : NULL, err,
                                              errcap);
    if (!l)
        return NULL;
    /* SQLite quietly falls back to read-only on a write-protected file;
     * a service that cannot store links must not start. */
    if (sqlite3_db_readonly(l->db, "main") == 1) {
        snprintf(err, errcap, "%s: database is read-only", path);
        links_close(&l->base);
        return NULL;
    }
    int bad = links_sqlite_configure(l, o->sqlite_cache);
    if (!bad) {
        /* Checked by name so a database of the blob experiment gets a
         * clear message instead of "no such table". */
        sqlite3_stmt *q = NULL;
        int rc = sqlite3_prepare_v2(l->db,
            "SELECT sql LIKE '%WITHOUT ROWID%' FROM sqlite_schema "
            "WHERE type='table' AND name='links'",
            -1, &q, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(q);
        if (rc == SQLITE_ROW)   /* the schema is told by the table itself */
            l->base.schema = sqlite3_column_int(q, 0) ? LINKS_SCHEMA_COVERING
                                                 : LINKS_SCHEMA_SEED;
        if (rc != SQLITE_ROW) {
            if (rc == SQLITE_DONE)
                snprintf(l->base.err, sizeof l->base.err, "no links table "
                         "(create the database with kvtest shortener init)");
            else
                snprintf(l->base.err, sizeof l->base.err, "%s", sqlite3_errmsg(l->db));
            bad = 1;
        }
        sqlite3_finalize(q);
    }
    if (!bad && links_sqlite_prepare(l) != 0)
        bad = 1;
    if (!bad && o->sqlite_exclusive && keep_wal_frame(l) != 0)
        bad = 1;
    if (bad) {
        snprintf(err, errcap, "%s: %s", path, l->base.err);
        links_close(&l->base);
        return NULL;
    }
    return &l->base;
}

static void sqlite_close(struct links *base)
{
    struct links_sqlite *l = (struct links_sqlite *)base;
    sqlite3_finalize(l->get);
    sqlite3_finalize(l->put);
    sqlite3_close(l->db);
    free(l);
}

static enum links_rc sqlite_lookup(struct links *base, const char *id, size_t idlen,
                                   char *url, size_t cap, size_t *urllen)
{
    struct links_sqlite *l = (struct links_sqlite *)base;
    sqlite3_bind_text(l->get, 1, id, (int)idlen, SQLITE_STATIC);
    int rc = sqlite3_step(l->get);
    enum links_rc out;
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(l->get, 0);
        size_t n = (size_t)sqlite3_column_bytes(l->get, 0);
        if (!t || n >= cap) {
            snprintf(l->base.err, sizeof l->base.err, "stored URL of %zu bytes does not fit", n);
            out = LINKS_ERROR;
        } else {
            memcpy(url, t, n);
            url[n] = '\0';
            if (urllen)
                *urllen = n;
            out = LINKS_OK;
        }
    } else if (rc == SQLITE_DONE) {
        out = LINKS_NOTFOUND;
    } else {
        links_sqlite_set_err(l, "lookup");
        out = LINKS_ERROR;
    }
    sqlite3_reset(l->get);
    sqlite3_clear_bindings(l->get);
    return out;
}

/* Insert with one fresh id, retrying on collision. 10 tries: with 62^10
 * ids the chance of even one collision is negligible until the table holds
 * billions of rows, so running out means something else is wrong. */
enum links_rc links_sqlite_insert(struct links_sqlite *l, const char *url, size_t urllen,
                                  int64_t created, char *id,
                                  unsigned char *pool, size_t pooln, size_t *pos)
{
    for (int attempt = 0; attempt < 10; attempt++) {
        if (links_fill_id(id, LINKS_ID_LEN, pool, pooln, pos) != 0) {
            snprintf(l->base.err, sizeof l->base.err, "OS random generator failed: %s",
                     strerror(errno));
            return LINKS_ERROR;
        }
        sqlite3_bind_text(l->put, 1, id, LINKS_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_text(l->put, 2, url, (int)urllen, SQLITE_STATIC);
        sqlite3_bind_int64(l->put, 3, created);
        int rc = sqlite3_step(l->put);
        sqlite3_reset(l->put);
        sqlite3_clear_bindings(l->put);
        if (rc == SQLITE_DONE) {
            return LINKS_OK;
        }
        if (rc == SQLITE_CONSTRAINT_UNIQUE) {
            continue;
        }
        links_sqlite_set_err(l, "insert");
        return LINKS_ERROR;
    }
    snprintf(l->base.err, sizeof l->base.err, "no unused id after 10 tries");
    return LINKS_ERROR;
}

static enum links_rc sqlite_create(struct links *base, const char *url, size_t urllen,
                                   char id_out[LINKS_ID_LEN + 1])
{
    struct links_sqlite *l = (struct links_sqlite *)base;
    unsigned char pool[64];
    size_t pos = sizeof pool;
    enum links_rc rc = links_sqlite_insert(l, url, urllen, (int64_t)time(NULL), id_out,
                                   pool, sizeof pool, &pos);
    memset(pool, 0, sizeof pool);
    return rc;
}

static int64_t sqlite_foreach_id(struct links *base, int64_t limit,
                                 int (*fn)(void *ctx, const char *id, size_t len), void *ctx)
{
    struct links_sqlite *l = (struct links_sqlite *)base;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(l->db, "SELECT link_hash FROM links ORDER BY id LIMIT ?1",
                           -1, &q, NULL) != SQLITE_OK) {
        links_sqlite_set_err(l, "list ids");
        return -1;
    }
    sqlite3_bind_int64(q, 1, limit > 0 ? limit : -1);
    int64_t n = 0;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(q, 0);
        size_t len = (size_t)sqlite3_column_bytes(q, 0);
        n++;
        if (fn(ctx, id ? id : "", id ? len : 0) != 0) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE) {
        links_sqlite_set_err(l, "list ids");
        n = -1;
    }
    sqlite3_finalize(q);
    return n;
}


static int64_t sqlite_foreach_link(struct links *base, links_link_fn fn, void *ctx)
{
    struct links_sqlite *l = (struct links_sqlite *)base;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(l->db, "SELECT id, link_hash, link_target, created_at "
                                  "FROM links ORDER BY id",
                           -1, &q, NULL) != SQLITE_OK) {
        links_sqlite_set_err(l, "list links");
        return -1;
    }
    int64_t n = 0;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(q, 1);
        size_t idlen = (size_t)sqlite3_column_bytes(q, 1);
        const char *url = (const char *)sqlite3_column_text(q, 2);
        size_t urllen = (size_t)sqlite3_column_bytes(q, 2);
        n++;
        if (fn(ctx, sqlite3_column_int64(q, 0), id ? id : "", id ? idlen : 0, url ? url : "",
               url ? urllen : 0, sqlite3_column_int64(q, 3)) != 0) {
            rc = SQLITE_DONE;
            n = -1;   /* the callback failed: its reason is the caller's */
            break;
        }
    }
    if (rc != SQLITE_DONE) {
        links_sqlite_set_err(l, "list links");
        n = -1;
    }
    sqlite3_finalize(q);
    return n;
}

static const struct links_ops sqlite_ops = {
    .kind = LINKS_KIND_SQLITE,
    .lookup = sqlite_lookup,
    .create = sqlite_create,
    .foreach_id = sqlite_foreach_id,
    .foreach_link = sqlite_foreach_link,
    .close = sqlite_close,
};

/* links: SQLite link store. See links.h for the contract. */
#include "shortener/store/links.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sqlite3.h"
#include "measure/clock.h"
#include "measure/keys/rng.h"
#include "shortener/store/links_int.h"


static const char id_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

void links_set_err(struct links *l, const char *what)
{
    snprintf(l->err, sizeof l->err, "%s: %s", what,
             l->db ? sqlite3_errmsg(l->db) : "out of memory");
}

/* Map random bytes to the 62-letter alphabet without bias: bytes >= 248
 * (= 4 * 62) are rejected, so each letter has exactly 4 preimages. */
static int fill_id(char *id, size_t n, unsigned char *pool, size_t pooln,
                   size_t *pos)
{
    size_t k = 0;
    while (k < n) {
        if (*pos >= pooln) {
            if (rng_os_bytes(pool, pooln) != 0)
                return -1;
            *pos = 0;
        }
        unsigned char b = pool[(*pos)++];
        if (b < 248)
            id[k++] = id_alphabet[b % 62];
    }
    id[n] = '\0';
    return 0;
}

int links_exec(struct links *l, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(l->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(l->err, sizeof l->err, "%s", msg ? msg : sqlite3_errmsg(l->db));
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
    struct links *l = arg;
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
int links_configure(struct links *l, int sqlite_cache)
{
    sqlite3_busy_handler(l->db, on_busy, l);
    if (links_exec(l, "PRAGMA journal_mode=WAL") != 0 ||
        links_exec(l, "PRAGMA synchronous=NORMAL") != 0)
        return -1;
    if (!sqlite_cache &&
        (links_exec(l, "PRAGMA cache_size=0") != 0 || links_exec(l, "PRAGMA temp_store=0") != 0))
        return -1;
    return 0;
}

struct links *links_new(const char *path, int flags, char *err, size_t errcap)
{
    struct links *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    int rc = sqlite3_open_v2(path, &l->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errcap, "%s: %s", path,
                 l->db ? sqlite3_errmsg(l->db) : "out of memory");
        links_close(l);
        return NULL;
    }
    sqlite3_extended_result_codes(l->db, 1);
    return l;
}

int links_prepare(struct links *l)
{
    /* One lookup statement for both schemas: the planner finds the UNIQUE
     * index (seed) or the primary key (covering) by itself. The covering
     * table has no rowid to number new links, so the insert takes the next
     * id from its id index (one descent); the INSERT holds the write lock
     * from its first step, so two writers cannot read the same maximum. */
    const char *put = l->schema == LINKS_SCHEMA_COVERING
        ? "INSERT INTO links(link_hash, link_target, created_at, id) "
          "VALUES(?1, ?2, ?3, (SELECT coalesce(max(id), 0) + 1 FROM links))"
        : "INSERT INTO links(link_hash, link_target, created_at) VALUES(?1, ?2, ?3)";
    if (sqlite3_prepare_v3(l->db,
            "SELECT link_target FROM links WHERE link_hash=?1",
            -1, SQLITE_PREPARE_PERSISTENT, &l->get, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(l->db, put, -1, SQLITE_PREPARE_PERSISTENT, &l->put,
                           NULL) != SQLITE_OK) {
        links_set_err(l, "prepare");
        return -1;
    }
    return 0;
}

struct links *links_open(const char *path, int sqlite_cache, char *err, size_t errcap)
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
    struct links *l = links_new(path, SQLITE_OPEN_READWRITE, err, errcap);
    if (!l)
        return NULL;
    /* SQLite quietly falls back to read-only on a write-protected file;
     * a service that cannot store links must not start. */
    if (sqlite3_db_readonly(l->db, "main") == 1) {
        snprintf(err, errcap, "%s: database is read-only", path);
        links_close(l);
        return NULL;
    }
    int bad = links_configure(l, sqlite_cache);
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
            l->schema = sqlite3_column_int(q, 0) ? LINKS_SCHEMA_COVERING
                                                 : LINKS_SCHEMA_SEED;
        if (rc != SQLITE_ROW) {
            if (rc == SQLITE_DONE)
                snprintf(l->err, sizeof l->err, "no links table "
                         "(create the database with kvtest shortener init)");
            else
                snprintf(l->err, sizeof l->err, "%s", sqlite3_errmsg(l->db));
            bad = 1;
        }
        sqlite3_finalize(q);
    }
    if (!bad && links_prepare(l) != 0)
        bad = 1;
    if (bad) {
        snprintf(err, errcap, "%s: %s", path, l->err);
        links_close(l);
        return NULL;
    }
    return l;
}

void links_close(struct links *l)
{
    if (!l)
        return;
    sqlite3_finalize(l->get);
    sqlite3_finalize(l->put);
    sqlite3_close(l->db);
    free(l);
}

enum links_rc links_lookup(struct links *l, const char *id, size_t idlen,
                           char *url, size_t cap, size_t *urllen)
{
    if (idlen > LINKS_ID_MAX)   /* cannot exist; spares SQLite the work */
        return LINKS_NOTFOUND;
    sqlite3_bind_text(l->get, 1, id, (int)idlen, SQLITE_STATIC);
    int rc = sqlite3_step(l->get);
    enum links_rc out;
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(l->get, 0);
        size_t n = (size_t)sqlite3_column_bytes(l->get, 0);
        if (!t || n >= cap) {
            snprintf(l->err, sizeof l->err, "stored URL of %zu bytes does not fit", n);
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
        links_set_err(l, "lookup");
        out = LINKS_ERROR;
    }
    sqlite3_reset(l->get);
    sqlite3_clear_bindings(l->get);
    return out;
}

/* Insert with one fresh id, retrying on collision. 10 tries: with 62^10
 * ids the chance of even one collision is negligible until the table holds
 * billions of rows, so running out means something else is wrong. */
enum links_rc links_insert(struct links *l, const char *url, size_t urllen,
                                 int64_t created, char *id,
                                 unsigned char *pool, size_t pooln, size_t *pos)
{
    for (int attempt = 0; attempt < 10; attempt++) {
        if (fill_id(id, LINKS_ID_LEN, pool, pooln, pos) != 0) {
            snprintf(l->err, sizeof l->err, "OS random generator failed: %s",
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
        links_set_err(l, "insert");
        return LINKS_ERROR;
    }
    snprintf(l->err, sizeof l->err, "no unused id after 10 tries");
    return LINKS_ERROR;
}

enum links_rc links_create(struct links *l, const char *url, size_t urllen,
                           char id_out[LINKS_ID_LEN + 1])
{
    if (urllen > LINKS_URL_MAX) {
        snprintf(l->err, sizeof l->err, "URL longer than %d bytes", LINKS_URL_MAX);
        return LINKS_ERROR;
    }
    unsigned char pool[64];
    size_t pos = sizeof pool;
    enum links_rc rc = links_insert(l, url, urllen, (int64_t)time(NULL), id_out,
                                   pool, sizeof pool, &pos);
    memset(pool, 0, sizeof pool);
    return rc;
}

int64_t links_foreach_id(struct links *l, int64_t limit,
                         int (*fn)(void *ctx, const char *id, size_t len), void *ctx)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(l->db, "SELECT link_hash FROM links ORDER BY id LIMIT ?1",
                           -1, &q, NULL) != SQLITE_OK) {
        links_set_err(l, "list ids");
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
        links_set_err(l, "list ids");
        n = -1;
    }
    sqlite3_finalize(q);
    return n;
}

struct idvec {
    char *buf;
    int64_t n, cap;
    int oom;
};

static int idvec_add(void *ctx, const char *id, size_t len)
{
    struct idvec *v = ctx;
    if (len > LINKS_ID_MAX)   /* not one of ours; cannot be looked up anyway */
        return 0;
    if (v->n == v->cap) {
        int64_t cap = v->cap ? v->cap * 2 : 1024;
        char *nb = realloc(v->buf, (size_t)cap * (LINKS_ID_MAX + 1));
        if (!nb) {
            v->oom = 1;
            return -1;
        }
        v->buf = nb;
        v->cap = cap;
    }
    char *rec = v->buf + (size_t)v->n * (LINKS_ID_MAX + 1);
    memcpy(rec, id, len);
    rec[len] = '\0';
    v->n++;
    return 0;
}

int links_ids(struct links *l, int64_t limit, char **ids, int64_t *n)
{
    struct idvec v = {0};
    *ids = NULL;
    *n = 0;
    int64_t seen = links_foreach_id(l, limit, idvec_add, &v);
    if (seen < 0) {
        free(v.buf);
        return -1;
    }
    if (v.oom) {
        free(v.buf);
        snprintf(l->err, sizeof l->err, "out of memory");
        return -1;
    }
    *ids = v.buf;
    *n = v.n;
    return 0;
}

enum links_schema links_schema_of(const struct links *l)
{
    return l->schema;
}

const char *links_schema_name(enum links_schema s)
{
    return s == LINKS_SCHEMA_COVERING ? "covering" : "seed";
}

const char *links_errmsg(const struct links *l)
{
    return l->err;
}

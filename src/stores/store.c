/* store: dispatch to the database or the files implementation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stores/store_int.h"

int store_reserve(struct store *s, int64_t n)
{
    if (n <= s->bufcap)
        return 0;
    int64_t cap = n + n / 4 + 64;
    unsigned char *b = realloc(s->buf, (size_t)cap);
    if (!b)
        return -1;
    s->buf = b;
    s->bufcap = cap;
    return 0;
}

int store_open(struct store **out, const struct store_opts *o, char *err, int errlen)
{
    *out = NULL;
    struct store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    s->o = *o;
    int rc = o->kind == LAYOUT_DB ? store_db_open(s, err, errlen)
                                  : store_files_open(s, err, errlen);
    if (rc != 0) {
        char dummy[8];
        store_close(s, dummy, sizeof dummy);
        return -1;
    }
    *out = s;
    return 0;
}

int store_read(struct store *s, int64_t key, const void **data, int64_t *n, char *err, int errlen)
{
    return s->o.kind == LAYOUT_DB ? store_db_read(s, key, data, n, err, errlen)
                                  : store_files_read(s, key, data, n, err, errlen);
}

int store_update(struct store *s, int64_t key, rng_t *r, int64_t *n, char *err, int errlen)
{
    return s->o.kind == LAYOUT_DB ? store_db_update(s, key, r, n, err, errlen)
                                  : store_files_update(s, key, r, n, err, errlen);
}

int store_commit(struct store *s, char *err, int errlen)
{
    return s->o.kind == LAYOUT_DB ? store_db_commit(s, err, errlen) : 0;
}

int store_close(struct store *s, char *err, int errlen)
{
    if (!s)
        return 0;
    int rc = s->o.kind == LAYOUT_DB ? store_db_close(s, err, errlen)
                                    : store_files_close(s, err, errlen);
    free(s->buf);
    free(s->pathbuf);
    free(s);
    return rc;
}

int64_t store_page_size(const struct store *s) { return s->page_size; }
int64_t store_cache_size(const struct store *s) { return s->cache_size; }
const char *store_jmode(const struct store *s) { return s->jmode[0] ? s->jmode : NULL; }
void *store_sqlite(const struct store *s) { return s->db; }

int64_t store_max_key(const char *path, enum layout_kind kind, char *err, int errlen)
{
    if (kind == LAYOUT_FLAT || kind == LAYOUT_TREE) {
        int64_t k = layout_max_key(path, kind == LAYOUT_TREE);
        if (k < 0)
            snprintf(err, (size_t)errlen, "%s: %s", path, strerror(errno));
        return k;
    }
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int64_t k = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT max(k) FROM kv", -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
    } else {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
            k = sqlite3_column_int64(st, 0);
        else
            snprintf(err, (size_t)errlen, "%s: %s", path, sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return k;
}

int store_db_check(const char *path, char *err, int errlen)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int ok = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        goto done;
    }
    /* Reading the schema catches "not a database" and most truncations. */
    if (sqlite3_prepare_v2(db, "SELECT type FROM sqlite_schema WHERE name='kv'", -1, &st,
                           NULL) != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "%s: %s", path, sqlite3_errmsg(db));
        goto done;
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        snprintf(err, (size_t)errlen, "%s: no kv table (not a kvtest database)", path);
        goto done;
    }
    if (rc != SQLITE_ROW) {
        snprintf(err, (size_t)errlen, "%s: %s", path, sqlite3_errmsg(db));
        goto done;
    }
    sqlite3_finalize(st);
    st = NULL;
    /* The columns the loop relies on, and the last page (truncation). */
    if (sqlite3_prepare_v2(db, "SELECT k, v FROM kv ORDER BY k DESC LIMIT 1", -1, &st, NULL) !=
        SQLITE_OK) {
        snprintf(err, (size_t)errlen, "%s: %s", path, sqlite3_errmsg(db));
        goto done;
    }
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        snprintf(err, (size_t)errlen, "%s: %s", path, sqlite3_errmsg(db));
        goto done;
    }
    ok = 0;
done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok;
}

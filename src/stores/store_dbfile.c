/* store_dbfile: whole-database operations of the database store that need
 * no open store: schema check, max key, crash recovery, integrity check,
 * and the library-wide settings run needs (see store.h). */
#include <stdio.h>
#include <string.h>

#include "sqlite3.h"
#include "stores/store_int.h"

/* Open read-only and prepare sql. 0, or -1 with the reason in err. */
static int open_prepared(const char *path, const char *sql, sqlite3 **db, sqlite3_stmt **st,
                         char *err, size_t errcap)
{
    *db = NULL;
    *st = NULL;
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(*db, sql, -1, st, NULL) != SQLITE_OK) {
        snprintf(err, errcap, "%s: %s", path, *db ? sqlite3_errmsg(*db) : "out of memory");
        return -1;
    }
    return 0;
}

int64_t store_db_max_key(const char *path, char *err, size_t errcap)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int64_t k = -1;
    if (open_prepared(path, "SELECT max(k) FROM kv", &db, &st, err, errcap) == 0) {
        if (sqlite3_step(st) == SQLITE_ROW)
            k = sqlite3_column_int64(st, 0);
        else
            snprintf(err, errcap, "%s: %s", path, sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return k;
}

/* Step st once: 1 row, 0 done, -1 error (reason in err). */
static int step_one(sqlite3 *db, sqlite3_stmt *st, const char *path, char *err, size_t errcap)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    snprintf(err, errcap, "%s: %s", path, sqlite3_errmsg(db));
    return -1;
}

int store_db_check(const char *path, char *err, size_t errcap)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int ok = -1;
    /* Reading the schema catches "not a database" and most truncations. */
    if (open_prepared(path, "SELECT type FROM sqlite_schema WHERE name='kv'", &db, &st, err,
                      errcap) != 0)
        goto done;
    int rc = step_one(db, st, path, err, errcap);
    if (rc == 0)
        snprintf(err, errcap, "%s: no kv table (not a kvtest database)", path);
    if (rc <= 0)
        goto done;
    sqlite3_finalize(st);
    st = NULL;
    /* The columns the loop relies on, and the last page (truncation). */
    if (sqlite3_prepare_v2(db, "SELECT k, v FROM kv ORDER BY k DESC LIMIT 1", -1, &st, NULL) !=
        SQLITE_OK) {
        snprintf(err, errcap, "%s: %s", path, sqlite3_errmsg(db));
        goto done;
    }
    if (step_one(db, st, path, err, errcap) < 0)
        goto done;
    ok = 0;
done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok;
}

void store_db_recover(const char *path)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK)
        sqlite3_exec(db, "SELECT rowid FROM sqlite_schema LIMIT 1", NULL, NULL, NULL);
    sqlite3_close(db);
}

int store_db_integrity(const char *path, void (*row)(void *arg, const char *text), void *arg,
                       char *err, size_t errcap)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int bad = 0;
    if (open_prepared(path, "PRAGMA integrity_check", &db, &st, err, errcap) != 0) {
        sqlite3_finalize(st);
        sqlite3_close(db);
        return -1;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (!t)
            t = "";
        if (strcmp(t, "ok") != 0)
            bad = 1;
        row(arg, t);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return bad;
}

const char *store_db_version(void)
{
    return sqlite3_libversion();
}

void store_db_memstatus(int on)
{
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on ? 1 : 0);
}

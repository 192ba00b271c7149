/* db_scan: key-ordered reads of the kv table (see db_scan.h). */
#include <stdio.h>
#include <stdlib.h>

#include "sqlite3.h"
#include "stores/db_scan.h"

struct db_scan {
    sqlite3 *db;
    sqlite3_stmt *st;
};

int db_scan_bounds(const char *path, int64_t *lo, int64_t *hi, int64_t *count, char *err,
                   size_t cap)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    int rc = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT min(k), max(k), count(*) FROM kv", -1, &q, NULL) !=
            SQLITE_OK ||
        sqlite3_step(q) != SQLITE_ROW) {
        snprintf(err, cap, "%s", db ? sqlite3_errmsg(db) : "out of memory");
        rc = -1;
    } else {
        *lo = sqlite3_column_int64(q, 0);
        *hi = sqlite3_column_int64(q, 1);
        *count = sqlite3_column_int64(q, 2);
    }
    sqlite3_finalize(q);
    sqlite3_close(db);
    return rc;
}

int db_scan_open(struct db_scan **out, const char *path, int64_t from, int64_t to, char *err,
                 size_t cap)
{
    struct db_scan *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db, "SELECT k, v FROM kv WHERE k BETWEEN ?1 AND ?2 ORDER BY k",
                           -1, &s->st, NULL) != SQLITE_OK) {
        snprintf(err, cap, "%s", s->db ? sqlite3_errmsg(s->db) : "out of memory");
        db_scan_close(s);
        return -1;
    }
    sqlite3_bind_int64(s->st, 1, from);
    sqlite3_bind_int64(s->st, 2, to);
    *out = s;
    return 0;
}

int db_scan_next(struct db_scan *s, int64_t *k, const void **v, int64_t *n)
{
    int rc = sqlite3_step(s->st);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? 0 : -1;
    *k = sqlite3_column_int64(s->st, 0);
    *v = sqlite3_column_blob(s->st, 1);
    *n = sqlite3_column_bytes(s->st, 1);
    return 1;
}

const char *db_scan_error(const struct db_scan *s)
{
    return sqlite3_errmsg(s->db);
}

void db_scan_close(struct db_scan *s)
{
    if (!s)
        return;
    sqlite3_finalize(s->st);
    sqlite3_close(s->db);
    free(s);
}

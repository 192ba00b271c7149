/* Unit tests of the database writer and scanner behind init and export:
 * blobs put whole and in chunks (a chunked blob whose reader gives up
 * leaves no row), the kv_path side table, bounds, and key-ordered scans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "sqlite3.h"
#include "stores/db_create.h"
#include "stores/db_scan.h"

/* Reader over a string; gives up (returns 7) once fail_at bytes are read. */
struct src {
    const char *p;
    int64_t off, fail_at;
};

static int read_src(void *ctx, unsigned char *buf, int64_t len, int last)
{
    struct src *s = ctx;
    (void)last;
    if (s->fail_at >= 0 && s->off + len > s->fail_at)
        return 7;
    memcpy(buf, s->p + s->off, (size_t)len);
    s->off += len;
    return 0;
}

static const char *path_of(void *ctx, int64_t k)
{
    static const char *const names[] = {"a/one", "two"};
    (void)ctx;
    return names[k - 1];
}

static void make_db(char *path)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct db_create *c = NULL;
    assert_int_equal(db_create_open(&c, path, 1), 0);
    assert_int_equal(db_create_begin(c, 1024), 0);
    assert_int_equal(db_create_put(c, 1, "abc", 3), 0);
    unsigned char buf[4];
    struct src s2 = {"0123456789", 0, -1};
    int rrc = -1;
    assert_int_equal(db_create_put_chunked(c, 2, 10, buf, 4, read_src, &s2, &rrc), 0);
    assert_int_equal(rrc, 0);
    assert_int_equal(db_create_batch(c), 0);
    struct src s3 = {"xxxxxxxxxx", 0, 6};
    assert_int_equal(db_create_put_chunked(c, 3, 10, buf, 4, read_src, &s3, &rrc), 0);
    assert_int_equal(rrc, 7);
    db_create_puts_done(c);
    assert_int_equal(db_create_paths(c, 2, path_of, NULL), 0);
    assert_int_equal(db_create_commit(c), 0);
    char msg[256] = "";
    assert_int_equal(db_create_close(c, msg, sizeof msg), 0);
}

static void test_write_and_scan(void **state)
{
    (void)state;
    char path[] = "/tmp/kvtest-dbstore-XXXXXX";
    make_db(path);
    int64_t lo = 0, hi = 0, count = 0;
    char err[256] = "";
    assert_int_equal(db_scan_bounds(path, &lo, &hi, &count, err, sizeof err), 0);
    assert_int_equal(lo, 1);
    assert_int_equal(hi, 2);      /* key 3's reader gave up: no row */
    assert_int_equal(count, 2);

    struct db_scan *s = NULL;
    assert_int_equal(db_scan_open(&s, path, 1, 5, err, sizeof err), 0);
    int64_t k, n;
    const void *v;
    assert_int_equal(db_scan_next(s, &k, &v, &n), 1);
    assert_int_equal(k, 1);
    assert_int_equal(n, 3);
    assert_memory_equal(v, "abc", 3);
    assert_int_equal(db_scan_next(s, &k, &v, &n), 1);
    assert_int_equal(k, 2);
    assert_int_equal(n, 10);
    assert_memory_equal(v, "0123456789", 10);
    assert_int_equal(db_scan_next(s, &k, &v, &n), 0);
    db_scan_close(s);

    assert_int_equal(db_scan_open(&s, path, 2, 2, err, sizeof err), 0);
    assert_int_equal(db_scan_next(s, &k, &v, &n), 1);
    assert_int_equal(k, 2);
    assert_int_equal(db_scan_next(s, &k, &v, &n), 0);
    db_scan_close(s);

    /* The side table, read as run and stat read it. */
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT group_concat(k || '=' || path, ',') "
                                        "FROM (SELECT * FROM kv_path ORDER BY k)", -1, &q,
                                        NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(q, 0), "1=a/one,2=two");
    /* The page size given to begin. */
    sqlite3_finalize(q);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int64(q, 0), 1024);
    sqlite3_finalize(q);
    sqlite3_close(db);
    unlink(path);
}

static void test_errors(void **state)
{
    (void)state;
    char err[256] = "";
    int64_t lo, hi, count;
    assert_int_equal(db_scan_bounds("/nonexistent/kvtest.db", &lo, &hi, &count, err,
                                    sizeof err), -1);
    assert_true(strlen(err) > 0);
    struct db_scan *s = (struct db_scan *)1;
    err[0] = '\0';
    assert_int_equal(db_scan_open(&s, "/nonexistent/kvtest.db", 1, 2, err, sizeof err), -1);
    assert_null(s);
    assert_true(strlen(err) > 0);

    /* A file that is not there cannot be created into: open fails, the
     * message says why, discard cleans up. */
    struct db_create *c = NULL;
    assert_int_not_equal(db_create_open(&c, "/nonexistent/kvtest.db", 1), 0);
    char msg[256] = "";
    db_create_error(c, msg, sizeof msg);
    assert_non_null(strstr(msg, "unable to open"));
    db_create_discard(c);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_write_and_scan),
    cmocka_unit_test(test_errors))

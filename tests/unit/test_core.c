/* Unit tests of the core modules through their library API: init content
 * is deterministic and sealed, every exported file (flat, tree, several
 * jobs) is byte-identical to its blob, stores read/update/miss alike, and
 * run_measure fills its result with the same keys and bytes per layout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "sqlite3.h"
#include "stores/blobsum.h"
#include "commands/export/export.h"
#include "commands/init/init.h"
#include "stores/layout.h"
#include "commands/run/run.h"
#include "stores/store.h"

static char dir[256];
static char db[300];
/* The fixture's layouts: db, and its flat and tree exports (made by
 * test_export, which runs first); set by setup. */
static char flat[300], tree[300];
static const char *layouts[3] = {db, flat, tree};

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/kvtest-core-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(db, sizeof db, "%s/x.db", dir);
    snprintf(flat, sizeof flat, "%s/flat", dir);
    snprintf(tree, sizeof tree, "%s/tree3", dir);
    struct init_opts o;
    init_defaults(&o);
    o.path = db;
    o.count = 300;
    o.size = 3000;
    o.variance = 1000;
    o.seed = 7;
    o.quiet = 1;
    return init_create(&o, "init");
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static unsigned char *read_all(const char *path, int64_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)*n + 1);
    if (fread(b, 1, (size_t)*n, f) != (size_t)*n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

/* Every row of the database equals its file, and no file is extra. */
static void compare_export(const char *d, int tree, int64_t expect_rows)
{
    sqlite3 *h;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(h, "SELECT k, v FROM kv ORDER BY k", -1, &st, NULL),
                     SQLITE_OK);
    int64_t rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t k = sqlite3_column_int64(st, 0);
        const void *v = sqlite3_column_blob(st, 1);
        int64_t n = sqlite3_column_bytes(st, 1);
        char p[512];
        layout_path(p, sizeof p, d, tree, k);
        int64_t fn = -1;
        unsigned char *fb = read_all(p, &fn);
        assert_non_null(fb);
        assert_int_equal(fn, n);
        assert_memory_equal(fb, v, (size_t)n);
        free(fb);
        rows++;
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    assert_int_equal(rows, expect_rows);
    assert_int_equal(layout_max_key(d, tree), expect_rows);
}

static void test_init_deterministic_and_sealed(void **state)
{
    (void)state;
    struct init_opts o;
    init_defaults(&o);
    o.count = 300, o.size = 3000, o.variance = 1000, o.seed = 7;
    sqlite3 *h;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(h, "SELECT k, v FROM kv ORDER BY k", -1, &st, NULL),
                     SQLITE_OK);
    int64_t minn = 1 << 30, maxn = 0;
    unsigned char *buf = malloc(5000);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t k = sqlite3_column_int64(st, 0);
        int64_t n = sqlite3_column_bytes(st, 1);
        assert_int_equal(n, init_blob_size(&o, k));
        init_blob_fill(&o, k, buf, n);
        assert_memory_equal(buf, sqlite3_column_blob(st, 1), (size_t)n);
        assert_int_equal(blobsum_check(buf, (size_t)n), 1);
        if (n < minn)
            minn = n;
        if (n > maxn)
            maxn = n;
    }
    free(buf);
    sqlite3_finalize(st);
    sqlite3_close(h);
    assert_true(minn >= 2000 && maxn <= 4000);
    assert_true(maxn - minn > 1000);   /* the variance is used */
    /* Another seed gives other bytes. */
    o.seed = 8;
    unsigned char a[64], b[64];
    init_blob_fill(&o, 1, a, 64);
    o.seed = 7;
    init_blob_fill(&o, 1, b, 64);
    assert_memory_not_equal(a, b, 64);
}

static void test_export_flat_tree_jobs(void **state)
{
    (void)state;
    struct export_opts e;
    char d[400];
    export_defaults(&e);
    e.db = db, e.quiet = 1;
    snprintf(d, sizeof d, "%s/flat", dir);
    e.dir = d;
    assert_int_equal(export_write(&e, "export"), 0);
    compare_export(d, 0, 300);
    /* re-export into the same directory is allowed (an earlier export) */
    assert_int_equal(export_write(&e, "export"), 0);
    compare_export(d, 0, 300);

    snprintf(d, sizeof d, "%s/tree3", dir);
    e.dir = d, e.tree = 1, e.jobs = 3;
    assert_int_equal(export_write(&e, "export"), 0);
    compare_export(d, 1, 300);
    /* a tree into a flat export is refused without --force */
    snprintf(d, sizeof d, "%s/flat", dir);
    e.dir = d;
    assert_int_equal(export_write(&e, "export"), 1);
    /* bad jobs */
    e.jobs = 0;
    assert_int_equal(export_write(&e, "export"), 2);
}

static void test_store_kinds(void **state)
{
    (void)state;
    enum layout_kind kinds[3] = {LAYOUT_DB, LAYOUT_FLAT, LAYOUT_TREE};
    char err[512];
    for (int i = 0; i < 3; i++) {
        for (int api = 0; api < 2; api++) {
            struct store_opts so = {.path = layouts[i], .kind = kinds[i], .fadvise = -1,
                                    .db = {.blob_api = api, .cache_size = 100}};
            struct store *s;
            assert_int_equal(store_open(&s, &so, err, sizeof err), 0);
            const void *d;
            int64_t n;
            assert_int_equal(store_read(s, 5, &d, &n, err, sizeof err), 1);
            assert_int_equal(blobsum_check(d, (size_t)n), 1);
            assert_int_equal(store_read(s, 301, &d, &n, err, sizeof err), 0);   /* missing */
            assert_int_equal(store_read(s, 6, &d, &n, err, sizeof err), 1);    /* after a miss */
            assert_int_equal(store_commit(s, err, sizeof err), 0);
            assert_int_equal(store_close(s, err, sizeof err), 0);
        }
        assert_int_equal(store_max_key(layouts[i], kinds[i], err, sizeof err), 300);
    }
}

static void test_run_same_keys_bytes(void **state)
{
    (void)state;
    int64_t bytes[3];
    for (int i = 0; i < 3; i++) {
        struct run_opts o;
        run_defaults(&o);
        o.path = layouts[i];
        o.count = 150;
        o.order = ORDER_RANDOM;
        o.quiet = 1;
        o.verify = 1;
        o.repeat = 2;
        struct run_result r;
        assert_int_equal(run_measure(&o, &r, "run"), 0);
        assert_int_equal(r.max_id, 300);   /* directories too */
        assert_int_equal(r.count, 150);
        assert_int_equal(r.misses, 0);
        assert_non_null(r.latency);
        assert_int_equal(r.latency->count, 300);   /* 2 runs x 150 */
        assert_true(r.us_min <= r.us_per_blob && r.us_per_blob <= r.us_max);
        bytes[i] = r.bytes;
        run_result_free(&r);
    }
    assert_int_equal(bytes[0], bytes[1]);
    assert_int_equal(bytes[0], bytes[2]);
}

static void test_run_update_then_verify(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++) {   /* db and flat */
        for (int api = 0; api < 2; api++) {
            struct run_opts o;
            run_defaults(&o);
            o.path = layouts[i];
            o.count = 40;
            o.update = 1;
            o.blob_api = api;
            o.verify = 1;
            o.quiet = 1;
            o.order = ORDER_RANDOM;
            assert_int_equal(run_measure(&o, NULL, "run"), 0);
            o.update = 0;
            o.count = 300;
            o.order = ORDER_ASC;
            assert_int_equal(run_measure(&o, NULL, "run"), 0);
        }
    }
    /* Corrupt one byte of a file: verify names the failure (exit 1). */
    char p[512];
    layout_path(p, sizeof p, flat, 0, 9);
    FILE *f = fopen(p, "r+b");
    assert_non_null(f);
    fseek(f, 10, SEEK_SET);
    int c = fgetc(f);
    fseek(f, 10, SEEK_SET);
    fputc(c ^ 1, f);
    fclose(f);
    struct run_opts o;
    run_defaults(&o);
    o.path = flat, o.count = 20, o.verify = 1, o.quiet = 1;
    assert_int_equal(run_measure(&o, NULL, "run"), 1);
    /* --threads with --update is a usage error */
    o.update = 1, o.threads = 2, o.verify = 0;
    assert_int_equal(run_measure(&o, NULL, "run"), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_deterministic_and_sealed),
        cmocka_unit_test(test_export_flat_tree_jobs),
        cmocka_unit_test(test_store_kinds),
        cmocka_unit_test(test_run_same_keys_bytes),
        cmocka_unit_test(test_run_update_then_verify),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* export through its library API: every exported file (flat, tree, several
 * jobs) is byte-identical to its blob, no file is extra, and an export of
 * the other kind into the same directory is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "sqlite3.h"
#include "commands/export/export.h"
#include "stores/layout.h"
#include "tests/unit/fixture.h"

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
static void compare_export(const char *db, const char *d, int tree, int64_t expect_rows)
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

static void test_export_flat_tree_jobs(void **state)
{
    struct fixture *f = *state;
    struct export_opts e;
    export_defaults(&e);
    e.db = f->db, e.quiet = 1;
    e.dir = f->flat;
    assert_int_equal(export_write(&e, "export"), 0);
    compare_export(f->db, f->flat, 0, 300);
    /* re-export into the same directory is allowed (an earlier export) */
    assert_int_equal(export_write(&e, "export"), 0);
    compare_export(f->db, f->flat, 0, 300);

    e.dir = f->tree, e.tree = 1, e.jobs = 3;
    assert_int_equal(export_write(&e, "export"), 0);
    compare_export(f->db, f->tree, 1, 300);
    /* a tree into a flat export is refused without --force */
    e.dir = f->flat;
    assert_int_equal(export_write(&e, "export"), 1);
    /* bad jobs */
    e.jobs = 0;
    assert_int_equal(export_write(&e, "export"), 2);
}

UNIT_MAIN(fixture_blobs_setup, fixture_teardown,
    cmocka_unit_test(test_export_flat_tree_jobs))

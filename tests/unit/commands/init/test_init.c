/* init's content and its user-data paths: blobs are deterministic and
 * sealed, init --from keeps a kv_path side table mapping each key to the
 * file whose bytes it holds, and --sizes-from draws sizes by the seed. */
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
#include "stores/blobsum.h"
#include "commands/init/init.h"
#include "tests/unit/fixture.h"

static void test_init_deterministic_and_sealed(void **state)
{
    struct fixture *f = *state;
    struct init_opts o;
    fixture_blobs_opts(&o);   /* the options the fixture's database was made with */
    sqlite3 *h;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(f->db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
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

/* init --from: kv_path maps each key to the file whose bytes it holds. */
static void test_side_table(void **st)
{
    (void)st;
    char dir[] = "/tmp/test_userdata_from_XXXXXX";
    assert_int_equal(fixture_tree(dir), 0);
    char db[600];
    snprintf(db, sizeof db, "%s.db", dir);
    struct init_opts o;
    init_defaults(&o);
    o.path = db;
    o.from = dir;
    o.quiet = 1;
    assert_int_equal(init_create(&o, "init"), 0);
    sqlite3 *h;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_prepare_v2(h, "SELECT kv.k, path, v FROM kv JOIN kv_path USING(k) "
                                           "ORDER BY kv.k", -1, &s, NULL), SQLITE_OK);
    static const char *const want[] = {"B", "a.txt", "a/b/deep", "a/x"};
    static const char *const body[] = {"capital", "a dot txt", "deep content", "x"};
    int rows = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        assert_int_equal(sqlite3_column_int64(s, 0), rows + 1);
        assert_string_equal((const char *)sqlite3_column_text(s, 1), want[rows]);
        assert_int_equal(sqlite3_column_bytes(s, 2), (int)strlen(body[rows]));
        assert_memory_equal(sqlite3_column_blob(s, 2), body[rows], strlen(body[rows]));
        rows++;
    }
    assert_int_equal(rows, 4);
    sqlite3_finalize(s);
    sqlite3_close(h);
    unlink(db);
    assert_int_equal(scratch_remove(dir), 0);
}

static void test_sizes_drawn(void **st)
{
    (void)st;
    const int64_t src[] = {1, 4096, 102400};
    struct init_opts o;
    init_defaults(&o);
    o.sizes = src;
    o.nsizes = 3;
    o.sizes_max = 102400;
    o.seed = 42;
    int seen[3] = {0, 0, 0};
    for (int64_t k = 1; k <= 3000; k++) {
        int64_t n = init_blob_size(&o, k);
        int hit = n == 1 ? 0 : n == 4096 ? 1 : n == 102400 ? 2 : -1;
        assert_true(hit >= 0);
        seen[hit]++;
        assert_int_equal(init_blob_size(&o, k), n);   /* same seed, same size */
    }
    for (int i = 0; i < 3; i++)
        assert_true(seen[i] > 850 && seen[i] < 1150);
    /* The content stream follows the size draw: the bytes are the seed's. */
    unsigned char a[4096], b[4096];
    int64_t k = 1;
    while (init_blob_size(&o, k) != 4096)
        k++;
    init_blob_fill(&o, k, a, 4096);
    init_blob_fill(&o, k, b, 4096);
    assert_memory_equal(a, b, 4096);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test_setup_teardown(test_init_deterministic_and_sealed, fixture_blobs_setup,
                                    fixture_teardown),
    cmocka_unit_test(test_side_table),
    cmocka_unit_test(test_sizes_drawn))

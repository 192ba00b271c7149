/* store: the database (SQL and blob API), flat and tree layouts read,
 * miss and commit alike, and all three see the same largest key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "stores/blobsum.h"
#include "stores/layout.h"
#include "stores/store.h"
#include "tests/unit/fixture.h"

static void test_store_kinds(void **state)
{
    struct fixture *f = *state;
    const char *layouts[3] = {f->db, f->flat, f->tree};
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

UNIT_MAIN(fixture_exports_setup, fixture_teardown,
    cmocka_unit_test(test_store_kinds))

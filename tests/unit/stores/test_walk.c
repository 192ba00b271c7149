/* walk: a user's directory in byte order of the relative path, with empty
 * files, symlinks and files over the size limit counted, not listed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "stores/walk.h"
#include "tests/unit/fixture.h"

static void test_walk_order_and_counts(void **st)
{
    (void)st;
    char dir[] = "/tmp/test_userdata_walk_XXXXXX";
    assert_int_equal(fixture_tree(dir), 0);
    struct walk w;
    char err[256];
    assert_int_equal(walk_dir(dir, 1000, &w, err, sizeof err), 0);
    assert_int_equal(w.n, 4);
    /* Byte order of the whole relative path: 'B' < 'a', '.' < '/'. */
    assert_string_equal(w.f[0].rel, "B");
    assert_string_equal(w.f[1].rel, "a.txt");
    assert_string_equal(w.f[2].rel, "a/b/deep");
    assert_string_equal(w.f[3].rel, "a/x");
    assert_int_equal(w.empty, 1);
    assert_int_equal(w.symlinks, 1);
    assert_int_equal(w.bytes, 7 + 9 + 12 + 1);
    walk_free(&w);
    assert_int_equal(walk_dir(dir, 8, &w, err, sizeof err), 0);
    assert_int_equal(w.n, 2);   /* "a dot txt" and "deep content" are over 8 bytes */
    assert_int_equal(w.too_large, 2);
    walk_free(&w);
    assert_int_equal(scratch_remove(dir), 0);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_walk_order_and_counts))

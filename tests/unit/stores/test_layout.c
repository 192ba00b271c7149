/* Unit tests of layout: export file names, their parsing, path detection
 * and the max-key scan that makes directory runs as wide as database runs. */
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
#include "tests/unit/scratch.h"

#include "stores/layout.h"

static void test_relname(void **state)
{
    (void)state;
    char b[64];
    assert_int_equal(layout_relname(b, sizeof b, 0, 1), 6);
    assert_string_equal(b, "000001");
    layout_relname(b, sizeof b, 0, 999999);
    assert_string_equal(b, "999999");
    layout_relname(b, sizeof b, 0, 1234567);   /* beyond 6 digits: no truncation */
    assert_string_equal(b, "1234567");
    assert_int_equal(layout_relname(b, sizeof b, 1, 1), 8);
    assert_string_equal(b, "00/00/01");
    layout_relname(b, sizeof b, 1, 123456);
    assert_string_equal(b, "12/34/56");
    layout_relname(b, sizeof b, 1, 1000000);
    assert_string_equal(b, "100/00/00");
    layout_relname(b, sizeof b, 1, 99);
    assert_string_equal(b, "00/00/99");
    layout_relname(b, sizeof b, 1, 100);
    assert_string_equal(b, "00/01/00");
    /* 64-bit keys beyond 32 bits */
    layout_relname(b, sizeof b, 0, 5000000000LL);
    assert_string_equal(b, "5000000000");
    layout_relname(b, sizeof b, 1, 5000000001LL);
    assert_string_equal(b, "500000/00/01");
    /* too small a buffer, negative key */
    assert_int_equal(layout_relname(b, 6, 0, 1), -1);
    assert_int_equal(layout_relname(b, sizeof b, 0, -1), -1);
    assert_int_equal(layout_path(b, sizeof b, "d", 1, 10203), 10);
    assert_string_equal(b, "d/01/02/03");
    assert_int_equal(layout_path(b, 5, "dir", 0, 1), -1);
}

static void test_parse(void **state)
{
    (void)state;
    char b[64];
    for (int64_t k = 0; k < 300000; k += 7) {
        layout_relname(b, sizeof b, 0, k);
        assert_int_equal(layout_parse(b, 0), k);
        layout_relname(b, sizeof b, 1, k);
        assert_int_equal(layout_parse(b, 1), k);
    }
    assert_int_equal(layout_parse("00001", 0), -1);     /* too short */
    assert_int_equal(layout_parse("0000012", 0), -1);   /* over-padded */
    assert_int_equal(layout_parse("00000a", 0), -1);
    assert_int_equal(layout_parse("", 0), -1);
    assert_int_equal(layout_parse("00/00", 1), -1);
    assert_int_equal(layout_parse("00/00/1", 1), -1);
    assert_int_equal(layout_parse("00/000/01", 1), -1);
    assert_int_equal(layout_parse("00/00/01/02", 1), -1);
    assert_int_equal(layout_parse("x0/00/01", 1), -1);
}

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    return scratch_make(tmpdir, sizeof tmpdir, "layout");
}

static int teardown(void **state)
{
    (void)state;
    return scratch_remove(tmpdir);
}

static void touch(const char *path, const char *content)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
}

static void test_detect(void **state)
{
    (void)state;
    char p[512], why[512];
    snprintf(p, sizeof p, "%s/nothing", tmpdir);
    assert_int_equal(layout_detect(p, why, sizeof why), LAYOUT_MISSING);
    assert_non_null(strstr(why, "No such file"));

    snprintf(p, sizeof p, "%s/flat", tmpdir);
    assert_int_equal(mkdir(p, 0755), 0);
    assert_int_equal(layout_detect(p, why, sizeof why), LAYOUT_FLAT);
    snprintf(p, sizeof p, "%s/tree", tmpdir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/tree/00", tmpdir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/tree", tmpdir);
    assert_int_equal(layout_detect(p, why, sizeof why), LAYOUT_TREE);
    /* A file named 00 does not make a tree. */
    snprintf(p, sizeof p, "%s/flat/00", tmpdir);
    touch(p, "x");
    snprintf(p, sizeof p, "%s/flat", tmpdir);
    assert_int_equal(layout_detect(p, why, sizeof why), LAYOUT_FLAT);

    snprintf(p, sizeof p, "%s/text", tmpdir);
    touch(p, "hello, this is not a database at all");
    assert_int_equal(layout_detect(p, why, sizeof why), LAYOUT_OTHER);
    assert_non_null(strstr(why, "not an SQLite database"));
    snprintf(p, sizeof p, "%s/db", tmpdir);
    FILE *f = fopen(p, "w");
    fwrite("SQLite format 3\0 and more bytes", 1, 31, f);
    fclose(f);
    assert_int_equal(layout_detect(p, why, sizeof why), LAYOUT_DB);
    snprintf(p, sizeof p, "%s/empty", tmpdir);
    touch(p, "");
    assert_int_equal(layout_detect(p, why, sizeof why), LAYOUT_DB);
    assert_int_equal(layout_detect("/dev/null", why, sizeof why), LAYOUT_OTHER);
    assert_string_equal(layout_kind_name(LAYOUT_TREE), "tree");
    assert_string_equal(layout_kind_name(LAYOUT_FLAT), "flat");
    assert_string_equal(layout_kind_name(LAYOUT_DB), "db");
}

static void test_max_key(void **state)
{
    (void)state;
    char d[512], p[600];
    snprintf(d, sizeof d, "%s/mk-flat", tmpdir);
    assert_int_equal(mkdir(d, 0755), 0);
    assert_int_equal(layout_max_key(d, 0), 0);
    int64_t keys[] = {1, 2, 1500, 999999, 1000001, 17};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        layout_path(p, sizeof p, d, 0, keys[i]);
        touch(p, "x");
    }
    snprintf(p, sizeof p, "%s/notes.txt", d);   /* ignored: not a blob name */
    touch(p, "x");
    snprintf(p, sizeof p, "%s/99999999", d);    /* 8 digits: key 99999999 */
    touch(p, "x");
    assert_int_equal(layout_max_key(d, 0), 99999999);
    assert_int_equal(layout_is_export(d, NULL), 0);   /* notes.txt */
    unlink(p);
    snprintf(p, sizeof p, "%s/notes.txt", d);
    unlink(p);
    int64_t n = 0;
    assert_int_equal(layout_is_export(d, &n), 1);
    assert_int_equal(n, 6);
    assert_int_equal(layout_max_key(d, 0), 1000001);

    /* Tree: the largest key even when the largest subdirectory is empty. */
    snprintf(d, sizeof d, "%s/mk-tree", tmpdir);
    assert_int_equal(mkdir(d, 0755), 0);
    int64_t tk[] = {1, 99, 100, 10000, 123456, 50505};
    for (size_t i = 0; i < sizeof tk / sizeof tk[0]; i++) {
        char rel[64];
        layout_relname(rel, sizeof rel, 1, tk[i]);
        snprintf(p, sizeof p, "%s/%.2s", d, rel);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/%.5s", d, rel);
        mkdir(p, 0755);
        layout_path(p, sizeof p, d, 1, tk[i]);
        touch(p, "x");
    }
    snprintf(p, sizeof p, "%s/99", d);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/99/98", d);
    mkdir(p, 0755);
    assert_int_equal(layout_max_key(d, 1), 123456);
    assert_int_equal(layout_max_key("/nonexistent-kvtest-dir", 0), -1);
}

UNIT_MAIN(setup, teardown,
    cmocka_unit_test(test_relname),
    cmocka_unit_test(test_parse),
    cmocka_unit_test(test_detect),
    cmocka_unit_test(test_max_key))

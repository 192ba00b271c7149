/* Unit tests of the key-value stores (LMDB, RocksDB) behind the store
 * interface: key bytes that sort as the keys do, prefixes, a store written
 * by the export writer read back byte for byte through the operations
 * table, its facts, its holes, and the detection of the wrong kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"
#include "tests/unit/scratch.h"

#include "stores/layout.h"
#include "stores/store.h"
#include "stores/store_int.h"
#include "stores/kv/store_kv.h"

static void test_key_bytes_sort_as_keys(void **state)
{
    (void)state;
    const int64_t keys[] = {0, 1, 2, 255, 256, 65535, 65536, (int64_t)1 << 40, INT64_MAX};
    unsigned char a[8], b[8];
    for (size_t i = 0; i + 1 < sizeof keys / sizeof keys[0]; i++) {
        store_kv_key(a, keys[i]);
        store_kv_key(b, keys[i + 1]);
        assert_true(memcmp(a, b, 8) < 0);
        assert_int_equal(store_kv_key_parse(a, 8), keys[i]);
    }
    store_kv_key(a, 258);
    assert_int_equal(a[6], 1);
    assert_int_equal(a[7], 2);
    assert_int_equal(store_kv_key_parse(a, 7), -1);
}

static void test_prefixes(void **state)
{
    (void)state;
    assert_int_equal(layout_prefix_kind("lmdb:x"), LAYOUT_LMDB);
    assert_int_equal(layout_prefix_kind("rocksdb:/a/b"), LAYOUT_ROCKSDB);
    assert_int_equal(layout_prefix_kind("lmdbx"), LAYOUT_MISSING);
    assert_int_equal(layout_prefix_kind("./lmdb:x"), LAYOUT_MISSING);
    assert_string_equal(layout_fs_path("lmdb:x"), "x");
    assert_string_equal(layout_fs_path("rocksdb:/a/b"), "/a/b");
    assert_string_equal(layout_fs_path("plain"), "plain");
    assert_true(layout_is_kv(LAYOUT_LMDB) && layout_is_kv(LAYOUT_ROCKSDB));
    assert_false(layout_is_kv(LAYOUT_DB) || layout_is_kv(LAYOUT_FLAT));
    assert_null(store_kv_missing(LAYOUT_LMDB));
    assert_null(store_kv_missing(LAYOUT_ROCKSDB));
    assert_non_null(store_kv_missing(LAYOUT_DB));
}

/* Keys 1..n except 7, key k holding (k * 37) % 3000 + 1 bytes of k. */
#define NKEYS 40
static int64_t size_of(int64_t k)
{
    return (k * 37) % 3000 + 1;
}

static void make_store(enum layout_kind kind, char *dir, char *path, size_t cap)
{
    assert_non_null(mkdtemp(dir));
    snprintf(path, cap, "%s%s", kind == LAYOUT_LMDB ? LAYOUT_LMDB_PREFIX : LAYOUT_ROCKSDB_PREFIX,
             dir);
    struct store_kv_writer *w;
    char err[512];
    assert_int_equal(store_kv_create(&w, kind, dir, NKEYS, 200000, err, sizeof err), 0);
    unsigned char buf[3000];
    for (int64_t k = 1; k <= NKEYS; k++) {
        if (k == 7)
            continue;
        memset(buf, (int)k, sizeof buf);
        assert_int_equal(store_kv_put(w, k, buf, size_of(k), err, sizeof err), 0);
    }
    assert_int_equal(store_kv_finish(w, err, sizeof err), 0);
}

static void round_trip(enum layout_kind kind)
{
    char dir[] = "/tmp/kvtest-kv-XXXXXX", path[64], err[512];
    make_store(kind, dir, path, sizeof path);
    char why[600];
    assert_int_equal(layout_detect(path, why, sizeof why), kind);

    struct store_kv_facts f;
    int64_t want_bytes = 0;
    for (int64_t k = 1; k <= NKEYS; k++)
        want_bytes += k == 7 ? 0 : size_of(k);
    assert_int_equal(store_kv_facts(path, NULL, NULL, &f, err, sizeof err), 0);
    assert_int_equal(f.entries, NKEYS - 1);
    assert_int_equal(f.value_bytes, want_bytes);
    assert_int_equal(f.max_key, NKEYS);
    assert_int_equal(store_max_key(path, kind, err, sizeof err), NKEYS);

    struct store_opts o = {.path = path, .kind = kind, .fadvise = -1};
    struct store *s;
    assert_int_equal(store_open(&s, &o, err, sizeof err), 0);
    for (int64_t k = 1; k <= NKEYS; k++) {
        const void *d = NULL;
        int64_t n = -1;
        int rc = store_read(s, k, &d, &n, err, sizeof err);
        if (k == 7) {
            assert_int_equal(rc, 0);
            continue;
        }
        assert_int_equal(rc, 1);
        assert_int_equal(n, size_of(k));
        const unsigned char *p = d;
        assert_int_equal(p[0], (unsigned char)k);
        assert_int_equal(p[n - 1], (unsigned char)k);
    }
    assert_int_equal(store_commit(s, err, sizeof err), 0);
    assert_int_equal(store_close(s, err, sizeof err), 0);
    assert_int_equal(scratch_remove(dir), 0);
}

static void test_lmdb_round_trip(void **state)
{
    (void)state;
    round_trip(LAYOUT_LMDB);
}

static void test_rocksdb_round_trip(void **state)
{
    (void)state;
    round_trip(LAYOUT_ROCKSDB);
}

/* LMDB counts its holes (cheap: leaf pages only); RocksDB does not. */
static void test_holes(void **state)
{
    (void)state;
    char dir[] = "/tmp/kvtest-kv-XXXXXX", path[64], err[512];
    make_store(LAYOUT_LMDB, dir, path, sizeof path);
    int64_t missing = -1, range = -1;
    assert_int_equal(store_count_holes(path, LAYOUT_LMDB, NKEYS, &missing, &range, err,
                                       sizeof err), 1);
    assert_int_equal(missing, 1);
    assert_int_equal(range, NKEYS);
    assert_int_equal(store_count_holes(path, LAYOUT_LMDB, 5, &missing, &range, err,
                                       sizeof err), 1);
    assert_int_equal(missing, 0);
    assert_int_equal(range, 5);
    assert_int_equal(scratch_remove(dir), 0);
    char dir2[] = "/tmp/kvtest-kv-XXXXXX";
    make_store(LAYOUT_ROCKSDB, dir2, path, sizeof path);
    assert_int_equal(store_count_holes(path, LAYOUT_ROCKSDB, NKEYS, &missing, &range, err,
                                       sizeof err), 0);
    assert_int_equal(scratch_remove(dir2), 0);
}

/* A prefix naming the other store, or a directory of neither. */
static void test_wrong_kind(void **state)
{
    (void)state;
    char dir[] = "/tmp/kvtest-kv-XXXXXX", path[64], other[80], why[600];
    make_store(LAYOUT_ROCKSDB, dir, path, sizeof path);
    snprintf(other, sizeof other, "lmdb:%s", dir);
    assert_int_equal(layout_detect(other, why, sizeof why), LAYOUT_OTHER);
    assert_non_null(strstr(why, "holds a RocksDB database"));
    assert_non_null(strstr(why, "rocksdb:"));
    assert_int_equal(scratch_remove(dir), 0);
    char empty[] = "/tmp/kvtest-kv-XXXXXX";
    assert_non_null(mkdtemp(empty));
    snprintf(other, sizeof other, "rocksdb:%s", empty);
    assert_int_equal(layout_detect(other, why, sizeof why), LAYOUT_OTHER);
    assert_non_null(strstr(why, "no CURRENT"));
    rmdir(empty);
    assert_int_equal(layout_detect("lmdb:/nonexistent/kvtest", why, sizeof why),
                     LAYOUT_MISSING);
    assert_int_equal(layout_detect("lmdb:", why, sizeof why), LAYOUT_OTHER);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_key_bytes_sort_as_keys),
    cmocka_unit_test(test_prefixes),
    cmocka_unit_test(test_lmdb_round_trip),
    cmocka_unit_test(test_rocksdb_round_trip),
    cmocka_unit_test(test_holes),
    cmocka_unit_test(test_wrong_kind))

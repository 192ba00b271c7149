/* trackmap: the client-side cache's map is bounded, replaces, deletes,
 * and honours deadlines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "shortener/cache/trackmap.h"

/* The client-side cache's map: bounded, replace, delete, deadline. */
static void test_trackmap(void **st)
{
    (void)st;
    struct trackmap *m = trackmap_new(100);
    assert_non_null(m);
    char url[64], id[16];
    size_t n = 0;
    assert_int_equal(trackmap_get(m, "a", 1, 0, url, sizeof url, &n), 0);
    assert_int_equal(trackmap_put(m, "a", 1, "http://a", 8, 0), 0);
    assert_int_equal(trackmap_get(m, "a", 1, 0, url, sizeof url, &n), 1);
    assert_string_equal(url, "http://a");
    assert_int_equal(n, 8);
    assert_int_equal(trackmap_put(m, "a", 1, "http://b", 8, 0), 0);   /* replace */
    assert_int_equal(trackmap_get(m, "a", 1, 0, url, sizeof url, &n), 1);
    assert_string_equal(url, "http://b");
    assert_int_equal(trackmap_count(m), 1);
    /* a deadline: served before it, never at or after it */
    assert_int_equal(trackmap_put(m, "t", 1, "http://t", 8, 1000), 0);
    assert_int_equal(trackmap_get(m, "t", 1, 999, url, sizeof url, &n), 1);
    assert_int_equal(trackmap_get(m, "t", 1, 1000, url, sizeof url, &n), 0);
    assert_int_equal(trackmap_count(m), 1);
    /* bounded: 1000 puts into 100 entries; every present entry is right */
    int evicted = 0;
    for (int i = 0; i < 1000; i++) {
        snprintf(id, sizeof id, "id%d", i);
        snprintf(url, sizeof url, "http://%d", i);
        int rc = trackmap_put(m, id, strlen(id), url, strlen(url), 0);
        assert_true(rc == 0 || rc == 1);
        evicted += rc;
        assert_true(trackmap_count(m) <= 100);
    }
    assert_int_equal(trackmap_count(m), 100);
    assert_int_equal(evicted, 901);
    int present = 0;
    for (int i = 0; i < 1000; i++) {
        char want[32];
        snprintf(id, sizeof id, "id%d", i);
        snprintf(want, sizeof want, "http://%d", i);
        if (trackmap_get(m, id, strlen(id), 0, url, sizeof url, &n)) {
            assert_string_equal(url, want);
            present++;
        }
    }
    assert_int_equal(present, 100);
    /* delete every present entry: probing survives the backward shifts */
    for (int i = 0; i < 1000; i++) {
        snprintf(id, sizeof id, "id%d", i);
        trackmap_del(m, id, strlen(id));
        assert_int_equal(trackmap_get(m, id, strlen(id), 0, url, sizeof url, &n), 0);
    }
    assert_int_equal(trackmap_count(m), 0);
    assert_int_equal(trackmap_put(m, "z", 1, "http://z", 8, 0), 0);
    trackmap_clear(m);
    assert_int_equal(trackmap_get(m, "z", 1, 0, url, sizeof url, &n), 0);
    trackmap_free(m);
}

/* The hash is FNV-1a (64-bit) then h ^ (h >> 29): the published vectors
 * (FNV's reference: "" gives the offset basis 0xcbf29ce484222325, "a"
 * gives 0xaf63dc4c8601ec8c, "foobar" 0x85944171f73967e8) through that
 * finalizer. A basis with a digit lost still hashes, only worse. */
static uint64_t fin(uint64_t h) { return h ^ (h >> 29); }
static void test_trackmap_hash_is_fnv1a(void **st)
{
    (void)st;
    assert_true(trackmap_hash("", 0) == fin(0xcbf29ce484222325ull));
    assert_true(trackmap_hash("a", 1) == fin(0xaf63dc4c8601ec8cull));
    assert_true(trackmap_hash("foobar", 6) == fin(0x85944171f73967e8ull));
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_trackmap),
    cmocka_unit_test(test_trackmap_hash_is_fnv1a))

/* cache: the cache URL's parsing, and a Valkey that is not there (lookups
 * still answer from SQLite, failures are counted, backoff spares
 * connects). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "shortener/cache/cache.h"
#include "shortener/store/links.h"
#include "tests/unit/fixture.h"

static void test_cache_url(void **st)
{
    (void)st;
    struct cache_config c;
    char err[256];
    assert_int_equal(cache_parse_url("valkey://127.0.0.1:6379", &c, err, sizeof err), 0);
    assert_string_equal(c.host, "127.0.0.1");
    assert_int_equal(c.port, 6379);
    assert_int_equal(c.db, 0);
    assert_int_equal(c.connect_timeout_ms, CACHE_TIMEOUT_MS);
    assert_int_equal(cache_parse_url("redis://localhost:1/15", &c, err, sizeof err), 0);
    assert_string_equal(c.host, "localhost");
    assert_int_equal(c.db, 15);
    assert_int_equal(cache_parse_url("valkey://[::1]:7000/2", &c, err, sizeof err), 0);
    assert_string_equal(c.host, "::1");
    assert_int_equal(c.port, 7000);
    const char *bad[] = {"none", "", "valkey://", "valkey://host", "valkey://:6379",
                         "valkey://h:0", "valkey://h:65536", "valkey://h:12x",
                         "valkey://h:1/x", "http://h:1", "valkey://[::1:5",
                         "valkey://u@h:1", "valkey://h:1/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (cache_parse_url(bad[i], &c, err, sizeof err) == 0)
            fail_msg("accepted bad cache URL [%s]", bad[i]);
}

static void test_cluster_url(void **st)
{
    (void)st;
    struct cache_config c;
    char err[256];
    assert_int_equal(cache_parse_url("valkey-cluster://127.0.0.1:7000", &c, err, sizeof err), 0);
    assert_true(c.cluster);
    assert_false(c.track);
    assert_int_equal(c.nseeds, 1);
    assert_string_equal(c.seeds[0].host, "127.0.0.1");
    assert_int_equal(c.seeds[0].port, 7000);
    assert_int_equal(cache_parse_url("valkey-cluster+track://a:1,[::1]:2,b:3", &c, err,
                                     sizeof err), 0);
    assert_true(c.cluster);
    assert_true(c.track);
    assert_int_equal(c.nseeds, 3);
    assert_string_equal(c.seeds[1].host, "::1");
    assert_int_equal(c.seeds[1].port, 2);
    assert_string_equal(c.seeds[2].host, "b");
    assert_string_equal(c.host, "a");   /* the first seed */
    assert_int_equal(c.port, 1);
    assert_int_equal(cache_parse_url("valkey://h:1", &c, err, sizeof err), 0);
    assert_false(c.cluster);
    const char *bad[] = {"valkey-cluster://", "valkey-cluster://h", "valkey-cluster://h:1/0",
                         "valkey-cluster://h:1,", "valkey-cluster://,h:1",
                         "valkey-cluster://h:1,h:0", "valkey-cluster://h:1,,h:2",
                         "valkey-cluster+track://h:x", "valkey-clusters://h:1",
                         "valkey-cluster://1:1,2:2,3:3,4:4,5:5,6:6,7:7,8:8,9:9,10:10,11:11,"
                         "12:12,13:13,14:14,15:15,16:16,17:17"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (cache_parse_url(bad[i], &c, err, sizeof err) == 0)
            fail_msg("accepted bad cache URL [%s]", bad[i]);
    assert_int_equal(cache_parse_url("valkey-cluster://h:1/0", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "database 0 only"));
}

/* A new link store at the fixture's db path holding one link,
 * FALLBACK_URL (its id in id). */
#define FALLBACK_URL "https://fallback.example/"
static struct links *one_link(struct fixture *fx, char *id)
{
    char err[512];
    struct links_store st;
    assert_int_equal(links_store_parse(fx->db, &st, err, sizeof err), 0);
    struct links_create_opts o = {0, 1, 1, LINKS_SCHEMA_SEED, NULL, 0};
    int64_t made;
    assert_int_equal(links_create_db_opts(&st, &o, &made, err, sizeof err), 0);
    struct links *l = links_open_store(&st, err, sizeof err);
    assert_non_null(l);
    assert_int_equal(links_create(l, FALLBACK_URL, strlen(FALLBACK_URL), id), LINKS_OK);
    return l;
}

/* Through c, a cache that cannot answer: 50 lookups of one_link's id
 * still find its URL in SQLite, and an unknown id is not found. */
static void lookups_fall_back(struct cache *c, struct links *l, const char *id)
{
    char url[LINKS_URL_MAX + 1];
    size_t n;
    for (int i = 0; i < 50; i++) {
        assert_int_equal(cache_lookup(c, l, id, LINKS_ID_LEN, url, sizeof url, &n), LINKS_OK);
        assert_string_equal(url, FALLBACK_URL);
    }
    assert_int_equal(cache_lookup(c, l, "zzzzzzzzzz", 10, url, sizeof url, &n), LINKS_NOTFOUND);
}

/* A Valkey that is not there: lookups still answer from SQLite, the
 * failure is counted, and the backoff spares further connect attempts. */
static void test_cache_fallback(void **st)
{
    char err[512], id[LINKS_ID_LEN + 1];
    struct links *l = one_link(*st, id);
    struct cache_config cfg;
    /* port 1 on loopback: nothing listens there, connect is refused */
    assert_int_equal(cache_parse_url("valkey://127.0.0.1:1", &cfg, err, sizeof err), 0);
    struct cache *c = cache_open(&cfg);
    assert_non_null(c);
    assert_int_not_equal(cache_ping(c, err, sizeof err), 0);
    lookups_fall_back(c, l, id);
    struct cache_stats cs;
    cache_stats(c, &cs);
    assert_true(cs.errors >= 1);
    assert_true(cs.skipped >= 1);   /* backoff: not one connect per lookup */
    assert_int_equal(cs.hits, 0);
    assert_int_equal(cs.connects, 0);
    cache_close(c);
    links_close(l);
}

/* A cluster whose seeds are not there: the same as one Valkey that is not
 * there (answers from SQLite, counted, no connect per lookup). */
static void test_cluster_fallback(void **st)
{
    char err[512], id[LINKS_ID_LEN + 1];
    struct links *l = one_link(*st, id);
    struct cache_config cfg;
    assert_int_equal(cache_parse_url("valkey-cluster://127.0.0.1:1,127.0.0.1:2", &cfg, err,
                                     sizeof err), 0);
    struct cache *c = cache_open(&cfg);
    assert_non_null(c);
    assert_int_not_equal(cache_ping(c, err, sizeof err), 0);
    assert_non_null(strstr(err, "127.0.0.1:"));
    lookups_fall_back(c, l, id);
    struct cache_stats cs;
    cache_stats(c, &cs);
    assert_true(cs.errors >= 2);    /* both seeds refused, at open */
    assert_true(cs.errors < 20);    /* ...not once per lookup */
    assert_int_equal(cs.skipped, 51);
    assert_int_equal(cs.hits, 0);
    assert_int_equal(cs.connects, 0);
    assert_int_equal(cs.map_refreshes, 0);
    assert_int_equal(cs.nnodes, 0);   /* no primary known */
    cache_close(c);
    links_close(l);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_cache_url),
    cmocka_unit_test(test_cluster_url),
    cmocka_unit_test_setup_teardown(test_cluster_fallback, fixture_dir_setup,
                                    fixture_teardown),
    cmocka_unit_test_setup_teardown(test_cache_fallback, fixture_dir_setup,
                                    fixture_teardown))

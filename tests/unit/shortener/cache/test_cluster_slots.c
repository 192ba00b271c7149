/* cluster_slots: key slots and redirects as the Valkey Cluster
 * specification defines them (its test vector and hash-tag examples). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "shortener/cache/cluster_slots.h"

#define SLOT(s) cluster_keyslot((s), strlen(s))

static void test_crc16(void **st)
{
    (void)st;
    assert_int_equal(cluster_crc16("123456789", 9), 0x31C3);   /* the spec's vector */
    assert_int_equal(cluster_crc16("", 0), 0);
    /* Slots commonly quoted from CLUSTER KEYSLOT on a real server. */
    assert_int_equal(SLOT("foo"), 12182);
    assert_int_equal(SLOT("bar"), 5061);
    assert_int_equal(SLOT("123456789"), 0x31C3);
}

static void test_hash_tags(void **st)
{
    (void)st;
    /* Only "user1000" is hashed. */
    assert_int_equal(SLOT("{user1000}.following"), SLOT("user1000"));
    assert_int_equal(SLOT("{user1000}.followers"), SLOT("user1000"));
    /* The first '{' then '}' are empty: the whole key is hashed. */
    assert_int_equal(SLOT("foo{}{bar}"),
                     cluster_crc16("foo{}{bar}", 10) & (CLUSTER_NSLOTS - 1));
    assert_int_not_equal(SLOT("foo{}{bar}"), SLOT("bar"));
    /* "{bar" is hashed: from the first '{' to the first '}' after it. */
    assert_int_equal(SLOT("foo{{bar}}"), SLOT("{bar"));
    /* Only the first tag counts. */
    assert_int_equal(SLOT("foo{bar}{zap}"), SLOT("bar"));
    assert_int_not_equal(SLOT("foo{bar}{zap}"), SLOT("zap"));
    /* No closing brace: the whole key. */
    assert_int_equal(SLOT("foo{bar"), cluster_crc16("foo{bar", 7) & (CLUSTER_NSLOTS - 1));
    for (int i = 0; i < 1000; i++) {
        char k[32];
        int n = snprintf(k, sizeof k, "kvtest:link:%d", i);
        int s = cluster_keyslot(k, (size_t)n);
        assert_true(s >= 0 && s < CLUSTER_NSLOTS);
    }
}

static void test_redirects(void **st)
{
    (void)st;
    struct cluster_redirect r;
    const char *m = "MOVED 3999 127.0.0.1:6381";
    assert_int_equal(cluster_redirect_parse(m, strlen(m), &r), 0);
    assert_int_equal(r.ask, 0);
    assert_int_equal(r.slot, 3999);
    assert_string_equal(r.host, "127.0.0.1");
    assert_int_equal(r.port, 6381);
    m = "ASK 16383 ::1:7000";
    assert_int_equal(cluster_redirect_parse(m, strlen(m), &r), 0);
    assert_int_equal(r.ask, 1);
    assert_int_equal(r.slot, 16383);
    assert_string_equal(r.host, "::1");
    assert_int_equal(r.port, 7000);
    m = "MOVED 0 :7001";   /* unknown endpoint: the node that answered */
    assert_int_equal(cluster_redirect_parse(m, strlen(m), &r), 0);
    assert_string_equal(r.host, "");
    assert_int_equal(r.port, 7001);
    const char *bad[] = {"ERR unknown command", "MOVED", "MOVED 3999", "MOVED 16384 h:1",
                         "MOVED -1 h:1", "ASK 1 h", "ASK 1 h:0", "ASK 1 h:65536",
                         "CLUSTERDOWN The cluster is down", "MOVED x h:1", "ASKING"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (cluster_redirect_parse(bad[i], strlen(bad[i]), &r) == 0)
            fail_msg("took [%s] for a redirect", bad[i]);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_crc16),
    cmocka_unit_test(test_hash_tags),
    cmocka_unit_test(test_redirects))

/* trackshard: the process-wide client-side cache map is bounded in all,
 * refuses a put whose ticket predates an invalidation or a flush, and under
 * racing threads never keeps a value that an invalidation has overtaken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "shortener/cache/trackshard.h"

static int put(struct trackshard *s, uint64_t ticket, const char *id, const char *url)
{
    return trackshard_put(s, ticket, id, strlen(id), url, strlen(url), 0);
}

/* The ticket rule, one thread: a delete or a clear after the ticket
 * refuses the put, even when the deleted key was absent. */
static void test_ticket(void **st)
{
    (void)st;
    struct trackshard *s = trackshard_new(1000);
    assert_non_null(s);
    char url[64];
    size_t n = 0;
    uint64_t t = trackshard_ticket(s, "a", 1);
    assert_int_equal(put(s, t, "a", "http://a"), 0);
    assert_int_equal(trackshard_get(s, "a", 1, 0, url, sizeof url, &n), 1);
    assert_string_equal(url, "http://a");
    t = trackshard_ticket(s, "a", 1);
    assert_int_equal(trackshard_del(s, "a", 1), 1);
    assert_int_equal(put(s, t, "a", "http://old"), -2);   /* invalidated meanwhile */
    assert_int_equal(trackshard_get(s, "a", 1, 0, url, sizeof url, &n), 0);
    t = trackshard_ticket(s, "a", 1);
    assert_int_equal(trackshard_del(s, "a", 1), 0);       /* absent, still an invalidation */
    assert_int_equal(put(s, t, "a", "http://old"), -2);
    t = trackshard_ticket(s, "b", 1);
    assert_int_equal(put(s, trackshard_ticket(s, "c", 1), "c", "http://c"), 0);
    assert_int_equal(trackshard_clear(s), 1);
    assert_int_equal(put(s, t, "b", "http://b"), -2);      /* flushed meanwhile */
    assert_int_equal(trackshard_count(s), 0);
    trackshard_free(s);
}

/* Bounded in all, for sizes below and above the shard count. */
static void test_bound(void **st)
{
    (void)st;
    int64_t sizes[] = {1, 5, 63, 64, 100, 1000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct trackshard *s = trackshard_new(sizes[k]);
        assert_non_null(s);
        char id[16];
        int64_t evicted = 0;
        for (int i = 0; i < 5000; i++) {
            snprintf(id, sizeof id, "id%d", i);
            int rc = put(s, trackshard_ticket(s, id, strlen(id)), id, "http://x");
            assert_true(rc == 0 || rc == 1);
            evicted += rc;
            assert_true(trackshard_count(s) <= sizes[k]);
        }
        assert_int_equal(trackshard_count(s), sizes[k]);
        assert_int_equal(evicted, 5000 - sizes[k]);
        trackshard_free(s);
    }
}

/* Racing threads, modelled on the service: "Valkey" is an array of
 * versions; readers take a ticket, read the version (their GET), yield
 * (a round trip), and put it; the writer bumps a version and then
 * deletes the key (its invalidation, read after the write). Afterwards no
 * entry may hold an older version than the key's last. */
#define RACE_KEYS 8
#define RACE_READERS 3
#define RACE_ROUNDS 20000

static _Atomic int version[RACE_KEYS];
static _Atomic int stop_readers;

static void key_name(char *id, size_t cap, int k)
{
    snprintf(id, cap, "k%d", k);
}

static void *reader(void *arg)
{
    struct trackshard *s = arg;
    unsigned seed = 1;
    char id[16], url[32];
    while (!atomic_load(&stop_readers)) {
        int k = (int)(rand_r(&seed) % RACE_KEYS);
        key_name(id, sizeof id, k);
        uint64_t t = trackshard_ticket(s, id, strlen(id));
        snprintf(url, sizeof url, "%d", atomic_load(&version[k]));
        sched_yield();
        put(s, t, id, url);
    }
    return NULL;
}

static void test_race(void **st)
{
    (void)st;
    struct trackshard *s = trackshard_new(RACE_KEYS * 4);
    assert_non_null(s);
    pthread_t th[RACE_READERS];
    atomic_store(&stop_readers, 0);
    for (int i = 0; i < RACE_READERS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, reader, s), 0);
    char id[16];
    for (int r = 0; r < RACE_ROUNDS; r++) {
        int k = r % RACE_KEYS;
        key_name(id, sizeof id, k);
        atomic_fetch_add(&version[k], 1);
        trackshard_del(s, id, strlen(id));
        if (r % 64 == 0)
            sched_yield();
    }
    atomic_store(&stop_readers, 1);
    for (int i = 0; i < RACE_READERS; i++)
        pthread_join(th[i], NULL);
    int stale = 0;
    for (int k = 0; k < RACE_KEYS; k++) {
        char url[32];
        size_t n = 0;
        key_name(id, sizeof id, k);
        if (trackshard_get(s, id, strlen(id), 0, url, sizeof url, &n) &&
            atoi(url) != atomic_load(&version[k]))
            stale++;
    }
    assert_int_equal(stale, 0);
    trackshard_free(s);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_ticket),
    cmocka_unit_test(test_bound),
    cmocka_unit_test(test_race))

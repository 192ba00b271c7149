/* Unit tests of measure/order: --asc/--desc wrap, --random is a seeded
 * permutation, --zipf is skewed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "measure/keys/order.h"

static void test_order_asc_desc(void **state)
{
    (void)state;
    struct order o;
    assert_int_equal(order_init(&o, ORDER_ASC, 5, 4, 1, 0, 0), 0);
    int64_t want[] = {4, 5, 1, 2, 3, 4};
    for (int i = 0; i < 6; i++) assert_int_equal(order_next(&o), want[i]);
    assert_int_equal(order_init(&o, ORDER_DESC, 5, 0, 1, 0, 0), 0);
    int64_t want2[] = {5, 4, 3, 2, 1, 5};
    for (int i = 0; i < 6; i++) assert_int_equal(order_next(&o), want2[i]);
    assert_int_equal(order_init(&o, ORDER_ASC, 0, 0, 1, 0, 0), -1);
    assert_int_equal(order_init(&o, ORDER_ASC, 5, 6, 1, 0, 0), -1);
}

/* --random must visit every key of 1..max_id once per max_id draws, look
 * shuffled, and be reproducible by seed: otherwise db and files runs would
 * not be asked for comparable work. */
static void test_order_random_is_permutation(void **state)
{
    (void)state;
    int64_t sizes[] = {1, 2, 3, 1000, 1024, 1025, 100000};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        int64_t n = sizes[s];
        unsigned char *seen = calloc((size_t)n + 1, 1);
        struct order o;
        assert_int_equal(order_init(&o, ORDER_RANDOM, n, 0, 12345, 0, 0), 0);
        int64_t ascending = 0, prev = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t k = order_next(&o);
            assert_true(k >= 1 && k <= n);
            assert_int_equal(seen[k], 0);
            seen[k] = 1;
            ascending += k == prev + 1;
            prev = k;
        }
        if (n >= 1000)
            assert_true(ascending < n / 100);   /* not a disguised --asc */
        free(seen);
    }
    /* Same seed, same sequence; another seed or stream, another one. */
    struct order a, b, c, d;
    assert_int_equal(order_init(&a, ORDER_RANDOM, 100000, 0, 1, 0, 0), 0);
    assert_int_equal(order_init(&b, ORDER_RANDOM, 100000, 0, 1, 0, 0), 0);
    assert_int_equal(order_init(&c, ORDER_RANDOM, 100000, 0, 2, 0, 0), 0);
    assert_int_equal(order_init(&d, ORDER_RANDOM, 100000, 0, 1, 1, 0), 0);
    int diff_c = 0, diff_d = 0;
    for (int i = 0; i < 1000; i++) {
        int64_t x = order_next(&a);
        assert_int_equal(x, order_next(&b));
        diff_c += x != order_next(&c);
        diff_d += x != order_next(&d);
    }
    assert_true(diff_c > 990 && diff_d > 990);
    /* Spread: the first 10% of draws hit every tenth of the key range. */
    struct order e;
    assert_int_equal(order_init(&e, ORDER_RANDOM, 100000, 0, 3, 0, 0), 0);
    int deciles[10] = {0};
    for (int i = 0; i < 10000; i++)
        deciles[(order_next(&e) - 1) / 10000]++;
    for (int i = 0; i < 10; i++)
        assert_true(deciles[i] > 800 && deciles[i] < 1200);
}

/* --start S makes --random begin at the S-th key of the same permutation
 * (run.bats checks the command; this pins the offset). */
static void test_order_random_start(void **state)
{
    (void)state;
    struct order a, b;
    assert_int_equal(order_init(&a, ORDER_RANDOM, 1000, 0, 7, 0, 0), 0);
    assert_int_equal(order_init(&b, ORDER_RANDOM, 1000, 5, 7, 0, 0), 0);
    for (int i = 0; i < 4; i++)
        (void)order_next(&a);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(order_next(&a), order_next(&b));
}

static void test_order_zipf(void **state)
{
    (void)state;
    struct order o;
    assert_int_equal(order_init(&o, ORDER_ZIPF, 10000, 0, 5, 0, 1.0), 0);
    int *hits = calloc(10001, sizeof(int));
    for (int i = 0; i < 200000; i++) {
        int64_t k = order_next(&o);
        assert_true(k >= 1 && k <= 10000);
        hits[k]++;
    }
    /* Skewed: the hottest key far above the uniform share (20) ... */
    int maxk = 1;
    for (int k = 1; k <= 10000; k++)
        if (hits[k] > hits[maxk]) maxk = k;
    assert_true(hits[maxk] > 1000);
    /* ... and the hot keys are not all at the start of the range. */
    int hot_high = 0;
    for (int k = 5001; k <= 10000; k++)
        hot_high += hits[k] > 200;
    assert_true(hot_high > 0);
    free(hits);
    assert_int_equal(order_init(&o, ORDER_ZIPF, 100, 0, 5, 0, 0.0), -1);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_order_asc_desc),
    cmocka_unit_test(test_order_random_is_permutation),
    cmocka_unit_test(test_order_random_start),
    cmocka_unit_test(test_order_zipf))

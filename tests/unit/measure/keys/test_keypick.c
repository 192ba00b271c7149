/* keypick: uniform and scattered-Zipf key selection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "measure/keys/keypick.h"

static void test_pick_uniform(void **state)
{
    (void)state;
    struct keypick p;
    assert_int_equal(keypick_init(&p, 0, 0), -1);
    assert_int_equal(keypick_init(&p, 10, -1), -1);
    assert_int_equal(keypick_init(&p, 10, 0), 0);
    rng_t r;
    rng_seed(&r, 3);
    int count[10] = {0};
    for (int i = 0; i < 100000; i++) {
        uint64_t x = keypick_next(&p, &r);
        assert_true(x < 10);
        count[x]++;
    }
    for (int i = 0; i < 10; i++)   /* sd ~ 95 */
        assert_in_range(count[i], 10000 - 500, 10000 + 500);
    assert_int_equal(keypick_init(&p, 1, 0), 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(keypick_next(&p, &r), 0);
}

static void test_scatter_bijection(void **state)
{
    (void)state;
    const uint64_t sizes[] = {1, 2, 3, 10, 97, 100, 1000, 4096, 65537};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        uint64_t n = sizes[s];
        struct keypick p;
        assert_int_equal(keypick_init(&p, n, 1.0), 0);
        unsigned char *seen = calloc(n, 1);
        assert_non_null(seen);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t x = keypick_scatter(&p, i);
            assert_true(x < n);
            assert_int_equal(seen[x], 0);
            seen[x] = 1;
        }
        free(seen);
        /* The hottest ranks are not neighbours in the file. */
        if (n >= 100) {
            int64_t d = (int64_t)keypick_scatter(&p, 1) - (int64_t)keypick_scatter(&p, 0);
            assert_true(llabs(d) > 1);
        }
    }
}

static void test_pick_zipf(void **state)
{
    (void)state;
    const uint64_t n = 1000;
    struct keypick p;
    assert_int_equal(keypick_init(&p, n, 1.1), 0);
    rng_t r;
    rng_seed(&r, 11);
    uint64_t *count = calloc(n, sizeof(*count));
    assert_non_null(count);
    const int draws = 200000;
    for (int i = 0; i < draws; i++) {
        uint64_t x = keypick_next(&p, &r);
        assert_true(x < n);
        count[x]++;
    }
    /* Rank 1 of Zipf(1.1) over 1000 keys gets ~16% of the draws (uniform:
     * 0.1%), and lands where the scatter puts rank 0. */
    uint64_t hot = keypick_scatter(&p, 0);
    assert_true(count[hot] > (uint64_t)draws / 10);
    for (uint64_t i = 0; i < n; i++)
        assert_true(count[i] <= count[hot]);
    /* Same seed, same sequence. */
    rng_t a, b;
    rng_seed(&a, 5);
    rng_seed(&b, 5);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(keypick_next(&p, &a), keypick_next(&p, &b));
    free(count);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_pick_uniform),
    cmocka_unit_test(test_scatter_bijection),
    cmocka_unit_test(test_pick_zipf))

/* Unit tests of measure/rng: reproducible by seed, uniform, OS bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "measure/keys/rng.h"

static void test_rng_reproducible_and_uniform(void **state)
{
    (void)state;
    rng_t a, b, c;
    rng_seed(&a, 42); rng_seed(&b, 42); rng_seed(&c, 43);
    int same_c = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = rng_next(&a);
        assert_true(x == rng_next(&b));
        same_c += x == rng_next(&c);
    }
    assert_true(same_c < 2);
    /* rng_below: every bucket of 10 within 5% of its expected share. */
    uint64_t n[10] = {0};
    rng_seed(&a, 7);
    for (int i = 0; i < 200000; i++) {
        uint64_t x = rng_below(&a, 10);
        assert_true(x < 10);
        n[x]++;
    }
    for (int i = 0; i < 10; i++)
        assert_true(n[i] > 19000 && n[i] < 21000);
    /* Fill: reproducible, not constant, odd lengths. */
    unsigned char p[37], q[37];
    rng_seed(&a, 9); rng_fill(&a, p, sizeof(p));
    rng_seed(&a, 9); rng_fill(&a, q, sizeof(q));
    assert_memory_equal(p, q, sizeof(p));
    int distinct = 0;
    for (size_t i = 1; i < sizeof(p); i++)
        distinct += p[i] != p[0];
    assert_true(distinct > 30);
    assert_true(rng_mix(1, 2) != rng_mix(2, 1));
    assert_int_equal(rng_os_bytes(p, sizeof(p)), 0);
    assert_int_equal(rng_os_bytes(q, sizeof(q)), 0);
    assert_memory_not_equal(p, q, sizeof(p));
    double d = rng_double(&a);
    assert_true(d >= 0 && d < 1);
}

/* rng_fill is the stream rng_next gives, 8 bytes a draw, and leaves the
 * generator after its last draw: two fills in a row are one longer fill,
 * and a short tail takes one draw whole. */
static void test_rng_fill_is_the_stream(void **state)
{
    (void)state;
    rng_t a, b;
    rng_seed(&a, 11);
    rng_seed(&b, 11);
    unsigned char whole[40], part[40];
    rng_fill(&a, whole, sizeof whole);
    rng_fill(&b, part, 16);
    rng_fill(&b, part + 16, 24);
    assert_memory_equal(whole, part, sizeof whole);
    assert_true(rng_next(&a) == rng_next(&b));
    rng_seed(&a, 12);
    rng_seed(&b, 12);
    uint64_t v[2] = {rng_next(&b), rng_next(&b)};
    unsigned char tail[13];
    rng_fill(&a, tail, sizeof tail);   /* one draw of 8, one cut to 5 */
    assert_memory_equal(tail, v, 8);
    assert_memory_equal(tail + 8, &v[1], 5);
    assert_true(rng_next(&a) == rng_next(&b));
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_rng_reproducible_and_uniform),
    cmocka_unit_test(test_rng_fill_is_the_stream))

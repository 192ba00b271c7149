/* blobsum: seal/check round trip, single-bit flips, small blobs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "stores/blobsum.h"
#include "measure/clock.h"
#include "measure/keys/rng.h"

static void fill(unsigned char *b, size_t n, uint64_t seed)
{
    rng_t r;
    rng_seed(&r, seed);
    rng_fill(&r, b, n);
}

static void test_seal_check(void **st)
{
    (void)st;
    /* Sizes around the 32-byte block, the 8-byte word and the minimum. */
    const size_t sizes[] = {16, 17, 23, 24, 31, 32, 33, 39, 40, 41, 47, 63, 64,
                            65, 100, 1000, 4096, 10007, 1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        unsigned char *b = malloc(n);
        assert_non_null(b);
        fill(b, n, n);
        blobsum_seal(b, n);
        assert_int_equal(blobsum_check(b, n), 1);
        /* Random bytes that were never sealed are not taken for sealed. */
        fill(b, n, n + 1);
        assert_int_equal(blobsum_check(b, n), 0);
        free(b);
    }
}

static void test_every_bit_flip(void **st)
{
    (void)st;
    const size_t sizes[] = {16, 21, 40, 77, 300};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        unsigned char b[300];
        fill(b, n, 99 + n);
        blobsum_seal(b, n);
        for (size_t byte = 0; byte < n; byte++)
            for (int bit = 0; bit < 8; bit++) {
                b[byte] ^= (unsigned char)(1u << bit);
                if (blobsum_check(b, n) != 0)
                    fail_msg("size %zu: flip of byte %zu bit %d not detected", n, byte, bit);
                b[byte] ^= (unsigned char)(1u << bit);
            }
        assert_int_equal(blobsum_check(b, n), 1);
    }
}

static void test_zeros_and_length(void **st)
{
    (void)st;
    /* All-zero content of different lengths must give different tags, or a
     * truncated-and-padded blob could pass. */
    unsigned char a[64] = {0}, b[64] = {0};
    blobsum_seal(a, 40);
    blobsum_seal(b, 48);
    assert_int_equal(blobsum_check(a, 40), 1);
    assert_int_equal(blobsum_check(b, 48), 1);
    assert_true(blobsum_hash(a, 32) != blobsum_hash(a, 33));
    /* A sealed blob read with one byte missing fails. */
    assert_int_equal(blobsum_check(b, 47), 0);
}

static void test_small_blobs(void **st)
{
    (void)st;
    unsigned char b[BLOBSUM_MIN];
    memset(b, 0xab, sizeof b);
    for (size_t n = 0; n < BLOBSUM_MIN; n++) {
        blobsum_seal(b, n);   /* no-op */
        assert_int_equal(blobsum_check(b, n), -1);
    }
    for (size_t n = 0; n < BLOBSUM_MIN; n++)
        assert_int_equal(b[n], 0xab);
    assert_int_equal(blobsum_check(NULL, 100), -1);
}

/* A large buffer (the bulk loop, not just the tail): the hash is a pure
 * function of the bytes, and one changed byte anywhere changes it. The speed
 * is printed for information only: timing under sanitizers on a shared
 * machine says nothing reliable, so it is not asserted. */
static void test_large_buffer(void **st)
{
    (void)st;
    size_t n = 8 << 20;
    unsigned char *b = malloc(n);
    assert_non_null(b);
    fill(b, n, 5);
    uint64_t t0 = clock_now_ns();
    uint64_t h = blobsum_hash(b, n);
    for (int i = 0; i < 3; i++)
        assert_true(blobsum_hash(b, n) == h);
    uint64_t t1 = clock_now_ns();
    print_message("blobsum_hash: %.2f GB/s (this build)\n",
                  4.0 * (double)n / (double)(t1 - t0 ? t1 - t0 : 1));
    const size_t at[] = {0, 31, 32, n / 2, n - 33, n - 1};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        b[at[i]] ^= 0x40;
        if (blobsum_hash(b, n) == h)
            fail_msg("byte %zu of %zu changed, hash did not", at[i], n);
        b[at[i]] ^= 0x40;
    }
    assert_true(blobsum_hash(b, n) == h);
    assert_true(blobsum_hash(b, n - 1) != h);
    blobsum_seal(b, n);
    assert_int_equal(blobsum_check(b, n), 1);
    free(b);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_seal_check),
    cmocka_unit_test(test_every_bit_flip),
    cmocka_unit_test(test_zeros_and_length),
    cmocka_unit_test(test_small_blobs),
    cmocka_unit_test(test_large_buffer))

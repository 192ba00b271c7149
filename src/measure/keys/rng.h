/* rng: a seeded, fast, reproducible PRNG (xoshiro256**) for blob content and
 * access orders, and the OS CSPRNG for anything that must be unguessable. */
#ifndef KVTEST_RNG_H
#define KVTEST_RNG_H
#include <stddef.h>
#include <stdint.h>

typedef struct rng { uint64_t s[4]; } rng_t;

/* Seed from one 64-bit value (expanded with splitmix64). */
void rng_seed(rng_t *r, uint64_t seed);
/* Mix two values into one seed: the per-key stream for key k of seed s is
 * rng_seed(&r, rng_mix(s, k)), so content can be generated out of order and
 * in parallel yet stay identical for the same seed. */
uint64_t rng_mix(uint64_t a, uint64_t b);
uint64_t rng_next(rng_t *r);
/* Uniform in [0, n), unbiased (Lemire). n > 0. */
uint64_t rng_below(rng_t *r, uint64_t n);
/* Uniform in [0, 1). */
double rng_double(rng_t *r);
/* Fill buf with pseudo-random bytes (incompressible). */
void rng_fill(rng_t *r, void *buf, size_t n);
/* n bytes from the kernel CSPRNG (getrandom, /dev/urandom: base/os.h).
 * 0 on success, -1 on error. */
int rng_os_bytes(void *buf, size_t n);

#endif

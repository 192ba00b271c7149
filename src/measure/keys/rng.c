/* rng: xoshiro256** (Blackman & Vigna) seeded through splitmix64. Fast
 * enough to fill blobs at several GB/s, so init is bound by SQLite, not by
 * content generation, and fully reproducible from one seed. */
#include "measure/keys/rng.h"

#include <string.h>

#include "base/os.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rng_seed(rng_t *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

uint64_t rng_mix(uint64_t a, uint64_t b)
{
    uint64_t x = a ^ (b * 0xd1342543de82ef95ULL);
    uint64_t y = splitmix64(&x);
    return y ^ splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t rng_below(rng_t *r, uint64_t n)
{
    /* Lemire's multiply-shift with rejection: unbiased, usually one draw. */
    unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
    uint64_t lo = (uint64_t)m;
    if (lo < n) {
        uint64_t threshold = -n % n;
        while (lo < threshold) {
            m = (unsigned __int128)rng_next(r) * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double rng_double(rng_t *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

void rng_fill(rng_t *r, void *buf, size_t n)
{
    /* The state in a local copy: as far as the compiler knows, buf may
     * alias *r, so filling through r stored and reloaded the four words
     * for every 8 bytes. That chain through memory made the update paths'
     * speed hang on where the linker put the loop: two builds with the
     * same instruction counts differed by x1.06 in db-write (the loop 15.7%
     * of the samples in one, 19.2% in the other). In registers it is not. */
    rng_t s = *r;
    unsigned char *p = buf;
    while (n >= 8) {
        uint64_t v = rng_next(&s);
        memcpy(p, &v, 8);
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t v = rng_next(&s);
        memcpy(p, &v, n);
    }
    *r = s;
}

int rng_os_bytes(void *buf, size_t n)
{
    return os_random_bytes(buf, n);
}

/* keypick: uniform or scattered-Zipf key selection (see keypick.h). */
#include "measure/keys/keypick.h"

#include <string.h>

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int keypick_init(struct keypick *p, uint64_t n, double zipf_s)
{
    memset(p, 0, sizeof(*p));
    if (n < 1 || zipf_s < 0)
        return -1;
    p->n = n;
    /* A step near n/phi, made coprime with n, visits every index once per n
     * ranks and throws neighbouring ranks far apart. */
    uint64_t step = (uint64_t)((double)n * 0.6180339887498949) | 1;
    if (step >= n)
        step = 1;
    while (gcd64(step, n) != 1)
        step++;
    p->step = step % n ? step % n : 1;
    p->offset = n / 3;
    if (zipf_s > 0) {
        if (zipf_init(&p->z, n, zipf_s) != 0)
            return -1;
        p->zipf_on = 1;
    }
    return 0;
}

uint64_t keypick_scatter(const struct keypick *p, uint64_t rank0)
{
    unsigned __int128 x = (unsigned __int128)rank0 * p->step + p->offset;
    return (uint64_t)(x % p->n);
}

uint64_t keypick_next(const struct keypick *p, rng_t *r)
{
    if (!p->zipf_on)
        return rng_below(r, p->n);
    return keypick_scatter(p, zipf_next(&p->z, r) - 1);
}

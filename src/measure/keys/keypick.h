/* keypick: which existing key a reader asks for next, over n keys: uniform,
 * or Zipf with exponent s whose ranks are scattered over [0,n) by a fixed
 * bijection, so the hot keys are not neighbours in a key file (nor in a
 * database's rowid order). Used by the HTTP load's shortener scenario and
 * the in-process shortener bench, so both ask for the same keys. */
#ifndef KVTEST_KEYPICK_H
#define KVTEST_KEYPICK_H
#include <stdint.h>

#include "measure/keys/rng.h"
#include "measure/keys/zipf.h"

struct keypick {
    uint64_t n;
    int zipf_on;
    struct zipf z;
    uint64_t step, offset;   /* rank r -> (r * step + offset) mod n */
};

/* n >= 1; zipf_s == 0 means uniform. 0 ok, -1 on bad parameters. */
int keypick_init(struct keypick *p, uint64_t n, double zipf_s);
uint64_t keypick_next(const struct keypick *p, rng_t *r);   /* in [0, n) */
/* The bijection alone: Zipf rank index (0 = hottest) -> item index. */
uint64_t keypick_scatter(const struct keypick *p, uint64_t rank0);

#endif

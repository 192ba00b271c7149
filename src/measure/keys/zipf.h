/* zipf: Zipf-distributed ranks in O(1) per draw for any exponent s > 0
 * (rejection-inversion sampling, Hormann & Derflinger 1996), so skewed
 * workloads over millions of keys need no table. */
#ifndef KVTEST_ZIPF_H
#define KVTEST_ZIPF_H
#include <stdint.h>
#include "measure/keys/rng.h"

struct zipf {
    uint64_t n;
    double s;
    double h_x1, h_n, c;   /* precomputed constants of the sampler */
};

/* n >= 1, s > 0. Returns 0, or -1 on bad parameters. */
int zipf_init(struct zipf *z, uint64_t n, double s);
/* A rank in [1, n]; rank 1 is the most popular. */
uint64_t zipf_next(const struct zipf *z, rng_t *r);

#endif

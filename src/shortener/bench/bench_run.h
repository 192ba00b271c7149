/* bench_run: one timed run of the bench: a configuration over its
 * threads, each thread with its own connections (bench_run.c). */
#ifndef KVTEST_SHORTENER_BENCH_RUN_H
#define KVTEST_SHORTENER_BENCH_RUN_H
#include <stddef.h>
#include <stdint.h>

#include "measure/hist.h"
#include "measure/keys/rng.h"
#include "shortener/bench/bench_conf.h"

/* One thread's connections for one configuration, kept across runs. */
struct bench_slot {
    struct links *l;
    struct cache *c;
    struct hist *h;          /* measured runs only */
    rng_t rng;
    /* per run */
    int64_t n;
    int measure;
    uint64_t t0, t1;
    uint64_t wrong, errors;
    char first_problem[300];
};

/* Open s's connections for configuration conf. 0, or -1 with err. */
int bench_slot_open(const struct bench *b, int conf, struct bench_slot *s, char *err,
                    size_t cap);
/* One run of one configuration over its T slots. Returns wall seconds, or
 * a negative value if threads could not be started. */
double bench_conf_run(const struct bench *b, struct bench_slot *slots, int measure);

#endif

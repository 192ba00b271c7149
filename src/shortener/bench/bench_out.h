/* bench_out: the bench's results, per configuration, and their text
 * table and JSON object (bench_out.c). */
#ifndef KVTEST_SHORTENER_BENCH_OUT_H
#define KVTEST_SHORTENER_BENCH_OUT_H
#include <stdint.h>

#include "measure/hist.h"
#include "shortener/bench/bench_conf.h"

/* What one configuration measured over all its runs and threads. */
struct bench_result {
    double rate[BENCH_MAXREPEAT];   /* lookups/s per measured run */
    double secs[BENCH_MAXREPEAT];
    struct hist *h;
    struct cache_stats before, after;
    uint64_t wrong, errors;
    char first_problem[300];
    int64_t resident_max;
    int64_t pages;
    int cold_effective;      /* --cold: residency stayed below the threshold */
};

/* Results, to stdout. conf[i] is the configuration of res[i]. The JSON
 * printer returns -1 when out of memory (nothing printed), else 0. */
int bench_print_json(const struct bench *b, const int *conf, int nconf,
                     const struct bench_result *res);
void bench_print_text(const struct bench *b, const int *conf, int nconf,
                      const struct bench_result *res);

#endif

/* bench: the in-process lookup bench itself (bench.c): every
 * configuration measured over rotated repetitions and reported, from
 * options already parsed and checked (the command line is
 * shortener/cli/shortener_bench.c's). */
#ifndef KVTEST_SHORTENER_BENCH_H
#define KVTEST_SHORTENER_BENCH_H
#include "shortener/bench/bench_conf.h"

/* Measure the nconf configurations conf[] with b's options (b->o) and
 * cache configurations (b->ccfg, b->tcfg) and print the results; the exit
 * status. */
int bench_main(const struct bench *b, const int *conf, int nconf);

#endif

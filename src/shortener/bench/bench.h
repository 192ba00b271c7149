/* bench: the in-process lookup bench itself (bench.c): every
 * configuration measured over rotated repetitions and reported, from
 * options already parsed and checked (the command line is
 * shortener/cli/shortener_bench.c's). */
#ifndef KVTEST_SHORTENER_BENCH_H
#define KVTEST_SHORTENER_BENCH_H
#include "shortener/bench/bench_conf.h"

/* Measure the nconf configurations conf[] with b's options (b->o) and
 * cache configurations (b->ccfg, b->tcfg) and print the results. 0; or
 * ERRBUF_MISUSE (base/errbuf.h: an option this store or machine cannot
 * honour) or ERRBUF_FAIL, with one line in err, for the command to print
 * and turn into its exit status. */
int bench_main(const struct bench *b, const int *conf, int nconf, char *err, size_t errcap);

#endif

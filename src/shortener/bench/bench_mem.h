/* bench_mem: --mem-limit: the bench's lookups in a memory cgroup
 * (bench_mem.c). */
#ifndef KVTEST_SHORTENER_BENCH_MEM_H
#define KVTEST_SHORTENER_BENCH_MEM_H
#include "shortener/bench/bench_conf.h"

/* Each returns 0, or ERRBUF_MISUSE / ERRBUF_FAIL (base/errbuf.h) with one
 * line in err; nothing happens without --mem-limit. */
/* Refuse before any work what memlimit_check() refuses. */
int bench_mem_check(const struct bench_opts *o, char *err, size_t errcap);
/* Into the group, then DBFILE (and --compare-db) out of the page cache;
 * *h: the cleanup handle that removes the group on SIGINT/SIGTERM. */
int bench_mem_enter(const struct bench_opts *o, int *h, char *err, size_t errcap);
/* b->mem and b->mem_read_bytes, while still in the group. */
void bench_mem_note(struct bench *b);
/* Out of the group; rc is the bench's result so far (its reason, if any,
 * already in err), returned unless it was 0 and the group stays: then
 * ERRBUF_FAIL with why in err. */
int bench_mem_leave(const struct bench_opts *o, int h, int rc, char *err, size_t errcap);

#endif

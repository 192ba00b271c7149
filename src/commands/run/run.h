/* run: the measured loop. Opens a store, visits --count keys in the order
 * of measure/keys/order.h, times the whole run (open to close, so a WAL checkpoint
 * counts unless --nocheckpoint) and each blob access (histogram). */
#ifndef KVTEST_RUN_H
#define KVTEST_RUN_H
#include <stdint.h>
#include <stdio.h>
#include "base/json.h"
#include "measure/hist.h"
#include "measure/report.h"
#include "stores/layout.h"
#include "measure/keys/order.h"

struct run_opts {
    const char *path;
    int64_t count;          /* default 1000 */
    int64_t max_id;         /* 0 = largest key present (db and exports alike) */
    int64_t start;          /* 0 = default (1 asc, max_id desc) */
    enum order_kind order;  /* default ORDER_ASC */
    double zipf;            /* exponent for ORDER_ZIPF */
    uint64_t seed;          /* random/zipf stream and update content (default 1) */
    int blob_api;
    int64_t cache_size;     /* default 1000 */
    int64_t mmap;           /* default 0 */
    int64_t block_cache;    /* RocksDB block cache bytes, 0 = STORE_ROCKSDB_CACHE */
    const char *jmode;      /* NULL = leave as is */
    int nosync, fsync, nocheckpoint, multitrans, update;
    const char *synchronous; /* PRAGMA synchronous mode, NULL = SQLite's default */
    int integrity_check, stats;
    int64_t repeat;         /* measured runs, default 1 */
    int64_t warmup;         /* discarded runs, default 0 */
    int cold;               /* evict the page cache before each measured run */
    int fadvise;            /* -1 leave, 0 normal, 1 random */
    int64_t threads;        /* default 1; reads only */
    int verify;             /* check every blob read (blobsum) */
    int latency;            /* per-op histogram, default 1 (--no-latency: 0) */
    struct report_out out;  /* --json: one JSON object on stdout instead of
                               text; --csv: its fields as CSV */
    int quiet;              /* print nothing (library callers); r is filled */
    FILE *timeline;         /* --timeline: the CSV of the last measured run's
                               intervals (open; the caller closes it), or NULL */
    uint64_t timeline_ns;   /* its --interval */
    const char *keys_out;   /* test hook (--keys-out FILE, not in the help):
                               write the keys of the last measured run */
};

/* Figures of the measured runs (median run for the scalars). */
struct run_result {
    enum layout_kind kind;
    int64_t max_id;
    int64_t count;          /* blobs accessed in the median run (misses excluded) */
    int64_t misses;         /* in the median run */
    int64_t bytes;          /* content bytes in the median run */
    double seconds;         /* median run */
    double us_per_blob;     /* median */
    double us_min, us_max;  /* spread over the measured runs */
    double mb_per_s;        /* median */
    double mb_min, mb_max;
    double resident_max;    /* --cold: largest resident fraction before a run */
    int cold_effective;     /* --cold: eviction took hold in every run */
    int64_t missing_keys;   /* export: keys absent below its largest key
                               (1..max_id); -1 for a database (not counted) */
    struct hist *latency;   /* merged over measured runs; NULL if off.
                               Owned by the result: run_result_free(). */
    double *us_runs;        /* us per blob of every measured run, in order
                               (nruns of them): sweep's bootstrap resamples
                               them. Owned by the result: run_result_free(). */
    int nruns;
};

void run_defaults(struct run_opts *o);
void run_result_free(struct run_result *r);

/* Validate, measure, print (text or JSON unless quiet), fill *r (may be
 * NULL). cmd names the subcommand in messages. Returns 0, 1 or 2. */
int run_measure(const struct run_opts *o, struct run_result *r, const char *cmd);

#endif

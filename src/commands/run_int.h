/* run internals shared by run.c (measuring) and run_out.c (printing). */
#ifndef KVTEST_RUN_INT_H
#define KVTEST_RUN_INT_H
#include <stdint.h>
#include <cjson/cJSON.h>
#include "measure/coldcache.h"
#include "measure/hist.h"
#include "commands/run.h"
#include "measure/runstats.h"

enum verify_state { VERIFY_OFF, VERIFY_ON, VERIFY_UNVERIFIABLE };

/* Figures of one measured run. */
struct run_fig {
    double seconds;
    int64_t count, misses, bytes, checked, unverifiable;
    int64_t io_read, io_write;
    struct io_counters io_delta;
    int cold;                        /* eviction attempted */
    struct coldcache_stat cst;
    double resident;                 /* fraction */
    struct sql_stats stats;
    char jmode[32];
};

/* Everything the result lines and the JSON object are made of. */
struct run_summary {
    const struct run_opts *o;
    enum layout_kind kind;
    int is_db;
    int64_t max_id, page_size, cache_size, threads;
    int nruns, med;                 /* figs[med] is the median run */
    const struct run_fig *figs;
    const double *us, *mb;          /* per run */
    double us_spread[3], mb_spread[3];   /* min, median, max */
    double resident_max, storage_per_blob;
    int cold_effective;
    struct io_counters io_sum;      /* summed over the measured runs */
    const struct hist *merged;      /* NULL with --no-latency */
    enum verify_state vs;
    int64_t checked_after, unver_after;   /* --update --verify read-back */
};

#define RUN_COLD_THRESHOLD 0.10     /* resident fraction above which a run is not cold */
#define RUN_COLD_METHOD "posix_fadvise(POSIX_FADV_DONTNEED) after write-back"

const char *run_order_name(enum order_kind k);
/* Print the result (JSON or text). Returns 0, or 1 when
 * --integrity-check found problems. */
int run_emit(const struct run_summary *s, const char *cmd);

#endif

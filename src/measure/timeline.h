/* timeline: what a run did in each fixed interval (--timeline): requests
 * completed, failures and the latency percentiles of the interval, so a
 * stall or a warm-up shows where the whole run's percentiles hide it.
 *
 * Each worker thread owns one timeline and records into it without locks;
 * the timelines are merged after the run. A request belongs to the interval
 * in which it completed. An interval's histogram is allocated when its
 * first latency arrives, so memory is one struct hist (64 KiB) per interval
 * with answers, per worker, and at most TIMELINE_MAX intervals are kept
 * (later completions are counted in dropped). */
#ifndef KVTEST_TIMELINE_H
#define KVTEST_TIMELINE_H
#include <stdint.h>
#include <stdio.h>

#include "measure/hist.h"

#define TIMELINE_MAX 3600
#define TIMELINE_NO_LATENCY UINT64_MAX   /* a failure without an answer */

struct timeline_slot {
    struct hist *h;            /* NULL until the interval's first latency */
    uint64_t n, fail;          /* completions (failures included), failures */
};

struct timeline {
    uint64_t t0, step;         /* ns: the run's start, the interval */
    int64_t n, cap;            /* slots in use (last with data + 1), allocated */
    struct timeline_slot *s;
    uint64_t dropped;          /* completions past TIMELINE_MAX or out of memory */
};

/* --interval D (units_parse_duration: 500ms, 1s, 2m), 1 ms to 1 h, into
 * *ns. 0, or -1 if D is not such a duration. */
int timeline_parse_interval(const char *s, uint64_t *ns);

void timeline_init(struct timeline *t, uint64_t t0, uint64_t step_ns);
void timeline_free(struct timeline *t);
/* One completion at t_done (ns, same clock as t0), its latency (or
 * TIMELINE_NO_LATENCY), failed or not. */
void timeline_record(struct timeline *t, uint64_t t_done, uint64_t lat_ns, int failed);
/* Add src into dst (same step); what cannot be allocated is dropped. */
void timeline_merge(struct timeline *dst, const struct timeline *src);
/* The CSV: a header, then one row per interval from 0 until the later of
 * the last completion and secs (the run's wall time), empty intervals
 * included: t_s,requests,failures,p50_us,p99_us,max_us (latency fields
 * empty for an interval without answers). 0, or -1 on a write error. */
int timeline_write_csv(const struct timeline *t, FILE *f, double secs);

#endif

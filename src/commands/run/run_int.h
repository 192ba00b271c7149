/* run internals. Data flows one way:
 *   run_plan_make (run_plan.c): options -> validated plan (layout, max id,
 *       holes, store options, verify state, database facts)
 *   run_series (run_series.c): plan -> summary (warm-up, cold eviction and
 *       measured passes of run_loop.c, read-back, figures, integrity)
 *   run_report (run_out.c): plan + summary -> text or JSON on stdout. */
#ifndef KVTEST_RUN_INT_H
#define KVTEST_RUN_INT_H
#include <stdint.h>
#include "base/cli.h"
#include "measure/coldcache.h"
#include "measure/hist.h"
#include "commands/run/run.h"
#include "measure/runstats.h"
#include "measure/stats.h"
#include "measure/timeline.h"
#include "stores/store.h"

/* ---- the plan: what is decided before anything is timed ---------------- */

/* RUN_VERIFY_USER: an "init --from" database, where a blob without our tag
 * is one of the user's files, counted as unverifiable rather than corrupt. */
enum run_verify { RUN_VERIFY_OFF, RUN_VERIFY_ON, RUN_VERIFY_UNVERIFIABLE, RUN_VERIFY_USER };

struct run_plan {
    const struct run_opts *o;
    enum layout_kind kind;
    int is_db;
    int64_t max_id;          /* --max-id, or the largest key present */
    int64_t missing_keys;    /* export holes (store_count_holes); -1 database */
    struct store_opts so;    /* how every measured pass opens the store */
    enum run_verify vs;
    struct store_desc desc;  /* page and cache size from one untimed open (db) */
};

/* Validate o and settle the plan (run_plan.c); warnings (ignored database
 * options, holes in an export) go to stderr unless o->quiet. 0, or the
 * exit status 1/2 after printing the error. */
int run_plan_make(struct run_plan *p, const struct run_opts *o, const char *cmd);

/* ---- one pass: T workers over the key sequence (run_loop.c) ------------ */

struct run_pass {
    const struct run_opts *o;   /* order, zipf, seed, count, stats, nocheckpoint */
    struct store_opts so;
    int64_t max_id;
    int verify;                 /* 1 check every read's blobsum; 2 a mismatch is
                                   unverifiable (RUN_VERIFY_USER) */
    int latency;                /* time each access into the workers' histograms */
    int64_t threads;
    int64_t *keys;              /* --keys-out: keys visited (one thread), or NULL */
    struct timeline *timeline;  /* --timeline: this pass's intervals, all threads
                                   (replaced by each pass), or NULL */
};

/* Figures of one measured pass. */
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

struct run_workers;
/* Per-thread state reused by every pass; NULL when out of memory. */
struct run_workers *run_workers_new(int64_t threads, int latency);
void run_workers_free(struct run_workers *ws);
/* Run the pass; merge the workers' histograms into merged (may be NULL).
 * 0, or 1 after printing the error. */
int run_pass_once(const struct run_pass *ps, struct run_workers *ws, struct hist *merged,
                  struct run_fig *f, const char *cmd);

/* ---- the series: every pass of the plan and its summary (run_series.c) - */

/* Rows of PRAGMA integrity_check (--integrity-check on a database). */
struct run_integrity {
    char **rows;
    int n, cap;
    int ran;                         /* the check could run (rows are its output) */
    int bad;                         /* a row other than "ok", or it could not run */
};

/* Everything the result lines and the JSON object are made of. */
struct run_summary {
    int nruns, med;                  /* figs[med] is the median run */
    struct run_fig *figs;            /* per measured run */
    double *us, *mb;                 /* per run */
    double us_spread[3], mb_spread[3];   /* min, median, max */
    struct stats_ci us_ci, mb_ci;        /* the median's 95% interval (stats.h) */
    double resident_max, storage_per_blob;
    int cold_effective;
    struct io_counters io_sum;       /* summed over the measured runs */
    struct hist *merged;             /* NULL with --no-latency */
    struct timeline timeline;        /* --timeline: the last measured run's */
    int64_t checked, unverifiable;   /* --verify totals, read-back included */
    struct run_integrity integrity;
};

/* Warm-up, cold eviction, the measured passes, read-back, figures,
 * integrity. 0, or 1 after printing the error; s is to be freed by
 * run_summary_free either way. */
int run_series(const struct run_plan *p, struct run_summary *s, const char *cmd);
void run_summary_free(struct run_summary *s);

/* ---- the command line (run_opts.c) ------------------------------------ */

/* What "kvtest run"'s options write: run_opts where a row's value is the
 * option's as it stands, and the parser's own values where cmd_run checks
 * or converts them first (the order and --zipf settle one order; the
 * pragma names become strings; --cache-size takes a sign). */
struct run_args {
    struct run_opts o;
    int order, jmode, sync, fadvise;    /* -1: not given */
    int64_t seed;
    int nolat;
    const char *cache_size, *keys_out, *timeline, *interval;
};

#define RUN_MAX_OPTS 40
extern const char *const run_jmodes[], *const run_syncs[], *const run_fadvises[];
/* The option table, its rows writing into *a; returns the number of rows. */
int run_opts_table(struct run_args *a, struct cli_opt rows[RUN_MAX_OPTS]);

/* ---- the result: plan + summary to stdout (run_out.c) ------------------ */

const char *run_order_name(enum order_kind k);
/* Print the result (JSON or text). 0, or 1 when --integrity-check found
 * problems. */
int run_report(const struct run_plan *p, const struct run_summary *s, const char *cmd);

#endif

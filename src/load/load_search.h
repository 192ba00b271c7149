/* load_search: the highest constant arrival rate at which every latency
 * bound of a service-level objective holds ("load --slo p99=5ms").
 *
 * The search runs constant-rate steps (the engine's --rate: latency from
 * each request's scheduled time, so coordinated omission is corrected)
 * through a caller's step function, which keeps this module free of
 * sockets and testable on its own:
 *   1. a coarse ramp from the first rate, doubling, up to the first step
 *      that fails (or --rate-max, which then passes: "at least");
 *   2. bisection (geometric midpoints) between the last rate that passed
 *      and the first that failed, until they are within LOAD_SEARCH_RES of
 *      each other;
 *   3. a step whose judged percentile lands within LOAD_SEARCH_CLOSE of
 *      its bound is run again (up to LOAD_SEARCH_REPEATS in all) and the
 *      majority decides, so one noisy step does not steer the bisection.
 * The answer is the geometric midpoint of the last pass and the first
 * fail; its interval runs from the highest rate below which every step of
 * every repeat passed (lowered by what a step of its length cannot tell
 * apart: load_search.c, interval) to the lowest rate that failed by
 * majority at or above the highest rate at which any step passed, so rates
 * whose repeats disagreed widen it (all but a stall that its rate's
 * majority outvoted: see below).
 *
 * How long a step is: a percentile q is judged from at least
 * LOAD_SEARCH_TAIL samples beyond it, n = LOAD_SEARCH_TAIL / (1 - q)
 * samples in all (2000 for p99, 20000 for p99.9), so a step lasts
 * max(min_secs, n / rate): at 1000 requests/s a p99.9 bound costs 20 s a
 * step, a p99 bound 2 s.
 *
 * A step that fell short of its target rate (below LOAD_SEARCH_SHORT of
 * it, counted over the step's planned length, not its drain) has not
 * shown that the service takes that rate, so it never passes. Whose limit
 * it was is told by the median latency from each actual send (not the
 * schedule): a service that saturated answers its connections' requests
 * later (a queue of up to one request per connection builds in it), one
 * that kept up answers them as fast as it did at ease -- within
 * LOAD_SEARCH_UNLOADED of the lowest such median of the steps that passed.
 * Then the shortfall was the load generator's (its CPU, or too few
 * connections for the rate) and the search ends there and says so;
 * otherwise the service saturated and the step fails.
 *
 * The same median tells a stall from a queue: a step that met its rate
 * but broke a bound while its median from send stayed at ease was held up
 * by something brief (a stall of the shared machine, a checkpoint) and is
 * repeated as a close one is, so one stall does not decide a rate. */
#ifndef KVTEST_LOAD_SEARCH_H
#define KVTEST_LOAD_SEARCH_H
#include <stddef.h>
#include <stdint.h>

#define LOAD_SLO_MAX 4
#define LOAD_SEARCH_TAIL 20.0
#define LOAD_SEARCH_RES 0.02      /* last pass and first fail within 2% */
#define LOAD_SEARCH_CLOSE 0.10    /* a percentile within 10% of its bound */
#define LOAD_SEARCH_REPEATS 3
#define LOAD_SEARCH_SHORT 0.98    /* achieved below 98% of the target */
#define LOAD_SEARCH_UNLOADED 2.0  /* median from send within 2x of at ease */
#define LOAD_SEARCH_MAX_STEPS 64

/* The objective: every percentile at or under its bound. */
struct load_slo {
    int n;
    double q[LOAD_SLO_MAX];        /* 0.99, 0.999, ... */
    double bound_us[LOAD_SLO_MAX];
    char name[LOAD_SLO_MAX][8];    /* "p99", "p999" */
};

/* Parse "p99=5ms,p999=20ms": percentiles p50, p90, p95, p99, p999, p9999,
 * each once; a bound with a unit (us, ms, s) above zero. 0, or -1 with
 * one line in err. */
int load_slo_parse(const char *s, struct load_slo *slo, char *err, size_t errcap);

/* "p99 <= 5 ms, p99.9 <= 20 ms" into buf. */
void load_slo_text(const struct load_slo *slo, char *buf, size_t cap);

/* Samples a step needs to judge slo's most demanding percentile. */
double load_slo_samples(const struct load_slo *slo);

/* What one step measured (filled by the step function). */
struct load_step {
    double target, achieved;       /* requests/s */
    double secs;                   /* planned length (achieved counts over it) */
    double wall_secs;              /* the step's run, its last answers' drain too */
    int64_t requests, failures;
    double pct_us[LOAD_SLO_MAX];   /* slo's percentiles, in slo's order */
    double p50_us, p99_us, p999_us;
    double sent_pct_us[LOAD_SLO_MAX];   /* the same from each actual send */
    double sent_p50_us;            /* median latency from each actual send */
    /* set by the search */
    int pass;                      /* every bound held and nothing failed */
    int short_rate;                /* achieved < LOAD_SEARCH_SHORT x target */
    int generator;                 /* short, and the service answered at ease */
    int stall;                     /* failed at its rate, the service at ease */
    int outvoted;                  /* a stall whose rate passed: not in the interval */
    int repeat;                    /* 1.. within its rate */
    int close;                     /* a percentile within LOAD_SEARCH_CLOSE of its bound */
};

/* Run one constant-rate step of secs seconds at rate; fill the measured
 * fields of *st. 0, or -1 with one line in err (the search stops). */
typedef int (*load_step_fn)(void *arg, double rate, double secs, struct load_step *st,
                            char *err, size_t errcap);
/* Told after every step (progress). */
struct load_search;
typedef void (*load_step_seen_fn)(void *arg, const struct load_search *s,
                                  const struct load_step *st);

struct load_search_opts {
    struct load_slo slo;
    double rate_start;             /* the first step (> 0) */
    double rate_max;               /* 0: no ceiling */
    double min_secs;               /* shortest step */
};

enum load_search_end {
    LOAD_SEARCH_FOUND,             /* capacity between lo and hi */
    LOAD_SEARCH_AT_MAX,            /* --rate-max passed: capacity >= lo */
    LOAD_SEARCH_BELOW_START,       /* the first step failed: capacity < hi */
    LOAD_SEARCH_GENERATOR,         /* the generator fell short at target rate */
    LOAD_SEARCH_STEPS,             /* LOAD_SEARCH_MAX_STEPS without converging */
};

struct load_search {
    struct load_step steps[LOAD_SEARCH_MAX_STEPS];
    int nsteps;
    enum load_search_end end;
    double capacity;               /* the estimate (0 if none) */
    double lo, hi;                 /* its interval (hi 0: open above) */
    double pass_rate, fail_rate;   /* the last pass and first fail (0: none) */
    double secs;                   /* all steps' runs (wall_secs) */
};

/* Run the search. 0 (s filled, s->end says how it ended), or -1 with one
 * line in err when a step could not run. */
int load_search_run(const struct load_search_opts *o, load_step_fn step,
                    load_step_seen_fn seen, void *arg, struct load_search *s, char *err,
                    size_t errcap);

const char *load_search_end_name(enum load_search_end e);

#endif

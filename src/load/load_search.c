/* load_search: the capacity search (see load_search.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "load/load_search.h"
#include "base/units.h"

static const struct {
    const char *name;
    double q;
} pcts[] = {{"p50", 0.50}, {"p90", 0.90}, {"p95", 0.95},
            {"p99", 0.99}, {"p999", 0.999}, {"p9999", 0.9999}};

/* The bound s[0..n), "5ms" -> 5000, in base/units' grammar of a latency:
 * the unit is required, so "5" is not taken for 5 us or 5 s by guess.
 * 0, or -1 (also for zero: no service answers in no time). */
static int parse_bound(const char *s, size_t n, double *us)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return units_parse_latency(buf, us) == 0 && *us > 0 ? 0 : -1;
}

int load_slo_parse(const char *s, struct load_slo *slo, char *err, size_t errcap)
{
    memset(slo, 0, sizeof *slo);
    const char *p = s ? s : "";
    for (;;) {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        if (len == 0) {
            snprintf(err, errcap, "--slo: an empty item in '%s' (expected p99=5ms[,p999=20ms])",
                     s ? s : "");
            return -1;
        }
        if (!eq) {
            snprintf(err, errcap, "--slo: '%.*s' has no bound (expected PERCENTILE=BOUND, as "
                     "p99=5ms)", (int)len, p);
            return -1;
        }
        size_t nlen = (size_t)(eq - p);
        int k = -1;
        for (int i = 0; i < (int)(sizeof pcts / sizeof pcts[0]); i++)
            if (strlen(pcts[i].name) == nlen && strncmp(p, pcts[i].name, nlen) == 0)
                k = i;
        if (k < 0) {
            snprintf(err, errcap, "--slo: unknown percentile '%.*s' (p50, p90, p95, p99, p999 "
                     "or p9999)", (int)nlen, p);
            return -1;
        }
        for (int i = 0; i < slo->n; i++)
            if (slo->q[i] == pcts[k].q) {
                snprintf(err, errcap, "--slo: %s is given twice", pcts[k].name);
                return -1;
            }
        double us;
        if (parse_bound(eq + 1, len - nlen - 1, &us) != 0) {
            snprintf(err, errcap, "--slo: bound '%.*s' of %s must be above zero and carry a "
                     "unit (us, ms or s), as 5ms", (int)(len - nlen - 1), eq + 1,
                     pcts[k].name);
            return -1;
        }
        if (slo->n == LOAD_SLO_MAX) {
            snprintf(err, errcap, "--slo: at most %d bounds", LOAD_SLO_MAX);
            return -1;
        }
        slo->q[slo->n] = pcts[k].q;
        slo->bound_us[slo->n] = us;
        snprintf(slo->name[slo->n], sizeof slo->name[0], "%s", pcts[k].name);
        slo->n++;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

void load_slo_text(const struct load_slo *slo, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < slo->n && used < cap; i++) {
        double b = slo->bound_us[i];
        int n = snprintf(buf + used, cap - used, "%sp%g <= %g %s", i ? ", " : "",
                         100 * slo->q[i], b >= 1e6 ? b / 1e6 : b >= 1e3 ? b / 1e3 : b,
                         b >= 1e6 ? "s" : b >= 1e3 ? "ms" : "us");
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

double load_slo_samples(const struct load_slo *slo)
{
    double q = 0;
    for (int i = 0; i < slo->n; i++)
        if (slo->q[i] > q)
            q = slo->q[i];
    return LOAD_SEARCH_TAIL / (1 - q);
}

const char *load_search_end_name(enum load_search_end e)
{
    switch (e) {
    case LOAD_SEARCH_FOUND: return "found";
    case LOAD_SEARCH_AT_MAX: return "at_rate_max";
    case LOAD_SEARCH_BELOW_START: return "below_first_step";
    case LOAD_SEARCH_GENERATOR: return "generator_limit";
    default: return "too_many_steps";
    }
}

/* Judge a measured step against the objective (load_search.h says why
 * each rule). ease: the lowest median latency from send of the steps that
 * passed, or 0 before any passed (then a short step's latencies from send
 * must meet the bounds for the generator to take the blame). */
static void judge(const struct load_slo *slo, double ease, struct load_step *st)
{
    st->pass = st->failures == 0 && st->requests > 0;
    st->close = st->stall = st->generator = 0;
    for (int i = 0; i < slo->n; i++) {
        double r = st->pct_us[i] / slo->bound_us[i];
        if (r > 1)
            st->pass = 0;
        if (fabs(r - 1) <= LOAD_SEARCH_CLOSE)
            st->close = 1;
    }
    int at_ease = ease > 0 && st->sent_p50_us <= LOAD_SEARCH_UNLOADED * ease;
    if (ease == 0) {
        at_ease = 1;
        for (int i = 0; i < slo->n; i++)
            if (st->sent_pct_us[i] > slo->bound_us[i])
                at_ease = 0;
    }
    st->short_rate = st->achieved < LOAD_SEARCH_SHORT * st->target;
    if (st->short_rate) {
        st->generator = st->failures == 0 && at_ease;
        st->pass = 0;
        return;
    }
    st->stall = !st->pass && st->failures == 0 && ease > 0 && at_ease;
}

struct ctx {
    const struct load_search_opts *o;
    load_step_fn step;
    load_step_seen_fn seen;
    void *arg;
    struct load_search *s;
    double ease;                   /* lowest median from send of a passing step */
    char *err;
    size_t cap;
};

/* Steps at rate, repeated while close or stalled: 1 passed (majority), 0 failed, -1
 * the step could not run, -2 the generator fell short, -3 out of steps. */
static int try_rate(struct ctx *c, double rate)
{
    const struct load_search_opts *o = c->o;
    struct load_search *s = c->s;
    double secs = load_slo_samples(&o->slo) / rate;
    if (secs < o->min_secs)
        secs = o->min_secs;
    int passes = 0, fails = 0, contested = 0, first = s->nsteps;
    for (int r = 1; r <= LOAD_SEARCH_REPEATS; r++) {
        if (s->nsteps == LOAD_SEARCH_MAX_STEPS)
            return -3;
        struct load_step *st = &s->steps[s->nsteps];
        memset(st, 0, sizeof *st);
        st->target = rate;
        if (c->step(c->arg, rate, secs, st, c->err, c->cap) != 0)
            return -1;
        st->target = rate;
        st->repeat = r;
        judge(&o->slo, c->ease, st);
        if (st->pass && st->sent_p50_us > 0 && (c->ease == 0 || st->sent_p50_us < c->ease))
            c->ease = st->sent_p50_us;
        s->nsteps++;
        s->secs += st->wall_secs > 0 ? st->wall_secs : st->secs;
        if (c->seen)
            c->seen(c->arg, s, st);
        if (st->generator)
            return -2;
        st->pass ? passes++ : fails++;
        /* A clear verdict stands; once a step at this rate was close or
         * stalled, its rate waits for a majority. */
        contested |= st->close || st->stall;
        if (!contested || passes * 2 > LOAD_SEARCH_REPEATS || fails * 2 > LOAD_SEARCH_REPEATS)
            break;
    }
    /* A stall its rate's majority outvoted says nothing about the rate:
     * it stays in the steps, out of the interval. */
    for (int i = first; passes > fails && i < s->nsteps; i++)
        s->steps[i].outvoted = s->steps[i].stall;
    return passes > fails;
}

/* Did the steps at rate pass, by majority? (An outvoted stall counts as
 * the failure it was: its rate passed regardless.) */
static int rate_passed(const struct load_search *s, double rate)
{
    int passes = 0, fails = 0;
    for (int i = 0; i < s->nsteps; i++)
        if (s->steps[i].target == rate)
            s->steps[i].pass ? passes++ : fails++;
    return passes > fails;
}

/* The interval. Low end: the highest rate below which every step passed.
 * A pass at rate R over T seconds does not prove a capacity of R: a
 * service slightly slower than R builds a backlog that a short step ends
 * before it breaks the bound B. Delay under B after T seconds means
 * (R - C) T <= C B, so the low end is R T / (T + B), with B the largest
 * bound. High end: the lowest rate that failed by majority at or above
 * the highest rate at which any step passed, so that a rate whose repeats
 * disagreed widens the interval up to it (and not to "open above" when it
 * is the highest rate tried). */
static void interval(const struct load_slo *slo, struct load_search *s)
{
    double lo = 0, hi = 0, b = 0, top_pass = 0;
    for (int i = 0; i < slo->n; i++)
        if (slo->bound_us[i] / 1e6 > b)
            b = slo->bound_us[i] / 1e6;
    for (int i = 0; i < s->nsteps; i++)
        if (s->steps[i].pass && s->steps[i].target > top_pass)
            top_pass = s->steps[i].target;
    for (int i = 0; i < s->nsteps; i++) {
        const struct load_step *st = &s->steps[i];
        double r = st->target;
        int below_all_pass = 1;
        if (st->outvoted)
            continue;
        for (int j = 0; j < s->nsteps; j++)
            if (!s->steps[j].outvoted && s->steps[j].target <= r && !s->steps[j].pass)
                below_all_pass = 0;
        double proven = st->secs > 0 ? r * st->secs / (st->secs + b) : 0;
        if (below_all_pass && proven > lo)
            lo = proven;
        if (r >= top_pass && (hi == 0 || r < hi) && !rate_passed(s, r))
            hi = r;
    }
    s->lo = lo;
    s->hi = hi;
}

int load_search_run(const struct load_search_opts *o, load_step_fn step,
                    load_step_seen_fn seen, void *arg, struct load_search *s, char *err,
                    size_t errcap)
{
    memset(s, 0, sizeof *s);
    struct ctx c = {.o = o, .step = step, .seen = seen, .arg = arg, .s = s, .err = err,
                    .cap = errcap};
    double pass = 0, fail = 0, rate = o->rate_start;
    int rc = 0;
    /* The ramp: double until a step fails or the ceiling passes. */
    while (rc >= 0) {
        rc = try_rate(&c, rate);
        if (rc == 1)
            pass = rate;
        else if (rc == 0)
            fail = rate;
        if (rc != 1 || (o->rate_max > 0 && rate >= o->rate_max))
            break;
        rate *= 2;
        if (o->rate_max > 0 && rate > o->rate_max)
            rate = o->rate_max;
    }
    /* Bisection between the last pass and the first fail. */
    while (rc >= 0 && pass > 0 && fail > 0 && fail / pass > 1 + LOAD_SEARCH_RES) {
        rate = sqrt(pass * fail);
        rc = try_rate(&c, rate);
        if (rc == 1)
            pass = rate;
        else if (rc == 0)
            fail = rate;
    }
    if (rc == -1)
        return -1;
    s->pass_rate = pass;
    s->fail_rate = fail;
    interval(&o->slo, s);
    if (rc == -2) {
        s->end = LOAD_SEARCH_GENERATOR;
        s->capacity = 0;
        return 0;
    }
    if (rc == -3)
        s->end = LOAD_SEARCH_STEPS;
    else if (pass == 0)
        s->end = LOAD_SEARCH_BELOW_START;
    else if (fail == 0)
        s->end = LOAD_SEARCH_AT_MAX;
    else
        s->end = LOAD_SEARCH_FOUND;
    s->capacity = pass > 0 && fail > 0 ? sqrt(pass * fail) : pass;
    return 0;
}

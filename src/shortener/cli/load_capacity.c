/* load_capacity: the capacity search's steps, progress and answer (see
 * load_capacity.h). A step is one ordinary --rate run of the engine, so
 * its latency is corrected for coordinated omission exactly as a --rate
 * run's is; between steps the connections are closed and opened again,
 * so a backlog of one step never leaks into the next. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "load/load_report.h"
#include "measure/report.h"
#include "shortener/cli/load_capacity.h"

#define CMD "shortener load"

struct runner {
    const struct load_opts *o;
    const struct load_scenario *sc;
    const struct load_search_opts *so;
};

static int run_step(void *arg, double rate, double secs, struct load_step *st, char *err,
                    size_t cap)
{
    struct runner *r = arg;
    struct load_opts o = *r->o;
    o.rate = rate;
    o.duration = secs;
    o.progress = 0;
    struct load_totals t;
    if (load_totals_init(&t, r->sc) != 0 || !(t.c.sent = hist_new())) {
        load_totals_free(&t);
        snprintf(err, cap, "out of memory");
        return -1;
    }
    double run_secs = 0;
    if (load_engine_run(&o, r->sc, NULL, &t.c, &run_secs, err, cap) != 0) {
        load_totals_free(&t);
        return -1;
    }
    load_totals_finish(&t, run_secs);
    /* The rate is counted over the step's planned length: its run also
     * waits for the last answers, up to a bound's worth of drain that a
     * short step would otherwise count as the generator falling short. */
    st->secs = secs;
    st->wall_secs = run_secs;
    st->requests = (int64_t)t.nreq;
    st->failures = (int64_t)t.nfail;
    st->achieved = (double)t.nreq / secs;
    for (int i = 0; i < r->so->slo.n; i++)
        st->pct_us[i] = (double)hist_percentile(t.all, 100 * r->so->slo.q[i]) / 1e3;
    for (int i = 0; i < r->so->slo.n; i++)
        st->sent_pct_us[i] = (double)hist_percentile(t.c.sent, 100 * r->so->slo.q[i]) / 1e3;
    st->sent_p50_us = (double)hist_percentile(t.c.sent, 50) / 1e3;
    st->p50_us = (double)hist_percentile(t.all, 50) / 1e3;
    st->p99_us = (double)hist_percentile(t.all, 99) / 1e3;
    st->p999_us = (double)hist_percentile(t.all, 99.9) / 1e3;
    load_totals_free(&t);
    if (load_interrupted) {
        snprintf(err, cap, "interrupted during the step at %.0f requests/s", rate);
        return -1;
    }
    return 0;
}

static void fmt_us(char *buf, size_t cap, double us)
{
    if (us >= 1e6)
        snprintf(buf, cap, "%.2f s", us / 1e6);
    else if (us >= 1e3)
        snprintf(buf, cap, "%.2f ms", us / 1e3);
    else
        snprintf(buf, cap, "%.0f us", us);
}

/* One line per step on stderr, as it ends. */
static void step_seen(void *arg, const struct load_search *s, const struct load_step *st)
{
    (void)arg;
    char p50[24], p99[24], p999[24];
    fmt_us(p50, sizeof p50, st->p50_us);
    fmt_us(p99, sizeof p99, st->p99_us);
    fmt_us(p999, sizeof p999, st->p999_us);
    fprintf(stderr, "kvtest " CMD ": step %d: target %.1f/s, achieved %.1f/s, p50 %s, p99 %s, "
            "p99.9 %s%s%s: %s%s\n", s->nsteps, st->target, st->achieved, p50, p99, p999,
            st->failures ? ", failed requests " : "", st->failures ? "yes" : "",
            st->pass ? "pass" : "fail",
            st->generator ? " (the generator fell short, not the service)"
            : st->stall ? " (a stall: the service answered at ease; repeated)"
            : st->close ? " (close: repeated)" : "");
}

static cJSON *step_json(const struct load_slo *slo, const struct load_step *st)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "target_per_s", st->target);
    cJSON_AddNumberToObject(j, "achieved_per_s", st->achieved);
    cJSON_AddNumberToObject(j, "seconds", st->secs);
    cJSON_AddNumberToObject(j, "wall_seconds", st->wall_secs);
    cJSON_AddNumberToObject(j, "requests", (double)st->requests);
    cJSON_AddNumberToObject(j, "failed", (double)st->failures);
    cJSON_AddNumberToObject(j, "p50_us", st->p50_us);
    cJSON_AddNumberToObject(j, "p99_us", st->p99_us);
    cJSON_AddNumberToObject(j, "p999_us", st->p999_us);
    cJSON *jp = cJSON_AddObjectToObject(j, "judged_us");
    for (int i = 0; i < slo->n; i++)
        cJSON_AddNumberToObject(jp, slo->name[i], st->pct_us[i]);
    cJSON_AddBoolToObject(j, "pass", st->pass);
    cJSON_AddBoolToObject(j, "close", st->close);
    cJSON_AddBoolToObject(j, "generator_short", st->short_rate);
    cJSON_AddBoolToObject(j, "generator_limit", st->generator);
    cJSON_AddBoolToObject(j, "stall", st->stall);
    cJSON_AddBoolToObject(j, "outvoted", st->outvoted);
    cJSON *sp = cJSON_AddObjectToObject(j, "from_send_us");
    for (int i = 0; i < slo->n; i++)
        cJSON_AddNumberToObject(sp, slo->name[i], st->sent_pct_us[i]);
    /* p50 beside the bound's percentiles, once: an --slo on p50 has it. */
    if (!cJSON_HasObjectItem(sp, "p50"))
        cJSON_AddNumberToObject(sp, "p50", st->sent_p50_us);
    cJSON_AddNumberToObject(j, "repeat", st->repeat);
    return j;
}

static void report_json(const struct load_opts *o, const struct load_search_opts *so,
                        const struct load_search *s)
{
    cJSON *j = report_json_new("shortener load", o->base);
    cJSON *op = cJSON_AddObjectToObject(j, "options");
    cJSON_AddStringToObject(op, "url", o->base);
    cJSON_AddStringToObject(op, "mode", "capacity");
    cJSON_AddNumberToObject(op, "connections", (double)o->connections);
    cJSON_AddNumberToObject(op, "workers", (double)o->workers);
    cJSON_AddNumberToObject(op, "rate_start", so->rate_start);
    if (so->rate_max > 0)
        cJSON_AddNumberToObject(op, "rate_max", so->rate_max);
    else
        cJSON_AddNullToObject(op, "rate_max");
    cJSON_AddNumberToObject(op, "step_min_seconds", so->min_secs);
    cJSON *sl = cJSON_AddArrayToObject(op, "slo");
    for (int i = 0; i < so->slo.n; i++) {
        cJSON *b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "percentile", so->slo.name[i]);
        cJSON_AddNumberToObject(b, "q", so->slo.q[i]);
        cJSON_AddNumberToObject(b, "bound_us", so->slo.bound_us[i]);
        cJSON_AddItemToArray(sl, b);
    }
    cJSON *res = cJSON_AddObjectToObject(j, "result");
    cJSON *c = cJSON_AddObjectToObject(res, "capacity");
    cJSON_AddStringToObject(c, "outcome", load_search_end_name(s->end));
    cJSON_AddNumberToObject(c, "rate_per_s", s->capacity);
    cJSON_AddNumberToObject(c, "lo_per_s", s->lo);
    if (s->hi > 0)
        cJSON_AddNumberToObject(c, "hi_per_s", s->hi);
    else
        cJSON_AddNullToObject(c, "hi_per_s");
    cJSON_AddNumberToObject(c, "last_pass_per_s", s->pass_rate);
    cJSON_AddNumberToObject(c, "first_fail_per_s", s->fail_rate);
    cJSON_AddNumberToObject(c, "steps", s->nsteps);
    cJSON_AddNumberToObject(c, "seconds", s->secs);
    cJSON_AddNumberToObject(c, "samples_per_step", load_slo_samples(&so->slo));
    cJSON *arr = cJSON_AddArrayToObject(res, "steps");
    for (int i = 0; i < s->nsteps; i++)
        cJSON_AddItemToArray(arr, step_json(&so->slo, &s->steps[i]));
    report_json_print(j);
}

static void report_text(const struct load_search_opts *so, const struct load_search *s)
{
    char slo[160];
    load_slo_text(&so->slo, slo, sizeof slo);
    switch (s->end) {
    case LOAD_SEARCH_FOUND:
        printf("Capacity at %s: %.1f requests/s (interval %.1f-%.1f; last pass %.1f, "
               "first fail %.1f)\n", slo, s->capacity, s->lo, s->hi, s->pass_rate,
               s->fail_rate);
        break;
    case LOAD_SEARCH_AT_MAX:
        printf("Capacity at %s: at least %.1f requests/s (--rate-max passed)\n", slo,
               s->pass_rate);
        break;
    case LOAD_SEARCH_STEPS:
        printf("Capacity at %s: not settled in %d steps (last pass %.1f, first fail %.1f)\n",
               slo, s->nsteps, s->pass_rate, s->fail_rate);
        break;
    default:
        break;
    }
    printf("Search: %d steps, %.1f s, at least %.0f samples a step\n", s->nsteps, s->secs,
           load_slo_samples(&so->slo));
}

int load_capacity_run(const struct load_opts *o, const struct load_scenario *sc,
                      const struct load_search_opts *so)
{
    struct runner r = {o, sc, so};
    struct load_search *s = malloc(sizeof *s);
    if (!s)
        return cli_fail(CMD, "out of memory");
    char err[512];
    load_interrupted = 0;
    int rc = load_search_run(so, run_step, step_seen, &r, s, err, sizeof err);
    if (rc != 0) {
        free(s);
        return cli_fail(CMD, "%s", err);
    }
    if (o->out.json)
        report_json(o, so, s);
    else
        report_text(so, s);
    fflush(stdout);
    rc = 0;
    if (s->end == LOAD_SEARCH_BELOW_START)
        rc = cli_fail(CMD, "the first step (%.1f requests/s) already broke the objective: "
                      "the capacity is below it (lower --rate-start)", so->rate_start);
    else if (s->end == LOAD_SEARCH_GENERATOR)
        rc = cli_fail(CMD, "the load generator could not send %.1f requests/s (it reached "
                      "%.1f) while the service met the objective once a request was sent: "
                      "that is the generator's limit (its CPU, or too few --connections, one "
                      "request in flight each), not the service's (capacity at least %.1f)",
                      s->steps[s->nsteps - 1].target, s->steps[s->nsteps - 1].achieved,
                      s->lo);
    free(s);
    return rc;
}

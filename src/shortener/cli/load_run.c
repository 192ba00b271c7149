/* load_run: one "kvtest shortener load" once its options are checked
 * (load_run.h): the scenario, the run with Ctrl-C ending it early, the
 * timeline and spectrum files, the report and the exit status. */
#include "shortener/cli/load_run.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/cli.h"
#include "base/net.h"
#include "load/load_report.h"
#include "measure/clock.h"
#include "measure/hist_spectrum.h"
#include "shortener/cli/load_capacity.h"
#include "shortener/mix/mix_keys.h"

#define CMD LOAD_CMD

static void on_interrupt(int sig)
{
    (void)sig;
    load_interrupted = 1;
}

/* One descriptor per connection plus ours: raise the soft limit toward the
 * hard one rather than fail connects with EMFILE later. */
static int raise_fd_limit(const struct load_opts *o)
{
    uint64_t need = (uint64_t)o->connections + 64;
    struct net_fdlimit l;
    if (net_fd_limit_raise(need, &l) != 0 || l.now >= need)
        return 0;
    return cli_fail(CMD, "--connections %lld needs %llu file descriptors; the limit is %llu "
                    "(ulimit -n)", (long long)o->connections, (unsigned long long)need,
                    (unsigned long long)l.now);
}

/* Run with SIGINT/SIGTERM ending the run early; the second one kills as
 * usual (SA_RESETHAND). Prints the results; returns the exit status. */
static int run_and_report(const struct load_opts *o, const struct load_scenario *sc,
                          const struct load_args *a)
{
    FILE *tlf = a->timeline;
    struct load_totals t;
    struct timeline tl;
    if (load_totals_init(&t, sc) != 0 || (o->url->tls && !(t.c.hs = hist_new())) ||
        (o->rate > 0 && !(t.c.sent = hist_new()))) {
        load_totals_free(&t);
        return cli_fail(CMD, "out of memory");
    }
    timeline_init(&tl, 0, o->timeline_ns);
    t.c.tl = tlf ? &tl : NULL;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    load_interrupted = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    char err[512];
    double secs = 0;
    int rc = load_engine_run(o, sc, load_report_progress, &t.c, &secs, err, sizeof(err));
    t.ended_at = clock_wall_s();   /* the run's teardown late: milliseconds at most */
    t.started_at = t.ended_at - secs;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc != 0) {
        timeline_free(&tl);
        load_totals_free(&t);
        return cli_fail(CMD, "%s", err);
    }
    if (tlf && (timeline_write_csv(&tl, tlf, secs) != 0 || tl.dropped))
        fprintf(stderr, "kvtest " CMD ": warning: the timeline misses %llu requests (%s)\n",
                (unsigned long long)tl.dropped, tl.dropped ? "past its last interval or out "
                "of memory" : "write error");
    timeline_free(&tl);
    load_totals_finish(&t, secs);
    if (a->spectrum && hist_spectrum_write(t.all, a->spectrum) != 0)
        cli_warn(CMD, "cannot write --latency-spectrum %s", a->spectrum_path);
    if (o->out.json)
        load_report_json(o, &t, o->base);
    else
        load_report_text(o, &t);
    fflush(stdout);

    if (load_interrupted)
        rc = cli_fail(CMD, "interrupted after %.1f s; results above cover the requests done",
                      t.secs);
    else if (t.nfail > 0 && !o->allow_failures)
        rc = cli_fail(CMD, "%llu of %llu requests failed (first: %s)",
                      (unsigned long long)t.nfail, (unsigned long long)t.nreq,
                      t.c.nerr ? t.c.err[0].msg : "?");
    load_totals_free(&t);
    return rc;
}

/* The shortener's mix: its key file read, then the run. */
static int run_mix(const struct load_opts *o, const struct load_args *a)
{
    const struct mix_opts *m = &a->mix;
    struct mix_keys keys;
    struct keypick pick;
    memset(&keys, 0, sizeof(keys));
    memset(&pick, 0, sizeof(pick));
    if (m->keys_path) {
        char err[512];
        if (mix_keys_read(&keys, m->keys_path, err, sizeof(err)) != 0)
            return cli_fail(CMD, "%s", err);
        if (keypick_init(&pick, keys.n, m->zipf) != 0) {
            mix_keys_free(&keys);
            return cli_usage(CMD, "invalid --zipf %g", m->zipf);
        }
    }
    /* --walk: each GET is a task, so progress and the report count them. */
    struct load_opts ow = *o;
    if (m->walk > 0)
        ow.tasks = m->walk * (int64_t)keys.n;
    struct load_scenario sc;
    int rc = raise_fd_limit(o);
    if (rc == 0 && mix_scenario_init(&sc, m, o->url, &keys, &pick) != 0)
        rc = cli_fail(CMD, "out of memory");
    else if (rc == 0) {
        rc = a->search.slo.n ? load_capacity_run(&ow, &sc, &a->search)
                             : run_and_report(&ow, &sc, a);
        mix_scenario_free(&sc);
    }
    mix_keys_free(&keys);
    return rc;
}

/* Plain GETs of --path. */
static int run_get(const struct load_opts *o, const struct load_args *a)
{
    struct load_scenario sc;
    char err[256];
    if (scenario_get_init(&sc, o->url, a->paths, a->npaths, o->duration > 0 ? 0 : o->tasks,
                          err, sizeof(err)) != 0)
        return cli_usage(CMD, "%s", err);
    int rc = raise_fd_limit(o);
    if (rc == 0)
        rc = a->search.slo.n ? load_capacity_run(o, &sc, &a->search) : run_and_report(o, &sc, a);
    scenario_get_free(&sc);
    return rc;
}

int load_run_scenario(const struct load_opts *o, const struct load_args *a)
{
    return a->scenario == SCENARIO_GET ? run_get(o, a) : run_mix(o, a);
}

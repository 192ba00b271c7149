/* load: "kvtest shortener load URL", an HTTP load generator for the
 * shortener service that times every request: the help text, the options
 * and the exit status. The engine is src/load/ (load_engine: the event
 * loop, load_report: the output); what it sends is a scenario: the
 * shortener's mix (src/shortener/mix/) or plain GETs (load/scenario_get).
 *
 * Built the way wrk is built, because on a 2-core machine the client and
 * the service share the cores, and every microsecond of client CPU per
 * request is taken out of the service's measured throughput: libcurl cost
 * 16-23 us of user CPU per request against wrk's ~4, and kvtest load
 * reported about two thirds of wrk's rate against the same service. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/net.h"
#include "base/units.h"
#include "load/load_engine.h"
#include "load/load_http.h"
#include "load/load_report.h"
#include "load/scenario_get.h"
#include "measure/clock.h"
#include "measure/hist_spectrum.h"
#include "measure/report.h"
#include "shortener/cli/load_capacity.h"
#include "shortener/cli/shortener_cmds.h"
#include "shortener/mix/mix.h"
#include "shortener/mix/mix_keys.h"

#define CMD "shortener load"

const char help_shortener_load[] =
    "Usage: kvtest shortener load URL [options]\n"
    "\n"
    "Drive a running shortener service (URL such as http://127.0.0.1:5000) and\n"
    "time every request from send to full response.\n"
    "\n"
    "Task mode (default), the classic stress test: each task POSTs a new link,\n"
    "then GETs it --gets times; --connections virtual users run tasks\n"
    "concurrently.\n"
    "  --tasks N          tasks to run (default 100)\n"
    "  --connections N    concurrent virtual users, one keep-alive connection\n"
    "                     and one request in flight each (default 30; as wrk's -c)\n"
    "  --threads N        the same as --connections (the classic stress test\n"
    "                     calls its virtual users threads)\n"
    "  --gets N           GETs per task (default 80)\n"
    "\n"
    "Duration mode: a steady mix for S seconds; every request is one task.\n"
    "  --duration S       seconds (also 500ms, 2m)\n"
    "  --keys FILE        existing link ids, one per line (kvtest shortener keys\n"
    "                     DBFILE > FILE); without it, GETs pick among the links\n"
    "                     this run created\n"
    "  --create-ratio P   share of requests that are POSTs (default\n"
    "                     1/(1 + --gets), the classic task's share)\n"
    "  --zipf S           pick --keys ids with Zipf exponent S (default uniform)\n"
    "\n"
    "Walk mode: GET every id of a key file in turn, then stop (a warm-up).\n"
    "  --walk N           GET each --keys id N times (1 to 100), in file order:\n"
    "                     pass 1 over the file, then pass 2, ...; shared out over\n"
    "                     the connections, so the walk is done once in all. Not\n"
    "                     with --duration, --tasks, --zipf, --rate, --create-ratio\n"
    "\n"
    "Both modes:\n"
    "  --rate R           constant throughput: R requests/s in all, spread evenly\n"
    "                     over the connections (as wrk2's -R), instead of each\n"
    "                     connection sending as soon as its answer is in. Latency\n"
    "                     is then measured from each request's scheduled send time,\n"
    "                     so a server stall shows as latency instead of as fewer\n"
    "                     requests (coordinated omission). The output gives the\n"
    "                     achieved rate and says when it fell under 98% of R.\n"
    "  --pipeline N       requests in flight per connection (HTTP/1.1 pipelining,\n"
    "                     default 1, at most 128): each answer is matched to its\n"
    "                     request in order, checked, and timed from that request's\n"
    "                     send (or scheduled) time; in task mode a task's GETs\n"
    "                     wait for its POST's answer, then go together\n"
    "  --timeout MS       per-request timeout, connect included (default 5000)\n"
    "  --workers N        OS threads, each running one event loop over its share\n"
    "                     of the connections (default 2, or 1 on a single CPU;\n"
    "                     as wrk's -t)\n"
    "  --seed N           seed for URLs and key picks (default 1)\n"
    "  --allow-failures   exit 0 even if requests failed\n"
    "  --progress         progress on stderr even when it is not a terminal\n"
    "  --json             one JSON object with options, environment and results\n"
    "  --timeline FILE    also write FILE, CSV: one row per interval of the run\n"
    "                     (t_s,requests,failures,p50_us,p99_us,max_us), requests\n"
    "                     counted in the interval they completed in, all kinds\n"
    "                     together; a stall shows as rows with few or no\n"
    "                     requests, then one with a high max\n"
    "  --interval D       the --timeline interval (default 1s; also 200ms, 2s)\n"
    "  --csv              the --json fields as CSV, one row (the run)\n"
    "  --latency-spectrum FILE\n"
    "                     also write FILE: the latency histogram of all requests\n"
    "                     as HdrHistogram's percentile distribution (as wrk2 -L\n"
    "                     prints it, in ms), for HdrHistogram's plotter\n"
    "\n"
    "Capacity: the highest constant rate that meets a latency objective.\n"
    "  --slo LIST         bounds as p99=5ms[,p999=20ms] (percentiles p50, p90, p95,\n"
    "                     p99, p999, p9999; a unit us, ms or s is required). Runs\n"
    "                     constant-rate steps (as --rate, latency corrected for\n"
    "                     coordinated omission): doubling from --rate-start until a\n"
    "                     step breaks a bound or fails a request, then bisection\n"
    "                     until the last pass and the first fail are within 2%.\n"
    "                     A step judges a percentile q from 20/(1-q) samples at\n"
    "                     least (2000 for p99, 20000 for p99.9), so it lasts\n"
    "                     max(--step-time, samples/rate); a step within 10% of a\n"
    "                     bound, or one that broke it while the service's median\n"
    "                     from each send stayed within 2x of a passing step's (a\n"
    "                     stall), is run again (3 at most, the majority decides).\n"
    "                     One line per step on stderr; the answer is the midpoint\n"
    "                     of the last pass and the first fail, with the interval\n"
    "                     from the highest rate below which every step passed to\n"
    "                     the lowest rate failed by majority at or above the\n"
    "                     highest rate at which a step passed. A step\n"
    "                     that fell short of its rate while that median stayed as\n"
    "                     low ends the search: the generator's limit (exit 1).\n"
    "                     Not with --rate, --walk, --duration, --tasks,\n"
    "                     --timeline, --latency-spectrum\n"
    "  --rate-start R     the first step, requests/s (default 100)\n"
    "  --rate-max R       never step above R; if R passes the answer is \"at least R\"\n"
    "  --step-time D      shortest step (default 2s)\n"
    "\n"
    "Any HTTP server:\n"
    "  --scenario get     instead of the shortener's mix (--scenario shortener, the\n"
    "                     default), GET the --path paths in turn; any 2xx or 3xx\n"
    "                     answer counts as a success, its body unread. Every request\n"
    "                     is one task (--tasks N: N requests); one request type, GET.\n"
    "                     --gets, --keys, --create-ratio, --zipf, --walk: refused.\n"
    "  --path P           a path to GET, after the URL's own path (repeat for\n"
    "                     several, up to 64; only with --scenario get)\n"
    "\n"
    "Plain http:// only. Every answer is checked: POST must give 201\n"
    "{\"short_link\": id}, GET 200 {\"link\": url} with the url that was created.\n"
    "Failures are counted by kind: connect, timeout, io (connection lost\n"
    "mid-request, or not HTTP), http_status, bad_body. Latency percentiles cover\n"
    "requests that got an HTTP answer. Exit status 1 if any request failed,\n"
    "unless --allow-failures. Ctrl-C (or SIGTERM) ends the run early and prints\n"
    "the results so far (exit 1).\n";

static void on_interrupt(int sig)
{
    (void)sig;
    load_interrupted = 1;
}

/* The URL: http://HOST[:PORT][/PATH], stored in base without trailing '/'
 * and parsed into *u, once, for the engine and the scenario. */
static int check_url(const char *url, char *base, size_t cap, struct load_url *u)
{
    if (strncmp(url, "https://", 8) == 0)
        return cli_usage(CMD, "https is not supported: the load engine speaks plain HTTP "
                         "(give http://...)");
    if (strncmp(url, "http://", 7) != 0)
        return cli_usage(CMD, "URL must start with http://, got '%s'", url);
    const char *host = url + 7;
    if (*host == '\0' || *host == '/')
        return cli_usage(CMD, "URL '%s' names no host", url);
    size_t ulen = strlen(url);
    while (ulen > 0 && url[ulen - 1] == '/')
        ulen--;
    if (ulen > 400 || ulen >= cap)
        return cli_usage(CMD, "URL too long (at most 400 characters)");
    memcpy(base, url, ulen);
    base[ulen] = '\0';
    char why[128];
    if (load_url_parse(base, u, why, sizeof(why)) != 0)
        return cli_usage(CMD, "URL '%s': %s", url, why);
    return 0;
}

/* What the command line asked for beyond the engine's options. */
enum { SCENARIO_SHORTENER, SCENARIO_GET };
static const char *const scenario_names[] = {"shortener", "get", NULL};

struct load_args {
    struct mix_opts mix;
    int scenario;              /* SCENARIO_SHORTENER or SCENARIO_GET */
    const char *paths[SCENARIO_GET_PATHS_MAX];
    int npaths;
    int64_t threads;
    const char *duration_s;
    const char *timeline_path, *interval_s;
    FILE *timeline;            /* opened before the run, so a bad path costs no run */
    const char *spectrum_path;
    FILE *spectrum;            /* --latency-spectrum, opened before the run too */
    const char *slo_s, *step_s;   /* --slo, --step-time */
    struct load_search_opts search;   /* --slo given: search.slo.n > 0 */
};

/* The options only the shortener's mix reads must not come with another
 * scenario, nor --path without get. 0 or the usage error's status. */
static int check_scenario(const struct load_args *a)
{
    if (a->scenario == SCENARIO_GET) {
        const char *mixonly = a->mix.gets >= 0 ? "gets" : a->mix.keys_path ? "keys"
                              : a->mix.walk > 0 ? "walk"
                              : a->mix.create_ratio >= 0 ? "create-ratio"
                              : a->mix.zipf >= 0 ? "zipf" : NULL;
        if (mixonly)
            return cli_usage(CMD, "--%s is for the shortener scenario, not --scenario get",
                             mixonly);
        if (a->npaths == 0)
            return cli_usage(CMD, "--scenario get needs --path PATH (for example "
                             "--path /heart-beat)");
        return 0;
    }
    if (a->npaths > 0)
        return cli_usage(CMD, "--path needs --scenario get");
    return 0;
}

/* --walk: a fixed count of GETs in file order, so nothing that picks,
 * paces or ends the run otherwise. 0 or the usage error's status. */
static int check_walk(const struct load_opts *o, const struct load_args *a)
{
    const struct mix_opts *m = &a->mix;
    const char *other = a->duration_s ? "duration" : o->tasks > 0 ? "tasks"
                        : m->zipf >= 0 ? "zipf" : o->rate > 0 ? "rate"
                        : m->create_ratio > 0 ? "create-ratio other than 0" : NULL;
    if (other)
        return cli_usage(CMD, "--walk does not take --%s (it GETs every --keys id N times, "
                         "in file order)", other);
    if (!m->keys_path)
        return cli_usage(CMD, "--walk needs --keys FILE (the ids to walk)");
    return 0;
}

/* The shortener's options that depend on each other; 0 or the usage
 * error's status. */
static int check_mix(struct mix_opts *m, double duration)
{
    if (m->gets < 0)
        m->gets = 80;
    if (m->zipf < 0)
        m->zipf = 0;
    if (m->walk > 0) {
        m->create_ratio = 0;
        return 0;   /* check_walk has checked the rest */
    }
    if (duration == 0 && (m->keys_path || m->create_ratio >= 0))
        return cli_usage(CMD, "--keys and --create-ratio need --duration");
    if (m->zipf > 0 && !m->keys_path)
        return cli_usage(CMD, "--zipf needs --keys (ids to pick from)");
    if (m->create_ratio < 0)
        m->create_ratio = 1.0 / (1.0 + (double)m->gets);
    if (m->keys_path == NULL && duration > 0 && m->create_ratio == 0)
        return cli_usage(CMD, "--create-ratio 0 needs --keys (no link to GET otherwise)");
    return 0;
}

/* --timeline: the file is opened here, before the run, so an unwritable
 * path is a usage error and not a lost run. 0 or the usage error's status. */
static int check_timeline(struct load_opts *o, struct load_args *a)
{
    if (!a->timeline_path)
        return a->interval_s ? cli_usage(CMD, "--interval needs --timeline FILE") : 0;
    o->timeline_ns = 1000000000u;
    if (a->interval_s && timeline_parse_interval(a->interval_s, &o->timeline_ns) != 0)
        return cli_usage(CMD, "invalid --interval '%s' (1ms to 1h: seconds, or with ms/s/m/h)",
                         a->interval_s);
    if (o->duration * 1e9 / (double)o->timeline_ns > TIMELINE_MAX)
        return cli_usage(CMD, "--interval %s gives over %d intervals in --duration %s",
                         a->interval_s, TIMELINE_MAX, a->duration_s);
    if (!(a->timeline = fopen(a->timeline_path, "w")))
        return cli_usage(CMD, "cannot write --timeline %s: %s", a->timeline_path,
                         strerror(errno));
    return 0;
}

/* --slo: a search of constant-rate steps, so nothing that fixes the rate,
 * the length or the count of one run, and nothing that describes one run
 * alone. Checked before any request is sent. 0 or the usage error's
 * status. */
static int check_search(struct load_opts *o, struct load_args *a)
{
    struct load_search_opts *so = &a->search;
    if (!a->slo_s) {
        if (so->rate_max > 0 || so->rate_start > 0 || a->step_s)
            return cli_usage(CMD, "--%s needs --slo", so->rate_max > 0 ? "rate-max"
                             : so->rate_start > 0 ? "rate-start" : "step-time");
        return 0;
    }
    char err[256];
    if (load_slo_parse(a->slo_s, &so->slo, err, sizeof err) != 0)
        return cli_usage(CMD, "%s", err);
    const char *other = o->rate > 0 ? "rate" : a->mix.walk > 0 ? "walk"
                        : a->duration_s ? "duration" : o->tasks > 0 ? "tasks"
                        : a->timeline_path ? "timeline" : a->spectrum_path ? "latency-spectrum"
                        : NULL;
    if (other)
        return cli_usage(CMD, "--slo searches over constant-rate steps of its own: not with "
                         "--%s", other);
    if (so->rate_start == 0)
        so->rate_start = 100;
    if (so->rate_max > 0 && so->rate_max < so->rate_start)
        return cli_usage(CMD, "--rate-max %g is below the first step (--rate-start %g)",
                         so->rate_max, so->rate_start);
    so->min_secs = 2;
    if (a->step_s && (units_parse_duration(a->step_s, &so->min_secs) != 0 ||
                      so->min_secs < 0.1 || so->min_secs > 3600))
        return cli_usage(CMD, "invalid --step-time '%s' (100ms to 1h)", a->step_s);
    /* The mix runs in duration mode: each step is a steady mix. */
    o->duration = so->min_secs;
    return 0;
}

/* Options that depend on each other; 0 or the usage error's status. */
static int check_opts(struct load_opts *o, struct load_args *a)
{
    if (a->threads > 0 && o->connections > 0 && a->threads != o->connections)
        return cli_usage(CMD, "--threads is another name for --connections; give one");
    if (o->connections == 0)
        o->connections = a->threads > 0 ? a->threads : 30;
    if (a->duration_s) {
        if (units_parse_duration(a->duration_s, &o->duration) != 0 || o->duration <= 0 ||
            o->duration > 86400 * 7)
            return cli_usage(CMD, "invalid --duration '%s' (seconds, or with ms/s/m/h)",
                             a->duration_s);
    }
    int rc = check_search(o, a);
    if (rc == 0)
        rc = check_scenario(a);
    if (rc == 0 && a->scenario == SCENARIO_SHORTENER && a->mix.walk > 0)
        rc = check_walk(o, a);
    if (o->tasks == 0)
        o->tasks = 100;   /* 0 until here: check_walk tells a given --tasks */
    if (rc == 0 && a->scenario == SCENARIO_SHORTENER)
        rc = check_mix(&a->mix, o->duration);
    if (rc)
        return rc;
    a->mix.tasks = o->tasks;
    a->mix.pipeline = o->pipeline;
    a->mix.duration = o->duration;
    /* On the 2-core machine this was tuned on, a second event loop keeps
     * up with the service where one alone was the bottleneck. */
    if (o->workers == 0)
        o->workers = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
    if (o->workers > o->connections)
        o->workers = o->connections;
    if (!o->progress)
        o->progress = isatty(STDERR_FILENO);
    if (a->spectrum_path && !(a->spectrum = fopen(a->spectrum_path, "w")))
        return cli_usage(CMD, "cannot write --latency-spectrum %s: %s", a->spectrum_path,
                         strerror(errno));
    return check_timeline(o, a);
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
    if (load_totals_init(&t, sc) != 0)
        return cli_fail(CMD, "out of memory");
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
    if (o->json)
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

/* --path may be repeated, which the option table cannot say: the paths are
 * taken out of argv (into a->paths) before it is parsed. rest gets the
 * other arguments; 0 or the usage error's status. */
static int take_paths(int argc, char **argv, char **rest, int *nrest, struct load_args *a)
{
    int n = 0, i = 0;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *arg = argv[i], *name = arg[0] == '-' ? arg + 1 + (arg[1] == '-') : NULL;
        const char *val = NULL;
        if (name && strcmp(name, "path") == 0) {
            if (i + 1 >= argc)
                return cli_usage(CMD, "option --path needs a value");
            val = argv[++i];
        } else if (name && strncmp(name, "path=", 5) == 0) {
            val = name + 5;
        } else {
            rest[n++] = argv[i];
            continue;
        }
        if (a->npaths >= SCENARIO_GET_PATHS_MAX)
            return cli_usage(CMD, "at most %d --path", SCENARIO_GET_PATHS_MAX);
        a->paths[a->npaths++] = val;
    }
    for (; i < argc; i++)
        rest[n++] = argv[i];
    *nrest = n;
    return 0;
}

int shortener_load(int argc, char **argv)
{
    struct load_opts o = {.command = CMD, .tasks = 0, .timeout_ms = 5000, .seed = 1,
                          .pipeline = 1};
    int csv = 0;
    struct load_args a = {
        .mix = {.gets = -1, .create_ratio = -1, .zipf = -1}, .scenario = SCENARIO_SHORTENER,
    };
    const char *path_row = NULL;   /* the --path row's dest, never written */
    const struct cli_opt opts[] = {
        CLI_INT_OPT("tasks", &o.tasks, 1, 1000000000),
        CLI_INT_OPT("connections", &o.connections, 1, 10000),
        CLI_INT_OPT("threads", &a.threads, 1, 10000),
        CLI_INT_OPT("gets", &a.mix.gets, 0, 1000000000),
        CLI_STR_OPT("duration", &a.duration_s),
        CLI_PATH_OPT("keys", &a.mix.keys_path),
        CLI_DOUBLE_OPT("zipf", &a.mix.zipf, 0, 100),
        CLI_DOUBLE_OPT("create-ratio", &a.mix.create_ratio, 0, 1),
        CLI_INT_OPT("walk", &a.mix.walk, 1, 100),
        CLI_DOUBLE_OPT("rate", &o.rate, 0.001, 1e9),
        CLI_INT_OPT("pipeline", &o.pipeline, 1, LOAD_PIPELINE_MAX),
        CLI_INT_OPT("timeout", &o.timeout_ms, 1, 3600000),
        CLI_INT_OPT("workers", &o.workers, 1, 64),
        CLI_INT_OPT("seed", &o.seed, 0, INT64_MAX),
        CLI_ENUM_OPT("scenario", &a.scenario, scenario_names),
        CLI_FLAG_OPT("allow-failures", &o.allow_failures),
        CLI_FLAG_OPT("progress", &o.progress),
        CLI_FLAG_OPT("json", &o.json),
        CLI_PATH_OPT("timeline", &a.timeline_path),
        CLI_STR_OPT("interval", &a.interval_s),
        /* Repeatable, so take_paths takes every --path out before
         * cli_parse sees the rest: this row is never matched, it is here
         * so the table lists every option (kvtest __options). */
        CLI_STR_OPT("path", &path_row),
        CLI_FLAG_OPT("csv", &csv),
        CLI_PATH_OPT("latency-spectrum", &a.spectrum_path),
        CLI_STR_OPT("slo", &a.slo_s),
        CLI_DOUBLE_OPT("rate-max", &a.search.rate_max, 0.001, 1e9),
        CLI_DOUBLE_OPT("rate-start", &a.search.rate_start, 0.001, 1e9),
        CLI_STR_OPT("step-time", &a.step_s),
    };
    char **rest = calloc((size_t)argc + 1, sizeof(*rest));
    if (!rest)
        return cli_fail(CMD, "out of memory");
    int nrest = 0;
    const char *url;
    int rc = take_paths(argc, argv, rest, &nrest, &a);
    if (rc == 0)
        rc = cli_parse_one(CMD, nrest, rest, opts, CLI_COUNT(opts), &url,
                           "missing URL (for example http://127.0.0.1:5000)");
    free(rest);
    if (rc || (rc = report_csv_option(CMD, &o.json, csv, NULL)))
        return rc;
    char base[512];
    struct load_url u;
    if ((rc = check_url(url, base, sizeof(base), &u)) != 0)
        return rc;
    o.base = base;
    o.url = &u;
    if ((rc = check_opts(&o, &a)) != 0)
        return rc;
    rc = a.scenario == SCENARIO_GET ? run_get(&o, &a) : run_mix(&o, &a);
    if (a.timeline && fclose(a.timeline) != 0 && rc == 0)
        rc = cli_fail(CMD, "cannot write --timeline %s: %s", a.timeline_path, strerror(errno));
    if (a.spectrum && fclose(a.spectrum) != 0 && rc == 0)
        rc = cli_fail(CMD, "cannot write --latency-spectrum %s: %s", a.spectrum_path,
                      strerror(errno));
    return rc;
}

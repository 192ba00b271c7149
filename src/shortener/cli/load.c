/* load: "kvtest shortener load URL", an HTTP load generator for the
 * shortener service that times every request: the help text, the options
 * and the exit status. The event loop is load_engine (load_conn.c does the
 * connections, load_http.c the HTTP), the output load_report.
 *
 * Built the way wrk is built, because on a 2-core machine the client and
 * the service share the cores, and every microsecond of client CPU per
 * request is taken out of the service's measured throughput: libcurl cost
 * 16-23 us of user CPU per request against wrk's ~4, and kvtest load
 * reported about two thirds of wrk's rate against the same service. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/units.h"
#include "load/load_engine.h"
#include "load/load_http.h"
#include "load/load_report.h"
#include "shortener/cli/loadmix.h"
#include "shortener/cli/shortener_cmds.h"

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
    "Both modes:\n"
    "  --rate R           constant throughput: R requests/s in all, spread evenly\n"
    "                     over the connections (as wrk2's -R), instead of each\n"
    "                     connection sending as soon as its answer is in. Latency\n"
    "                     is then measured from each request's scheduled send time,\n"
    "                     so a server stall shows as latency instead of as fewer\n"
    "                     requests (coordinated omission). The output gives the\n"
    "                     achieved rate and says when it fell under 98% of R.\n"
    "  --timeout MS       per-request timeout, connect included (default 5000)\n"
    "  --workers N        OS threads, each running one event loop over its share\n"
    "                     of the connections (default 2, or 1 on a single CPU;\n"
    "                     as wrk's -t)\n"
    "  --seed N           seed for URLs and key picks (default 1)\n"
    "  --allow-failures   exit 0 even if requests failed\n"
    "  --progress         progress on stderr even when it is not a terminal\n"
    "  --json             one JSON object with options, environment and results\n"
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

/* The URL: http://HOST[:PORT][/PATH], stored in base without trailing '/'. */
static int check_url(const char *url, char *base, size_t cap)
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
    struct load_url u;
    char why[128];
    if (load_url_parse(base, &u, why, sizeof(why)) != 0)
        return cli_usage(CMD, "URL '%s': %s", url, why);
    return 0;
}

/* Options that depend on each other; 0 or the usage error's status. */
static int check_opts(struct load_opts *o, const char *duration_s, int64_t threads)
{
    if (threads > 0 && o->connections > 0 && threads != o->connections)
        return cli_usage(CMD, "--threads is another name for --connections; give one");
    if (o->connections == 0)
        o->connections = threads > 0 ? threads : 30;
    if (duration_s) {
        if (units_parse_duration(duration_s, &o->duration) != 0 || o->duration <= 0 ||
            o->duration > 86400 * 7)
            return cli_usage(CMD, "invalid --duration '%s' (seconds, or with ms/s/m/h)",
                             duration_s);
    } else if (o->keys_path || o->create_ratio >= 0) {
        return cli_usage(CMD, "--keys and --create-ratio need --duration");
    }
    if (o->zipf > 0 && !o->keys_path)
        return cli_usage(CMD, "--zipf needs --keys (ids to pick from)");
    if (o->create_ratio < 0)
        o->create_ratio = 1.0 / (1.0 + (double)o->gets);
    if (o->keys_path == NULL && o->duration > 0 && o->create_ratio == 0)
        return cli_usage(CMD, "--create-ratio 0 needs --keys (no link to GET otherwise)");
    /* On the 2-core machine this was tuned on, a second event loop keeps
     * up with the service where one alone was the bottleneck. */
    if (o->workers == 0)
        o->workers = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
    if (o->workers > o->connections)
        o->workers = o->connections;
    if (!o->progress)
        o->progress = isatty(STDERR_FILENO);
    return 0;
}

/* One descriptor per connection plus ours: raise the soft limit toward the
 * hard one rather than fail connects with EMFILE later. */
static int raise_fd_limit(const struct load_opts *o)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)o->connections + 64;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
        return 0;
    rl.rlim_cur = (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) ? need : rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur >= need)
        return 0;
    return cli_fail(CMD, "--connections %lld needs %llu file descriptors; the limit is %llu "
                    "(ulimit -n)", (long long)o->connections, (unsigned long long)need,
                    (unsigned long long)rl.rlim_cur);
}

/* Run with SIGINT/SIGTERM ending the run early; the second one kills as
 * usual (SA_RESETHAND). Prints the results; returns the exit status. */
static int run_and_report(const struct load_opts *o, const struct loadkeys *keys,
                          const struct loadpick *pick)
{
    struct load_totals t;
    if (load_totals_init(&t) != 0)
        return cli_fail(CMD, "out of memory");
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
    int rc = load_engine_run(o, keys, pick, load_report_progress, &t.c, &secs, err, sizeof(err));
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc != 0) {
        load_totals_free(&t);
        return cli_fail(CMD, "%s", err);
    }
    load_totals_finish(&t, secs);
    if (o->json)
        load_report_json(o, &t, o->base);
    else
        load_report_text(o, &t);
    fflush(stdout);

    uint64_t nfail = t.failed_req[LOAD_POST] + t.failed_req[LOAD_GET];
    uint64_t nreq = t.requests[LOAD_POST] + t.requests[LOAD_GET];
    if (load_interrupted)
        rc = cli_fail(CMD, "interrupted after %.1f s; results above cover the requests done",
                      t.secs);
    else if (nfail > 0 && !o->allow_failures)
        rc = cli_fail(CMD, "%llu of %llu requests failed (first: %s)",
                      (unsigned long long)nfail, (unsigned long long)nreq,
                      t.c.nerr ? t.c.err[0].msg : "?");
    load_totals_free(&t);
    return rc;
}

int shortener_load(int argc, char **argv)
{
    struct load_opts o = {
        .tasks = 100, .gets = 80, .timeout_ms = 5000, .seed = 1, .create_ratio = -1,
    };
    int64_t threads = 0;
    const char *duration_s = NULL;
    const struct cli_opt opts[] = {
        CLI_INT_OPT("tasks", &o.tasks, 1, 1000000000),
        CLI_INT_OPT("connections", &o.connections, 1, 10000),
        CLI_INT_OPT("threads", &threads, 1, 10000),
        CLI_INT_OPT("gets", &o.gets, 0, 1000000000),
        CLI_STR_OPT("duration", &duration_s),
        CLI_STR_OPT("keys", &o.keys_path),
        CLI_DOUBLE_OPT("zipf", &o.zipf, 0, 100),
        CLI_DOUBLE_OPT("create-ratio", &o.create_ratio, 0, 1),
        CLI_DOUBLE_OPT("rate", &o.rate, 0.001, 1e9),
        CLI_INT_OPT("timeout", &o.timeout_ms, 1, 3600000),
        CLI_INT_OPT("workers", &o.workers, 1, 64),
        CLI_INT_OPT("seed", &o.seed, 0, INT64_MAX),
        CLI_FLAG_OPT("allow-failures", &o.allow_failures),
        CLI_FLAG_OPT("progress", &o.progress),
        CLI_FLAG_OPT("json", &o.json),
    };
    const char *url;
    int rc = cli_parse_one(CMD, argc, argv, opts, CLI_COUNT(opts), &url,
                           "missing URL (for example http://127.0.0.1:5000)");
    if (rc)
        return rc;
    char base[512];
    if ((rc = check_url(url, base, sizeof(base))) != 0)
        return rc;
    o.base = base;
    if ((rc = check_opts(&o, duration_s, threads)) != 0)
        return rc;

    struct loadkeys keys;
    struct loadpick pick;
    memset(&keys, 0, sizeof(keys));
    memset(&pick, 0, sizeof(pick));
    if (o.keys_path) {
        char err[512];
        if (loadkeys_read(&keys, o.keys_path, err, sizeof(err)) != 0)
            return cli_fail(CMD, "%s", err);
        if (loadpick_init(&pick, keys.n, o.zipf) != 0) {
            loadkeys_free(&keys);
            return cli_usage(CMD, "invalid --zipf %g", o.zipf);
        }
    }
    rc = raise_fd_limit(&o);
    if (rc == 0)
        rc = run_and_report(&o, &keys, &pick);
    loadkeys_free(&keys);
    return rc;
}

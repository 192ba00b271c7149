/* load: "kvtest shortener load URL", an HTTP load generator for the
 * shortener service that times every request: the help text and the
 * option table (their checks: load_check.c; the run and the exit status:
 * load_run.c). The engine is src/load/ (load_engine: the event
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

#include "base/cli.h"
#include "load/load_tls.h"
#include "measure/report.h"
#include "shortener/cli/load_check.h"
#include "shortener/cli/load_run.h"
#include "shortener/cli/shortener_cmds.h"

#define CMD LOAD_CMD

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
    "  --reconnect        every request on a new connection, closed after its\n"
    "                     answer (as ab without -k); each request is timed from\n"
    "                     its connect, the TLS handshake included. Not with\n"
    "                     --pipeline or --http2\n"
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
    "HTTPS (an https:// URL): TLS 1.2 or 1.3 through OpenSSL, the server's name\n"
    "sent (SNI) and its certificate verified against the system's CAs and the\n"
    "URL's host; a connection opened again resumes its last session. The\n"
    "handshakes are timed apart (from TCP connect to the finished handshake) and\n"
    "are not part of the request latencies, except from the schedule of --rate.\n"
    "  --cacert FILE      trust the CAs in FILE (PEM) instead of the system's\n"
    "  --insecure         verify no certificate (a self-signed test server)\n"
    "  --no-resume        offer no session when a connection is opened again:\n"
    "                     every handshake a full one (a first visit's cost)\n"
    "\n"
    "HTTP/2 (libnghttp2):\n"
    "  --http2            speak HTTP/2: h2 chosen by ALPN over https://, h2c with\n"
    "                     prior knowledge over http://; each request a stream, its\n"
    "                     answer checked and timed from its own send; answers are\n"
    "                     handed to the checks in the order the requests were made\n"
    "  --streams N        streams open at once per connection (default 1, at most\n"
    "                     128; as h2load's -m); not with --pipeline\n"
    "  Failure kinds of their own: h2_refused (a stream the server refused, not\n"
    "  processed: above a GOAWAY's last stream), h2_reset (RST_STREAM),\n"
    "  h2_protocol (the server broke HTTP/2, or ALPN did not choose h2).\n"
    "\n"
    "Every answer is checked: POST must give 201\n"
    "{\"short_link\": id}, GET 200 {\"link\": url} with the url that was created.\n"
    "Failures are counted by kind: connect, timeout, io (connection lost\n"
    "mid-request, or not HTTP), http_status, bad_body, tls (a handshake that\n"
    "failed, a certificate that did not verify). Latency percentiles cover\n"
    "requests that got an HTTP answer: by request type, all, and by status class\n"
    "(2xx, 3xx, 4xx, 5xx: every answer of the class, with how many of them the\n"
    "checks failed); with --rate also \"uncorrected\", from each request's actual\n"
    "send (the service's part), beside the corrected ones. Exit status 1 if any request failed,\n"
    "unless --allow-failures. Ctrl-C (or SIGTERM) ends the run early and prints\n"
    "the results so far (exit 1).\n";

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

/* --scenario's names, in the order of enum load_scenario_kind. */
static const char *const scenario_names[] = {"shortener", "get", NULL};

int shortener_load(int argc, char **argv)
{
    struct load_opts o = {.command = CMD, .tasks = 0, .timeout_ms = 5000, .seed = 1,
                          .pipeline = 1};
    char err[128];
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
        REPORT_OUT_JSON_OPT(&o.out),
        CLI_PATH_OPT("timeline", &a.timeline_path),
        CLI_STR_OPT("interval", &a.interval_s),
        /* Repeatable, so take_paths takes every --path out before
         * cli_parse sees the rest: this row is never matched, it is here
         * so the table lists every option (kvtest __options). */
        CLI_STR_OPT("path", &path_row),
        REPORT_OUT_CSV_OPT(&o.out),
        CLI_PATH_OPT("latency-spectrum", &a.spectrum_path),
        CLI_STR_OPT("slo", &a.slo_s),
        CLI_DOUBLE_OPT("rate-max", &a.search.rate_max, 0.001, 1e9),
        CLI_DOUBLE_OPT("rate-start", &a.search.rate_start, 0.001, 1e9),
        CLI_STR_OPT("step-time", &a.step_s),
        CLI_PATH_OPT("cacert", &o.cacert),
        CLI_FLAG_OPT("insecure", &o.insecure),
        CLI_FLAG_OPT("no-resume", &o.no_resume),
        CLI_FLAG_OPT("reconnect", &o.reconnect),
        CLI_FLAG_OPT("http2", &o.http2),
        CLI_INT_OPT("streams", &a.streams, 1, LOAD_STREAMS_MAX),
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
    if (rc || (rc = cli_status(CMD, report_out_begin(&o.out, NULL, err, sizeof err), err)))
        return rc;
    char base[512];
    struct load_url u;
    if ((rc = load_check_url(url, base, sizeof(base), &u)) != 0)
        return rc;
    o.base = base;
    o.url = &u;
    if ((rc = load_check_opts(&o, &a)) != 0) {
        load_tls_ctx_free(o.tls);
        return rc;
    }
    /* OpenSSL writes with write(): a server gone mid-write must be an
     * error to count, not a signal that ends the run. */
    signal(SIGPIPE, SIG_IGN);
    rc = load_run_scenario(&o, &a);
    load_tls_ctx_free(o.tls);
    if (a.timeline && fclose(a.timeline) != 0 && rc == 0)
        rc = cli_fail(CMD, "cannot write --timeline %s: %s", a.timeline_path, strerror(errno));
    if (a.spectrum && fclose(a.spectrum) != 0 && rc == 0)
        rc = cli_fail(CMD, "cannot write --latency-spectrum %s: %s", a.spectrum_path,
                      strerror(errno));
    return rc;
}

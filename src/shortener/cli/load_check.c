/* load_check: the checks of "kvtest shortener load"'s options before any
 * request is sent (load_check.h). */
#include "shortener/cli/load_check.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/units.h"
#include "load/load_tls.h"
#include "measure/timeline.h"

#define CMD LOAD_CMD

int load_check_url(const char *url, char *base, size_t cap, struct load_url *u)
{
    int tls = strncmp(url, "https://", 8) == 0;
    if (!tls && strncmp(url, "http://", 7) != 0)
        return cli_usage(CMD, "URL must start with http:// or https://, got '%s'", url);
    const char *host = url + 7 + tls;
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

/* https: --cacert or --insecure, and the context every connection will
 * share, made here so that a CA file that cannot be read costs no run.
 * 0, or the status of a misuse (2) or of that failure (1). */
static int check_tls(struct load_opts *o)
{
    if (!o->url->tls) {
        if (o->cacert || o->insecure || o->no_resume)
            return cli_usage(CMD, "--%s applies only to an https:// URL",
                             o->cacert ? "cacert" : o->insecure ? "insecure" : "no-resume");
        return 0;
    }
    if (o->cacert && o->insecure)
        return cli_usage(CMD, "--cacert and --insecure: give one (--insecure checks no "
                         "certificate)");
    char err[512];
    if (!(o->tls = load_tls_ctx_new(o->cacert, o->insecure, o->http2, err, sizeof err)))
        return cli_fail(CMD, "%s", err);
    return 0;
}

/* --http2 and --streams: the ring of a connection holds its streams;
 * --reconnect, one request a connection. 0 or the usage error's status. */
static int check_http2(struct load_opts *o, const struct load_args *a)
{
    if (o->reconnect && (o->http2 || o->pipeline > 1))
        return cli_usage(CMD, "--reconnect sends one request a connection: not with --%s",
                         o->http2 ? "http2" : "pipeline");
    if (!o->http2)
        return a->streams ? cli_usage(CMD, "--streams needs --http2") : 0;
    if (o->pipeline > 1)
        return cli_usage(CMD, "--pipeline is HTTP/1.1's: with --http2 give --streams N");
    o->pipeline = a->streams ? a->streams : 1;
    return 0;
}

int load_check_opts(struct load_opts *o, struct load_args *a)
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
    int rc = check_http2(o, a);
    if (rc == 0)
        rc = check_search(o, a);
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
    if ((rc = check_tls(o)) != 0)
        return rc;
    if (a->spectrum_path && !(a->spectrum = fopen(a->spectrum_path, "w")))
        return cli_usage(CMD, "cannot write --latency-spectrum %s: %s", a->spectrum_path,
                         strerror(errno));
    return check_timeline(o, a);
}

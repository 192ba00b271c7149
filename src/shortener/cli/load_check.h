/* load_check: the options of "kvtest shortener load" beyond the engine's
 * (struct load_args) and the checks of both before any request is sent:
 * the URL, the scenario's options, --walk, --slo, --timeline (load_check.c).
 * Each check returns 0 or the exit status of a misuse (one line printed). */
#ifndef KVTEST_SHORTENER_LOAD_CHECK_H
#define KVTEST_SHORTENER_LOAD_CHECK_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "load/load_engine.h"
#include "load/load_http.h"
#include "load/load_search.h"
#include "load/scenario_get.h"
#include "shortener/mix/mix.h"

#define LOAD_CMD "shortener load"

/* What the command line asked for beyond the engine's options. */
enum load_scenario_kind { SCENARIO_SHORTENER, SCENARIO_GET };

struct load_args {
    struct mix_opts mix;
    int scenario;              /* SCENARIO_SHORTENER or SCENARIO_GET */
    const char *paths[SCENARIO_GET_PATHS_MAX];
    int npaths;
    int64_t threads;
    int64_t streams;           /* --streams: with --http2, o->pipeline */
    const char *duration_s;
    const char *timeline_path, *interval_s;
    FILE *timeline;            /* opened before the run, so a bad path costs no run */
    const char *spectrum_path;
    FILE *spectrum;            /* --latency-spectrum, opened before the run too */
    const char *slo_s, *step_s;   /* --slo, --step-time */
    struct load_search_opts search;   /* --slo given: search.slo.n > 0 */
};

/* The URL: http[s]://HOST[:PORT][/PATH], stored in base (cap bytes) without
 * trailing '/' and parsed into *u, once, for the engine and the scenario. */
int load_check_url(const char *url, char *base, size_t cap, struct load_url *u);

/* The options that depend on each other, their defaults filled in; the
 * --timeline and --latency-spectrum files opened (a->timeline,
 * a->spectrum), and over https the TLS context made (o->tls, the caller's
 * to free), so a bad path costs no run. */
int load_check_opts(struct load_opts *o, struct load_args *a);

#endif

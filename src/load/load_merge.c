/* load_merge: add load --json results (see load_merge.h). */
#include "load/load_merge.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/load_histjson.h"

/* The report asks the scenario for its options only through this table;
 * a merged run has none of its own (they come from the first run). */
static const struct load_scenario_ops no_ops;

int load_merge_init(struct load_merge *m)
{
    memset(m, 0, sizeof(*m));
    m->sc.name = m->scenario;
    m->sc.ops = &no_ops;
    m->sc.nkinds = 1;   /* for load_totals_init; set from the first run */
    return 0;
}

void load_merge_free(struct load_merge *m)
{
    if (m->t.sc)
        load_totals_free(&m->t);
    cJSON_Delete(m->options);
    m->options = NULL;
    free(m->url);
    m->url = NULL;
}

static const cJSON *get(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* Counts are converted to 64-bit integers: above 2^53 a double no longer
 * holds every integer, and far above it the conversion is undefined. No
 * run of load writes such a figure; a damaged file might. */
#define MERGE_MAX_FIGURE 9007199254740992.0

/* A number >= 0 named name in o into *v; 0, or -1 with why set. */
static int number(const cJSON *o, const char *name, double *v, char *why, size_t cap)
{
    const cJSON *j = get(o, name);
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= 0))
        return snprintf(why, cap, "no number \"%s\" where load --json has one", name), -1;
    if (j->valuedouble > MERGE_MAX_FIGURE)
        return snprintf(why, cap, "\"%s\" is %g, beyond any count load --json writes", name,
                        j->valuedouble), -1;
    *v = j->valuedouble;
    return 0;
}

/* An option the merged options sum (connections, ...); 0 if absent or
 * beyond a count (see MERGE_MAX_FIGURE). */
static int64_t opt_int(const cJSON *op, const char *name)
{
    const cJSON *j = get(op, name);
    return cJSON_IsNumber(j) && fabs(j->valuedouble) <= MERGE_MAX_FIGURE
               ? (int64_t)j->valuedouble : 0;
}

/* The first run sets what every other must match. 0, or -1 with why. */
static int same_target(struct load_merge *m, const char *url, const char *scenario,
                       const char *from, char *why, size_t cap)
{
    if (m->nruns == 0) {
        /* Kept whole: a run compared with a cut copy of itself would be
         * refused ("targeted another service: X, not X"). The scenario
         * and the clock are short words; a longer one is no load run's. */
        if (strlen(scenario) >= sizeof(m->scenario) || strlen(from) >= sizeof(m->latency_from))
            return snprintf(why, cap, "scenario or latency_from is not one of load's"), -1;
        if (!(m->url = strdup(url)))
            return snprintf(why, cap, "out of memory"), -1;
        snprintf(m->scenario, sizeof(m->scenario), "%s", scenario);
        snprintf(m->latency_from, sizeof(m->latency_from), "%s", from);
        return 0;
    }
    if (strcmp(m->url, url) != 0)
        return snprintf(why, cap, "targeted another service: %s, not %s", url, m->url), -1;
    if (strcmp(m->scenario, scenario) != 0)
        return snprintf(why, cap, "ran another scenario: %s, not %s", scenario, m->scenario), -1;
    if (strcmp(m->latency_from, from) != 0)
        return snprintf(why, cap, "timed latency from %s, not from %s (--rate and not)", from,
                        m->latency_from), -1;
    return 0;
}

/* The request kinds: by_type's keys but "all", in order; the first run
 * sets them (and allocates the totals), the others must have the same. */
static int same_kinds(struct load_merge *m, const cJSON *by, char *why, size_t cap)
{
    int n = 0;
    for (const cJSON *k = by->child; k; k = k->next) {
        if (strcmp(k->string, "all") == 0)
            continue;
        if (n == LOAD_KINDS_MAX)
            return snprintf(why, cap, "more than %d request kinds", LOAD_KINDS_MAX), -1;
        char up[32];
        size_t i = 0;
        for (const char *c = k->string; *c && i + 1 < sizeof(up); c++)
            up[i++] = (char)toupper((unsigned char)*c);
        up[i] = '\0';
        if (m->nruns == 0)
            memcpy(m->kind_names[n], up, sizeof(up));
        else if (n >= m->sc.nkinds || strcmp(m->kind_names[n], up) != 0)
            return snprintf(why, cap, "has other request kinds than the first run"), -1;
        n++;
    }
    if (n == 0 || (m->nruns > 0 && n != m->sc.nkinds))
        return snprintf(why, cap, "has other request kinds than the first run"), -1;
    if (m->nruns > 0)
        return 0;
    m->sc.nkinds = n;
    for (int i = 0; i < n; i++)
        m->sc.kinds[i] = m->kind_names[i];
    if (load_totals_init(&m->t, &m->sc) != 0)
        return snprintf(why, cap, "out of memory"), -1;
    return 0;
}

/* One kind's counts and histogram into the totals. */
static int add_kind(struct load_merge *m, int k, const cJSON *j, double secs, char *why,
                    size_t cap)
{
    double req, ok, f;
    const cJSON *fo = get(j, "failures"), *h = get(j, "histogram");
    if (!h)
        return snprintf(why, cap, "has no latency histograms (made by a kvtest before "
                        "load-merge: run it again)"), -1;
    if (number(j, "requests", &req, why, cap) || number(j, "successful", &ok, why, cap) ||
        load_histjson_add(m->t.c.h[k], h, why, cap))
        return -1;
    m->t.c.ok[k] += (uint64_t)ok;
    for (int i = 1; i < LOAD_NFAIL; i++) {
        if (i >= LOAD_FAIL_TLS && !get(fo, load_fail_name((enum load_fail)i)))
            continue;   /* a run made before https or HTTP/2 came: none */
        if (number(fo, load_fail_name((enum load_fail)i), &f, why, cap))
            return -1;
        m->t.c.fail[k][i] += (uint64_t)f;
    }
    m->rates.kind[k] += req / secs;
    return 0;
}

/* https runs: their handshakes into the totals (made for the first one).
 * Runs over plain http and over https do not target the same URL, so
 * same_target has kept them apart. 0, or -1 with why. */
static int add_tls(struct load_merge *m, const cJSON *tls, char *why, size_t cap)
{
    double n, resumed;
    if (!tls || cJSON_IsNull(tls))
        return 0;
    if (!m->t.c.hs && !(m->t.c.hs = hist_new()))
        return snprintf(why, cap, "out of memory"), -1;
    if (number(tls, "handshakes", &n, why, cap) || number(tls, "resumed", &resumed, why, cap) ||
        load_histjson_add(m->t.c.hs, get(tls, "histogram"), why, cap))
        return -1;
    m->t.c.hs_n += (uint64_t)n;
    m->t.c.hs_resumed += (uint64_t)resumed;
    return 0;
}

/* The answers by status class and, for --rate runs, the latency from the
 * actual send, when the run has them (runs made before they came do
 * not). 0, or -1 with why. */
static int add_classes(struct load_merge *m, const cJSON *r, char *why, size_t cap)
{
    static const char *const names[LOAD_CLASSES] = {"2xx", "3xx", "4xx", "5xx"};
    const cJSON *bs = get(r, "by_status");
    for (int k = 0; k < LOAD_CLASSES && bs; k++) {
        const cJSON *o = get(bs, names[k]);
        double failed;
        if (number(o, "failed", &failed, why, cap) ||
            load_histjson_add(m->t.c.cls[k], get(o, "histogram"), why, cap))
            return -1;
        m->t.c.cls_fail[k] += (uint64_t)failed;
    }
    const cJSON *u = get(r, "latency_uncorrected");
    if (!u || cJSON_IsNull(u))
        return 0;
    if (!m->t.c.sent && !(m->t.c.sent = hist_new()))
        return snprintf(why, cap, "out of memory"), -1;
    return load_histjson_add(m->t.c.sent, get(u, "histogram"), why, cap);
}

static void add_errors(struct load_merge *m, const cJSON *errs)
{
    for (const cJSON *e = errs ? errs->child : NULL; e; e = e->next) {
        struct load_counts *c = &m->t.c;
        if (c->nerr == LOAD_NERR_KEEP || !cJSON_IsString(e))
            break;
        snprintf(c->err[c->nerr++].msg, sizeof(c->err[0].msg), "%s", e->valuestring);
    }
}

/* The run's result object into m. 0, or -1 with why. */
static int add_run(struct load_merge *m, const cJSON *root, char *why, size_t cap)
{
    const cJSON *op = get(root, "options"), *r = get(root, "result");
    const cJSON *by = get(r, "by_type");
    const char *url = cJSON_GetStringValue(get(op, "url"));
    const char *from = cJSON_GetStringValue(get(r, "latency_from"));
    if (!cJSON_IsObject(by) || !url || !from)
        return snprintf(why, cap, "is not the --json of kvtest shortener load"), -1;
    const char *scenario = cJSON_GetStringValue(get(r, "scenario"));
    double t0, t1, secs, tasks, ok, failed, nreq, rate;
    if (!scenario || !get(r, "started_at"))
        return snprintf(why, cap, "has no latency histograms (made by a kvtest before "
                        "load-merge: run it again)"), -1;
    if (number(r, "started_at", &t0, why, cap) || number(r, "ended_at", &t1, why, cap) ||
        number(r, "seconds", &secs, why, cap) || number(r, "tasks", &tasks, why, cap) ||
        number(r, "successful", &ok, why, cap) || number(r, "failed", &failed, why, cap) ||
        number(r, "requests", &nreq, why, cap))
        return -1;
    if (!(secs > 0) || t1 < t0)
        return snprintf(why, cap, "has a run of no length"), -1;
    if (same_target(m, url, scenario, from, why, cap) || same_kinds(m, by, why, cap))
        return -1;
    int k = 0;
    for (const cJSON *j = by->child; j; j = j->next)
        if (strcmp(j->string, "all") != 0 && add_kind(m, k++, j, secs, why, cap))
            return -1;
    if (add_tls(m, get(r, "tls"), why, cap) || add_classes(m, r, why, cap))
        return -1;
    m->t.c.http2 |= cJSON_IsTrue(get(op, "http2"));
    m->t.c.tasks_ok += (uint64_t)ok;
    m->t.c.tasks_failed += (uint64_t)failed;
    m->rates.tasks += tasks / secs;
    m->rates.all += nreq / secs;
    add_errors(m, get(r, "errors"));
    m->from = m->nruns == 0 || t0 > m->from ? t0 : m->from;   /* the latest start */
    m->to = m->nruns == 0 || t1 < m->to ? t1 : m->to;         /* the earliest end */
    /* --rate targets add up as the machines' requests do; a run without
     * one was refused above (latency_from differs). */
    m->rate += number(op, "rate", &rate, why, cap) == 0 ? rate : 0;
    m->connections += opt_int(op, "connections");
    m->workers += opt_int(op, "workers");
    m->tasks += opt_int(op, "tasks");
    if (m->nruns++ == 0 && !(m->options = cJSON_Duplicate(op, 1)))
        return snprintf(why, cap, "out of memory"), -1;
    return 0;
}

int load_merge_add(struct load_merge *m, const char *text, size_t len, char *why, size_t cap)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root)
        return snprintf(why, cap, "is not valid JSON (at byte %td)",
                        end ? end - text : (ptrdiff_t)0), -1;
    int rc = cJSON_IsObject(root) ? add_run(m, root, why, cap)
             : (snprintf(why, cap, "is not the --json of kvtest shortener load"), -1);
    cJSON_Delete(root);
    return rc;
}

int load_merge_finish(struct load_merge *m, char *why, size_t cap)
{
    if (m->nruns == 0)
        return snprintf(why, cap, "no run to merge"), -1;
    if (!(m->to > m->from))
        return snprintf(why, cap, "the runs did not overlap in time: one started %.3f s after "
                        "another had ended", m->from - m->to), -1;
    load_totals_finish(&m->t, m->to - m->from);
    m->t.rates = &m->rates;
    m->t.started_at = m->from;
    m->t.ended_at = m->to;
    return 0;
}

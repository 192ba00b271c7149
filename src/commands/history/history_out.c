/* history_out: the change points as text lines or one JSON object
 * (history_int.h). */
#include <stdio.h>
#include <string.h>

#include "base/cli.h"
#include "base/json_alloc.h"
#include "commands/history/history_int.h"
#include "measure/report.h"
#include "measure/env.h"
#include "measure/provenance.h"

/* "LABEL METRIC", or the label alone when a CSV series named it once. */
static void name_of(const struct history_series *s, char *buf, size_t cap)
{
    if (strcmp(s->label, s->metric) == 0)
        snprintf(buf, cap, "%s", s->label);
    else
        snprintf(buf, cap, "%s %s", s->label, s->metric);
}

static const char *test_text(enum change_test t)
{
    return t == CHANGE_TEST_MW ? "Mann-Whitney U" : "Welch's t on the logs";
}

void history_print_text(const struct history *h)
{
    size_t changes = 0, slower = 0, latest_slower = 0, analysed = 0;
    for (size_t i = 0; i < h->ns; i++) {
        const struct history_series *s = &h->s[i];
        char name[COMPARE_LABEL_MAX + HISTORY_METRIC_MAX + 2];
        name_of(s, name, sizeof name);
        const char *u = s->unit;
        if (s->skipped) {
            printf("%s: not analysed: %zu points, %s (%zu)\n", name, s->npt, s->skipped,
                   h->opts.min_seg);
            continue;
        }
        analysed++;
        for (size_t k = 0; k < s->nch; k++) {
            const struct history_change *c = &s->ch[k];
            const struct history_commit *cm = &h->c[s->pc[c->at]];
            printf("%s: %s (point %zu of %zu): %.4g [%.4g, %.4g] %s (%zu) -> %.4g [%.4g, %.4g] "
                   "%s (%zu)  x%.3f [%.3f, %.3f]  p %.2g  %s\n",
                   name, cm->id, c->at + 1, s->npt, c->before.est, c->before.lo, c->before.hi, u,
                   c->nbefore, c->after.est, c->after.lo, c->after.hi, u, c->nafter, c->ratio.est,
                   c->ratio.lo, c->ratio.hi, c->p, c->slower ? "slower" : "faster");
            slower += c->slower;
        }
        changes += s->nch;
        if (s->nch && s->ch[s->nch - 1].slower)
            latest_slower++;
        if (!s->nch)
            printf("%s: no change in %zu points%s\n", name, s->npt,
                   s->npt < h->nc ? " (some commits have none)" : "");
    }
    printf("%zu commits, %zu series analysed, %zu change points (%zu slower, %zu faster), "
           "latest segment slower in %zu (E-Divisive means, %s p < %g", h->nc, analysed,
           changes, slower, changes - slower, latest_slower, test_text(h->opts.test),
           h->opts.alpha);
    if (h->opts.min_change > 0)
        printf(", steps >= %g%%", h->opts.min_change * 100);
    printf(")\n");
}

static cJSON *change_json(const struct history *h, const struct history_series *s,
                          const struct history_change *c)
{
    const struct history_commit *cm = &h->c[s->pc[c->at]];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "measurement", s->label);
    cJSON_AddStringToObject(o, "metric", s->metric);
    cJSON_AddStringToObject(o, "unit", s->unit);
    cJSON_AddStringToObject(o, "commit", cm->id);
    cJSON_AddStringToObject(o, "time", cm->time);
    cJSON_AddNumberToObject(o, "point", (double)(c->at + 1));   /* 1-based, as the text */
    cJSON_AddItemToObject(o, "before", compare_ci_json(&c->before, c->nbefore));
    cJSON_AddItemToObject(o, "after", compare_ci_json(&c->after, c->nafter));
    cJSON *ratio = cJSON_AddObjectToObject(o, "ratio");
    cJSON_AddNumberToObject(ratio, "est", c->ratio.est);
    cJSON_AddNumberToObject(ratio, "lo", c->ratio.lo);
    cJSON_AddNumberToObject(ratio, "hi", c->ratio.hi);
    cJSON_AddNumberToObject(o, "p", c->p);
    cJSON_AddStringToObject(o, "direction", c->slower ? "slower" : "faster");
    return o;
}

static cJSON *series_json(const struct history *h, const struct history_series *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "measurement", s->label);
    cJSON_AddStringToObject(o, "metric", s->metric);
    cJSON_AddStringToObject(o, "unit", s->unit);
    cJSON_AddBoolToObject(o, "higher_better", s->higher_better);
    cJSON_AddNumberToObject(o, "points", (double)s->npt);
    cJSON_AddNumberToObject(o, "commits_without", (double)(h->nc - s->npt));
    if (s->skipped) {
        cJSON_AddStringToObject(o, "skipped", s->skipped);
        return o;
    }
    cJSON_AddNullToObject(o, "skipped");
    cJSON_AddNumberToObject(o, "searched_from", (double)s->from);
    cJSON_AddNumberToObject(o, "change_points", (double)s->nch);
    size_t b = s->nch ? s->ch[s->nch - 1].at : 0;
    cJSON *l = compare_ci_json(&s->latest, s->npt - b);
    cJSON_AddStringToObject(l, "since", h->c[s->pc[b]].id);
    cJSON_AddItemToObject(o, "latest", l);
    cJSON_AddBoolToObject(o, "latest_slower", s->nch && s->ch[s->nch - 1].slower);
    return o;
}

int history_print_json(const struct history *h, const char *const *inputs, int ninputs, int csv)
{
    /* cJSON's adders return NULL when out of memory, and the object goes
     * on without the member: the hooks say whether any failed (base/
     * json_alloc.h), so that no object short of a member is printed. */
    json_alloc_reset();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "history");
    cJSON_AddNumberToObject(o, "schema_version", KVTEST_SCHEMA_VERSION);
    cJSON_AddStringToObject(o, "cmdline", cli_cmdline());
    cJSON_AddItemToObject(o, "env", env_json(NULL));
    cJSON *in = cJSON_AddArrayToObject(o, "inputs");
    for (int i = 0; i < ninputs; i++)
        cJSON_AddItemToArray(in, cJSON_CreateString(inputs[i]));
    cJSON *opt = cJSON_AddObjectToObject(o, "options");
    cJSON_AddNumberToObject(opt, "p", h->opts.alpha);
    cJSON_AddNumberToObject(opt, "min_change", h->opts.min_change);
    cJSON_AddNumberToObject(opt, "min_segment", (double)h->opts.min_seg);
    cJSON_AddStringToObject(opt, "test", h->opts.test == CHANGE_TEST_MW ? "mw" : "welch");
    cJSON_AddBoolToObject(opt, "by_time", h->by_time);
    cJSON_AddNumberToObject(opt, "window", (double)h->window);
    if (h->state)
        cJSON_AddStringToObject(opt, "state", h->state);
    else
        cJSON_AddNullToObject(opt, "state");
    cJSON_AddNumberToObject(o, "commits", (double)h->nc);
    cJSON *work = cJSON_AddObjectToObject(o, "work");
    cJSON_AddNumberToObject(work, "points_searched", (double)h->work.points);
    cJSON_AddNumberToObject(work, "distances", (double)h->work.pairs);
    cJSON_AddNumberToObject(work, "series_from_state", (double)h->reused);
    /* under --csv every row would repeat every series' columns */
    cJSON *series = csv ? NULL : cJSON_AddArrayToObject(o, "series");
    cJSON *cps = cJSON_AddArrayToObject(o, "change_points");
    size_t changes = 0, slower = 0, latest = 0, analysed = 0;
    for (size_t i = 0; i < h->ns; i++) {
        const struct history_series *s = &h->s[i];
        if (series)
            cJSON_AddItemToArray(series, series_json(h, s));
        analysed += !s->skipped;
        for (size_t k = 0; k < s->nch; k++) {
            cJSON_AddItemToArray(cps, change_json(h, s, &s->ch[k]));
            slower += s->ch[k].slower;
        }
        changes += s->nch;
        latest += s->nch && s->ch[s->nch - 1].slower;
    }
    cJSON *sum = cJSON_AddObjectToObject(o, "summary");
    cJSON_AddNumberToObject(sum, "series", (double)h->ns);
    cJSON_AddNumberToObject(sum, "analysed", (double)analysed);
    cJSON_AddNumberToObject(sum, "change_points", (double)changes);
    cJSON_AddNumberToObject(sum, "slower", (double)slower);
    cJSON_AddNumberToObject(sum, "faster", (double)(changes - slower));
    cJSON_AddNumberToObject(sum, "latest_slower", (double)latest);
    if (json_alloc_failed()) {
        cJSON_Delete(o);
        return -1;
    }
    return report_json_print(o);   /* or its change points, under --csv */
}

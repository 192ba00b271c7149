/* compare_out: the table of kvtest compare, as aligned text or JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/compare/compare_int.h"
#include "base/cli.h"
#include "base/json_alloc.h"
#include "measure/report.h"
#include "measure/env.h"
#include "measure/provenance.h"

#define NCOL 8

/* 3-4 significant digits; from 10^4 up with a k/M/G/T suffix (x1000) so
 * that byte counts and rates stay short: 181080 -> "181.1k". */
static void fmt_num(char *buf, size_t cap, double v)
{
    static const char suffix[] = "kMGT";
    double a = fabs(v);
    int i = -1;
    while (a >= 1e4 && i < 3)
        a /= 1000, v /= 1000, i++;
    if (i < 0)
        snprintf(buf, cap, "%.4g", v);
    else
        snprintf(buf, cap, "%.4g%c", v, suffix[i]);
}

static void fmt_ci(char *buf, size_t cap, const struct stats_ci *c)
{
    char e[32], lo[32], hi[32];
    fmt_num(e, sizeof e, c->est), fmt_num(lo, sizeof lo, c->lo), fmt_num(hi, sizeof hi, c->hi);
    snprintf(buf, cap, "%s [%s, %s]", e, lo, hi);
}

static void fmt_ratio1(char *buf, size_t cap, double r)
{
    snprintf(buf, cap, r >= 0.01 && r < 100 ? "%.3f" : "%.3g", r);
}

static void fmt_ratio(char *buf, size_t cap, const struct stats_ci *c)
{
    char e[32], lo[32], hi[32];
    fmt_ratio1(e, sizeof e, c->est), fmt_ratio1(lo, sizeof lo, c->lo);
    fmt_ratio1(hi, sizeof hi, c->hi);
    snprintf(buf, cap, "%s [%s, %s]", e, lo, hi);
}

/* "p50" with unit "us" reads "p50 us"; "us/blob" already names its unit. */
static void fmt_metric(char *buf, size_t cap, const struct compare_metric *m)
{
    if (strstr(m->name, m->unit) || strcmp(m->unit, "1/s") == 0)
        snprintf(buf, cap, "%s", m->name);
    else
        snprintf(buf, cap, "%s %s", m->name, m->unit);
}

typedef char cell[COMPARE_LABEL_MAX];

static void row_cells(const struct compare_row *r, cell *c)
{
    snprintf(c[0], sizeof c[0], "%s", r->go->key.label);
    fmt_metric(c[1], sizeof c[1], r->mo);
    snprintf(c[2], sizeof c[2], "%zu/%zu", r->c.nold, r->c.nnew);
    fmt_ci(c[3], sizeof c[3], &r->c.old);
    fmt_ci(c[4], sizeof c[4], &r->c.nw);
    fmt_ratio(c[5], sizeof c[5], &r->c.ratio);
    snprintf(c[6], sizeof c[6], "%.2g", r->c.p_adj);
    snprintf(c[7], sizeof c[7], "%s", stats_verdict_name(r->verdict));
}

static void side_text(char *buf, size_t cap, const struct compare_side *s)
{
    int n = snprintf(buf, cap, "%s (%zu results", s->name, s->objects);
    if (n >= 0 && (size_t)n < cap && s->warmups)
        n += snprintf(buf + n, cap - (size_t)n, ", %zu warm-up skipped", s->warmups);
    if (n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, ")");
}

static void print_row(cell *c, const size_t *w)
{
    /* Left-aligned words, right-aligned numbers, the verdict last. */
    printf("%-*s  %-*s  %*s  %*s  %*s  %*s  %*s  %s\n", (int)w[0], c[0], (int)w[1], c[1],
           (int)w[2], c[2], (int)w[3], c[3], (int)w[4], c[4], (int)w[5], c[5], (int)w[6], c[6],
           c[7]);
}

void compare_print_text(const struct compare_side *old, const struct compare_side *nw,
                    const struct compare_row *rows, size_t n)
{
    char so[COMPARE_WHERE_MAX + 64], sn[COMPARE_WHERE_MAX + 64];
    side_text(so, sizeof so, old), side_text(sn, sizeof sn, nw);
    printf("OLD %s vs NEW %s\n", so, sn);
    static const char *const head[NCOL] = {"measurement", "metric", "n", "OLD median [95% CI]",
                                           "NEW median [95% CI]", "NEW/OLD [95% CI]", "p",
                                           "verdict"};
    size_t w[NCOL];
    for (int j = 0; j < NCOL; j++)
        w[j] = strlen(head[j]);
    cell c[NCOL];
    for (size_t i = 0; i < n; i++) {
        row_cells(&rows[i], c);
        for (int j = 0; j < NCOL; j++)
            if (strlen(c[j]) > w[j])
                w[j] = strlen(c[j]);
    }
    for (int j = 0; j < NCOL; j++)
        snprintf(c[j], sizeof c[j], "%s", head[j]);
    print_row(c, w);
    size_t count[4] = {0};
    for (size_t i = 0; i < n; i++) {
        row_cells(&rows[i], c);
        print_row(c, w);
        count[rows[i].verdict]++;
    }
    printf("%zu rows: %zu faster, %zu slower, %zu ~, %zu too few samples "
           "(p: two-sided %s, Holm-adjusted over the %zu rows with >= %d a side)\n",
           n, count[STATS_FASTER], count[STATS_SLOWER], count[STATS_SAME], count[STATS_TOO_FEW],
           n && rows[0].paired ? "Wilcoxon signed-rank of the pairs" : "Mann-Whitney U",
           n - count[STATS_TOO_FEW], STATS_MIN_SAMPLES);
}

cJSON *compare_ci_json(const struct stats_ci *c, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", (double)n);
    cJSON_AddNumberToObject(o, "median", c->est);
    cJSON_AddNumberToObject(o, "lo", c->lo);
    cJSON_AddNumberToObject(o, "hi", c->hi);
    return o;
}

static cJSON *row_json(const struct compare_row *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "measurement", r->go->key.label);
    cJSON_AddStringToObject(o, "metric", r->mo->name);
    cJSON_AddStringToObject(o, "unit", r->mo->unit);
    cJSON_AddBoolToObject(o, "higher_better", r->mo->higher_better);
    cJSON_AddItemToObject(o, "old", compare_ci_json(&r->c.old, r->c.nold));
    cJSON_AddItemToObject(o, "new", compare_ci_json(&r->c.nw, r->c.nnew));
    cJSON *ratio = cJSON_AddObjectToObject(o, "ratio");
    cJSON_AddNumberToObject(ratio, "est", r->c.ratio.est);
    cJSON_AddNumberToObject(ratio, "lo", r->c.ratio.lo);
    cJSON_AddNumberToObject(ratio, "hi", r->c.ratio.hi);
    cJSON_AddNumberToObject(o, "p", r->c.p);
    cJSON_AddNumberToObject(o, "p_adj", r->c.p_adj);
    cJSON_AddStringToObject(o, "verdict", stats_verdict_name(r->verdict));
    return o;
}

int compare_print_json(const struct compare_side *old, const struct compare_side *nw,
                   const struct compare_row *rows, size_t n)
{
    json_alloc_reset();   /* a member cJSON could not add: see below */
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "compare");
    cJSON_AddNumberToObject(o, "schema_version", KVTEST_SCHEMA_VERSION);
    cJSON_AddStringToObject(o, "cmdline", cli_cmdline());
    cJSON_AddItemToObject(o, "env", env_json(NULL));
    cJSON_AddStringToObject(o, "old", old->name);
    cJSON_AddStringToObject(o, "new", nw->name);
    cJSON_AddBoolToObject(o, "paired", n && rows[0].paired);
    cJSON *arr = cJSON_AddArrayToObject(o, "rows");
    double count[4] = {0};
    for (size_t i = 0; i < n; i++) {
        cJSON_AddItemToArray(arr, row_json(&rows[i]));
        count[rows[i].verdict]++;
    }
    cJSON *sum = cJSON_AddObjectToObject(o, "summary");
    cJSON_AddNumberToObject(sum, "rows", (double)n);
    cJSON_AddNumberToObject(sum, "faster", count[STATS_FASTER]);
    cJSON_AddNumberToObject(sum, "slower", count[STATS_SLOWER]);
    cJSON_AddNumberToObject(sum, "same", count[STATS_SAME]);
    cJSON_AddNumberToObject(sum, "too_few", count[STATS_TOO_FEW]);
    /* cJSON's adders return NULL when out of memory and the object goes on
     * without the member: never print an object short of one. */
    if (json_alloc_failed()) {
        cJSON_Delete(o);
        return -1;
    }
    return report_json_print(o);   /* or its rows, under --csv */
}

/* compare: two sets of kvtest results side by side, with how sure each
 * difference is (the statistics are measure/stats.h; reading and grouping
 * compare_read.c and compare_extract.c; the table compare_out.c).
 * Not in the core build: it parses JSON, which the core cannot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "commands/commands.h"
#include "commands/compare/compare_int.h"
#include "measure/report.h"

const char help_compare[] =
    "Usage: kvtest compare OLD NEW [--paired] [--json] [--fail-above R]\n"
    "\n"
    "Set two sets of kvtest results side by side: is NEW faster, slower, or\n"
    "not different as far as this data can show? OLD and NEW are each a file\n"
    "of --json lines from any command that measures (run, sweep, space,\n"
    "shortener bench, shortener load), a results directory (its raw/*.jsonl,\n"
    "or DIR/*.jsonl without raw/), or - for stdin (one side only).\n"
    "\n"
    "Samples are grouped by what was measured: the command and the options\n"
    "that tell measurements apart (op, store/api, order, cold/warm, mmap,\n"
    "journal mode, threads, configuration, connections, page and blob size,\n"
    "the experiment/variant of a make bench record), which the row's\n"
    "measurement names. Options that define the measurement (--count,\n"
    "--max-id, the blob size within 5%, --lookups, --duration, --total, ...)\n"
    "must agree; paths, URLs, seeds, --repeat and --warmup need not. Rounds\n"
    "marked as warm-up are ignored. Samples: for run, each measured run's\n"
    "us/blob and MB/s, and one p50/p99/p99.9 latency per result; for\n"
    "shortener bench each round's lookups/s per configuration; for shortener\n"
    "load one requests/s and latency per result, and with --slo the capacity\n"
    "and its interval's two ends per search (the objective defines it); for\n"
    "sweep each round's\n"
    "us/blob (or the one median) and the crossover size; for space the total\n"
    "bytes of each layout.\n"
    "\n"
    "One row per metric present on both sides: OLD and NEW medians with\n"
    "their 95% intervals (order statistics, interpolated as Hettmansperger\n"
    "and Sheather do; [min, max] below 6 samples), the NEW/OLD ratio\n"
    "(Hodges-Lehmann: the median of all pairwise ratios) with Moses' 95%\n"
    "interval, the p-value of a two-sided Mann-Whitney U test (exact when\n"
    "there are no ties and at most 50 samples a side, else the normal\n"
    "approximation with tie correction) adjusted by Holm-Bonferroni over the\n"
    "rows that have a verdict, and the verdict:\n"
    "  too few samples  fewer than 4 on a side: no test can show a difference\n"
    "  faster, slower   adjusted p < 0.05; times and sizes are better lower,\n"
    "                   rates (MB/s, lookups/s, requests/s) higher\n"
    "  ~                no difference this data can show\n"
    "\n"
    "Options:\n"
    "  --paired         OLD and NEW were measured in alternating pairs (round i\n"
    "                   of OLD beside round i of NEW, as in an A/B run), so what\n"
    "                   a round shares with its partner (the machine's speed\n"
    "                   that minute) cancels: the ratio is the Hodges-Lehmann\n"
    "                   estimate of the pairs' ratios (the median of their\n"
    "                   Walsh averages, log scale) with Tukey's 95% interval,\n"
    "                   p the two-sided Wilcoxon signed-rank test (exact below\n"
    "                   200 pairs without ties, equal pairs dropped). Samples\n"
    "                   pair in file order; a row whose sides differ in count\n"
    "                   is refused (exit 2)\n"
    "  --json           the same table as one JSON object: {\"command\":\n"
    "                   \"compare\", \"old\", \"new\", \"paired\", \"rows\": [{\"measurement\",\n"
    "                   \"metric\", \"unit\", \"old\": {n, median, lo, hi}, \"new\",\n"
    "                   \"ratio\": {est, lo, hi}, \"p\", \"p_adj\", \"verdict\"}],\n"
    "                   \"summary\"}\n"
    "  --csv            the --json fields as CSV: one row per table row (rows)\n"
    "  --fail-above R   exit 1 when a row is slower and its slowdown interval\n"
    "                   lies wholly above R (a time: the ratio's lower end > R;\n"
    "                   a rate: 1/ratio's upper end > R); such rows go to stderr\n"
    "\n"
    "Exit status: 0 compared; 1 a row slower than --fail-above; 2 bad input\n"
    "(an unreadable file, a line that is not kvtest JSON, named FILE:LINE; no\n"
    "measurement in common; a defining option that differs, named with both\n"
    "values).\n"
    "\n"
    "Example:  kvtest run x.db --random --repeat 10 --json > old.jsonl\n"
    "          (change something) ... > new.jsonl\n"
    "          kvtest compare old.jsonl new.jsonl --fail-above 1.1\n";

static const struct compare_group *find_label(const struct compare_side *s, const char *label,
                                          const struct compare_key *exact)
{
    const struct compare_group *any = NULL;
    for (size_t i = 0; i < s->ng; i++) {
        if (strcmp(s->g[i].key.label, label) != 0)
            continue;
        if (!exact || !compare_key_differs(&s->g[i].key, exact))
            return &s->g[i];
        if (!any)
            any = &s->g[i];
    }
    return exact ? NULL : any;
}

/* A measurement both sides name but define differently: refused, naming
 * the option and both values. a is OLD when a_old. 2, or 0 if none. */
static int check_defs(const struct compare_side *a, const struct compare_side *b, int a_old)
{
    for (size_t i = 0; i < a->ng; i++) {
        const struct compare_group *ga = &a->g[i];
        if (find_label(b, ga->key.label, &ga->key))
            continue;
        const struct compare_group *gb = find_label(b, ga->key.label, NULL);
        if (!gb)
            continue;
        const char *opt = compare_key_differs(&ga->key, &gb->key);
        char va[80], vb[80];
        compare_def_text(&ga->key, opt, va, sizeof va);
        compare_def_text(&gb->key, opt, vb, sizeof vb);
        const struct compare_group *go = a_old ? ga : gb, *gn = a_old ? gb : ga;
        return cli_usage("compare", "OLD and NEW differ in %s for \"%s\": %s (%s) vs %s (%s)",
                         opt, ga->key.label, a_old ? va : vb, go->where, a_old ? vb : va,
                         gn->where);
    }
    return 0;
}

static const struct compare_metric *find_metric(const struct compare_group *g, const char *name)
{
    for (size_t i = 0; i < g->nm; i++)
        if (strcmp(g->m[i].name, name) == 0)
            return &g->m[i];
    return NULL;
}

/* The rows of every metric both sides have, in OLD's order. -1 on OOM,
 * 2 (after one line) when --paired and a row's sides differ in count. */
static int make_rows(const struct compare_side *o, const struct compare_side *n, int paired,
                     struct compare_row **rows, size_t *nrows)
{
    size_t cap = 0;
    *rows = NULL, *nrows = 0;
    for (size_t i = 0; i < o->ng; i++) {
        const struct compare_group *go = &o->g[i];
        const struct compare_group *gn = find_label(n, go->key.label, &go->key);
        for (size_t j = 0; gn && j < go->nm; j++) {
            const struct compare_metric *mn = find_metric(gn, go->m[j].name);
            if (!mn)
                continue;
            if (*nrows == cap) {
                cap = cap ? cap * 2 : 64;
                struct compare_row *r = realloc(*rows, cap * sizeof *r);
                if (!r)
                    return -1;
                *rows = r;
            }
            struct compare_row *r = &(*rows)[*nrows];
            memset(r, 0, sizeof *r);
            r->go = go, r->gn = gn, r->mo = &go->m[j], r->mn = mn, r->paired = paired;
            if (paired && r->mo->n != mn->n)
                return cli_usage("compare", "--paired: %s %s has %zu samples in %s and %zu in %s",
                                 go->key.label, mn->name, r->mo->n, o->name, mn->n, n->name);
            /* samples are finite and > 0: only OOM fails */
            if (paired ? stats_compare_paired(r->mo->v, mn->v, mn->n, &r->c) < 0
                       : stats_compare(r->mo->v, r->mo->n, mn->v, mn->n, &r->c) < 0)
                return -1;
            (*nrows)++;
        }
    }
    return 0;
}

/* Holm over the rows that can have a verdict, then the verdicts. */
static int decide(struct compare_row *rows, size_t n)
{
    double *p = malloc((n ? n : 1) * sizeof *p);
    if (!p)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        rows[i].tested = rows[i].c.nold >= STATS_MIN_SAMPLES && rows[i].c.nnew >= STATS_MIN_SAMPLES;
        if (rows[i].tested)
            p[k++] = rows[i].c.p;
    }
    if (stats_holm(p, p, k) != 0) {
        free(p);
        return -1;
    }
    k = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].tested)
            rows[i].c.p_adj = p[k++];
        rows[i].verdict = stats_decide(&rows[i].c, rows[i].mo->higher_better, 0.05);
    }
    free(p);
    return 0;
}

/* --fail-above: 1 when some slower row's slowdown interval lies wholly
 * above limit (each such row named on stderr), else 0. */
static int fail_above(const struct compare_row *rows, size_t n, double limit)
{
    int fail = 0;
    for (size_t i = 0; i < n; i++) {
        const struct compare_row *r = &rows[i];
        if (r->verdict != STATS_SLOWER)
            continue;
        /* Slowdown as a factor > 1: the ratio for a time, its inverse for a rate. */
        double lo = r->mo->higher_better ? 1 / r->c.ratio.hi : r->c.ratio.lo;
        double est = r->mo->higher_better ? 1 / r->c.ratio.est : r->c.ratio.est;
        if (lo > limit) {
            fprintf(stderr, "kvtest compare: slower than x%g: %s %s: x%.3f (at least x%.3f)\n",
                    limit, r->go->key.label, r->mo->name, est, lo);
            fail = 1;
        }
    }
    return fail;
}

static int compare_sides(struct compare_side *o, struct compare_side *n, int json, int paired,
                         double limit)
{
    int rc = check_defs(o, n, 1);
    if (!rc)
        rc = check_defs(n, o, 0);
    if (rc)
        return rc;
    struct compare_row *rows;
    size_t nrows;
    rc = make_rows(o, n, paired, &rows, &nrows);
    if (rc > 0) {
        free(rows);
        return rc;
    }
    if (rc < 0 || decide(rows, nrows) < 0) {
        free(rows);
        return cli_fail("compare", "out of memory");
    }
    if (nrows == 0) {
        free(rows);
        return cli_usage("compare", "no measurement in common between %s (%zu) and %s (%zu)",
                         o->name, o->ng, n->name, n->ng);
    }
    if (json)
        rc = compare_print_json(o, n, rows, nrows) < 0 ? cli_fail("compare", "out of memory") : 0;
    else
        compare_print_text(o, n, rows, nrows);
    if (rc == 0 && limit > 0)
        rc = fail_above(rows, nrows, limit);
    free(rows);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    struct report_out out = {0};
    int paired = 0;
    char err[128];
    double limit = 0;
    const struct cli_opt opts[] = {
        REPORT_OUT_OPTS(&out),
        CLI_FLAG_OPT("paired", &paired),
        CLI_DOUBLE_OPT("fail-above", &limit, 1.0, 1e9),
    };
    const char *pos[2];
    int npos = 0;
    if (cli_parse("compare", argc, argv, opts, CLI_COUNT(opts), pos, 2, &npos))
        return 2;
    int rc = cli_status("compare", report_out_begin(&out, "rows", err, sizeof err), err);
    if (rc)
        return rc;
    if (npos != 2)
        return cli_usage("compare", "two inputs wanted: OLD NEW (see kvtest help compare)");
    if (strcmp(pos[0], "-") == 0 && strcmp(pos[1], "-") == 0)
        return cli_usage("compare", "stdin (-) can be one side only");
    struct compare_side o, n;
    memset(&o, 0, sizeof o), memset(&n, 0, sizeof n);
    rc = compare_side_read(&o, pos[0]);
    if (!rc)
        rc = compare_side_read(&n, pos[1]);
    if (!rc)
        rc = compare_sides(&o, &n, out.json, paired, limit);
    compare_side_free(&o);
    compare_side_free(&n);
    return rc;
}

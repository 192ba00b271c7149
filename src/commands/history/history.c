/* history: change points in a series of results, one point per commit
 * (reading history_series.c and history_csv.c, the search history_find.c
 * over measure/change_find, the report history_out.c). Not in the core
 * build: it parses JSON and CSV. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "commands/commands.h"
#include "commands/history/history_int.h"
#include "measure/report.h"

#define MAX_INPUTS 4096

const char help_history[] =
    "Usage: kvtest history SERIES... [--p P] [--min-change F] [--min-segment N]\n"
    "                      [--test mw|welch] [--state FILE [--window N]] [--by-time]\n"
    "                      [--fail-on-regression] [--json | --csv]\n"
    "\n"
    "Where did a measurement change level over a project's history, and by how\n"
    "much? Reads results in commit order and finds the change points of each\n"
    "series: five commits each 2% slower pass every check of one commit against\n"
    "the one before, but not this.\n"
    "\n"
    "SERIES, read in the order given and each in its own order:\n"
    "  FILE.csv   a header naming commit, time, metric and value, and unit and\n"
    "             measurement if it has them (other columns are ignored); a row\n"
    "             per sample. A unit ending in /s is a rate (higher is better)\n"
    "  FILE       --json lines of any command compare reads (run, sweep, space,\n"
    "             shortener bench and load), measured as compare measures them\n"
    "  DIR        a results directory: its raw/*.jsonl, or DIR/*.jsonl, by name\n"
    "  -          --json lines on stdin\n"
    "A --json object belongs to the commit it names (\"commit\", or its env's\n"
    "\"commit\"), else to its file's name without the extension. A commit's\n"
    "samples must come together; the series of a metric has one point per\n"
    "commit, the median of that commit's samples. A commit where a series has no\n"
    "sample is a gap in that series only.\n"
    "\n"
    "The search (E-Divisive means, Matteson and James 2014, as MongoDB's and\n"
    "Apache Otava's performance CI): on the log scale, the split of a segment\n"
    "that maximises the energy divergence of its two sides is tried, the largest\n"
    "first; it is a change when the test of the two sides gives p < P and their\n"
    "medians differ by at least F; then each half is searched. At the end every\n"
    "change is tested again against its neighbouring changes and the weakest\n"
    "that fails is dropped until all pass. Deterministic: the same series gives\n"
    "the same answer (no permutations).\n"
    "\n"
    "One line per change point: the series, the commit its new level starts at,\n"
    "the median of the points before and after it with their 95% intervals and\n"
    "counts, the after/before ratio (Hodges-Lehmann, Moses' 95% interval, over\n"
    "at most 300 points each side nearest the change), the p-value of the\n"
    "segments either side, and slower or faster (times and sizes are better\n"
    "lower, rates higher). A series without change says so; one too short to\n"
    "have two segments says it was not analysed.\n"
    "\n"
    "Options:\n"
    "  --p P          the significance threshold (default 0.001, as Otava)\n"
    "  --min-change F a change must move the median by this fraction at least\n"
    "                 (0.02 = 2%; default 0: any significant change). For counts\n"
    "                 such as instructions, whose noise is far below 1%, 0.01\n"
    "                 leaves only real changes\n"
    "  --min-segment N  the fewest points of a segment (default 5, at least 2)\n"
    "  --test T       mw: two-sided Mann-Whitney U (default: ranks, so one slow\n"
    "                 run can neither make nor hide a change); welch: Welch's t\n"
    "                 on the logs (Otava's: with little noise it needs fewer points,\n"
    "                 but on this machine's A/A series it raised 7 false alarms in\n"
    "                 100 where mw raised 1: results/history/validation)\n"
    "  --state FILE   keep what this analysis found in FILE and start from it\n"
    "                 next time: a series whose earlier points are unchanged is\n"
    "                 searched again only from its last change point but one, or\n"
    "                 over its last --window points when those are fewer, so\n"
    "                 appending a point costs the square of those points, not of\n"
    "                 the series (--json \"work\" says how much was done). The\n"
    "                 change points before stay as they were found\n"
    "  --window N     with --state, search an appended series' last N points at\n"
    "                 most (default 1000; 0: from the last change point but one)\n"
    "  --by-time      order the commits by their time (the CSV's time, env's\n"
    "                 time_utc) instead of the order read: CI artifacts in any order\n"
    "  --fail-on-regression  exit 1 when a series' latest segment is slower than\n"
    "                 the one before it (each such series named on stderr)\n"
    "  --json         one object: \"options\", \"commits\", \"work\" {points_searched,\n"
    "                 distances, series_from_state}, \"series\" [{measurement,\n"
    "                 metric, unit, points, skipped, change_points, latest}],\n"
    "                 \"change_points\" [{measurement, metric, unit, commit, time,\n"
    "                 point, before {n, median, lo, hi}, after, ratio {est, lo, hi},\n"
    "                 p, direction}], \"summary\"\n"
    "  --csv          the change points as CSV, one row each\n"
    "\n"
    "Exit status: 0 analysed; 1 a regression with --fail-on-regression, or a\n"
    "failure (out of memory, --state not writable); 2 bad input, one line naming\n"
    "FILE:LINE: an unreadable input, a line that is not kvtest JSON or CSV, a\n"
    "value that is not a positive number (NaN, 0, negative), a series in two\n"
    "units or two definitions, a commit whose samples are not together, no\n"
    "series long enough for two segments.\n"
    "\n"
    "Example:  kvtest history results/history/ci.csv --min-change 0.02\n";

static const char *const tests[] = {"mw", "welch", NULL};

/* The commits in order of their time (ties keep the order read). */
static int order_by_time(struct history *h)
{
    for (size_t i = 0; i < h->nc; i++)
        if (!h->c[i].time[0])
            return cli_usage("history", "--by-time: commit %s has no time (%s)", h->c[i].id,
                             h->c[i].where);
    size_t *ord = malloc((h->nc ? h->nc : 1) * sizeof *ord);
    struct history_commit *c = malloc((h->nc ? h->nc : 1) * sizeof *c);
    double *v = malloc((h->nc ? h->nc : 1) * sizeof *v);
    int rc = 0;
    if (!ord || !c || !v) {
        rc = cli_fail("history", "out of memory");
        goto out;
    }
    /* insertion sort: stable, and a history is short beside its analysis */
    for (size_t i = 0; i < h->nc; i++) {
        size_t j = i;
        while (j > 0 && strcmp(h->c[ord[j - 1]].time, h->c[i].time) > 0) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
    for (size_t i = 0; i < h->nc; i++)
        c[i] = h->c[ord[i]];
    memcpy(h->c, c, h->nc * sizeof *c);
    for (size_t k = 0; k < h->ns; k++) {
        struct history_series *s = &h->s[k];
        for (size_t i = 0; i < h->nc; i++)
            v[i] = ord[i] < s->vcap ? s->v[ord[i]] : NAN;
        double *nv = realloc(s->v, h->nc * sizeof *nv);
        if (!nv) {
            rc = cli_fail("history", "out of memory");
            goto out;
        }
        memcpy(nv, v, h->nc * sizeof *v);
        s->v = nv, s->vcap = h->nc;
    }
out:
    free(ord), free(c), free(v);
    return rc;
}

/* --fail-on-regression: 1 when a series' last change made it slower. */
static int regressions(const struct history *h)
{
    int fail = 0;
    for (size_t i = 0; i < h->ns; i++) {
        const struct history_series *s = &h->s[i];
        if (!s->nch || !s->ch[s->nch - 1].slower)
            continue;
        const struct history_change *c = &s->ch[s->nch - 1];
        fprintf(stderr, "kvtest history: regression: %s %s: x%.3f [%.3f, %.3f] since %s\n",
                s->label, s->metric, c->ratio.est, c->ratio.lo, c->ratio.hi,
                h->c[s->pc[c->at]].id);
        fail = 1;
    }
    return fail;
}

int cmd_history(int argc, char **argv)
{
    struct report_out out = {0};
    char err[128];
    int by_time = 0, fail_reg = 0, test = CHANGE_TEST_MW;
    double alpha = 0.001, min_change = 0;
    int64_t min_seg = 5, window = 1000;
    const char *state = NULL;
    const struct cli_opt opts[] = {
        CLI_DOUBLE_OPT("p", &alpha, 1e-12, 0.5),
        CLI_DOUBLE_OPT("min-change", &min_change, 0, 100),
        CLI_INT_OPT("min-segment", &min_seg, 2, 100000),
        CLI_ENUM_OPT("test", &test, tests),
        CLI_PATH_OPT("state", &state),
        CLI_INT_OPT("window", &window, 0, 1000000000),
        CLI_FLAG_OPT("by-time", &by_time),
        CLI_FLAG_OPT("fail-on-regression", &fail_reg),
        REPORT_OUT_OPTS(&out),
    };
    static const char *pos[MAX_INPUTS];
    int npos = 0;
    if (cli_parse("history", argc, argv, opts, CLI_COUNT(opts), pos, MAX_INPUTS, &npos))
        return 2;
    int rc = cli_status("history", report_out_begin(&out, "change_points", err, sizeof err), err);
    if (rc)
        return rc;
    if (npos == 0)
        return cli_usage("history", "no SERIES given (see kvtest help history)");
    int stdin_seen = 0;
    for (int i = 0; i < npos; i++)
        if (strcmp(pos[i], "-") == 0 && stdin_seen++)
            return cli_usage("history", "stdin (-) can be given once");
    struct history h;
    memset(&h, 0, sizeof h);
    h.opts = (struct change_opts){.alpha = alpha, .min_change = min_change,
                                  .min_seg = (size_t)min_seg, .test = (enum change_test)test};
    h.by_time = by_time, h.state = state, h.window = (size_t)window;
    for (int i = 0; i < npos && rc == 0; i++)
        rc = history_read(&h, pos[i]);
    if (rc == 0 && history_close(&h) < 0)
        rc = cli_fail("history", "out of memory");
    if (rc == 0 && h.nc == 0)
        rc = cli_usage("history", "no measurement in %s%s", pos[0], npos > 1 ? " and the rest" : "");
    if (rc == 0 && by_time)
        rc = order_by_time(&h);
    if (rc == 0)
        rc = history_find(&h);
    if (rc == 0) {
        size_t analysed = 0, longest = 0;
        for (size_t i = 0; i < h.ns; i++) {
            analysed += !h.s[i].skipped;
            if (h.s[i].npt > longest)
                longest = h.s[i].npt;
        }
        if (!analysed)
            rc = cli_usage("history", "no series has the %zu points of two segments of "
                           "--min-segment %zu (the longest has %zu, over %zu commits)",
                           2 * h.opts.min_seg, h.opts.min_seg, longest, h.nc);
    }
    if (rc == 0 && state)
        rc = history_state_save(&h);
    if (rc == 0) {
        if (out.json)
            rc = history_print_json(&h, pos, npos, out.csv) < 0 ? cli_fail("history", "out of memory") : 0;
        else
            history_print_text(&h);
    }
    if (rc == 0 && fail_reg)
        rc = regressions(&h);
    history_free(&h);
    return rc;
}

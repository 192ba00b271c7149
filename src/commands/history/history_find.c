/* history_find: each series' points and change points (change_find.h),
 * and the figures reported beside each change (history_int.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "commands/history/history_int.h"

/* The ratio's interval is taken over at most this many points on each
 * side, the nearest to the change: Hodges-Lehmann sorts every pairwise
 * ratio, 25 million of them for two segments of 5,000. */
#define RATIO_WINDOW 300

static int points(struct history *h, struct history_series *s)
{
    size_t n = 0, lim = s->vcap < h->nc ? s->vcap : h->nc;
    for (size_t i = 0; i < lim; i++)
        n += !isnan(s->v[i]);
    s->pt = malloc((n ? n : 1) * sizeof *s->pt);
    s->pc = malloc((n ? n : 1) * sizeof *s->pc);
    if (!s->pt || !s->pc)
        return -1;
    s->npt = 0;
    for (size_t i = 0; i < lim; i++)
        if (!isnan(s->v[i])) {
            s->pt[s->npt] = s->v[i];
            s->pc[s->npt++] = i;
        }
    return 0;
}

/* The figures of change i among at[0..n): the segments it separates. */
static int describe(const struct history *h, struct history_series *s, const size_t *at, size_t n,
                    size_t i, struct history_change *c)
{
    size_t b = i ? at[i - 1] : 0, m = at[i], e = i + 1 < n ? at[i + 1] : s->npt;
    memset(c, 0, sizeof *c);
    c->at = m, c->nbefore = m - b, c->nafter = e - m;
    size_t wb = c->nbefore < RATIO_WINDOW ? c->nbefore : RATIO_WINDOW;
    size_t wa = c->nafter < RATIO_WINDOW ? c->nafter : RATIO_WINDOW;
    if (stats_median_ci(s->pt + b, c->nbefore, &c->before) < 0 ||
        stats_median_ci(s->pt + m, c->nafter, &c->after) < 0 ||
        stats_ratio_ci(s->pt + m - wb, wb, s->pt + m, wa, &c->ratio) < 0)
        return -1;
    c->p = change_test_p(h->opts.test, s->pt + b, c->nbefore, s->pt + m, c->nafter);
    if (isnan(c->p))
        return -1;
    c->slower = s->higher_better ? c->ratio.est < 1 : c->ratio.est > 1;
    return 0;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static int analyse(struct history *h, struct history_series *s)
{
    if (s->npt < 2 * h->opts.min_seg) {
        s->skipped = "fewer points than two segments of --min-segment";
        return 0;
    }
    struct change_point *cp;
    size_t ncp;
    if (change_find(s->pt, s->npt, s->from, &h->opts, &cp, &ncp, &h->work) < 0)
        return -1;
    size_t n = s->nfixed + ncp;
    size_t *at = malloc((n ? n : 1) * sizeof *at);
    s->ch = malloc((n ? n : 1) * sizeof *s->ch);
    if (!at || !s->ch) {
        free(cp), free(at);
        return -1;
    }
    for (size_t i = 0; i < s->nfixed; i++)
        at[i] = s->fixed[i];
    for (size_t i = 0; i < ncp; i++)
        at[s->nfixed + i] = cp[i].at;
    free(cp);
    qsort(at, n, sizeof *at, cmp_size);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = describe(h, s, at, n, i, &s->ch[i]);
    s->nch = rc == 0 ? n : 0;
    free(at);
    size_t b = s->nch ? s->ch[s->nch - 1].at : 0;
    if (rc == 0 && stats_median_ci(s->pt + b, s->npt - b, &s->latest) < 0)
        rc = -1;
    return rc;
}

int history_find(struct history *h)
{
    for (size_t i = 0; i < h->ns; i++)
        if (points(h, &h->s[i]) < 0)
            return cli_fail("history", "out of memory");
    if (h->state) {
        int rc = history_state_load(h);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < h->ns; i++)
        if (analyse(h, &h->s[i]) < 0)
            return cli_fail("history", "out of memory");
    return 0;
}

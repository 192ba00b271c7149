/* change_find: E-Divisive means with a deterministic test (change_find.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/change_find.h"
#include "measure/stats.h"

/* The continued fraction of the regularized incomplete beta function
 * (modified Lentz), converging for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-15;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    d = 1 / (fabs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 2000; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + aa * d;
        c = 1 + aa / c;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        c = fabs(c) < tiny ? tiny : c;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d;
        c = 1 + aa / c;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        c = fabs(c) < tiny ? tiny : c;
        double step = d * c;
        h *= step;
        if (fabs(step - 1) < eps)
            break;
    }
    return h;
}

/* I_x(a, b): Student's t distribution is one of its cases. */
static double ibeta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2))
        return front * beta_cf(a, b, x) / a;
    return 1 - front * beta_cf(b, a, 1 - x) / b;
}

static void mean_var(const double *v, size_t n, double *mean, double *var)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    *mean = s / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - *mean) * (v[i] - *mean);
    *var = ss / (double)(n - 1);
}

double change_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
    if (na < 2 || nb < 2)
        return 1;
    double ma, va, mb, vb;
    mean_var(a, na, &ma, &va);
    mean_var(b, nb, &mb, &vb);
    double sa = va / (double)na, sb = vb / (double)nb, se2 = sa + sb;
    if (se2 <= 0)   /* both sides constant: equal or certainly different */
        return ma == mb ? 1 : 0;
    double t = (mb - ma) / sqrt(se2);
    double df = se2 * se2 / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
    return ibeta(df / 2, 0.5, df / (df + t * t));
}

double change_test_p(enum change_test t, const double *a, size_t na, const double *b, size_t nb)
{
    if (t == CHANGE_TEST_MW)
        return stats_mann_whitney(a, na, b, nb);
    double *la = malloc((na + nb + 1) * sizeof *la);
    if (!la)
        return NAN;
    for (size_t i = 0; i < na; i++)
        la[i] = log(a[i]);
    for (size_t i = 0; i < nb; i++)
        la[na + i] = log(b[i]);
    double p = change_welch_p(la, na, la + na, nb);
    free(la);
    return p;
}

/* One segment of the bisection and its best split, if it has one. */
struct seg {
    size_t s, e, tau;
    double q;
    int open;              /* long enough to have a split: tau and q are set */
};

/* The split of x[s..e) with the largest q, at least min_seg from each
 * end: the split moves right one point at a time, and the point that
 * moves changes the within-left, within-right and between sums by its
 * distances to the points on either side. */
static void best_split(const double *x, struct seg *g, size_t min_seg, uint64_t *pairs)
{
    size_t s = g->s, e = g->e;
    g->open = 0;
    if (e - s < 2 * min_seg)
        return;
    double wl = 0, wr = 0, btw = 0;
    for (size_t i = s; i < e; i++)
        for (size_t j = i + 1; j < e; j++)
            wr += fabs(x[i] - x[j]);
    *pairs += (uint64_t)(e - s) * (e - s - 1) / 2;
    double best = -INFINITY;
    for (size_t t = s; t + min_seg < e; t++) {
        double dl = 0, dr = 0;
        for (size_t i = s; i < t; i++)
            dl += fabs(x[i] - x[t]);
        for (size_t j = t + 1; j < e; j++)
            dr += fabs(x[t] - x[j]);
        *pairs += e - s - 1;
        wl += dl, wr -= dr, btw += dr - dl;
        double m = (double)(t + 1 - s), k = (double)(e - t - 1);
        if (t + 1 - s < min_seg)
            continue;
        double within_l = m > 1 ? 2 * wl / (m * (m - 1)) : 0;
        double within_r = k > 1 ? 2 * wr / (k * (k - 1)) : 0;
        double q = m * k / (m + k) * (2 * btw / (m * k) - within_l - within_r);
        if (q > best) {   /* the first of equal splits: the same answer every time */
            best = q;
            g->tau = t + 1;
        }
    }
    g->q = best;
    g->open = 1;
}

/* p of v[s..t) against v[t..e) (x: their logs, for Welch). */
static double split_p(const struct change_opts *o, const double *v, const double *x, size_t s,
                      size_t t, size_t e)
{
    if (o->test == CHANGE_TEST_MW)
        return stats_mann_whitney(v + s, t - s, v + t, e - t);
    return change_welch_p(x + s, t - s, x + t, e - t);
}

/* 1 when the step is as large as min_change asks (ratio of the two
 * medians), 0 when not, -1 when out of memory (stats_median's NaN: the
 * values are finite). */
static int big_enough(const struct change_opts *o, const double *v, size_t s, size_t t, size_t e)
{
    if (o->min_change <= 0)
        return 1;
    double r = stats_median(v + t, e - t) / stats_median(v + s, t - s);
    if (isnan(r))
        return -1;
    if (r < 1)
        r = 1 / r;
    return r - 1 >= o->min_change * (1 - 1e-12);
}

static int cmp_at(const void *a, const void *b)
{
    size_t x = ((const struct change_point *)a)->at, y = ((const struct change_point *)b)->at;
    return (x > y) - (x < y);
}

/* The candidate at i among cp[0..n) tested between its neighbours: its p,
 * and whether it passes (1), fails the test (0) or is smaller than
 * min_change (-1). -1 when the test runs out of memory. */
static int judge(const struct change_opts *o, const double *v, const double *x, size_t from,
                 size_t end, struct change_point *cp, size_t n, size_t i, int *pass)
{
    size_t s = i ? cp[i - 1].at : from, e = i + 1 < n ? cp[i + 1].at : end;
    double p = split_p(o, v, x, s, cp[i].at, e);
    int big = big_enough(o, v, s, cp[i].at, e);
    if (isnan(p) || big < 0)
        return -1;
    cp[i].p = p;
    *pass = !big ? -1 : p < o->alpha;
    return 0;
}

/* Which of two failing candidates goes first: one smaller than min_change
 * (never reported, whatever its p: kept while the others are judged, it
 * narrows its neighbours' segments; a 0.04% step 11 commits after a 0.3%
 * one left the larger step 11 points to be tested against, p 0.0027, and
 * it was dropped first), then the larger p. */
static int weaker(const struct change_point *cp, const int *pass, size_t i, size_t j)
{
    if (pass[i] != pass[j])
        return pass[i] < pass[j];
    return cp[i].p > cp[j].p;
}

/* Backward elimination: the weakest failing candidate is dropped and its
 * two neighbours judged again, until none fails. */
static int prune(const struct change_opts *o, const double *v, const double *x, size_t from,
                 size_t end, struct change_point *cp, size_t *ncp)
{
    int *pass = malloc((*ncp + 1) * sizeof *pass);
    if (!pass)
        return -1;
    for (size_t i = 0; i < *ncp; i++)
        if (judge(o, v, x, from, end, cp, *ncp, i, &pass[i]) < 0)
            goto oom;
    for (;;) {
        size_t worst = *ncp;
        for (size_t i = 0; i < *ncp; i++)
            if (pass[i] != 1 && (worst == *ncp || weaker(cp, pass, i, worst)))
                worst = i;
        if (worst == *ncp)
            break;
        memmove(cp + worst, cp + worst + 1, (*ncp - worst - 1) * sizeof *cp);
        memmove(pass + worst, pass + worst + 1, (*ncp - worst - 1) * sizeof *pass);
        (*ncp)--;
        if (worst > 0 && judge(o, v, x, from, end, cp, *ncp, worst - 1, &pass[worst - 1]) < 0)
            goto oom;
        if (worst < *ncp && judge(o, v, x, from, end, cp, *ncp, worst, &pass[worst]) < 0)
            goto oom;
    }
    free(pass);
    return 0;
oom:
    free(pass);
    return -1;
}

int change_find(const double *v, size_t n, size_t from, const struct change_opts *o,
                struct change_point **out, size_t *nout, struct change_work *work)
{
    *out = NULL, *nout = 0;
    if (from > n || o->min_seg < 2)
        return -1;
    for (size_t i = from; i < n; i++)
        if (!isfinite(v[i]) || v[i] <= 0)
            return -1;
    size_t len = n - from, maxseg = len / o->min_seg + 1;
    double *x = malloc((n + 1) * sizeof *x);
    struct seg *todo = malloc(maxseg * sizeof *todo);
    struct change_point *cp = malloc(maxseg * sizeof *cp);
    if (!x || !todo || !cp)
        goto oom;
    for (size_t i = from; i < n; i++)
        x[i] = log(v[i]);
    uint64_t pairs = 0;
    size_t ntodo = 1, ncp = 0;
    todo[0] = (struct seg){.s = from, .e = n};
    /* Every segment long enough is cut at its best split, and its halves
     * in turn, significant or not: a level that comes back (up at 16, down
     * at 27) leaves the halves of the whole alike, and a test there would
     * stop the search before it reached either step. Each cut leaves
     * min_seg points a side, so segments never outnumber maxseg. */
    while (ntodo) {
        struct seg g = todo[--ntodo];
        best_split(x, &g, o->min_seg, &pairs);
        if (!g.open)
            continue;
        cp[ncp++] = (struct change_point){.at = g.tau, .q = g.q};
        todo[ntodo++] = (struct seg){.s = g.s, .e = g.tau};
        todo[ntodo++] = (struct seg){.s = g.tau, .e = g.e};
    }
    qsort(cp, ncp, sizeof *cp, cmp_at);
    if (prune(o, v, x, from, n, cp, &ncp) < 0)
        goto oom;
    free(x);
    free(todo);
    if (work) {
        work->points += len;
        work->pairs += pairs;
    }
    *out = cp, *nout = ncp;
    return 0;
oom:
    free(x);
    free(todo);
    free(cp);
    return -1;
}

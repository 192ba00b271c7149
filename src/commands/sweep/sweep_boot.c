/* sweep_boot: how sure the crossover is. A percentile bootstrap over the
 * measured rounds: each resample draws, at every size, the files' rounds
 * and the database's rounds with replacement, takes their medians and
 * finds the crossover again (sweep_crossover). A resample in which the
 * database wins at every size counts as "above the largest size", one in
 * which files already win at the smallest as "below the smallest size":
 * the interval's end is then open. Pure and seeded: the same rounds give
 * the same interval (unit-tested in tests/unit/commands/sweep/test_sweep.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/sweep/sweep.h"
#include "measure/report.h"
#include "measure/keys/rng.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n draws with replacement from v. */
static double draw_median(rng_t *r, const double *v, int n, double *tmp)
{
    for (int i = 0; i < n; i++)
        tmp[i] = v[rng_below(r, (uint64_t)n)];
    return report_median(tmp, n);
}

/* One resample's crossover on the extended line: -INF below the smallest
 * size, +INF above the largest, NAN when no crossover can be computed. */
static double one_resample(rng_t *r, const double *sizes, int n,
                           const struct sweep_rounds *files, const struct sweep_rounds *db,
                           double *tmp, double *ratios)
{
    for (int i = 0; i < n; i++) {
        double f = draw_median(r, files[i].v, files[i].n, tmp);
        double d = draw_median(r, db[i].v, db[i].n, tmp);
        ratios[i] = d > 0 ? f / d : NAN;
    }
    struct sweep_crossing c;
    switch (sweep_crossover(sizes, ratios, n, &c)) {
    case SWEEP_CROSS: return c.size;
    case SWEEP_DB_WINS: return INFINITY;
    case SWEEP_FILES_WIN: return -INFINITY;
    default: return NAN;
    }
}

/* The 2.5% and 97.5% quantiles (nearest rank) of the sorted v[0..m) into
 * out, open ends marked. */
static void set_ends(const double *v, int m, const double *sizes, int n,
                     struct sweep_cross_ci *out)
{
    int ilo = (int)floor(0.025 * m), ihi = (int)ceil(0.975 * m) - 1;
    if (ihi < ilo)
        ihi = ilo;
    double lo = v[ilo], hi = v[ihi];
    out->lo = lo, out->hi = hi;
    out->lo_open = isinf(lo) && lo < 0;
    out->hi_open = isinf(hi) && hi > 0;
    if (out->lo_open)
        out->lo = NAN;
    if (out->hi_open)
        out->hi = NAN;
    /* Both ends beyond the same end of the range: all that is known is
     * the side, bounded by the size measured there. */
    if (isinf(lo) && lo > 0)
        out->beyond = 1, out->lo = sizes[n - 1];
    if (isinf(hi) && hi < 0)
        out->beyond = -1, out->hi = sizes[0];
}

int sweep_crossover_boot(const double *sizes, int n, const struct sweep_rounds *files,
                         const struct sweep_rounds *db, int resamples, uint64_t seed,
                         struct sweep_cross_ci *out)
{
    memset(out, 0, sizeof *out);
    out->lo = out->hi = NAN;
    if (!sizes || !files || !db || n < 1 || n > SWEEP_BOOT_MAX_SIZES || resamples < 100)
        return -1;
    int maxr = 0;
    out->rounds = files[0].n;
    for (int i = 0; i < n; i++) {
        if (!files[i].v || !db[i].v || files[i].n < 1 || db[i].n < 1)
            return -1;
        int lo = files[i].n < db[i].n ? files[i].n : db[i].n;
        int hi = files[i].n > db[i].n ? files[i].n : db[i].n;
        out->rounds = lo < out->rounds ? lo : out->rounds;
        maxr = hi > maxr ? hi : maxr;
    }
    /* One round has nothing to resample: every draw is that round. */
    if (out->rounds < 2)
        return 0;
    double *tmp = malloc(sizeof(double) * (size_t)maxr);
    double *v = malloc(sizeof(double) * (size_t)resamples);
    if (!tmp || !v) {
        free(tmp);
        free(v);
        return -1;
    }
    double ratios[SWEEP_BOOT_MAX_SIZES];
    rng_t r;
    rng_seed(&r, seed);
    int m = 0;
    for (int b = 0; b < resamples; b++) {
        double x = one_resample(&r, sizes, n, files, db, tmp, ratios);
        if (!isnan(x))
            v[m++] = x;
    }
    if (m > 0) {
        qsort(v, (size_t)m, sizeof *v, cmp_double);
        set_ends(v, m, sizes, n, out);
        out->estimable = 1;
        out->resamples = m;
    }
    free(tmp);
    free(v);
    return 0;
}

/* "95% CI 80k-190k", "95% CI 80k to above 1M", ... into buf. */
static void ci_text(const struct sweep_cross_ci *ci, const double *sizes, int n,
                    char *buf, size_t cap)
{
    char lo[48], hi[48], first[32], last[32];
    sweep_fmt_size(first, sizeof first, sizes[0]);
    sweep_fmt_size(last, sizeof last, sizes[n - 1]);
    if (!ci->estimable) {
        snprintf(buf, cap, "no 95%% CI from %d measured round%s per layout", ci->rounds,
                 ci->rounds == 1 ? "" : "s");
        return;
    }
    if (ci->beyond) {
        snprintf(buf, cap, "95%% CI %s %s: not within the sizes measured",
                 ci->beyond > 0 ? "above" : "below", ci->beyond > 0 ? last : first);
        return;
    }
    if (ci->lo_open)
        snprintf(lo, sizeof lo, "below %s", first);
    else
        sweep_fmt_size(lo, sizeof lo, ci->lo);
    if (ci->hi_open)
        snprintf(hi, sizeof hi, "above %s", last);
    else
        sweep_fmt_size(hi, sizeof hi, ci->hi);
    if (ci->lo_open && ci->hi_open)
        snprintf(buf, cap, "95%% CI from %s to %s: not within the sizes measured", lo, hi);
    else if (ci->lo_open || ci->hi_open)
        snprintf(buf, cap, "95%% CI %s to %s", lo, hi);
    else
        snprintf(buf, cap, "95%% CI %s-%s", lo, hi);
}

void sweep_crossover_line_ci(const struct sweep_crossing *c, const struct sweep_cross_ci *ci,
                             const double *sizes, int n, long pagesize, char *buf, size_t cap)
{
    sweep_crossover_line_store_ci(c, ci, NULL, sizes, n, pagesize, buf, cap);
}

void sweep_crossover_line_store_ci(const struct sweep_crossing *c,
                                   const struct sweep_cross_ci *ci, const char *store,
                                   const double *sizes, int n, long pagesize, char *buf,
                                   size_t cap)
{
    char line[512], text[160];
    sweep_crossover_line_store(c, store, sizes, n, pagesize, line, sizeof line);
    /* The label ends at the first colon and may have a parenthesis of its
     * own ("(page P)", "(lmdb)"): the interval goes into the first one
     * after it. */
    char *colon = strchr(line, ':');
    char *paren = colon ? strchr(colon, '(') : NULL;
    if (c->kind == SWEEP_BAD || !ci || n < 1 || !paren) {
        snprintf(buf, cap, "%s", line);
        return;
    }
    ci_text(ci, sizes, n, text, sizeof text);
    snprintf(buf, cap, "%.*s%s; %s", (int)(paren + 1 - line), line, text, paren + 1);
}

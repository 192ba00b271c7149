/* sweep_rounds: one layout's figures from its interleaved rounds (the
 * loop that runs them is sweep.c's sweep_rounds). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands/sweep/sweep_int.h"
#include "measure/hist.h"
#include "measure/stats.h"

int sweep_rounds_merge(const struct run_result *rounds, int n, struct run_result *dst)
{
    memset(dst, 0, sizeof *dst);
    if (n < 1)
        return -1;
    double *us = malloc(sizeof(double) * (size_t)n);
    if (!us)
        return -1;
    int med = 0, cold = 1;
    double us_min = INFINITY, us_max = 0, mb_min = INFINITY, mb_max = 0, resident = 0;
    for (int i = 0; i < n; i++)
        us[i] = rounds[i].us_per_blob;
    double mid = stats_median(us, (size_t)n);
    for (int i = 0; i < n; i++) {
        /* The median round (the one nearest the median, as run picks it)
         * gives the counts and bytes; every round's time is kept. */
        if (fabs(us[i] - mid) < fabs(us[med] - mid))
            med = i;
        us_min = fmin(us_min, us[i]);
        us_max = fmax(us_max, us[i]);
        mb_min = fmin(mb_min, rounds[i].mb_per_s);
        mb_max = fmax(mb_max, rounds[i].mb_per_s);
        resident = fmax(resident, rounds[i].resident_max);
        cold &= rounds[i].cold_effective;
    }
    *dst = rounds[med];
    dst->us_per_blob = mid;
    dst->us_min = us_min;
    dst->us_max = us_max;
    dst->mb_min = mb_min;
    dst->mb_max = mb_max;
    dst->resident_max = resident;
    dst->cold_effective = cold;
    dst->us_runs = us;
    dst->nruns = n;
    dst->latency = NULL;
    for (int i = 0; i < n; i++) {
        if (!rounds[i].latency)
            continue;
        if (!dst->latency && !(dst->latency = hist_new())) {
            run_result_free(dst);
            return -1;
        }
        hist_merge(dst->latency, rounds[i].latency);
    }
    return 0;
}

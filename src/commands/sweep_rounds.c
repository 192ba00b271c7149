/* sweep_rounds: one layout's figures from its interleaved rounds (the
 * loop that runs them is sweep.c's sweep_rounds). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands/sweep_int.h"
#include "measure/hist.h"

int sweep_rounds_merge(const struct run_result *rounds, int n, struct run_result *dst)
{
    memset(dst, 0, sizeof *dst);
    if (n < 1)
        return -1;
    double *us = malloc(sizeof(double) * (size_t)n), *sorted = malloc(sizeof(double) * (size_t)n);
    if (!us || !sorted) {
        free(us), free(sorted);
        return -1;
    }
    int med = 0, cold = 1;
    double mid, mb_min = INFINITY, mb_max = 0, resident = 0;
    for (int i = 0; i < n; i++)
        us[i] = sorted[i] = rounds[i].us_per_blob;
    for (int i = 1; i < n; i++)   /* insertion sort: n is a few rounds */
        for (int j = i; j > 0 && sorted[j] < sorted[j - 1]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1], sorted[j - 1] = t;
        }
    mid = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    for (int i = 0; i < n; i++) {
        /* The median round (the one nearest the median, as run picks it)
         * gives the counts and bytes; every round's time is kept. */
        if (fabs(us[i] - mid) < fabs(us[med] - mid))
            med = i;
        mb_min = fmin(mb_min, rounds[i].mb_per_s);
        mb_max = fmax(mb_max, rounds[i].mb_per_s);
        resident = fmax(resident, rounds[i].resident_max);
        cold &= rounds[i].cold_effective;
    }
    *dst = rounds[med];
    dst->us_per_blob = mid;
    dst->us_min = sorted[0];
    dst->us_max = sorted[n - 1];
    dst->mb_min = mb_min;
    dst->mb_max = mb_max;
    dst->resident_max = resident;
    dst->cold_effective = cold;
    dst->us_runs = us;
    dst->nruns = n;
    dst->latency = NULL;
    free(sorted);
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

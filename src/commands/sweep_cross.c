/* sweep_cross: where the ratio files/database crosses 1, and the line that
 * reports it (pure functions; unit-tested in tests/unit/test_sweep.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands/sweep.h"

int sweep_crossover(const double *sizes, const double *ratios, int n,
                    struct sweep_crossing *out)
{
    memset(out, 0, sizeof *out);
    out->kind = SWEEP_BAD;
    out->lo = -1;
    if (!sizes || !ratios || n < 1)
        return SWEEP_BAD;
    for (int i = 0; i < n; i++) {
        if (!(sizes[i] > 0) || !isfinite(sizes[i]) || !(ratios[i] > 0) ||
            !isfinite(ratios[i]))
            return SWEEP_BAD;
        if (i > 0 && !(sizes[i] > sizes[i - 1]))
            return SWEEP_BAD;
    }
    for (int i = 1; i < n; i++)
        out->crossings += (ratios[i] < 1.0) != (ratios[i - 1] < 1.0);
    if (ratios[0] < 1.0) {
        out->kind = SWEEP_FILES_WIN;
        return out->kind;
    }
    for (int i = 1; i < n; i++) {
        if (ratios[i] < 1.0) {
            /* ratios[i-1] >= 1 > ratios[i]: t in [0, 1). Linear in
             * log(size) because the sizes are spaced geometrically and
             * per-blob cost grows roughly with log(size) between them. */
            double r0 = ratios[i - 1], r1 = ratios[i];
            double t = (r0 - 1.0) / (r0 - r1);
            double l0 = log(sizes[i - 1]), l1 = log(sizes[i]);
            out->size = exp(l0 + t * (l1 - l0));
            if (t == 0.0)
                out->size = sizes[i - 1];   /* exact, not exp(log(x)) */
            out->lo = i - 1;
            out->kind = SWEEP_CROSS;
            return out->kind;
        }
    }
    out->kind = SWEEP_DB_WINS;
    return out->kind;
}

/* Decimal units, as users type them: 1k, 4k, 23.4k, 1M. */
void sweep_fmt_size(char *buf, size_t cap, double v)
{
    if (v >= 1e9)
        snprintf(buf, cap, "%.3gG", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, cap, "%.3gM", v / 1e6);
    else if (v >= 1e3)
        snprintf(buf, cap, "%.3gk", v / 1e3);
    else
        snprintf(buf, cap, "%.0f", v);
}

void sweep_crossover_line(const struct sweep_crossing *c, const double *sizes,
                          int n, char *buf, size_t cap)
{
    char lo[32] = "?", hi[32] = "?", at[32];
    if (n >= 1) {
        sweep_fmt_size(lo, sizeof lo, sizes[0]);
        sweep_fmt_size(hi, sizeof hi, sizes[n - 1]);
    }
    char more[96] = "";
    if (c->crossings > 1)
        snprintf(more, sizeof more,
                 "; the ratio crosses 1 %d times (not monotonic), first crossing shown",
                 c->crossings);
    switch (c->kind) {
    case SWEEP_CROSS: {
        char a[32], b[32];
        sweep_fmt_size(at, sizeof at, c->size);
        sweep_fmt_size(a, sizeof a, sizes[c->lo]);
        sweep_fmt_size(b, sizeof b, sizes[c->lo + 1]);
        snprintf(buf, cap, "Crossover: %s bytes (files faster than the database "
                 "above this blob size; interpolated between %s and %s%s)",
                 at, a, b, more);
        break;
    }
    case SWEEP_DB_WINS:
        snprintf(buf, cap, "Crossover: none in range %s..%s (the database is "
                 "faster at every size)", lo, hi);
        break;
    case SWEEP_FILES_WIN:
        snprintf(buf, cap, "Crossover: none in range %s..%s (files are already "
                 "faster at the smallest size%s)", lo, hi, more);
        break;
    default:
        snprintf(buf, cap, "Crossover: unknown (no valid measurements)");
        break;
    }
}


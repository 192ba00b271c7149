/* sweep: blob-size sweep (kvtest sweep) and the crossover interpolation it
 * reports: the blob size at which reading separate files becomes faster
 * than reading the database. */
#ifndef KVTEST_SWEEP_H
#define KVTEST_SWEEP_H
#include <stddef.h>

enum sweep_cross_kind {
    SWEEP_CROSS = 0,        /* files start to win inside the range: size set */
    SWEEP_DB_WINS = 1,      /* ratio >= 1 at every size: none in range */
    SWEEP_FILES_WIN = 2,    /* ratio < 1 already at the smallest size */
    SWEEP_BAD = -1,         /* n < 1, sizes not increasing/positive, ratio not finite/positive */
};

struct sweep_crossing {
    enum sweep_cross_kind kind;
    double size;      /* SWEEP_CROSS: interpolated blob size in bytes */
    int lo;           /* SWEEP_CROSS: index of the last size where the db won */
    int crossings;    /* how often the ratio changes side (non-monotonic if > 1) */
};

/* sizes[0..n) strictly increasing, ratios[i] = files time / database time
 * at sizes[i] (< 1: files faster). Finds the first size where files start
 * to win after the database won, interpolating ratio = 1 linearly in
 * log(size) between the two sizes around it. Returns out->kind. */
int sweep_crossover(const double *sizes, const double *ratios, int n,
                    struct sweep_crossing *out);

/* The report line, "Crossover: ..." (no newline), into buf. */
void sweep_crossover_line(const struct sweep_crossing *c, const double *sizes,
                          int n, char *buf, size_t cap);

/* A size in decimal units, as users type them: 1k, 4k, 23.4k, 1M. */
void sweep_fmt_size(char *buf, size_t cap, double v);

#endif

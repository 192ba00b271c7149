/* sweep: blob-size sweep (kvtest sweep) and the crossover interpolation it
 * reports: the blob size at which reading separate files becomes faster
 * than reading the database. */
#ifndef KVTEST_SWEEP_H
#define KVTEST_SWEEP_H
#include <stddef.h>
#include <stdint.h>

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

/* The same line for one page size of several: "Crossover (page P): ...";
 * pagesize 0 gives the single-page-size "Crossover: ..." above. */
void sweep_crossover_line_page(const struct sweep_crossing *c, const double *sizes,
                               int n, long pagesize, char *buf, size_t cap);

/* A crossover per page size. The files are read once per blob size
 * (files_us[i]), the database once per page size (db_us[p * n + i]);
 * ratios[p * n + i] gets files / database (NAN where the database time is
 * not positive) and out[p] the crossover of page size p. */
void sweep_crossover_pages(const double *sizes, const double *files_us,
                           const double *db_us, int n, int npages,
                           double *ratios, struct sweep_crossing *out);

/* Parse a --page-sizes list ("4k,16k,64k": k is 1024 here, since a page
 * size is a power of two; 4096 and 4KiB work too) into out[0..*n),
 * ascending. Each must be a page size SQLite accepts: a power of two in
 * 512..65536, listed once. 0, or -1 with the problem in err. */
int sweep_parse_pages(const char *s, int64_t *out, int max, int *n,
                      char *err, size_t cap);

/* A size in decimal units, as users type them: 1k, 4k, 23.4k, 1M. */
void sweep_fmt_size(char *buf, size_t cap, double v);

#endif

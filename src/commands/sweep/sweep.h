/* sweep: blob-size sweep (kvtest sweep) and the crossover interpolation it
 * reports: the blob size at which reading separate files (or another
 * store of --stores) becomes faster than reading the database. */
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

/* ---- sweep_boot.c: the crossover's 95% interval ---- */
#define SWEEP_BOOT_MAX_SIZES 64
#define SWEEP_BOOT_RESAMPLES 4000
#define SWEEP_BOOT_SEED 20260101u   /* fixed: a report is reproducible */

/* The measured rounds (us per blob) of one layout at one size. */
struct sweep_rounds {
    const double *v;
    int n;
};

struct sweep_cross_ci {
    int estimable;   /* 0: a layout has a single round (rounds == 1) */
    int rounds;      /* fewest rounds of any layout at any size */
    int resamples;   /* resamples that gave a crossover or a side */
    double lo, hi;   /* bytes; NAN where open */
    int lo_open;     /* the 2.5% end is below the smallest size (files win there) */
    int hi_open;     /* the 97.5% end is above the largest (database wins everywhere) */
    int beyond;      /* +1: even the 2.5% end is above the largest size (lo is
                        that size); -1: even the 97.5% end is below the
                        smallest (hi is that size); else 0 */
};

/* Percentile bootstrap of the crossover of files[i] over db[i] (rounds at
 * sizes[i], n sizes as for sweep_crossover): each of the resamples draws
 * every layout's rounds with replacement, takes medians and recomputes the
 * crossover; the 2.5% and 97.5% quantiles are the interval. xoshiro seeded
 * with seed. 0 (out filled; estimable 0 with a single round), or -1 on bad
 * input (n out of 1..SWEEP_BOOT_MAX_SIZES, an empty layout, resamples
 * below 100) or out of memory. */
int sweep_crossover_boot(const double *sizes, int n, const struct sweep_rounds *files,
                         const struct sweep_rounds *db, int resamples, uint64_t seed,
                         struct sweep_cross_ci *out);

/* sweep_crossover_line_page's line with the interval first in its
 * parenthesis: "Crossover (page 4096): 135k bytes (95% CI 80k-190k; files
 * faster ...)". ci NULL: the line without it. */
void sweep_crossover_line_ci(const struct sweep_crossing *c, const struct sweep_cross_ci *ci,
                             const double *sizes, int n, long pagesize, char *buf, size_t cap);

/* Parse a --page-sizes list ("4k,16k,64k": k is 1024 here, since a page
 * size is a power of two; 4096 and 4KiB work too) into out[0..*n),
 * ascending. Each must be a page size SQLite accepts: a power of two in
 * 512..65536, listed once. 0, or -1 with the problem in err. */
int sweep_parse_pages(const char *s, int64_t *out, int max, int *n,
                      char *err, size_t errcap);

/* ---- --stores: what is timed beside the database ---- */

/* The stores a sweep can compare with the database (which is always
 * timed: its blob-API figure is every ratio's denominator), in the order
 * the table and the report list them. */
enum sweep_store {
    SWEEP_STORE_FILES,     /* the flat export, one file per blob */
    SWEEP_STORE_LMDB,
    SWEEP_STORE_ROCKSDB,
    SWEEP_NSTORES
};

/* "files", "lmdb", "rocksdb": the --stores spelling, the table's column
 * and the JSON key. */
const char *sweep_store_name(enum sweep_store s);

/* Parse a --stores list ("db,files,lmdb") into out[0..*n): the stores
 * besides db, in enum order whatever the order listed. db must be listed,
 * with at least one store to compare it with; each name once, none empty.
 * 0, or -1 with the problem in err. */
int sweep_parse_stores(const char *s, enum sweep_store *out, int *n, char *err, size_t errcap);

/* sweep_crossover_line_page for the crossover of store over the database:
 * store NULL or "files" gives that line as it is; another store's name
 * goes into the label and the text: "Crossover (lmdb): ... (lmdb faster
 * than the database ...)", "Crossover (lmdb, page 4096): ...". */
void sweep_crossover_line_store(const struct sweep_crossing *c, const char *store,
                                const double *sizes, int n, long pagesize, char *buf,
                                size_t cap);

/* sweep_crossover_line_ci for a store, as above. */
void sweep_crossover_line_store_ci(const struct sweep_crossing *c,
                                   const struct sweep_cross_ci *ci, const char *store,
                                   const double *sizes, int n, long pagesize, char *buf,
                                   size_t cap);

/* A size in decimal units, as users type them: 1k, 4k, 23.4k, 1M. */
void sweep_fmt_size(char *buf, size_t cap, double v);

#endif

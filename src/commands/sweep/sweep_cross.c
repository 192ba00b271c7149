/* sweep_cross: where the ratio files/database (or another store's)
 * crosses 1 (for each page size), the line that reports it, and the
 * --page-sizes and --stores lists (pure functions; unit-tested in
 * tests/unit/commands/sweep/test_sweep.c). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/units.h"
#include "commands/sweep/sweep.h"

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
    sweep_crossover_line_page(c, sizes, n, 0, buf, cap);
}

void sweep_crossover_line_page(const struct sweep_crossing *c, const double *sizes,
                               int n, long pagesize, char *buf, size_t cap)
{
    sweep_crossover_line_store(c, NULL, sizes, n, pagesize, buf, cap);
}

void sweep_crossover_line_store(const struct sweep_crossing *c, const char *store,
                                const double *sizes, int n, long pagesize, char *buf,
                                size_t cap)
{
    /* The files keep the labels scripts grep for ("Crossover:", "Crossover
     * (page P):"); another store is named in its label and its text. */
    int files = !store || strcmp(store, "files") == 0;
    char label[80] = "Crossover:", who[32] = "files", are[40] = "files are";
    if (!files) {
        snprintf(who, sizeof who, "%s", store);
        snprintf(are, sizeof are, "%s is", store);
    }
    if (pagesize > 0 && files)
        snprintf(label, sizeof label, "Crossover (page %ld):", pagesize);
    else if (pagesize > 0)
        snprintf(label, sizeof label, "Crossover (%s, page %ld):", store, pagesize);
    else if (!files)
        snprintf(label, sizeof label, "Crossover (%s):", store);
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
        snprintf(buf, cap, "%s %s bytes (%s faster than the database "
                 "above this blob size; interpolated between %s and %s%s)",
                 label, at, who, a, b, more);
        break;
    }
    case SWEEP_DB_WINS:
        snprintf(buf, cap, "%s none in range %s..%s (the database is "
                 "faster at every size)", label, lo, hi);
        break;
    case SWEEP_FILES_WIN:
        snprintf(buf, cap, "%s none in range %s..%s (%s already "
                 "faster at the smallest size%s)", label, lo, hi, are, more);
        break;
    default:
        snprintf(buf, cap, "%s unknown (no valid measurements)", label);
        break;
    }
}


void sweep_crossover_pages(const double *sizes, const double *files_us,
                           const double *db_us, int n, int npages,
                           double *ratios, struct sweep_crossing *out)
{
    for (int p = 0; p < npages; p++) {
        /* Every page size divides the same files figure, so a difference
         * between their crossovers comes from the database side alone. */
        for (int i = 0; i < n; i++) {
            double db = db_us[p * n + i];
            ratios[p * n + i] = db > 0 ? files_us[i] / db : NAN;
        }
        sweep_crossover(sizes, ratios + p * n, n, &out[p]);
    }
}

int sweep_parse_pages(const char *s, int64_t *out, int max, int *n,
                      char *err, size_t errcap)
{
    *n = 0;
    const char *p = s;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[32];
        int64_t v;
        if (len == 0 || len >= sizeof item) {
            snprintf(err, errcap,
                     "invalid --page-sizes '%s' (expected a list such as 4k,16k,64k)", s);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (units_parse_pow2(item, &v) != 0 || v < 512 || v > 65536 || (v & (v - 1)) != 0) {
            snprintf(err, errcap, "page size '%s' in --page-sizes is not one SQLite accepts "
                     "(a power of two from 512 to 64k)", item);
            return -1;
        }
        for (int i = 0; i < *n; i++)
            if (out[i] == v) {
                snprintf(err, errcap, "page size %" PRId64 " appears twice in --page-sizes", v);
                return -1;
            }
        if (*n >= max) {
            snprintf(err, errcap, "--page-sizes lists more than %d sizes", max);
            return -1;
        }
        /* Insert in order: the report goes from small to large pages. */
        int j = (*n)++;
        for (; j > 0 && out[j - 1] > v; j--)
            out[j] = out[j - 1];
        out[j] = v;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

static const char *const store_names[SWEEP_NSTORES] = {"files", "lmdb", "rocksdb"};

const char *sweep_store_name(enum sweep_store s)
{
    return (unsigned)s < SWEEP_NSTORES ? store_names[s] : "?";
}

int sweep_parse_stores(const char *s, enum sweep_store *out, int *n, char *err, size_t errcap)
{
    int seen[SWEEP_NSTORES] = {0}, db = 0;
    *n = 0;
    const char *p = s;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) {
            snprintf(err, errcap, "invalid --stores '%s': an empty item (expected a list such "
                     "as db,files,lmdb)", s);
            return -1;
        }
        int k = -1, dup = 0;
        if (len == 2 && strncmp(p, "db", 2) == 0) {
            dup = db++;
        } else {
            for (int i = 0; i < SWEEP_NSTORES && k < 0; i++)
                if (strlen(store_names[i]) == len && strncmp(p, store_names[i], len) == 0)
                    k = i;
            if (k < 0) {
                snprintf(err, errcap, "unknown store '%.*s' in --stores (expected db, files, "
                         "lmdb or rocksdb)", (int)(len > 40 ? 40 : len), p);
                return -1;
            }
            dup = seen[k]++;
        }
        if (dup) {
            snprintf(err, errcap, "store '%.*s' appears twice in --stores", (int)len, p);
            return -1;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    /* Every ratio divides the database's blob-API time, and the point of
     * a sweep is that ratio: without db, or with nothing beside it, there
     * is no crossover to find. */
    if (!db) {
        snprintf(err, errcap, "--stores '%s' lacks db: every other store is compared with "
                 "the database (list db too)", s);
        return -1;
    }
    for (int i = 0; i < SWEEP_NSTORES; i++)
        if (seen[i])
            out[(*n)++] = (enum sweep_store)i;
    if (*n == 0) {
        snprintf(err, errcap, "--stores db has nothing to compare the database with "
                 "(add files, lmdb or rocksdb)");
        return -1;
    }
    return 0;
}

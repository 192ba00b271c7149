/* sizedist: the distribution of blob (or file) sizes -- exact percentiles
 * from the sorted sizes, a histogram by powers of two, and the JSON form
 * "kvtest stat --json" prints and "kvtest init --sizes-from FILE" reads
 * back, so a distribution can travel without the data.
 *
 * JSON ("size_distribution" object):
 *   count, min, p10, p50, p90, p99, max, mean, bytes
 *   buckets: [{"lo": 4096, "hi": 8192, "count": 12}, ...]  non-empty only,
 *            sizes in [lo, hi); lo 0 / hi 1 is the bucket of empty blobs
 *   sizes:   every size, ascending, when count <= SIZEDIST_JSON_MAX
 *            ("sizes_exact": true); else SIZEDIST_JSON_MAX evenly spaced
 *            quantiles of them ("sizes_exact": false), which resample to
 *            the same distribution within 1/SIZEDIST_JSON_MAX of rank. */
#ifndef KVTEST_SIZEDIST_H
#define KVTEST_SIZEDIST_H
#include <stdint.h>
#include <stdio.h>
#include "base/json.h"

#define SIZEDIST_JSON_MAX 100000
#define SIZEDIST_BUCKETS 65   /* 0, then [2^i, 2^(i+1)) for i = 0..63 */

struct sizedist {
    int64_t *v;    /* ascending */
    int64_t n;
    double sum;
};

/* Take ownership of v[0..n) (malloc'd; may be NULL when n == 0) and sort it. */
void sizedist_own(struct sizedist *d, int64_t *v, int64_t n);
void sizedist_free(struct sizedist *d);

/* Nearest-rank percentile: the smallest size with at least p% of the sizes
 * at or below it (p = 0 gives min, 100 max). 0 for an empty distribution. */
int64_t sizedist_pct(const struct sizedist *d, double p);
double sizedist_mean(const struct sizedist *d);
/* Bucket of a size: 0 for 0, else 1 + floor(log2(size)). */
int sizedist_bucket(int64_t size);
/* Counts per bucket into c[SIZEDIST_BUCKETS]. */
void sizedist_buckets(const struct sizedist *d, int64_t *c);

/* Two text lines: "Size distribution:  count=.. min=.. p10=.. p50=.. p90=..
 * p99=.. max=.. mean=.." and "Size histogram:     1:3 2:0 4:1 ... 64Ki:9"
 * (each bucket by its lower bound, from the smallest non-empty one to the
 * largest). */
void sizedist_print(const struct sizedist *d, FILE *out);
/* Add the "size_distribution" object to parent. */
void sizedist_json(const struct sizedist *d, cJSON *parent);

/* Read the sizes from a file of JSON objects, one a line, as "kvtest stat
 * --json" prints them: the first object with result.size_distribution.sizes.
 * *v is malloc'd. 0, or -1 with one line in err. */
int sizedist_load_json(const char *path, int64_t **v, int64_t *n, char *err, size_t errcap);

#endif

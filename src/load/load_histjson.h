/* load_histjson: a latency histogram in load's --json, whole, so that runs
 * from several machines can be added exactly (load_merge): percentiles
 * cannot be merged, histograms can.
 *
 *   {"unit": "ns", "sub_bits": HIST_SUB_BITS, "nbuckets": HIST_BUCKETS,
 *    "count": N, "min": ns, "max": ns, "sum": ns,
 *    "buckets": [index, count, index, count, ...]}
 *
 * Only the non-empty buckets, as index/count pairs in one flat array of
 * numbers (a flat array stays one cell under --csv). sub_bits and nbuckets
 * say which bucket layout (measure/hist.h) the indexes belong to; min and
 * max are 0 in an empty histogram. */
#ifndef KVTEST_LOAD_HISTJSON_H
#define KVTEST_LOAD_HISTJSON_H
#include <stddef.h>

#include "base/json.h"
#include "measure/hist.h"

/* h as above; NULL on out of memory. */
cJSON *load_histjson_new(const struct hist *h);

/* Add the histogram j describes into dst (hist_merge). 0; or -1 with the
 * reason in why[cap] (another layout, a bad index, counts that do not add
 * up to "count", a missing field), dst unchanged. */
int load_histjson_add(struct hist *dst, const cJSON *j, char *why, size_t cap);

#endif

/* hist: log-linear latency histogram.
 * Values below HIST_SUB are stored exactly; above, a value with highest set
 * bit e keeps its top HIST_SUB_BITS+1 bits, so each bucket spans at most
 * 1/HIST_SUB of its value and its midpoint is within 1/(2*HIST_SUB). */
#include "measure/hist.h"

#include <stdlib.h>
#include <string.h>

static unsigned bucket_of(uint64_t v)
{
    if (v < HIST_SUB)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v);       /* >= HIST_SUB_BITS */
    unsigned shift = e - HIST_SUB_BITS;
    unsigned sub = (unsigned)(v >> shift) - HIST_SUB;       /* [0, HIST_SUB) */
    return (shift + 1) * HIST_SUB + sub;
}

/* Lowest value of bucket i and its width. */
static void bucket_range(unsigned i, uint64_t *lo, uint64_t *width)
{
    if (i < HIST_SUB) {
        *lo = i;
        *width = 1;
        return;
    }
    unsigned shift = i / HIST_SUB - 1;
    uint64_t sub = i % HIST_SUB;
    *lo = (HIST_SUB + sub) << shift;
    *width = (uint64_t)1 << shift;
}

struct hist *hist_new(void)
{
    struct hist *h = malloc(sizeof(*h));
    if (h)
        hist_reset(h);
    return h;
}

void hist_free(struct hist *h)
{
    free(h);
}

void hist_reset(struct hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

void hist_record(struct hist *h, uint64_t ns)
{
    h->b[bucket_of(ns)]++;
    h->count++;
    h->sum += (double)ns;
    if (ns < h->min)
        h->min = ns;
    if (ns > h->max)
        h->max = ns;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
    if (src->count == 0)
        return;
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        dst->b[i] += src->b[i];
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
    if (h->count == 0)
        return 0;
    if (p <= 0)
        return h->min;
    if (p >= 100)
        return h->max;
    /* The smallest value with at least p% of samples at or below it
     * (nearest-rank definition). */
    uint64_t rank = (uint64_t)((p / 100.0) * (double)h->count + 0.5);
    if (rank < 1)
        rank = 1;
    if (rank > h->count)
        rank = h->count;
    uint64_t seen = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        seen += h->b[i];
        if (seen >= rank) {
            uint64_t lo, width;
            bucket_range(i, &lo, &width);
            uint64_t mid = lo + (width - 1) / 2;
            /* Never report outside what was actually recorded. */
            if (mid < h->min)
                mid = h->min;
            if (mid > h->max)
                mid = h->max;
            return mid;
        }
    }
    return h->max;
}

void hist_bucket_bounds(unsigned i, uint64_t *lo, uint64_t *hi)
{
    uint64_t width;
    bucket_range(i, lo, &width);
    *hi = *lo + (width - 1);
}

double hist_mean(const struct hist *h)
{
    return h->count ? h->sum / (double)h->count : 0.0;
}

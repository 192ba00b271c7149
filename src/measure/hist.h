/* hist: latency histogram with bounded memory and bounded relative error.
 * Log-linear buckets (each power of two split into 128 linear sub-buckets)
 * give <= 0.4% relative error on any percentile (bucket midpoint is
 * reported) from 1 ns to ~584 years, in a fixed 64 KiB. */
#ifndef KVTEST_HIST_H
#define KVTEST_HIST_H
#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
    uint64_t count;
    uint64_t min, max;   /* exact, in ns */
    double sum;          /* exact sum in ns, for the mean */
    uint64_t b[HIST_BUCKETS];
};

struct hist *hist_new(void);            /* zeroed; NULL on out of memory */
void hist_free(struct hist *h);
void hist_reset(struct hist *h);
void hist_record(struct hist *h, uint64_t ns);
void hist_merge(struct hist *dst, const struct hist *src);
/* p in [0,100]; returns ns; 0 for an empty histogram. p=0 gives min and
 * p=100 gives max exactly. */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);   /* ns */
/* Bucket i's values (for writers that walk the buckets: hist_spectrum,
 * load's --json): lowest and highest value it holds, in ns. */
void hist_bucket_bounds(unsigned i, uint64_t *lo, uint64_t *hi);

#endif

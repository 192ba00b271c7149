/* hist_spectrum: HdrHistogram's percentile distribution text (see
 * hist_spectrum.h). Written from the format's description, over our own
 * buckets. */
#include "measure/hist_spectrum.h"

#include <math.h>

/* The tick after level (percent): HdrHistogram halves the step each time
 * the distance to 100% halves, so the tail gets as many rows as the body. */
static double next_level(double level)
{
    double halvings = floor(log2(100.0 / (100.0 - level))) + 1;
    return level + 100.0 / (HIST_SPECTRUM_TICKS * pow(2.0, halvings));
}

/* The highest value of bucket i that was recorded: never past h's max. */
static double bucket_top_ms(const struct hist *h, unsigned i)
{
    uint64_t lo, hi;
    hist_bucket_bounds(i, &lo, &hi);
    if (hi > h->max)
        hi = h->max;
    return (double)hi / 1e6;
}

static void row(FILE *f, double ms, double p, uint64_t seen)
{
    fprintf(f, "%12.3f %12f %12llu %12.2f\n", ms, p, (unsigned long long)seen,
            1.0 / (1.0 - p));
}

/* Standard deviation in ns, each sample taken at its bucket's midpoint
 * (the histogram keeps no sum of squares). */
static double stddev_ns(const struct hist *h)
{
    if (h->count == 0)
        return 0;
    double mean = hist_mean(h), acc = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        if (!h->b[i])
            continue;
        uint64_t lo, hi;
        hist_bucket_bounds(i, &lo, &hi);
        double d = ((double)lo + (double)(hi - lo) / 2.0) - mean;
        acc += d * d * (double)h->b[i];
    }
    return sqrt(acc / (double)h->count);
}

int hist_spectrum_write(const struct hist *h, FILE *f)
{
    fprintf(f, "%12s %12s %12s %12s\n\n", "Value", "Percentile", "TotalCount",
            "1/(1-Percentile)");
    uint64_t seen = 0;
    double level = 0;
    unsigned last = 0;
    for (unsigned i = 0; i < HIST_BUCKETS && seen < h->count; i++) {
        if (!h->b[i])
            continue;
        seen += h->b[i];
        last = i;
        double reached = 100.0 * (double)seen / (double)h->count;
        /* Every tick this bucket reaches gets its row; the bucket that
         * completes the count gets one, then the final row below. */
        while (level <= reached) {
            row(f, bucket_top_ms(h, i), level / 100.0, seen);
            level = next_level(level);
            if (seen == h->count)
                break;
        }
    }
    if (h->count)
        row(f, bucket_top_ms(h, last), 1.0, h->count);
    fprintf(f, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", hist_mean(h) / 1e6,
            stddev_ns(h) / 1e6);
    fprintf(f, "#[Max     = %12.3f, Total count    = %12llu]\n",
            h->count ? (double)h->max / 1e6 : 0.0, (unsigned long long)h->count);
    fprintf(f, "#[Buckets = %12d, SubBuckets     = %12d]\n", HIST_BUCKETS / HIST_SUB,
            (int)HIST_SUB);
    return ferror(f) ? -1 : 0;
}

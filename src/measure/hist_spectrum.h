/* hist_spectrum: a histogram as HdrHistogram's percentile distribution
 * text, the file wrk2 -L prints and HdrHistogram's plotter reads, so a
 * kvtest result (one load run, or several merged) opens in those tools.
 *
 * Values in milliseconds with 3 decimals (as wrk2 prints them); rows at
 * HdrHistogram's percentile ticks (5 per half distance: 0, 10%, 20%, ...,
 * 50%, 55%, ..., 75%, 77.5%, ... closer and closer to 100%), each row the
 * highest value of the first bucket that reaches the tick, then a last row
 * at percentile 1.0 (its 1/(1-p) column "inf"). The trailer gives the
 * exact mean, the standard deviation over bucket midpoints, the exact max
 * and count, and kvtest's bucket layout (Buckets = powers of two,
 * SubBuckets = linear steps in each). */
#ifndef KVTEST_HIST_SPECTRUM_H
#define KVTEST_HIST_SPECTRUM_H
#include <stdio.h>

#include "measure/hist.h"

#define HIST_SPECTRUM_TICKS 5   /* rows per half distance to 100%, as wrk2 */

/* Write h to f. 0, or -1 on a write error. */
int hist_spectrum_write(const struct hist *h, FILE *f);

#endif

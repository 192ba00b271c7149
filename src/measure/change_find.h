/* change_find: where a series of measurements (one point per commit, in
 * commit order) changes level. E-Divisive means (Matteson and James, 2014),
 * the method of MongoDB's performance CI and of Apache Otava, with a
 * deterministic significance test in place of the permutation test, as
 * Otava does, so that the same series always gives the same answer.
 *
 * - The series is read on the log scale: a step of x1.05 is the same
 *   distance at 1 us as at 1 s, and a change is a ratio.
 * - Candidates, by bisection: the best split of a segment is the point
 *   that maximises the divergence q = (m k / (m + k)) * (2/(m k) sum
 *   |x_i - y_j| - mean within-left |x_i - x_i'| - mean within-right
 *   |y_j - y_j'|) (alpha = 1, the right end of the segment fixed at its
 *   end, as the usual implementations do), over splits that leave at least
 *   min_seg points on each side. Every segment long enough is cut there
 *   and its halves in turn, whether the cut is significant or not: a level
 *   that comes back (up at 16, down at 27) makes the two halves of the
 *   whole alike, and a test of them would end the search before either
 *   step was reached.
 * - Pruning: each candidate is tested between its neighbouring candidates
 *   (the segments it separates); the weakest that fails (the largest p, or
 *   a ratio of medians within min_change of 1) is dropped and its two
 *   neighbours tested again, until all pass. So each reported p is that
 *   of the two segments a reader sees on either side.
 * - The tests: Mann-Whitney U (stats.h: rank-based, so one outlier cannot
 *   make or hide a change; exact for small untied sides) or Welch's t on
 *   the logs (Otava's choice: reaches a small p with fewer points when the
 *   noise is small, but an outlier moves a mean).
 *
 * Cost: a segment of L points is searched in O(L^2) (each move of the
 * split updates the three sums with one pass); the bisection goes down to
 * segments of 2 min_seg, about 2 n^2 distance evaluations for a series of
 * n points when the cuts fall near the middles, more when they fall near
 * the ends. The count is returned so a caller can say how much work an
 * analysis did.
 * Pure: no I/O, no globals. */
#ifndef KVTEST_CHANGE_FIND_H
#define KVTEST_CHANGE_FIND_H
#include <stddef.h>
#include <stdint.h>

enum change_test { CHANGE_TEST_MW, CHANGE_TEST_WELCH };

struct change_opts {
    double alpha;          /* a split is a change when p < alpha (0.001) */
    double min_change;     /* and max(r, 1/r) - 1 >= min_change, r the ratio of medians */
    size_t min_seg;        /* the fewest points on a side, >= 2 */
    enum change_test test;
};

struct change_point {
    size_t at;             /* the first point of the new level */
    double p;              /* the test of the segments on either side */
    double q;              /* its divergence when it was found */
};

/* What an analysis cost: points searched and distance evaluations. */
struct change_work {
    size_t points;
    uint64_t pairs;
};

/* The change points of v[from..n) (every value finite and > 0), with from
 * and n as the outer boundaries: points before from are neither searched
 * nor read (an appended series re-analyses only its tail). *out (free()
 * it) gets them in ascending order, *nout their number; work (may be
 * NULL) is added to. 0, or -1 on a bad argument (from > n, min_seg < 2,
 * a value not finite or <= 0) or out of memory. */
int change_find(const double *v, size_t n, size_t from, const struct change_opts *o,
                struct change_point **out, size_t *nout, struct change_work *work);

/* The two-sided p of the opts' test between a[0..na) and b[0..nb) (raw
 * values; Welch's t reads their logs). NaN when out of memory. */
double change_test_p(enum change_test t, const double *a, size_t na, const double *b, size_t nb);

/* Two-sided p of Welch's t test of the means of a and b (as given, not
 * logs): 1 when both sides are constant and equal, 0 when constant and
 * different; needs na, nb >= 2. */
double change_welch_p(const double *a, size_t na, const double *b, size_t nb);

#endif

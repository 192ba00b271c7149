/* zipf: rejection-inversion sampling (Hormann & Derflinger 1996, "Rejection-
 * inversion to generate variates from monotone discrete distributions").
 *
 * The idea: h(x) = x^-s is decreasing, so the discrete masses h(k) are each
 * dominated by the area under h over [k-1/2, k+1/2] (plus a small correction
 * for k = 1). Draw a point uniformly in that total area by inverting its
 * integral H, round to the nearest integer k, and accept unless the point
 * fell in the sliver of area that belongs to no mass. Acceptance is above
 * 90% for every s, so a draw costs a few transcendental calls and no table.
 *
 * H and its inverse are written with expm1/log1p helpers so that s = 1
 * (where H is log x) and s near 1 need no special case and lose no
 * precision. */
#include <math.h>

#include "measure/keys/zipf.h"

/* expm1(x)/x, continuous at 0 (value 1). */
static double expm1_over(double x)
{
    if (fabs(x) > 1e-8)
        return expm1(x) / x;
    return 1.0 + x * 0.5 * (1.0 + x / 3.0);
}

/* log1p(x)/x, continuous at 0 (value 1). */
static double log1p_over(double x)
{
    if (fabs(x) > 1e-8)
        return log1p(x) / x;
    return 1.0 - x * (0.5 - x / 3.0);
}

/* Antiderivative of x^-s: (x^(1-s) - 1) / (1-s), which tends to log x as
 * s -> 1. */
static double zipf_H(double s, double x)
{
    double lx = log(x);
    return expm1_over((1.0 - s) * lx) * lx;
}

static double zipf_H_inv(double s, double y)
{
    double t = y * (1.0 - s);
    if (t < -1.0)   /* rounding can push it just past the pole */
        t = -1.0;
    return exp(log1p_over(t) * y);
}

static double zipf_h(double s, double x)
{
    return exp(-s * log(x));
}

int zipf_init(struct zipf *z, uint64_t n, double s)
{
    if (!z || n < 1 || !(s > 0.0) || !isfinite(s))
        return -1;
    z->n = n;
    z->s = s;
    z->h_x1 = zipf_H(s, 1.5) - 1.0;
    z->h_n = zipf_H(s, (double)n + 0.5);
    /* Points with k - x <= c are always accepted (the squeeze), which saves
     * evaluating H for most draws. */
    z->c = 2.0 - zipf_H_inv(s, zipf_H(s, 2.5) - zipf_h(s, 2.0));
    return 0;
}

uint64_t zipf_next(const struct zipf *z, rng_t *r)
{
    if (z->n == 1)
        return 1;
    for (;;) {
        double u = z->h_n + rng_double(r) * (z->h_x1 - z->h_n);
        double x = zipf_H_inv(z->s, u);
        double kd = floor(x + 0.5);
        if (kd < 1.0)
            kd = 1.0;
        else if (kd > (double)z->n)
            kd = (double)z->n;
        if (kd - x <= z->c ||
            u >= zipf_H(z->s, kd + 0.5) - zipf_h(z->s, kd))
            return (uint64_t)kd;
    }
}

#!/usr/bin/python3
"""stats_fixtures: reference values for tests/unit/measure/test_stats_ref.c.

    /usr/bin/python3 scripts/dev/stats_fixtures.py > tests/unit/measure/stats_fixtures.h

Every value is worked out here without src/measure/stats.c, by the methods
stats.h names, from their textbook definitions:
  - Mann-Whitney U, exact: the null distribution counted with Python
    integers (c(i, j, u) = c(i-1, j, u-j) + c(i, j-1, u)), cross-checked
    against scipy.stats.mannwhitneyu(method="exact"); asymptotic:
    scipy.stats.mannwhitneyu(method="asymptotic", use_continuity=True)
    (tie-corrected variance).
  - Wilcoxon signed-rank, exact: the null distribution of T+ counted with
    integers, cross-checked against scipy.stats.wilcoxon(method="exact");
    normal: scipy.stats.wilcoxon(zero_method="wilcox", correction=True,
    method="approx").
  - Hodges-Lehmann ratio with Moses' interval (two sets) and with Tukey's
    interval (Walsh averages of paired log ratios): all pairwise values
    sorted; the critical value is the largest w with P(U <= w) <= 2.5%
    (exact rational arithmetic), or mn/2 - z_.975 sd - 1/2 rounded down
    beyond the exact tables (50 a side, 200 pairs).
  - The median's interval: Hettmansperger & Sheather (1986), order
    statistics d and d + 1 with coverages from scipy.stats.binom, linearly
    interpolated in lambda = (n - d) I / (d + (n - 2d) I).
  - The paired bootstrap: xoshiro256** seeded through splitmix64 and
    Lemire's unbiased bounded draw, written out again here from Blackman &
    Vigna's and Lemire's papers, the percentiles by exact fractions.
The data are the test's own: gen(i) below is written the same way in the
test (every value exact in a double), paired sets multiply old[i] by
1 + q[i]/1024 (also exact before rounding).
"""
import math
import sys
import warnings
from fractions import Fraction

import scipy
from scipy import stats

Z975 = 1.959963984540054   # scipy.stats.norm.ppf(0.975)
assert abs(stats.norm.ppf(0.975) - Z975) < 1e-15


def gen(i):
    """The test's data: distinct positive values in no order."""
    k = (i * 7919) % 2003
    return 1.0 + k + 0.25 * k * k


def gens(start, n):
    return [gen(start + i) for i in range(n)]


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def warn(*a):
    print("stats_fixtures:", *a, file=sys.stderr)


# ---- the median's interval -------------------------------------------------
def median_ci(v):
    x = sorted(v)
    n = len(x)
    cov = lambda d: 1 - 2 * stats.binom.cdf(d - 1, n, 0.5)
    if cov(1) < 0.95:
        return median(v), x[0], x[-1], 0, None
    d = 1
    while d + 1 <= n - d and cov(d + 1) >= 0.95:
        d += 1
    g0, g1 = cov(d), cov(d + 1)
    I = (g0 - 0.95) / (g0 - g1)
    lam = (n - d) * I / (d + (n - 2 * d) * I)
    lo = (1 - lam) * x[d - 1] + lam * x[d]
    hi = (1 - lam) * x[n - d] + lam * x[n - d - 1]
    return median(v), lo, hi, 1, (d, lam)


# ---- Mann-Whitney ----------------------------------------------------------
def u_counts(m, n):
    """Integer counts of U = 0..mn under the null for sides m and n."""
    prev = [[1] for _ in range(m + 1)]
    for j in range(1, n + 1):
        cur = [[1]]
        for i in range(1, m + 1):
            a, b = cur[i - 1], prev[i]
            cur.append([(a[u - j] if j <= u < j + len(a) else 0) + (b[u] if u < len(b) else 0)
                        for u in range(i * j + 1)])
        prev = cur
    return prev[m]


def u_stat(a, b):
    return sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in a for y in b)


def mw_p(a, b):
    """(p, method) as stats.h describes: exact without ties up to 50 a side."""
    pooled = a + b
    ties = len(set(pooled)) < len(pooled)
    if not ties and len(a) <= 50 and len(b) <= 50:
        c = u_counts(len(a), len(b))
        u = u_stat(a, b)
        k = int(min(u, len(a) * len(b) - u))
        p = min(Fraction(1), Fraction(2 * sum(c[:k + 1]), sum(c)))
        sp = stats.mannwhitneyu(a, b, alternative="two-sided", method="exact").pvalue
        assert abs(float(p) - sp) <= 1e-12 * max(sp, 1e-300), (p, sp)
        return float(p), "exact"
    p = stats.mannwhitneyu(a, b, alternative="two-sided", use_continuity=True,
                           method="asymptotic").pvalue
    return float(p), "asymptotic"


def moses_w(m, n):
    if m > 50 or n > 50:
        sd = math.sqrt(m * n * (m + n + 1) / 12.0)
        return math.floor(m * n / 2 - Z975 * sd - 0.5), "normal"
    c = u_counts(m, n)
    tot, acc, w = sum(c), 0, -1
    for u, x in enumerate(c):
        acc += x
        if acc * 40 > tot:
            break
        w = u
    return w, "exact"


def ratio_ci(old, new):
    d = sorted(math.log(y) - math.log(x) for x in old for y in new)
    k = len(d)
    est = math.exp(median(d))
    w, how = moses_w(len(old), len(new))
    if 0 <= w < k // 2:
        for i in (w, k - 1 - w):   # a neighbour equal would hide an index off by one
            if (i > 0 and d[i - 1] == d[i]) or (i + 1 < k and d[i + 1] == d[i]):
                warn("ratio: tie next to the interval's end", len(old), len(new))
        return est, math.exp(d[w]), math.exp(d[k - 1 - w]), 1, w, how
    return est, math.exp(d[0]), math.exp(d[-1]), 0, w, how


# ---- paired: signed rank and Tukey -----------------------------------------
def c_round(x):
    """C's round(): halves away from zero."""
    return math.copysign(math.floor(abs(x) + 0.5), x)


def paired_d(old, q):
    new = [o * (1 + qi / 1024.0) for o, qi in zip(old, q)]
    return new, [c_round((math.log(y) - math.log(x)) * 1e12) / 1e12 for x, y in zip(old, new)]


def t_counts(n):
    c = [1]
    for k in range(1, n + 1):
        nc = c + [0] * k
        for t in range(k, len(nc)):
            nc[t] += c[t - k]
        c = nc
    return c


def tukey_t(n):
    M = n * (n + 1) // 2
    if n > 200:
        sd = math.sqrt(M * (2 * n + 1) / 12.0)
        return math.floor(M / 2 - Z975 * sd - 0.5), "normal"
    c = t_counts(n)
    acc, t = 0, -1
    for u, x in enumerate(c):
        acc += x
        if acc * 40 > 2 ** n:
            break
        t = u
    return t, "exact"


def signed_rank_p(d):
    nz = [x for x in d if x != 0]
    if not nz:
        return 1.0, "all zero"
    ties = len(set(abs(x) for x in nz)) < len(nz)
    if not ties and len(nz) == len(d) and len(d) <= 200:
        n = len(d)
        r = stats.rankdata([abs(x) for x in d])
        tplus = int(sum(ri for ri, x in zip(r, d) if x > 0))
        M = n * (n + 1) // 2
        c = t_counts(n)
        p = min(Fraction(1), Fraction(2 * sum(c[:min(tplus, M - tplus) + 1]), 2 ** n))
        sp = stats.wilcoxon(d, method="exact").pvalue
        assert abs(float(p) - sp) <= 1e-9 * sp, (p, sp)
        return float(p), "exact"
    p = stats.wilcoxon(d, zero_method="wilcox", correction=True, method="approx").pvalue
    return float(p), "normal"


def paired(old, q):
    new, d = paired_d(old, q)
    n = len(d)
    wa = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    k = len(wa)
    est = math.exp(median(wa))
    t, how = tukey_t(n)
    if 0 <= t < k // 2:
        for i in (t, k - 1 - t):
            if (i > 0 and wa[i - 1] == wa[i]) or (i + 1 < k and wa[i + 1] == wa[i]):
                warn("paired: tie next to the interval's end", n)
        lo, hi, cov = math.exp(wa[t]), math.exp(wa[k - 1 - t]), 1
    else:
        lo, hi, cov = math.exp(wa[0]), math.exp(wa[-1]), 0
    p, phow = signed_rank_p(d)
    return dict(est=est, lo=lo, hi=hi, cov=cov, t=t, thow=how, p=p, phow=phow, d=d)


def z_of(d):
    """|z| of the normal approximation (for picking a set with 0 < z < 1)."""
    nz = [x for x in d if x != 0]
    m = len(nz)
    r = stats.rankdata([abs(x) for x in nz])
    tplus = sum(ri for ri, x in zip(r, nz) if x > 0)
    _, counts = __import__("numpy").unique([abs(x) for x in nz], return_counts=True)
    tie = sum(int(t) ** 3 - int(t) for t in counts)
    var = m * (m + 1) * (2 * m + 1) / 24.0 - tie / 48.0
    return (abs(tplus - m * (m + 1) / 4) - 0.5) / math.sqrt(var)


# ---- the bootstrap ---------------------------------------------------------
M64 = (1 << 64) - 1


class Xoshiro:
    """xoshiro256** (Blackman & Vigna 2018), state from splitmix64."""

    def __init__(self, seed):
        x = seed & M64
        self.s = []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))

    @staticmethod
    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M64

    def next(self):
        s = self.s
        result = (self.rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self.rotl(s[3], 45)
        return result

    def below(self, n):
        """Lemire (2019), "Fast random integer generation in an interval"."""
        m = self.next() * n
        lo = m & M64
        if lo < n:
            threshold = (1 << 64) % n   # 2^64 mod n
            while lo < threshold:
                m = self.next() * n
                lo = m & M64
        return m >> 64


def bootstrap(num, den, resamples, seed):
    r = [a / b for a, b in zip(num, den)]
    n = len(r)
    g = Xoshiro(seed)
    meds = []
    for _ in range(resamples):
        meds.append(median([r[g.below(n)] for _ in range(n)]))
    meds.sort()
    lo = math.floor(Fraction(1, 40) * resamples)
    hi = math.ceil(Fraction(39, 40) * resamples) - 1
    # the C computes these in doubles: the fixtures keep to counts where
    # the two agree
    assert lo == math.floor((1 - 0.95) / 2 * resamples)
    assert hi == math.ceil((1 + 0.95) / 2 * resamples) - 1
    sharp = all(meds[i - 1] != meds[i] != meds[i + 1] for i in (lo, hi))
    return median(r), meds[lo], meds[hi], int(n >= 4), sharp


# ---- output ----------------------------------------------------------------
def f(x):
    return repr(float(x)) if math.isfinite(x) else ("INFINITY" if x > 0 else "-INFINITY")


def carray(name, ctype, vals):
    body = ", ".join(str(v) if ctype == "int" else f(v) for v in vals)
    return "static const %s %s[] = {%s};" % (ctype, name, body)


def q_formula(n):
    """The signed steps of the larger paired sets (the test repeats it)."""
    return [(1 if i % 5 < 3 else -1) * (1 + (i * 37) % 223) for i in range(n)]


def main():
    # scipy warns that 8-10 pairs are few for the normal approximation:
    # stats.c uses it there all the same (ties or zeros), so do we
    warnings.simplefilter("ignore", UserWarning)
    out = []
    w = out.append
    w("/* Generated by scripts/dev/stats_fixtures.py (scipy %s); do not edit." % scipy.__version__)
    w(" * Reference values for test_stats_ref.c, each computed without stats.c:")
    w(" * the method of each table is named above it. Regenerate with")
    w(" *   /usr/bin/python3 scripts/dev/stats_fixtures.py > tests/unit/measure/stats_fixtures.h */")
    w("#ifndef KVTEST_STATS_FIXTURES_H")
    w("#define KVTEST_STATS_FIXTURES_H")
    w("")

    # median intervals
    w("/* The median's 95% interval, Hettmansperger & Sheather (1986), binomial")
    w(" * coverages from scipy.stats.binom: v[i] = gen(start + i), i < n. */")
    w("struct fx_median_ci { size_t n, start; double est, lo, hi; int covered; };")
    w("static const struct fx_median_ci fx_median_ci[] = {")
    for n, start in ((5, 0), (6, 0), (7, 10), (10, 20), (33, 40), (2000, 0), (2001, 1)):
        est, lo, hi, cov, dl = median_ci(gens(start, n))
        note = "d = %d, lambda = %.6f" % dl if dl else "below 95%: [min, max]"
        w("    {%d, %d, %s, %s, %s, %d},   /* %s */" % (n, start, f(est), f(lo), f(hi), cov, note))
    w("};")
    w("")

    # Mann-Whitney
    w("/* Mann-Whitney p of a = gen(a0 + i), i < na, against b = gen(b0 + j):")
    w(" * exact (integer counts, = scipy mannwhitneyu exact) up to 50 a side,")
    w(" * scipy's asymptotic p with continuity correction beyond. */")
    w("struct fx_mw { size_t na, a0, nb, b0; double p; };")
    w("static const struct fx_mw fx_mw[] = {")
    for na, a0, nb, b0 in ((50, 0, 8, 100), (51, 0, 8, 100), (8, 100, 50, 0), (8, 100, 51, 0)):
        p, how = mw_p(gens(a0, na), gens(b0, nb))
        w("    {%d, %d, %d, %d, %s},   /* %s */" % (na, a0, nb, b0, f(p), how))
    w("};")
    w("")
    w("/* Small sets with ties: scipy.stats.mannwhitneyu(method=\"asymptotic\",")
    w(" * use_continuity=True), the tie-corrected normal approximation. */")
    ties = {
        "low": ([1, 3, 5, 7], [1, 4, 6, 8]),          # the only tie: the smallest value
        "mixed": ([2, 4, 4, 6, 9], [1, 4, 5, 6, 6, 7, 10]),
        "high": ([1, 2, 3, 9], [4, 5, 6, 9]),         # the only tie: the largest value
    }
    for name, (a, b) in ties.items():
        p, how = mw_p([float(x) for x in a], [float(x) for x in b])
        assert how == "asymptotic"
        w(carray("fx_mw_%s_a" % name, "double", a))
        w(carray("fx_mw_%s_b" % name, "double", b))
        w("#define FX_MW_%s_P %s" % (name.upper(), f(p)))
    w("")

    # Moses
    w("/* NEW/OLD, two sets: old = gen(o0 + i), i < nold; new = gen(n0 + j).")
    w(" * Hodges-Lehmann (median of the pairwise log ratios) and Moses'")
    w(" * interval: w = the largest u with P(U <= u) <= 2.5% (exact counts up")
    w(" * to 50 a side, else floor(mn/2 - 1.96 sd - 1/2)); [d(w), d(mn-1-w)].")
    w(" * p: the U test of the two sets as above; mold, mnew: their medians. */")
    w("struct fx_ratio { size_t nold, o0, nnew, n0; double est, lo, hi; int covered;")
    w("                  double p, mold, mnew; };")
    w("static const struct fx_ratio fx_ratio[] = {")
    for no, o0, nn, n0 in ((1, 0, 3, 100), (3, 0, 3, 100), (4, 0, 4, 100), (10, 0, 10, 100),
                           (30, 0, 30, 100), (50, 0, 8, 100), (8, 100, 50, 0), (51, 0, 8, 100),
                           (8, 100, 51, 0), (51, 0, 9, 100), (5, 0, 51, 100),
                           (3, 0, 1, 100)):
        old, new = gens(o0, no), gens(n0, nn)
        est, lo, hi, cov, wv, how = ratio_ci(old, new)
        p, phow = mw_p(new, old)
        w("    {%d, %d, %d, %d, %s, %s, %s, %d,\n     %s, %s, %s},   /* w = %d, %s; p %s */"
          % (no, o0, nn, n0, f(est), f(lo), f(hi), cov, f(p), f(median(old)), f(median(new)),
             wv, how, phow))
    w("};")
    w("")

    # paired
    w("/* Paired: old[i] = gen(i), new[i] = old[i] * (1 + q[i]/1024). The")
    w(" * Hodges-Lehmann ratio (median Walsh average of the log ratios) with")
    w(" * Tukey's interval (t: the largest with P(T <= t) <= 2.5%, exact")
    w(" * counts up to 200 pairs, else the normal formula), and the signed-rank")
    w(" * p (integer counts = scipy wilcoxon exact without zeros or ties, else")
    w(" * scipy wilcoxon approx with correction, zeros dropped). */")
    w("struct fx_paired { const char *name; size_t n; const int *q; double p, est, lo, hi; int covered; };")
    sets = {
        "one": [51],
        "balanced": [-10, -20, 30],          # T+ = 3 = M/2: p capped at 1
        "five": [40, -7, 90, 15, 63],
        "six": [12, 45, -3, 88, 30, 71],
        "twelve": q_formula(12),
        "fifty": q_formula(50),
        "ties": [5, 5, 5, -9, 14, 14, -20, 33, 40, -41],
        "zero": [0, 7, -12, 19, 25, -31, 38, 44, -50, 57],
        "smallz": [0, 9, -17, 23, -30, 36, -42, -8],
        "p200": q_formula(200),
        "p201": q_formula(201),
    }
    rows = []
    for name, q in sets.items():
        r = paired(gens(0, len(q)), q)
        d = r["d"]
        if name in ("ties",):
            assert 0 not in d and len(set(abs(x) for x in d)) < len(d)
        if name == "zero":
            assert d.count(0) == 1 and len(set(abs(x) for x in d if x)) == len(d) - 1
        if name == "smallz":
            z = z_of(d)
            assert 0 < z < 1, z
        if name not in ("ties", "zero", "smallz"):
            assert 0 not in d and len(set(abs(x) for x in d)) == len(d), name
        if len(q) > 12:
            assert q == q_formula(len(q))
            qname = "fx_q_formula"
        else:
            qname = "fx_q_" + name
            w(carray(qname, "int", q))
        rows.append("    {\"%s\", %d, %s, %s, %s, %s, %s, %d},   /* t = %d (%s), p %s */"
                    % (name, len(q), qname, f(r["p"]), f(r["est"]), f(r["lo"]), f(r["hi"]),
                       r["cov"], r["t"], r["thow"], r["phow"]))
    w("/* q[i] of the larger sets: (i %% 5 < 3 ? 1 : -1) * (1 + (i * 37) %% 223). */")
    w(carray("fx_q_formula", "int", q_formula(201)))
    w("static const struct fx_paired fx_paired[] = {")
    out.extend(rows)
    w("};")
    w("")

    # bootstrap
    w("/* Paired bootstrap: num[i] = gen(n0 + i), den[i] = gen(d0 + i); the")
    w(" * median of num/den and the 2.5%/97.5% order statistics (0-based")
    w(" * floor(R/40) and ceil(39R/40) - 1) of R resampled medians, draws from")
    w(" * an independent xoshiro256** + Lemire port. */")
    w("struct fx_boot { size_t n, n0, d0; int resamples; uint64_t seed; double est, lo, hi; int covered; };")
    w("static const struct fx_boot fx_boot[] = {")
    for n, n0, d0, R, seed in ((7, 0, 300, 1000, 42), (40, 0, 300, 200, 3), (20, 0, 300, 100, 13),
                               (4, 10, 310, 200, 3), (3, 20, 320, 100, 5), (1, 0, 300, 100, 9)):
        est, lo, hi, cov, sharp = bootstrap(gens(n0, n), gens(d0, n), R, seed)
        w("    {%d, %d, %d, %d, %dull, %s, %s, %s, %d},%s"
          % (n, n0, d0, R, seed, f(est), f(lo), f(hi), cov,
             "   /* both ends differ from their neighbours */" if sharp else ""))
    w("};")
    w("")
    w("#endif")
    print("\n".join(out))


if __name__ == "__main__":
    main()

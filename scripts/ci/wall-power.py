#!/usr/bin/env python3
"""wall-power.py: how often would the wall layer's sequential, paired rule catch
a true 1.10x slowdown, and how often would it cry wolf? A resampling of the
A/A pairs of this directory (runs/*-wall-aa-*/samples.tsv, 20 runs of all
seven paths, reference and current the same build): each simulated run
draws pairs (their log ratio, a rate's inverted) with replacement, adds
log(1.10) for the injected case, and applies ci-perf.sh's rule: from 8
pairs, after every second pair, stop when the Tukey interval of the
Hodges-Lehmann ratio lies wholly below the limit (x1.04), or wholly above it
with the signed-rank p < 0.05/7; past 24 pairs go on only while the estimate
is above CONT; at most MORE pairs; FAIL when Holm's p (7 p for the one path
measured alone) < 0.05 and the interval lies above the limit.

First, per path, how much less a pair's log ratio spreads than single runs.

    python3 scripts/ci/wall-power.py [TRIALS [DIR]]
        TRIALS: per path and rule (default 200; ~30 s)
        DIR: a validation directory holding runs/ (default: the A/A runs of
        results/ci-perf/wall-unpaired/, read from results/ci-perf/runs.tar.xz)
Its output, with the default arguments, is results/ci-perf/wall-unpaired/power.txt.
"""
import collections
import glob
import math
import os
import random
import sys
import tarfile
from functools import lru_cache

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIMIT, PATHS = 1.04, 7


def aa_runs():
    """Each A/A run's samples.tsv, as a list of lines, in the runs' order:
    from DIR/runs/ when a directory is given, else from the archive that
    keeps results/ci-perf's per-run files."""
    if len(sys.argv) > 2:
        for d in sorted(glob.glob(os.path.join(sys.argv[2], "runs", "*-wall-aa-*"))):
            with open(os.path.join(d, "samples.tsv")) as f:
                yield f.read().splitlines(True)
        return
    with tarfile.open(os.path.join(ROOT, "results", "ci-perf", "runs.tar.xz")) as t:
        names = sorted(n for n in t.getnames()
                       if n.startswith("wall-unpaired/runs/") and "-wall-aa-" in n
                       and n.endswith("/samples.tsv"))
        for n in names:
            yield t.extractfile(n).read().decode().splitlines(True)


RUNS = list(aa_runs())
pool = collections.defaultdict(list)
for lines in RUNS:
    v = collections.defaultdict(list)
    for line in lines:
        k, x = line.split("\t")
        v[k].append(float(x))
    for p in {k.rsplit(".", 1)[0] for k in v}:
        ref, cur = v[p + ".ref"], v[p + ".cur"]
        for i in range(min(len(ref), len(cur))):
            lr = math.log(cur[i] / ref[i])
            pool[p].append(-lr if p in ("lookup", "http") else lr)


@lru_cache(None)
def null_cdf(n):
    w = n * (n + 1) // 2
    c = [0] * (w + 1)
    c[0] = 1
    for k in range(1, n + 1):
        for t in range(w, k - 1, -1):
            c[t] += c[t - k]
    acc, out = 0, []
    for t in range(w + 1):
        acc += c[t]
        out.append(acc / 2 ** n)
    return out


@lru_cache(None)
def tukey(n):
    t = -1
    for u, x in enumerate(null_cdf(n)):
        if x > 0.025:
            break
        t = u
    return t


def judge(d):
    n = len(d)
    w = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    k = len(w)
    est = (w[k // 2 - 1] + w[k // 2]) / 2 if k % 2 == 0 else w[k // 2]
    t = tukey(n)
    lo, hi = (w[t], w[k - 1 - t]) if t >= 0 else (w[0], w[-1])
    a = sorted((x for x in d if x != 0), key=abs)
    m = len(a)
    tp = sum(i + 1 for i, x in enumerate(a) if x > 0)
    z = (abs(tp - m * (m + 1) / 4) - 0.5) / math.sqrt(m * (m + 1) * (2 * m + 1) / 24)
    return math.exp(est), math.exp(lo), math.exp(hi), math.erfc(max(z, 0) / math.sqrt(2))


def one_run(path, effect, more, cont):
    d = []
    for r in range(1, more + 1):
        d.append(random.choice(pool[path]) + math.log(effect))
        if r < 8 or r % 2:
            continue
        est, lo, hi, p = judge(d)
        if hi < LIMIT or (lo > LIMIT and p < 0.05 / PATHS):
            break
        if r >= 24 and est <= cont:
            break
    est, lo, hi, p = judge(d)
    return min(1.0, PATHS * p) < 0.05 and lo > LIMIT, len(d)


def spread():
    """Per path: the spread of a pair's log ratio over sqrt(2) (one run's
    share of it) against the spread of single runs' logs within a side."""
    import statistics
    runs = collections.defaultdict(list)
    for lines in RUNS:
        for line in lines:
            k, x = line.split("\t")
            if k.endswith(".ref"):
                runs[k[:-4]].append(math.log(float(x)))
    print("path\tpair_sd_per_run\trun_sd\tratio")
    for p in sorted(pool):
        a = statistics.stdev(pool[p]) / math.sqrt(2)
        b = statistics.stdev(runs[p])
        print(f"{p}\t{a:.3f}\t{b:.3f}\t{b / a:.2f}")
    print()


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    spread()
    random.seed(1)
    print("rule\tpath\tcaught_1.10x\tpairs_1.10x\tfalse_alarm_aa\tpairs_aa_mean\tpairs_aa_max")
    for more, cont in ((48, 1.04), (96, 1.02), (144, 1.02)):
        for path in sorted(pool):
            c = [one_run(path, 1.10, more, cont) for _ in range(trials)]
            a = [one_run(path, 1.0, more, cont) for _ in range(trials)]
            print(f"more {more}, on above x{cont}\t{path}\t{sum(x for x, _ in c) / trials:.3f}"
                  f"\t{sum(n for _, n in c) / trials:.0f}\t{sum(x for x, _ in a) / trials:.3f}"
                  f"\t{sum(n for _, n in a) / trials:.1f}\t{max(n for _, n in a)}", flush=True)


main()

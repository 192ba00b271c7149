#!/usr/bin/env python3
"""validate.py: how well does `kvtest history` find steps where the truth is known?

    scripts/study/history/validate.py [--kvtest PATH] [--runs DIR] [--out DIR]
                                      [--seed N] [--aa N] [--per-step N]

Synthetic series of 50 commits built from this machine's own A/A noise: the
CI check's committed A/A runs (results/ci-perf/runs.tar.xz, extracted to a
scratch directory unless --runs names one). Three kinds of point, each what a
CI job could record for one commit:

  wall   the median wall time of one run's samples of a path (one side of an
         A/A run): the raw time, which moves with the machine's hour
  ratio  the median of one A/A run's paired current/reference ratios: the
         time against a reference built and measured in the same job
  instr  instructions per operation under cachegrind ((Ir(N2) - Ir(N1)) /
         (N2 - N1) of one side of an instr A/A run, from the last set of
         such runs that measured all seven paths)

Points are drawn with replacement from a path's pool (seeded), so a series
holds no trend the runs did not; then stepped where the truth says:
  aa       no step (false alarms)
  single   one step of x S at a commit drawn from 10..40
  several  three steps of x S or x 1/S, at least 10 commits apart
  drift    x S reached linearly over 10 commits from a start in 10..30
for S in 1.02, 1.05, 1.10, 1.20, for each of the seven paths, and analysed by
`kvtest history --json` three ways: the defaults (mw: Mann-Whitney U, p <
0.001), --test welch (Otava's test), and the defaults with --min-change 0.01
(mw-1%).

A true step is found when a change point lies within 2 commits of it (a
drift: anywhere from 2 before its start to 2 after its end). Recall: true
steps found / true steps; precision: change points that match a true step /
all change points; position error: the mean distance of a matched change
point from its step. A/A: series with any change point, and change points,
per 100 series.

Then A/A series of 1000 points (--long a path and kind): false alarms grow
with a series' length, since every candidate split is a test.

Writes OUT/validation.tsv (kind test shape step series true found matched
reported recall precision pos_err), OUT/aa.tsv (kind test path series
series_alarmed alarms per_100), OUT/aa-long.tsv (kind test series points
alarms per_series) and OUT/summary.md; prints the summary.
"""
import argparse
import collections
import glob
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
STEPS = (1.02, 1.05, 1.10, 1.20)
# the configurations compared: the default test, Otava's, and the default
# with a smallest change of 1% (for counts, whose noise is far below it)
CONFIGS = (("mw", []), ("welch", ["--test", "welch"]), ("mw-1%", ["--min-change", "0.01"]))
N = 50
TOL = 2
LONG = 1000


def die(msg, code=2):
    print(f"validate.py: {msg}", file=sys.stderr)
    sys.exit(code)


def read_samples(path):
    s = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            k, v = line.rstrip("\n").split("\t")
            s[k].append(float(v))
    return s


def pools(runs):
    """{kind: {path: [points]}} from the extracted A/A runs."""
    out = {"wall": collections.defaultdict(list), "ratio": collections.defaultdict(list),
           "instr": collections.defaultdict(list)}
    # quiet runs only: wall-under-load had a compiler beside it on purpose
    for d in ("wall-paired", "wall-unpaired", "wall-db-write-20k"):
        for f in sorted(glob.glob(os.path.join(runs, d, "runs", "*-wall-aa-*", "samples.tsv"))):
            s = read_samples(f)
            for path in sorted({k.split(".")[0] for k in s}):
                cur, ref = s.get(path + ".cur", []), s.get(path + ".ref", [])
                for side in (cur, ref):
                    if side:
                        out["wall"][path].append(statistics.median(side))
                # paired rounds only: the unpaired validation's runs were
                # not alternated, so their ratios carry the hour's drift
                if d != "wall-unpaired" and cur and ref:
                    n = min(len(cur), len(ref))
                    out["ratio"][path].append(statistics.median(cur[i] / ref[i] for i in range(n)))
    # the last set of instr A/A runs that measured all seven paths: the
    # check as it stands (earlier sets tried other ways of counting http)
    sets = collections.defaultdict(list)
    for f in glob.glob(os.path.join(runs, "runs", "*-instr-aa-*", "instr.tsv")):
        sets[os.path.basename(os.path.dirname(f)).split("-instr-")[0]].append(f)
    full = [k for k, fs in sets.items()
            if len({line.split()[0] for f in fs for line in open(f)}) == 7]
    for f in sorted(sets[max(full)] if full else []):
        ir = collections.defaultdict(dict)
        with open(f) as fh:
            for line in fh:
                path, side, n, v = line.split()
                ir[(path, side)][int(n)] = float(v)
        for (path, side), byn in sorted(ir.items()):
            if len(byn) == 2:
                (n1, i1), (n2, i2) = sorted(byn.items())
                out["instr"][path].append((i2 - i1) / (n2 - n1))
    for kind, p in out.items():
        if not p:
            die(f"no {kind} A/A points under {runs}")
    return out


def make_series(rng, pool, shape, step, n=N):
    """(values, true change positions, drift window or None)."""
    v = [rng.choice(pool) for _ in range(n)]
    truth, window = [], None
    if shape == "single":
        t = rng.randint(10, 40)
        truth = [t]
        v = [x * (step if i >= t else 1) for i, x in enumerate(v)]
    elif shape == "several":
        while True:
            ts = sorted(rng.sample(range(8, 43), 3))
            if ts[1] - ts[0] >= 10 and ts[2] - ts[1] >= 10:
                break
        truth = ts
        f, level = 1.0, []
        for i in range(N):
            if i in ts:
                f *= step if rng.random() < 0.5 else 1 / step
            level.append(f)
        v = [x * level[i] for i, x in enumerate(v)]
    elif shape == "drift":
        t = rng.randint(10, 30)
        window = (t, t + 10)
        truth = [t]
        v = [x * (1 + (step - 1) * min(max(i - t, 0), 10) / 10) for i, x in enumerate(v)]
    return v, truth, window


def analyse(kvtest, series, args, tmp, n=N):
    """{series id: [change point positions, 0-based]} from one history run."""
    csv = os.path.join(tmp, "series.csv")
    with open(csv, "w") as f:
        f.write("commit,time,metric,value,unit\n")
        for i in range(n):
            for sid, s in series.items():
                f.write(f"c{i:05d},t{i:05d},{sid},{s['v'][i]!r},x\n")
    out = subprocess.run([kvtest, "history", csv, "--json"] + args, capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        die(f"kvtest history failed ({out.returncode}): {out.stderr.strip()}", 1)
    found = collections.defaultdict(list)
    for cp in json.loads(out.stdout)["change_points"]:
        found[cp["metric"]].append(cp["point"] - 1)
    return found


def score(truth, window, found):
    """(true, found true, matched reported, reported, position errors)."""
    if window:
        lo, hi = window[0] - TOL, window[1] + TOL
        hits = [p for p in found if lo <= p <= hi]
        return 1, 1 if hits else 0, len(hits), len(found), []
    matched_truth, matched_rep, errs = 0, set(), []
    for t in truth:
        near = [p for p in found if abs(p - t) <= TOL and p not in matched_rep]
        if near:
            p = min(near, key=lambda q: abs(q - t))
            matched_rep.add(p)
            matched_truth += 1
            errs.append(abs(p - t))
    return len(truth), matched_truth, len(matched_rep), len(found), errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kvtest", default=os.path.join(ROOT, "kvtest"))
    ap.add_argument("--runs", help="the extracted results/ci-perf/runs.tar.xz")
    ap.add_argument("--out", default=os.path.join(ROOT, "results/history/validation"))
    ap.add_argument("--seed", type=int, default=49)
    ap.add_argument("--aa", type=int, default=100, help="A/A series per path and kind")
    ap.add_argument("--long", type=int, default=3, help=f"A/A series of {LONG} points per path")
    ap.add_argument("--per-step", type=int, default=20,
                    help="series per path, shape and step (several, drift: half)")
    a = ap.parse_args()
    if a.aa < 1 or a.per_step < 2 or a.long < 1:
        die("--aa and --long must be at least 1 and --per-step at least 2")
    if not os.access(a.kvtest, os.X_OK):
        die(f"no kvtest at {a.kvtest} (make, or --kvtest PATH)")
    with tempfile.TemporaryDirectory(prefix="kvtest-validate.") as tmp:
        runs = a.runs
        if not runs:
            with tarfile.open(os.path.join(ROOT, "results/ci-perf/runs.tar.xz")) as t:
                t.extractall(tmp)
            runs = tmp
        pool = pools(runs)
        os.makedirs(a.out, exist_ok=True)
        vrows, arows = [], []
        for kind in ("wall", "ratio", "instr"):
            rng = random.Random(f"{a.seed}-{kind}")
            series = {}
            for path in sorted(pool[kind]):
                p = pool[kind][path]
                for i in range(a.aa):
                    series[f"{path}/aa/1/{i}"] = {"v": make_series(rng, p, "aa", 1)[0], "truth": [],
                                                  "window": None, "path": path}
                for step in STEPS:
                    for shape, count in (("single", a.per_step), ("several", a.per_step // 2),
                                         ("drift", a.per_step // 2)):
                        for i in range(count):
                            v, t, w = make_series(rng, p, shape, step)
                            series[f"{path}/{shape}/{step}/{i}"] = {"v": v, "truth": t,
                                                                    "window": w, "path": path}
            for test, args in CONFIGS:
                found = analyse(a.kvtest, series, args, tmp)
                agg = collections.defaultdict(lambda: [0, 0, 0, 0, 0, []])
                aa = collections.defaultdict(lambda: [0, 0, 0])
                for sid, s in series.items():
                    path, shape, step, _ = sid.split("/")
                    step = float(step)
                    f = found.get(sid, [])
                    if shape == "aa":
                        r = aa[path]
                        r[0] += 1
                        r[1] += 1 if f else 0
                        r[2] += len(f)
                        continue
                    nt, ft, mr, rep, errs = score(s["truth"], s["window"], f)
                    g = agg[(shape, step)]
                    g[0] += 1
                    g[1] += nt
                    g[2] += ft
                    g[3] += mr
                    g[4] += rep
                    g[5] += errs
                for (shape, step), g in sorted(agg.items()):
                    vrows.append([kind, test, shape, step, g[0], g[1], g[2], g[3], g[4],
                                  g[2] / g[1], g[3] / g[4] if g[4] else float("nan"),
                                  statistics.mean(g[5]) if g[5] else float("nan")])
                for path, r in sorted(aa.items()):
                    arows.append([kind, test, path, r[0], r[1], r[2], 100 * r[1] / r[0]])
        # false alarms grow with a series' length: each candidate is a test
        longrows = []
        for kind in ("wall", "ratio", "instr"):
            rng = random.Random(f"{a.seed}-{kind}-long")
            series = {}
            for path in sorted(pool[kind]):
                for i in range(a.long):
                    series[f"{path}/aa/1/{i}"] = {"v": make_series(rng, pool[kind][path], "aa", 1,
                                                                   LONG)[0]}
            for test, args in CONFIGS:
                found = analyse(a.kvtest, series, args, tmp, LONG)
                alarms = sum(len(found.get(sid, [])) for sid in series)
                longrows.append([kind, test, len(series), LONG, alarms, alarms / len(series)])
    with open(os.path.join(a.out, "aa-long.tsv"), "w") as f:
        f.write("kind\ttest\tseries\tpoints\talarms\tper_series\n")
        for r in longrows:
            f.write("\t".join(str(x) if not isinstance(x, float) else f"{x:.4g}" for x in r) + "\n")
    with open(os.path.join(a.out, "validation.tsv"), "w") as f:
        f.write("kind\ttest\tshape\tstep\tseries\ttrue\tfound\tmatched\treported\trecall\t"
                "precision\tpos_err\n")
        for r in vrows:
            f.write("\t".join(str(x) if not isinstance(x, float) else f"{x:.4g}" for x in r) + "\n")
    with open(os.path.join(a.out, "aa.tsv"), "w") as f:
        f.write("kind\ttest\tpath\tseries\tseries_alarmed\talarms\tper_100\n")
        for r in arows:
            f.write("\t".join(str(x) if not isinstance(x, float) else f"{x:.4g}" for x in r) + "\n")
    lines = summary(vrows, arows, pool, a, longrows)
    with open(os.path.join(a.out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def summary(vrows, arows, pool, a, longrows):
    out = [f"# kvtest history on synthetic series from the CI check's A/A runs",
           "",
           f"Series of {N} commits, points drawn from each path's A/A pool (seed {a.seed}); "
           f"a step is found within {TOL} commits. Pool sizes (points): " +
           "; ".join(f"{k} " + ", ".join(f"{p} {len(v)}" for p, v in sorted(pool[k].items()))
                     for k in ("wall", "ratio", "instr")) + ".",
           "",
           "How much a point moves between A/A runs (the pool's standard deviation over its "
           "mean): " + "; ".join(
               f"{k} " + ", ".join(f"{p} {100 * statistics.pstdev(v) / statistics.mean(v):.2g}%"
                                  for p, v in sorted(pool[k].items()))
               for k in ("wall", "ratio", "instr")) + ".",
           "",
           "| noise | test | shape | " + " | ".join(f"x{s}" for s in STEPS) + " |",
           "|---|---|---|" + "---|" * len(STEPS)]
    by = {(r[0], r[1], r[2], r[3]): r for r in vrows}
    for kind in ("wall", "ratio", "instr"):
        for test, _ in CONFIGS:
            for shape in ("single", "several", "drift"):
                cells = []
                for s in STEPS:
                    r = by.get((kind, test, shape, s))
                    if not r:
                        cells.append("")
                        continue
                    pe = "" if r[11] != r[11] else f", ±{r[11]:.1f}"
                    prec = "-" if r[10] != r[10] else f"{r[10]:.2f}"
                    cells.append(f"recall {r[9]:.2f}, precision {prec}{pe}")
                out.append(f"| {kind} | {test} | {shape} | " + " | ".join(cells) + " |")
    out += ["", "False alarms per 100 A/A series of 50 points (series with any change point):", "",
            "| noise | test | " + " | ".join(sorted({r[2] for r in arows})) + " | all |",
            "|---|---|" + "---|" * (len({r[2] for r in arows}) + 1)]
    for kind in ("wall", "ratio", "instr"):
        for test, _ in CONFIGS:
            rs = [r for r in arows if r[0] == kind and r[1] == test]
            if not rs:
                continue
            tot = sum(r[4] for r in rs) * 100 / sum(r[3] for r in rs)
            out.append(f"| {kind} | {test} | " + " | ".join(f"{r[6]:.0f}" for r in rs) +
                       f" | {tot:.1f} |")
    out += ["", f"False alarms in A/A series of {LONG} points ({a.long} a path, every change "
            "point is one):", "", "| noise | " + " | ".join(t for t, _ in CONFIGS) + " |",
            "|---|" + "---|" * len(CONFIGS)]
    for kind in ("wall", "ratio", "instr"):
        cells = [f"{r[5]:.2f} per series" for r in longrows if r[0] == kind]
        out.append(f"| {kind} | " + " | ".join(cells) + " |")
    out += ["", "Smallest step found 9 times in 10 (single steps):", ""]
    for kind in ("wall", "ratio", "instr"):
        for test, _ in CONFIGS:
            ok = [s for s in STEPS if by.get((kind, test, "single", s)) and
                  by[(kind, test, "single", s)][9] >= 0.9]
            out.append(f"- {kind}, {test}: " + (f"x{min(ok)}" if ok else f"none up to x{STEPS[-1]}"))
    return out


if __name__ == "__main__":
    main()

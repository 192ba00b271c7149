#!/usr/bin/env python3
"""report.py: the change points of this project's own history, named.

    scripts/study/history/report.py [--kvtest PATH] [--min-change F] DIR

DIR holds series.csv (merge.py's, in main's commit order). kvtest history
finds the change points of its instruction counts (--min-change F, default
0.001). A path's count varies by 0.03% at most (standard deviation) between
runs of one build (results/history/validation/summary.md), so steps of
0.01% from one commit to the next are significant and yet mean nothing to a
user: 0.1% is over three times that spread, and small enough to show a
commit that adds a copy to each request. A change point is the first
measured commit at the new level; what made it lies between it and the
measured commit before it on main's first-parent history. When those two
are neighbours the change is named at its own commit; otherwise every
commit between is listed, and own.sh --range PREV..CP measures them.

Writes into DIR:
  change-points.json   kvtest history's --json answer
  change-points.md     a table: series, ratio [95%], p, the commit(s), subjects
  plot.csv             metric,x,value,level: x is the commit's place on main
                       (1 = the first commit), level the median of its segment
  history.png, .svg    each series with its segments
                       (scripts/study/plot/history.gp)
"""
import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys

PROG = "report"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def die(msg, status=2):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(status)


def git(*args):
    return subprocess.run(["git", "-C", ROOT, *args], check=True, capture_output=True,
                          text=True).stdout


def main():
    ap = argparse.ArgumentParser(prog=PROG, description="name the change points of own.sh's series")
    ap.add_argument("--kvtest", default=os.path.join(ROOT, "kvtest"))
    ap.add_argument("--min-change", default="0.001")
    ap.add_argument("dir")
    a = ap.parse_args()
    series_csv = os.path.join(a.dir, "series.csv")
    if not os.path.isfile(series_csv):
        die(f"{series_csv}: no such file (run own.sh, then merge.py)")
    if not os.access(a.kvtest, os.X_OK):
        die(f"{a.kvtest}: not an executable kvtest (make kvtest, or --kvtest PATH)")

    order = git("rev-list", "--first-parent", "--reverse", "HEAD").split()
    pos = {c: i + 1 for i, c in enumerate(order)}
    subject = {}
    for line in git("log", "--first-parent", "--format=%H %s", "HEAD").splitlines():
        c, _, s = line.partition(" ")
        subject[c] = s

    r = subprocess.run([a.kvtest, "history", series_csv, "--min-change", a.min_change, "--json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        die(f"kvtest history failed (exit {r.returncode}): {r.stderr.strip()}", 1)
    found = json.loads(r.stdout)
    found["cmdline"] = found["cmdline"].replace(a.dir.rstrip("/") + "/", "")
    found["inputs"] = [os.path.basename(i) for i in found["inputs"]]
    with open(os.path.join(a.dir, "change-points.json"), "w") as f:
        json.dump(found, f, indent=1)
        f.write("\n")

    # Each series' points in commit order: {metric: [(commit, value)]}
    points = {}
    with open(series_csv, newline="") as f:
        for row in csv.DictReader(f):
            if row["commit"] not in pos:
                die(f"{series_csv}: commit {row['commit'][:12]} is not on main's first-parent history")
            points.setdefault(row["metric"], []).append((row["commit"], float(row["value"])))
    cps = {}
    for cp in found["change_points"]:
        cps.setdefault(cp["metric"], []).append(cp["commit"])

    with open(os.path.join(a.dir, "plot.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["metric", "x", "value", "level"])
        for m in sorted(points):
            seg, segs = [], []
            for c, v in points[m]:
                if c in cps.get(m, []) and seg:
                    segs.append(seg)
                    seg = []
                seg.append((c, v))
            segs.append(seg)
            for seg in segs:
                level = statistics.median(v for _, v in seg)
                for c, v in seg:
                    w.writerow([m, pos[c], f"{v:.1f}", f"{level:.1f}"])

    rows = []
    for cp in found["change_points"]:
        m, c = cp["metric"], cp["commit"]
        measured = [x for x, _ in points[m]]
        prev = measured[measured.index(c) - 1]
        between = order[pos[prev]:pos[c]]  # after prev, up to c
        if len(between) == 1:
            who = f"`{c[:7]}` {subject[c]}"
        else:
            who = (f"one of {len(between)} commits after `{prev[:7]}` up to `{c[:7]}` "
                   f"(measure them: `own.sh --range {prev[:7]}..{c[:7]}`): "
                   + "; ".join(f"`{x[:7]}` {subject[x]}" for x in between))
        rt = cp["ratio"]
        rows.append(f"| {m} | {pos[c]} | {cp['before']['median']:,.1f} → {cp['after']['median']:,.1f} "
                    f"| x{rt['est']:.3f} [{rt['lo']:.3f}, {rt['hi']:.3f}] | {cp['p']:.1e} "
                    f"| {cp['direction']} | {who.replace('|', '/')} |")
    s = found["summary"]
    with open(os.path.join(a.dir, "change-points.md"), "w") as f:
        f.write(f"`{found['cmdline']}`: {found['commits']} commits, {s['analysed']} series analysed, "
                f"{s['change_points']} change points ({s['slower']} slower, {s['faster']} faster).\n\n")
        if rows:
            f.write("| series | at commit no. | instr/op before → after | after / before [95%] | p "
                    "| direction | made by |\n|---|---|---|---|---|---|---|\n")
            f.write("\n".join(rows) + "\n")
        unanalysed = [x["metric"] for x in found["series"] if x.get("skipped")]
        if unanalysed:
            f.write(f"\nNot analysed (too few points): {', '.join(unanalysed)}.\n")

    # A series spanning over 2x is also drawn from its largest change on, where
    # a log scale would flatten the steps after it.
    zoom = ""
    for cp in sorted(found["change_points"], key=lambda x: -abs(x["ratio"]["est"] - 1)):
        vals = [v for _, v in points[cp["metric"]]]
        if max(vals) > 2 * min(vals):
            zoom = f"zoom='{cp['metric']}'; zoomfrom={pos[cp['commit']]}; "
            break
    if shutil.which("gnuplot"):
        metrics = " ".join(sorted(points))
        for term in ("png", "svg"):
            e = (f"dir='{os.path.join(ROOT, 'scripts', 'study', 'plot')}'; "
                 f"in='{os.path.join(a.dir, 'plot.csv')}'; out='{os.path.join(a.dir, 'history.' + term)}'; "
                 f"term='{term}'; metrics='{metrics}'; {zoom}"
                 f"subtitle='{found['commits']} commits of main, instructions per operation under cachegrind'")
            g = subprocess.run(["gnuplot", "-e", e, os.path.join(ROOT, "scripts", "study", "plot", "history.gp")],
                               capture_output=True, text=True)
            if g.returncode != 0:
                die(f"gnuplot failed: {g.stderr.strip()}", 1)
    else:
        print(f"{PROG}: no gnuplot: the chart is not drawn", file=sys.stderr)
    print(f"{PROG}: {s['change_points']} change points: {os.path.join(a.dir, 'change-points.md')}",
          file=sys.stderr)


if __name__ == "__main__":
    main()

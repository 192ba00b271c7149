#!/usr/bin/env python3
"""merge.py: several own.sh runs as one history, in main's commit order.

    scripts/study/history/merge.py --out DIR RUN...

own.sh measures what it is asked: every 4th commit first, then every commit
between two samples that bracket a change, then older ones. kvtest history
reads a series in the order given and wants each commit's samples together,
so the runs are merged here by each commit's place in main's first-parent
history (oldest first), not by when they were measured.

Writes DIR/series.csv (every RUN's rows), DIR/wall.jsonl.gz (every RUN's
wall runs, from its wall.jsonl or wall.jsonl.gz) and DIR/builds.tsv. A commit measured by two runs
keeps the rows of the first RUN named that has it: instruction counts are
the same from run to run, and one commit counted twice would weigh twice in
its segment's median; in builds.tsv a build that failed is replaced by a
later run's that built. A commit that is not on main's first-parent history is
refused (exit 2): it has no place in the order.
"""
import argparse
import csv
import gzip
import io
import json
import os
import subprocess
import sys

PROG = "merge"


def die(msg, status=2):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(status)


def first_parent_order(root):
    out = subprocess.run(["git", "-C", root, "rev-list", "--first-parent", "--reverse", "HEAD"],
                         check=True, capture_output=True, text=True).stdout.split()
    return {c: i for i, c in enumerate(out)}


def read_run(run):
    """(header, {commit: [rows]}, {commit: [wall lines]}, {commit: builds row})"""
    path = os.path.join(run, "series.csv")
    try:
        with open(path, newline="") as f:
            lines = f.read().splitlines(keepends=True)
    except OSError as e:
        die(f"{path}: {e.strerror}")
    header = next(csv.reader(lines[:1]), [])
    if header[:6] != ["commit", "time", "measurement", "metric", "value", "unit"]:
        die(f"{path}: not an own.sh series (its header is not commit,time,measurement,metric,value,unit,...)")
    # Rows are kept as own.sh wrote them; a commit (hex) holds no comma.
    series = {}
    for line in lines[1:]:
        series.setdefault(line.split(",", 1)[0], []).append(line)
    wall = {}
    wpath = os.path.join(run, "wall.jsonl")
    if not os.path.exists(wpath) and os.path.exists(wpath + ".gz"):
        wpath += ".gz"
    if os.path.exists(wpath):
        with (gzip.open(wpath, "rt") if wpath.endswith(".gz") else open(wpath)) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    c = json.loads(line)["commit"]
                except (ValueError, KeyError, TypeError):
                    die(f"{wpath}:{n}: not a JSON object with a commit")
                wall.setdefault(c, []).append(line if line.endswith("\n") else line + "\n")
    builds = {}
    bpath = os.path.join(run, "builds.tsv")
    if os.path.exists(bpath):
        with open(bpath) as f:
            for line in list(f)[1:]:
                builds[line.split("\t", 1)[0]] = line
    return lines[0], series, wall, builds


def main():
    ap = argparse.ArgumentParser(prog=PROG, description="merge own.sh runs in main's commit order")
    ap.add_argument("--out", required=True, help="a new or empty directory")
    ap.add_argument("runs", nargs="+", metavar="RUN", help="an own.sh output directory")
    a = ap.parse_args()
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    order = first_parent_order(root)
    if os.path.isdir(a.out) and os.listdir(a.out):
        die(f"{a.out} is not empty (--out needs a new or empty directory)")

    header, series, wall, builds = None, {}, {}, {}
    for run in a.runs:
        h, s, w, b = read_run(run)
        header = header or h
        if h != header:
            die(f"{run}/series.csv: its columns differ from {a.runs[0]}/series.csv's")
        for c in list(s) + list(b):
            if c not in order:
                die(f"{run}: commit {c[:12]} is not on main's first-parent history")
        for c, rows in s.items():
            series.setdefault(c, rows)
        for c, lines in w.items():
            wall.setdefault(c, lines)
        for c, line in b.items():
            # a build that failed and was tried again (own.sh --deps) built
            if c not in builds or "\tfailed\t" in builds[c]:
                builds[c] = line

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "series.csv"), "w", newline="") as f:
        f.write(header)
        for c in sorted(series, key=order.get):
            f.writelines(series[c])
    # mtime 0: the same runs give the same bytes
    with gzip.GzipFile(os.path.join(a.out, "wall.jsonl.gz"), "wb", mtime=0) as z, \
            io.TextIOWrapper(z) as f:
        for c in sorted(wall, key=order.get):
            f.writelines(wall[c])
    with open(os.path.join(a.out, "builds.tsv"), "w") as f:
        f.write("commit\tsubject\tbuild\tseconds\n")
        for c in sorted(builds, key=order.get):
            f.write(builds[c])
    print(f"{PROG}: {len(series)} commits measured, {len(builds)} built or tried, into {a.out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""loadhist.py: independent readers of kvtest load's latency histograms,
for tests/cli/load/shortener_merge.bats. Written from the formats' descriptions
(src/measure/hist.h, src/load/load_histjson.h, HdrHistogram's percentile
distribution text), not from kvtest's code.

  loadhist.py percentiles KIND FILE...
      Add the "histogram" of by_type.KIND of every load --json FILE and
      print its percentiles as load's "latency" object has them (us):
      min p50 p90 p99 p999 max, one line.
  loadhist.py spectrum FILE
      Check an HdrHistogram percentile distribution file: the header,
      values, percentiles and counts that never go down, a last row at
      percentile 1.0, a trailer whose total count is the last row's. Print
      the total count; exit 1 with the reason otherwise.
"""
import json
import sys

SUB_BITS = 7
SUB = 1 << SUB_BITS


def bucket_range(i):
    """Lowest value and width of bucket i (hist.h: exact below SUB, then
    SUB linear steps in each power of two)."""
    if i < SUB:
        return i, 1
    shift = i // SUB - 1
    return (SUB + i % SUB) << shift, 1 << shift


def added(kind, files):
    counts, total, lo, hi = {}, 0, None, 0
    for name in files:
        with open(name) as f:
            h = json.load(f)["result"]["by_type"][kind]["histogram"]
        assert h["unit"] == "ns" and h["sub_bits"] == SUB_BITS
        b = h["buckets"]
        for i, c in zip(b[0::2], b[1::2]):
            counts[i] = counts.get(i, 0) + c
        total += h["count"]
        if h["count"]:
            lo = h["min"] if lo is None else min(lo, h["min"])
            hi = max(hi, h["max"])
    return counts, total, lo, hi


def percentile(counts, total, lo, hi, p):
    """Nearest rank, read at the middle of its bucket, within [min, max]."""
    if p <= 0:
        return lo
    if p >= 100:
        return hi
    rank = min(max(int((p / 100.0) * total + 0.5), 1), total)
    seen = 0
    for i in sorted(counts):
        seen += counts[i]
        if seen >= rank:
            low, width = bucket_range(i)
            return min(max(low + (width - 1) // 2, lo), hi)
    return hi


def cmd_percentiles(kind, files):
    counts, total, lo, hi = added(kind, files)
    print(" ".join(repr(percentile(counts, total, lo, hi, p) / 1000.0)
                   for p in (0, 50, 90, 99, 99.9, 100)))


def cmd_spectrum(name):
    with open(name) as f:
        lines = f.read().split("\n")
    if lines[0].split() != ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"]:
        sys.exit("bad header: %r" % lines[0])
    rows = [l.split() for l in lines[1:] if l.strip() and not l.startswith("#")]
    last = (-1.0, -1.0, -1)
    for r in rows:
        cur = (float(r[0]), float(r[1]), int(r[2]))
        if any(c < l for c, l in zip(cur, last)):
            sys.exit("goes down: %r after %r" % (r, last))
        last = cur
    if not rows or last[1] != 1.0 or rows[-1][3] != "inf":
        sys.exit("the last row is not at percentile 1.0: %r" % (rows[-1:],))
    trailer = [l for l in lines if l.startswith("#[Max")]
    total = int(trailer[0].split("Total count")[1].strip(" =]"))
    if total != last[2]:
        sys.exit("trailer count %d, last row %d" % (total, last[2]))
    print(total)


if __name__ == "__main__":
    if sys.argv[1] == "percentiles":
        cmd_percentiles(sys.argv[2], sys.argv[3:])
    else:
        cmd_spectrum(sys.argv[2])

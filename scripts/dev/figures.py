#!/usr/bin/env python3
"""figures: every figure a page quotes from results/ is checked against the data.

    python3 scripts/dev/figures.py [--fix] [--results DIR] [--list] [FILES...]

FILES default to README.md, results/README.md and docs/*.md of the
checkout. One line per figure that disagrees with its data,
"FILE:LINE: [TIE] page says X, data says Y"; exit 1 if there is any, 0
if none, 2 on a tag it cannot read, an unknown finding id or a data file, row, column or path that is not there
(one line each, "FILE:LINE: ..."). --fix writes the data's values into
the pages instead (at the precision each page shows) and reports what it
changed; the next reference run's pages are then brought up to date by
one command and the diff reviewed. --list prints every tie and the count
per file. --results DIR reads the data from DIR instead of the checkout's
results/ (the tests use a copy). Fenced code blocks are never read.

Two ties (the first shows as the finding's id, the second is invisible
when the page is rendered):

1. A finding: [`ID`] (README's form) ties the figures just before it to
   the row ID of results/findings.tsv. Its scope starts after the previous
   [`...`] tie, or at the start of its sentence, list item, paragraph or
   table row, whichever is last. In the scope, a figure is a number with a
   decimal point or thousands separators (0.57, 146,935; "95% CI", "4 KiB",
   "100k" are not figures, nor numbers tied by a fig comment, below). The
   first interval, A–B (en dash or hyphen, "(95% CI A–B)" or "(A–B)"), is
   lo and hi; the last figure before it (with no interval: the last
   figure of the scope) is the estimate. Each is compared at the
   precision the page shows it: as many decimals as it has, an integer
   with separators to the unit; it agrees if it is within half a unit of
   its last digit of the data (--fix writes the data rounded half up).
   [`1/ID`] marks a page that shows the inverse of a ratio or rate (0.32x
   the rate shown as "3.15x slower"): the estimate is 1/estimate and the
   interval 1/hi–1/lo. Only for the kinds ratio and rate.

2. Any other value of results/: an HTML comment right after the number,

       1024.5 MiB<!-- fig: csv/space.csv row layout=db col allocated_mib -->
       15,482<!-- fig: history/own/change-points.json series[metric=http].latest.median -->

   ties the last number before the comment (on the same line: plain
   integers count here) to one cell:
     FILE                   relative to results/, or results/... (the
                            same); .csv and .tsv are tables, .md the rows
                            of all its pipe tables (by each one's header),
                            .json a tree
     row KEY=VALUE ...      (tables) the one row whose columns all match
                            and that has the column col names;
                            VALUE may be "quoted" if it has spaces
     line N                 (tables) the N-th data row (1 = first after
                            the header) instead of row
     col NAME               (tables) the column; a number N for a table
                            without a header line (the N-th column, 1 =
                            first; row keys are column numbers too:
                            logs/timings.tsv row 1=memlimit col 2)
     PATH                   (JSON) keys and indexes: a.b[0].c, and
                            list[key=value,key2=value2] for the one item
                            whose keys have those values; none: the document is the number
     after "TEXT"           (any file, instead of the above) the first
                            number after the first TEXT in it, on its
                            line (num N: the N-th): a line of a report
                            that is not a table
     median, min, max       optional, after the row and col words: over
                            all matching rows (a table of every run);
                            row KEY!=VALUE excludes rows there
     num N                  optional: the N-th number in the cell (1 =
                            first), for a cell of a Markdown table that
                            holds several: "13.7–18.1", "98887 [88918,
                            107778]"
     scale K                optional, last: the data's value times K
                            before comparing (0.001 for a page in
                            thousands); "num N scale K" in that order
     inverse                optional, very last: 1/value (a time ratio
                            shown as "1.91x faster"; an interval's ends
                            swap: lo is 1/hi)
   The number is compared at the precision the page shows, as above. A
   figure from an older run or another directory says so in words (which
   commit, which date); the tie only names the data.
"""

import csv
import decimal
import glob
import json
import os
import re
import shlex
import sys

D = decimal.Decimal
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
FIGNUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+"
FINDING = re.compile(r"\[`(1/)?([^`\s]+)`\](?!\()")
FIG = re.compile(r"<!--\s*fig:(.*?)-->", re.S)
INTERVAL = re.compile(r"(?<![\d.,])(%s)\s*[–-]\s*(%s)(?!\d|,\d|\.\d)" % (FIGNUM, FIGNUM))
FIGURE = re.compile(r"(?<![\d.,%s])(%s)(?!\d|,\d|\.\d|%%)" % ("", FIGNUM))
ANYNUM = re.compile(r"(?<![\d.,])(%s)(?![\d,]|\.\d)" % NUM)


class TagError(Exception):
    pass


def shown(text):
    """(value, decimals, separators) of a number as the page shows it."""
    dec = len(text.split(".")[1]) if "." in text else 0
    return D(text.replace(",", "")), dec, "," in text


def agrees(text, value):
    """Whether the page's number is the data's at the page's precision:
    within half a unit of its last digit (a value the data rounded once
    already, 2.345, may be shown as 2.34 or 2.35)."""
    pv, dec, _ = shown(text)
    return abs(pv - value) <= D(5).scaleb(-dec - 1)


def render(value, dec, sep):
    q = value.quantize(D(1).scaleb(-dec), rounding=decimal.ROUND_HALF_UP)
    return ("{:,.%df}" % dec if sep else "{:.%df}" % dec).format(q)


def load_findings(results):
    path = os.path.join(results, "findings.tsv")
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            rows[r["id"]] = r
    return rows


def read_table(path):
    if path.endswith(".md"):
        return read_md_tables(path)
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t" if path.endswith(".tsv") else ","))


def read_md_tables(path):
    """The rows of every pipe table of a Markdown file, as dicts by header
    (cells stripped of spaces and backticks)."""
    rows, header = [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("|"):
                header = None
                continue
            cells = [c.strip().strip("`").strip() for c in line.strip("|").split("|")]
            if header is None:
                header = cells
            elif not all(re.fullmatch(r":?-+:?", c) for c in cells if c):
                rows.append(dict(zip(header, cells)))
    return rows


def fig_value(spec, results, cache):
    """The data's value for a fig comment's spec (a string)."""
    try:
        words = shlex.split(spec)
    except ValueError as e:
        raise TagError("bad tag <!-- fig: %s -->: %s" % (spec, e))
    if not words:
        raise TagError("bad tag <!-- fig: %s -->: no file" % spec)
    name = words.pop(0)
    rel = name[len("results/"):] if name.startswith("results/") else name
    path = os.path.join(results, rel)
    if not os.path.isfile(path):
        raise TagError("no such data file: %s" % name)
    inverse = bool(words) and words[-1] == "inverse"
    if inverse:
        words = words[:-1]
    scale = D(1)
    if len(words) >= 2 and words[-2] == "scale":
        try:
            scale = D(words[-1])
        except decimal.InvalidOperation:
            raise TagError("bad tag <!-- fig: %s -->: scale %s" % (spec, words[-1]))
        words = words[:-2]
    agg = None
    if len(words) >= 2 and words[-1] in ("median", "min", "max") and words[-2] != "col":
        agg = words.pop()
    num = None
    if len(words) >= 2 and words[-2] == "num":
        if not words[-1].isdigit() or words[-1] == "0":
            raise TagError("bad tag <!-- fig: %s -->: num wants 1, 2, ..." % spec)
        num = int(words[-1])
        words = words[:-2]
    if len(words) == 2 and words[0] == "after":
        with open(path) as f:
            body = f.read()
        at = body.find(words[1])
        if at < 0:
            raise TagError("%s has no %r" % (name, words[1]))
        end = body.find("\n", at)
        val = body[at + len(words[1]):end if end >= 0 else len(body)]
        num = num or 1
    elif path.endswith(".json"):
        if len(words) > 1:
            raise TagError("bad tag <!-- fig: %s -->: a JSON file takes one path" % spec)
        if path not in cache:
            with open(path) as f:
                cache[path] = json.load(f)
        val = json_path(cache[path], words[0] if words else "", name)
    elif path.endswith((".csv", ".tsv", ".md")):
        raw = "col" in words and words[words.index("col") + 1:][:1] != [] and words[words.index("col") + 1].isdigit()
        key = (path, raw)
        if key not in cache:
            if raw and not path.endswith(".md"):
                with open(path, newline="") as f:
                    cache[key] = [{str(i + 1): c for i, c in enumerate(r)}
                                  for r in csv.reader(f, delimiter="\t" if path.endswith(".tsv") else ",")]
            else:
                cache[key] = read_table(path)
        val = table_cell(cache[key], words, name, spec, agg)
    else:
        raise TagError("bad tag <!-- fig: %s -->: not a .csv, .tsv, .md or .json file" % spec)
    if num is not None:
        nums = re.findall(r"-?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?", str(val))
        if len(nums) < num:
            raise TagError("%s: %s has no number %d: %r" % (name, " ".join(words), num, val))
        val = nums[num - 1]
    try:
        v = D(str(val).replace(",", ""))
        return (1 / v if inverse else v) * scale
    except decimal.InvalidOperation:
        raise TagError("%s: %s is not a number: %r" % (name, " ".join(words), val))


def table_cell(rows, words, name, spec, agg=None):
    conds, col, line = [], None, None
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("row", "col", "line") and i + 1 < len(words):
            v = words[i + 1]
            if w == "row":
                if "=" not in v:
                    raise TagError("bad tag <!-- fig: %s -->: row wants KEY=VALUE" % spec)
                k, want = v.split("=", 1)
                conds.append((k[:-1], want, False) if k.endswith("!") else (k, want, True))
            elif w == "col":
                col = v
            else:
                if not v.isdigit():
                    raise TagError("bad tag <!-- fig: %s -->: line wants a number" % spec)
                line = int(v)
            i += 2
        else:
            raise TagError("bad tag <!-- fig: %s -->: unexpected %r" % (spec, w))
    if col is None or (not conds and line is None) or (conds and line is not None):
        raise TagError("bad tag <!-- fig: %s -->: wants col and one of row or line" % spec)
    if line is not None:
        if not 1 <= line <= len(rows):
            raise TagError("%s has no data line %d" % (name, line))
        match = [rows[line - 1]]
    else:
        match = [r for r in rows if col in r and all((r.get(k) == v) == eq for k, v, eq in conds)]
        if agg and match:
            try:
                vals = sorted(D(r[col]) for r in match)
            except decimal.InvalidOperation:
                raise TagError("%s: column %s is not all numbers" % (name, col))
            if agg != "median":
                return vals[0] if agg == "min" else vals[-1]
            mid = len(vals) // 2
            return vals[mid] if len(vals) % 2 else (vals[mid - 1] + vals[mid]) / 2
        if len(match) != 1:
            raise TagError("%s: %d rows match %s" % (name, len(match), " ".join("%s%s=%s" % (k, "" if eq else "!", v) for k, v, eq in conds)))
    if col not in match[0]:
        raise TagError("%s has no column %s" % (name, col))
    return match[0][col]


def json_path(obj, path, name):
    for part in re.findall(r"[^.\[\]]+|\[[^\]]*\]", path):
        try:
            if part.startswith("["):
                inner = part[1:-1]
                if "=" in inner:
                    conds = [c.split("=", 1) for c in inner.split(",")]
                    hits = [x for x in obj if isinstance(x, dict) and
                            all(str(x.get(k)) == v for k, v in conds)]
                    if len(hits) != 1:
                        raise TagError("%s: %d items match [%s] in %s" % (name, len(hits), inner, path))
                    obj = hits[0]
                else:
                    obj = obj[int(inner)]
            else:
                obj = obj[part]
        except (KeyError, IndexError, TypeError, ValueError):
            raise TagError("%s has no %s" % (name, path))
    return obj


def blank_code(text):
    """The text with fenced code blocks blanked (newlines kept)."""
    out, fence = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
            out.append(" " * len(line))
        else:
            out.append(" " * len(line) if fence else line)
    return "\n".join(out)


def scope_start(text, pos, floor):
    """Where the scope of a finding tie at pos begins."""
    start = max(floor, 0)
    # the start of its block: paragraph, list item, table row or heading
    ls = text.rfind("\n", 0, pos) + 1
    while ls > start:
        line = text[ls:text.find("\n", ls) if text.find("\n", ls) >= 0 else len(text)]
        if re.match(r"\s*([-*+]|\d+\.)\s|\s*[|#]", line):
            break
        prev = text.rfind("\n", 0, ls - 1) + 1
        if text[prev:ls - 1].strip() == "":
            break
        ls = prev
    start = max(start, ls)
    # the start of its sentence: ". " (or ! ?) before a capital or a mark
    ends = [m.end() for m in re.finditer(r"[.!?][)*]*\s+(?=[A-Z*`])", text[start:pos])]
    return start + (ends[-1] if ends else 0)


def check_page(page, shown_name, findings, results, fix, cache, listing):
    """(mismatch lines, error lines, count of ties) for one page."""
    with open(page) as f:
        orig = f.read()
    text = blank_code(orig)
    lineno = lambda p: text.count("\n", 0, p) + 1
    bad, errors, edits, ties = [], [], [], 0
    fig_spans = []  # numbers tied by fig comments: not finding figures

    for m in FIG.finditer(text):
        before = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        nums = list(ANYNUM.finditer(before))
        where = "%s:%d: " % (shown_name, lineno(m.start()))
        spec = m.group(1).strip()
        if not nums:
            errors.append(where + "bad tag <!-- fig: %s -->: no number before it" % spec)
            continue
        n = nums[-1]
        a = m.start() - len(before) + n.start()
        b = a + len(n.group(1))
        fig_spans.append((a, b))
        try:
            val = fig_value(spec, results, cache)
        except TagError as e:
            errors.append(where + str(e))
            continue
        ties += 1
        if listing:
            print("%s[%s] %s" % (where, spec, n.group(1)))
        pv, dec, sep = shown(n.group(1))
        want = render(val, dec, sep)
        if not agrees(n.group(1), val):
            bad.append(where + "[%s] page says %s, data says %s" % (spec, n.group(1), want))
            edits.append((a, b, want))

    # the text with every HTML comment blanked: a tie's words are no figures
    plain = re.sub(r"<!--.*?-->", lambda c: re.sub(r"[^\n]", " ", c.group(0)), text, flags=re.S)
    prev_end = 0
    for m in FINDING.finditer(text):
        inv, fid = m.group(1), m.group(2)
        where = "%s:%d: " % (shown_name, lineno(m.start()))
        start = scope_start(text, m.start(), prev_end)
        prev_end = m.end()
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", fid):
            errors.append(where + "bad tag [`%s%s`]" % (inv or "", fid))
            continue
        if fid not in findings:
            errors.append(where + "unknown id %s (not in findings.tsv)" % fid)
            continue
        row = findings[fid]
        tag = (inv or "") + fid
        if inv and row["kind"] not in ("ratio", "rate"):
            errors.append(where + "bad tag [`%s`]: an inverse of a %s" % (tag, row["kind"]))
            continue
        scope = plain[start:m.start()]
        taken = [(a - start, b - start) for a, b in fig_spans if start <= a < m.start()]
        free = lambda s, e: not any(a < e and s < b for a, b in taken)
        iv = next((x for x in INTERVAL.finditer(scope) if free(x.start(), x.end())), None)
        est = None
        for x in FIGURE.finditer(scope):
            if not free(x.start(), x.end()) or (iv and x.start() >= iv.start()):
                continue
            est = x  # the last one before the interval
        try:
            e, lo, hi = (D(row[k]) for k in ("estimate", "lo", "hi"))
        except decimal.InvalidOperation:
            if est or iv:
                errors.append(where + "[%s] is %s in findings.tsv, not a number" % (tag, row["estimate"]))
            continue
        if inv:
            e, lo, hi = 1 / e, 1 / hi, 1 / lo
        if not est and not iv:
            errors.append(where + "bad tag [`%s`]: no figure before it" % tag)
            continue
        ties += 1
        pairs = []
        if est:
            pairs.append((est.start(1), est.group(1), e))
        if iv:
            pairs.append((iv.start(1), iv.group(1), lo))
            pairs.append((iv.start(2), iv.group(2), hi))
        if listing:
            print("%s[%s] %s" % (where, tag, " ".join(p[1] for p in pairs)))
        for off, txt, val in pairs:
            pv, dec, sep = shown(txt)
            want = render(val, dec, sep)
            if not agrees(txt, val):
                bad.append("%s:%d: [%s] page says %s, data says %s" % (shown_name, lineno(start + off), tag, txt, want))
                edits.append((start + off, start + off + len(txt), want))

    if fix and edits and not errors:
        out = orig
        for a, b, new in sorted(edits, reverse=True):
            out = out[:a] + new + out[b:]
        with open(page, "w") as f:
            f.write(out)
    return bad, errors, ties


def main(argv):
    fix = listing = False
    results = os.path.join(ROOT, "results")
    files = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--fix":
            fix = True
        elif a == "--list":
            listing = True
        elif a == "--results" and args:
            results = args.pop(0)
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif a.startswith("-"):
            print("figures.py: unknown option %s" % a, file=sys.stderr)
            return 2
        else:
            files.append(a)
    if not files:
        pages = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "results", "README.md")] + \
            sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
        files = [(p, os.path.relpath(p, ROOT)) for p in pages]
    else:
        files = [(p, p) for p in files]
    try:
        findings = load_findings(results)
    except OSError as e:
        print("figures.py: %s" % e)
        return 2
    cache = {}
    all_bad, all_err, counts = [], [], []
    for page, name in files:
        if not os.path.isfile(page):
            all_err.append("%s: no such page" % name)
            continue
        bad, err, n = check_page(page, name, findings, results, fix, cache, listing)
        all_bad += bad
        all_err += err
        counts.append((name, n))
    for line in all_err:
        print(line)
    if all_err:
        return 2
    for line in all_bad:
        print(("fixed: " if fix else "") + line)
    if listing:
        for name, n in counts:
            print("%s: %d ties" % (name, n))
    return 0 if fix or not all_bad else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

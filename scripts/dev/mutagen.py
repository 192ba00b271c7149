#!/usr/bin/env python3
"""mutagen: machine-made mutants, run against the suites that cover a file.

    scripts/dev/mutagen.py list FILE...          the mutants, one a line
    scripts/dev/mutagen.py run [--jobs N] [--retest] FILE...
    scripts/dev/mutagen.py survivors [FILE...]   those no equivalent/ line explains
    scripts/dev/mutagen.py score [FILE...]       the table (of the issue's files:
                                                 results/mutants-auto/score.tsv)
    (make mutants-auto runs "run" over the files of issue 35, then "score")

The hand-written faults of scripts/dev/mutants.txt are what their authors
thought of; these are made by rules, in the manner of universalmutator's
regular expressions, one change at a time, on every code line (comments,
preprocessor lines other than #define, and the inside of string and
character literals are left alone):
  cmp      a comparison loosened or tightened at its boundary, and negated
           (< to <= and >=, <= to < and >, == to !=, ...)
  logic    && <-> ||
  one      "+ 1" / "- 1" dropped, or doubled to 2
  const    a numeric literal nudged, N -> N+1 (0 -> 1, 1 -> 0); not an
           array's size in its declaration, where a larger buffer changes
           nothing a test could see
  call     a statement that is a lone call, deleted ("(void)0;")

A mutant is named by its file, line, rule and faulty line, so it is found
again after other lines move. "run" copies the tree once per job into a
scratch directory (with build/, so nothing unchanged is recompiled), then
for each mutant: writes it, compiles the file's sanitizer object (a mutant
that does not compile is "nocompile", left out of the score), and runs the
file's suites cheapest first until one fails:
  - the unit tests that call one of the file's functions, or that its
    hand-written faults in mutants.txt name;
  - the bats suites its hand-written faults name (and EXTRA_SUITES below),
    stopped at the first "not ok".
A suite that runs past 3x its time on the unchanged file plus 10 s has
been sent into a loop: the mutant is killed ("timeout"). Verdicts go to
results/mutants-auto/FILE.tsv as they come, so an interrupted run resumes
where it stopped; --retest runs the survivors no equivalent line explains
again (after a new test).

results/mutants-auto/equivalent/*.txt list the survivors that no input
can tell from the original, one a line, "FILE | ORIGINAL | FAULTY | why"
(the lines' text, stripped), one list a source file. A line names every
line of its file with that text, so its reason must hold for each. "score" writes score.tsv: per file, mutants generated, that
did not compile, killed, equivalent, surviving, and the score
killed / (killed + surviving).
"""
import glob
import hashlib
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from multiprocessing import Process, Queue

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(ROOT, "results", "mutants-auto")

# The files issue 35 names: where the verdicts a user acts on are computed.
ISSUE_FILES = [
    "src/measure/stats.c", "src/measure/hist.c", "src/measure/hist_spectrum.c",
    "src/commands/compare/compare.c", "src/commands/compare/compare_extract.c",
    "src/commands/compare/compare_out.c", "src/commands/compare/compare_read.c",
    "src/commands/compare/compare_group.c", "src/commands/compare/compare_json.c",
    "src/load/load_merge.c", "src/load/load_histjson.c",
    "src/shortener/cache/cluster.c", "src/shortener/cache/cluster_slots.c",
    "src/shortener/cache/track.c", "src/shortener/cache/trackmap.c",
    "src/shortener/cache/trackshard.c", "src/shortener/cli/serve_procs.c",
    "src/shortener/http/service_http.c", "src/shortener/service/request.c",
]
# Suites that cover a file beyond those its hand-written faults name.
EXTRA_SUITES = {
    "src/commands/compare/compare_out.c": ["cli:compare"],
    # an allocation that fails: compare's sweep fails every one of them
    "src/measure/stats.c": ["cli:failnth:compare"],
    # the only 503 the service gives is PostgreSQL's primary gone; a reply
    # that cannot be built is the allocation sweep's
    "src/shortener/http/service_http.c": ["cli:shortener_http",
                                          "cli:shortener_pg:primary killed",
                                          "cli:failnth:serve under"],
    # the only way a socket of ours becomes descriptor 0
    "src/shortener/cli/serve_procs.c": ["cli:shortener_pg:standard input closed"],
}
# Suites named in place of a whole suite (cli:NAME:REGEX runs the tests
# whose name matches): the capacity suite's searches take 45 s, and only
# its compare test reads compare_extract.c.
SUITE_SUBST = {"cli:capacity": "cli:capacity:compare"}

# Seconds a suite may run beyond 3x its time on the unchanged file before
# the mutant counts as sent into a loop.
GRACE = float(os.environ.get("MUTAGEN_GRACE", "10"))

CMP_TO = {
    "<": ["<=", ">="], "<=": ["<", ">"], ">": [">=", "<="],
    ">=": [">", "<"], "==": ["!="], "!=": ["=="],
}
CMP_RE = re.compile(r"(?<![<>=!&|+\-*/%^-])(<=|>=|==|!=|<(?![<=])|>(?![>=]))(?![=<>])")
LOGIC_RE = re.compile(r"&&|\|\|")
ONE_RE = re.compile(r"(\s*)([+-]) 1\b(?!\.)")
NUM_RE = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
CALL_STMT_RE = re.compile(r"^(\s*)[A-Za-z_]\w*(?:->\w+|\.\w+)*\s*\(.*\)\s*;\s*$")
# "type name[N]" (or "name[N] =") at a declaration: the size of a buffer.
ARRAY_DECL_RE = re.compile(r"^\s*(?:static\s+|const\s+)*[A-Za-z_][\w ]*?[\s*]\**\w+\s*\[(\d+)\]")


def mask(line, in_comment=False):
    """(the line with string/char literal contents and comments blanked,
    same length, so positions found in it apply to the original; whether
    a block comment is still open at its end). in_comment: one was open
    at its start."""
    out, i, n = [], 0, len(line)
    if in_comment:
        j = line.find("*/")
        if j < 0:
            return " " * n, True
        out.append(" " * (j + 2))
        i = j + 2
    while i < n:
        c = line[i]
        if c in "\"'":
            out.append(c)
            i += 1
            while i < n and line[i] != c:
                if line[i] == "\\" and i + 1 < n:
                    out.append("  ")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            if i < n:
                out.append(c)
                i += 1
            continue
        if line.startswith("//", i):
            out.append(" " * (n - i))
            break
        if line.startswith("/*", i):
            j = line.find("*/", i + 2)
            if j < 0:
                out.append(" " * (n - i))
                return "".join(out), True
            out.append(" " * (j + 2 - i))
            i = j + 2
            continue
        out.append(c)
        i += 1
    return "".join(out), False


def code_lines(text):
    """(line number, line, masked) for the lines with code outside
    comments, other than preprocessor lines (a #define's value is code)."""
    in_comment = False
    for no, line in enumerate(text.split("\n"), 1):
        m, in_comment_after = mask(line, in_comment)
        in_comment = in_comment_after
        s = m.strip()
        if not s or (s.startswith("#") and not s.startswith("#define")):
            continue
        yield no, line, m


def mutations(line, m):
    """(faulty line, rule) for every rule and occurrence."""
    define = m.lstrip().startswith("#define")
    if not define:
        for mt in CMP_RE.finditer(m):
            for to in CMP_TO[mt.group(1)]:
                yield line[:mt.start(1)] + to + line[mt.end(1):], "cmp"
        for mt in LOGIC_RE.finditer(m):
            to = "||" if mt.group(0) == "&&" else "&&"
            yield line[:mt.start()] + to + line[mt.end():], "logic"
        for mt in ONE_RE.finditer(m):
            yield line[:mt.start()] + line[mt.end():], "one"
            yield line[:mt.start()] + mt.group(1) + mt.group(2) + " 2" + line[mt.end():], "one"
    decl = ARRAY_DECL_RE.match(m)
    skip = decl.start(1) if decl else -1
    start = m.index(m.split()[1]) if define and len(m.split()) > 1 else 0
    for mt in NUM_RE.finditer(m, start):
        if mt.start() == skip:
            continue
        v = int(mt.group(1))
        to = v + 1 if v > 1 else 1 - v
        yield line[:mt.start()] + str(to) + line[mt.end():], "const"
    cm = CALL_STMT_RE.match(m)
    if cm and not re.match(r"\s*(return|if|while|for|switch|else)\b", m):
        yield cm.group(1) + "(void)0;", "call"


def generate(rel):
    """[(line number, rule, original line, faulty line)] for one file."""
    text = open(os.path.join(ROOT, rel)).read()
    out = []
    for no, line, m in code_lines(text):
        seen = set()
        for faulty, rule in mutations(line, m):
            if faulty != line and faulty not in seen:
                seen.add(faulty)
                out.append((no, rule, line, faulty))
    return out


def suites_for(rel):
    """The suites to run for a file, unit tests first."""
    specs = set(EXTRA_SUITES.get(rel, []))
    with open(os.path.join(ROOT, "scripts/dev/mutants.txt")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split(" | ")
            if len(parts) >= 4 and parts[0].strip() == rel:
                specs.update(":".join(x.split(":")[:2]) for x in parts[3].split())
    # unit tests that call a function the file defines (not static)
    text = open(os.path.join(ROOT, rel)).read()
    funcs = set(re.findall(r"^(?!static)[A-Za-z_][\w \*]*?\b(\w+)\([^;]*$", text, re.M))
    funcs -= {"if", "while", "for", "switch", "return", "sizeof"}
    for dirpath, _, names in os.walk(os.path.join(ROOT, "tests/unit")):
        for name in names:
            if not (name.startswith("test_") and name.endswith(".c")):
                continue
            src = open(os.path.join(dirpath, name)).read()
            if any(re.search(r"\b%s\s*\(" % re.escape(fn), src) for fn in funcs):
                unit = os.path.relpath(os.path.join(dirpath, name), os.path.join(ROOT, "tests/unit"))
                specs.add("unit:" + unit[:-2])
    specs = {SUITE_SUBST.get(x, x) for x in specs}
    return sorted(specs, key=lambda s: (not s.startswith("unit:"), s))


def keys(rel, muts):
    """One key a mutant: its file, line text, faulty text, and which of the
    lines with that text it is (so it is found again when lines move)."""
    nth, out = {}, []
    for no, _rule, orig, faulty in muts:
        n = nth.setdefault((orig.strip(), faulty.strip()), [0])
        n[0] += 1
        h = "%s\0%s\0%s\0%d" % (rel, orig.strip(), faulty.strip(), n[0])
        out.append(hashlib.sha1(h.encode()).hexdigest()[:12])
    return out


def tsv_path(rel):
    return os.path.join(OUT, rel.replace("/", "_") + ".tsv")


def read_verdicts(rel):
    """key -> row (dict) of the file's recorded verdicts."""
    rows = {}
    p = tsv_path(rel)
    if os.path.exists(p):
        with open(p) as f:
            for line in f:
                if line.startswith("#") or line.startswith("key\t"):
                    continue
                c = line.rstrip("\n").split("\t")
                if len(c) >= 8:
                    rows[c[0]] = dict(key=c[0], line=c[1], rule=c[2], verdict=c[3], by=c[4],
                                      secs=c[5], orig=c[6], faulty=c[7])
    return rows


def write_verdicts(rel, rows, order):
    os.makedirs(OUT, exist_ok=True)
    tmp = tsv_path(rel) + ".tmp"
    with open(tmp, "w") as f:
        f.write("key\tline\trule\tverdict\tby\tsecs\toriginal\tfaulty\n")
        for k in order:
            if k in rows:
                r = rows[k]
                f.write("\t".join([r["key"], str(r["line"]), r["rule"], r["verdict"], r["by"],
                                   str(r["secs"]), r["orig"].strip(), r["faulty"].strip()]) + "\n")
    os.replace(tmp, tsv_path(rel))


def equivalents():
    """{(file, original, faulty): why} from equivalent/*.txt."""
    eq = {}
    d = os.path.join(OUT, "equivalent")
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        for line in open(os.path.join(d, name)):
            if not line.strip() or line.startswith("#"):
                continue
            c = [x.strip() for x in line.rstrip("\n").split(" | ")]
            if len(c) == 4 and c[3]:
                eq[(c[0], c[1], c[2])] = c[3]
    return eq


def cli_suite(root, name):
    """The one tests/cli/FOLDER/NAME.bats that cli:NAME names (relative to
    root): a suite's folder says which set runs it, not what it tests."""
    found = glob.glob(os.path.join(root, "tests", "cli", "*", name + ".bats"))
    if len(found) != 1:
        raise RuntimeError("cli:%s: %d suites tests/cli/*/%s.bats, not one" % (name, len(found), name))
    return os.path.relpath(found[0], root)


class Scratch:
    """A copy of the tree with build/, where one job writes its mutants."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="kvtest-mutagen.")
        files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.split("\n")
        files = [f for f in files if f and os.path.exists(os.path.join(ROOT, f))
                 and not f.startswith("results/")] + ["build"]
        tar = subprocess.Popen(["tar", "-cf", "-", "--exclude=build/fuzz", "--exclude=build/cc-*",
                                "-T", "-"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        untar = subprocess.Popen(["tar", "-C", self.dir, "-xf", "-"], stdin=tar.stdout)
        tar.stdin.write("\n".join(files).encode())
        tar.stdin.close()
        tar.stdout.close()
        if untar.wait() != 0 or tar.wait() != 0:
            raise RuntimeError("copy of the tree failed")
        self.env = dict(os.environ, KVTEST=os.path.join(self.dir, "build/asan/kvtest"),
                        KVTEST_REL=os.path.join(self.dir, "kvtest"),
                        ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
                        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")

    def make(self, *targets):
        r = subprocess.run(["make", "-j1", *targets], cwd=self.dir, capture_output=True, text=True)
        return r.returncode == 0, (r.stdout + r.stderr)

    def suite_targets(self, spec):
        kind, name = spec.split(":", 2)[:2]
        if kind == "unit":
            return ["build/asan/tests/" + name]
        t = ["build/asan/kvtest"]
        if "KVTEST_REL" in open(os.path.join(self.dir, cli_suite(self.dir, name))).read():
            t.append("kvtest")
        return t

    def run_suite(self, spec, timeout):
        """(passed, seconds, why) for one suite; bats stops at its first failure."""
        kind, name, filt = (spec.split(":", 2) + [""])[:3]
        cmd = ["build/asan/tests/" + name] if kind == "unit" else \
            ["bats", "--tap"] + (["--filter", filt] if filt else []) + [cli_suite(self.dir, name)]
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, cwd=self.dir, env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        deadline = t0 + timeout

        def stop():
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()

        try:
            return self._watch(p, kind, t0, deadline, stop)
        except Stop:
            stop()
            raise

    def _watch(self, p, kind, t0, deadline, stop):
        failed, why = False, ""
        sel = selectors.DefaultSelector()
        sel.register(p.stdout, selectors.EVENT_READ)
        buf = b""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                stop()
                return False, time.monotonic() - t0, "timeout"
            if not sel.select(min(left, 1.0)):
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            if kind == "cli" and re.search(rb"^not ok ", buf, re.M):
                m = re.search(rb"^not ok \d+ (.*)$", buf, re.M)
                failed, why = True, m.group(1).decode(errors="replace")[:60] if m else ""
                stop()
                break
        sel.close()
        rc = p.wait()
        if rc != 0:
            failed = True
        return not failed, time.monotonic() - t0, why

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def run_file(scr, rel, retest, log):
    muts = generate(rel)
    suites = suites_for(rel)
    rows = read_verdicts(rel)
    order = keys(rel, muts)
    eq = equivalents()   # a survivor explained there is not run again
    todo = [(k, m) for k, m in zip(order, muts)
            if k not in rows or (retest and rows[k]["verdict"] == "survived" and
                                 (rel, m[2].strip(), m[3].strip()) not in eq)]
    if not todo:
        write_verdicts(rel, rows, order)
        return
    if not suites:
        log("%s: no suite covers it (no unit test calls it, none named in mutants.txt)" % rel)
        return
    path = os.path.join(scr.dir, rel)
    pristine = open(path).read()
    targets = sorted({t for s in suites for t in scr.suite_targets(s)})
    ok, out = scr.make(*targets)
    if not ok:
        log("%s: the unchanged tree does not build:\n%s" % (rel, out[-2000:]))
        return
    base = {}
    for s in suites:
        passed, secs, why = scr.run_suite(s, 1800)
        if not passed:
            log("%s: suite %s fails on the unchanged file (%s): skipped" % (rel, s, why))
            return
        base[s] = secs
    # the cheapest suite first: most mutants die in the first that runs
    suites.sort(key=lambda s: (not s.startswith("unit:"), base[s]))
    log("%s: %d mutants to run (%d recorded), suites %s" % (
        rel, len(todo), len(rows), " ".join("%s(%.0fs)" % (s, base[s]) for s in suites)))
    lines = pristine.split("\n")
    obj = "build/asan/" + rel[:-2] + ".o"
    try:
        for i, (k, (no, rule, orig, faulty)) in enumerate(todo, 1):
            t0 = time.monotonic()
            mutated = lines[:]
            mutated[no - 1] = faulty
            with open(path, "w") as f:
                f.write("\n".join(mutated))
            verdict, by = "survived", ""
            ok, out = scr.make(obj)
            if not ok:
                verdict = "nocompile"
            else:
                built = set()
                for s in suites:
                    need = [t for t in scr.suite_targets(s) if t not in built]
                    ok, out = scr.make(*need)
                    built.update(need)
                    if not ok:
                        verdict, by = "nocompile", s
                        break
                    passed, secs, why = scr.run_suite(s, 3 * base[s] + GRACE)
                    if not passed:
                        verdict = "timeout" if why == "timeout" else "killed"
                        by = s
                        break
            rows[k] = dict(key=k, line=no, rule=rule, verdict=verdict, by=by,
                           secs="%.1f" % (time.monotonic() - t0), orig=orig, faulty=faulty)
            write_verdicts(rel, rows, order)
            if verdict == "survived":
                log("%s:%d SURVIVED %s" % (rel, no, faulty.strip()))
            if i % 25 == 0:
                log("%s: %d of %d" % (rel, i, len(todo)))
    finally:
        with open(path, "w") as f:
            f.write(pristine)
        os.utime(path)  # a new time, so the next build recompiles it
        scr.make(*targets)


class Stop(Exception):
    pass


def on_term(_sig, _frame):
    raise Stop()


def worker(q, retest, logq):
    def log(msg):
        logq.put(msg)
    # SIGTERM from the parent unwinds: the suite under way is stopped
    # (Scratch.run_suite's own handler), the file restored, scratch removed.
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    scr = Scratch()
    try:
        while True:
            rel = q.get()
            if rel is None:
                break
            run_file(scr, rel, retest, log)
    except Stop:
        pass
    finally:
        scr.close()
        logq.put(None)


def survivors(rels):
    """Print each file's surviving mutants no equivalent.txt line explains."""
    eq = equivalents()
    for rel in rels:
        muts = generate(rel)
        rows = read_verdicts(rel)
        for k, (no, rule, orig, faulty) in zip(keys(rel, muts), muts):
            r = rows.get(k)
            if r and r["verdict"] == "survived" and (rel, orig.strip(), faulty.strip()) not in eq:
                print("%s:%d\t%s\t%s\t%s" % (rel, no, rule, orig.strip(), faulty.strip()))
    return 0


def score(rels=None):
    """The table of verdicts per file; written to score.tsv for the issue's
    files (the default), printed only for others."""
    eq = equivalents()
    tot = [0] * 6
    lines = ["file\tgenerated\tnocompile\tkilled\tequivalent\tsurviving\tscore"]
    for rel in rels or ISSUE_FILES:
        muts = generate(rel)
        n = len(muts)
        rows = read_verdicts(rel)
        live = set(keys(rel, muts))   # rows of lines since changed are stale
        rows = {k: r for k, r in rows.items() if k in live}
        nc = sum(r["verdict"] == "nocompile" for r in rows.values())
        kl = sum(r["verdict"] in ("killed", "timeout") for r in rows.values())
        sv = [r for r in rows.values() if r["verdict"] == "survived"]
        eqn = sum((rel, r["orig"].strip(), r["faulty"].strip()) in eq for r in sv)
        su = len(sv) - eqn
        unrun = n - len(rows)
        sc = "%.1f%%" % (100.0 * kl / (kl + su)) if kl + su else "-"
        if unrun > 0:
            sc += " (%d not run)" % unrun
        lines.append("%s\t%d\t%d\t%d\t%d\t%d\t%s" % (rel, n, nc, kl, eqn, su, sc))
        for j, v in enumerate([n, nc, kl, eqn, su, unrun]):
            tot[j] += v
    sc = "%.1f%%" % (100.0 * tot[2] / (tot[2] + tot[4])) if tot[2] + tot[4] else "-"
    if tot[5] > 0:
        sc += " (%d not run)" % tot[5]
    lines.append("total\t%d\t%d\t%d\t%d\t%d\t%s" % (tot[0], tot[1], tot[2], tot[3], tot[4], sc))
    if not rels:
        os.makedirs(OUT, exist_ok=True)
        with open(os.path.join(OUT, "score.tsv"), "w") as f:
            f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


def main(argv):
    if len(argv) < 2 or argv[1] not in ("list", "run", "score", "survivors"):
        sys.stderr.write("usage: mutagen.py list FILE... | run [--jobs N] [--retest] [FILE...]"
                         " | survivors [FILE...] | score [FILE...]\n")
        return 2
    cmd, args = argv[1], argv[2:]
    jobs, retest, files = 1, False, []
    while args:
        a = args.pop(0)
        if a == "--jobs" and args and args[0].isdigit() and int(args[0]) > 0:
            jobs = int(args.pop(0))
        elif a == "--retest":
            retest = True
        elif a.startswith("-"):
            sys.stderr.write("mutagen.py: unknown option %s\n" % a)
            return 2
        else:
            files.append(a)
    rels = []
    for path in files or ([] if cmd != "run" else ISSUE_FILES):
        rel = os.path.relpath(os.path.abspath(path), ROOT)
        if not rel.endswith(".c") or not os.path.isfile(os.path.join(ROOT, rel)):
            sys.stderr.write("mutagen.py: %s: no such C file in the tree\n" % path)
            return 2
        rels.append(rel)
    if cmd == "score":
        return score(rels)
    if cmd == "survivors":
        return survivors(rels or ISSUE_FILES)
    if cmd == "list":
        if not rels:
            sys.stderr.write("mutagen.py: list: name at least one FILE\n")
            return 2
        for rel in rels:
            for no, rule, _orig, faulty in generate(rel):
                print("%s:%d\t%s\t%s" % (rel, no, rule, faulty.strip()))
        return 0
    if not os.path.exists(os.path.join(ROOT, "build/sqlite3.o")):
        sys.stderr.write("mutagen.py: build/sqlite3.o missing: run make first\n")
        return 2
    # files with unit tests first (a second a mutant, so their survivors
    # are known early), then the biggest first, so the jobs end together
    rels.sort(key=lambda r: (not suites_for(r)[:1] or not suites_for(r)[0].startswith("unit:"),
                             -len(generate(r))))
    q, logq = Queue(), Queue()
    for rel in rels:
        q.put(rel)
    for _ in range(jobs):
        q.put(None)
    t0 = time.monotonic()
    procs = [Process(target=worker, args=(q, retest, logq)) for _ in range(jobs)]
    for p in procs:
        p.start()

    def stop_all(_sig, _frame):
        for p in procs:
            if p.is_alive():
                os.kill(p.pid, signal.SIGTERM)
        for p in procs:
            p.join()
        sys.stderr.write("mutagen.py: interrupted; the verdicts so far are kept\n")
        sys.exit(130)
    signal.signal(signal.SIGTERM, stop_all)
    signal.signal(signal.SIGINT, stop_all)
    done = 0
    while done < jobs:
        msg = logq.get()
        if msg is None:
            done += 1
        else:
            print("[%5.0fs] %s" % (time.monotonic() - t0, msg), flush=True)
    for p in procs:
        p.join()
    print("run took %.0f s" % (time.monotonic() - t0))
    return score(None if not files else rels)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

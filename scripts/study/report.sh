#!/usr/bin/env bash
# shellcheck disable=SC2016  # $names inside single quotes are jq variables
# report.sh OUTDIR: write OUTDIR/REPORT.md from the tables (csv/*.json),
# charts, environment and command log of an experiment run. Findings are
# stated as sentences with the numbers behind them; every chart is followed
# by the exact commands that produced its data and the chart itself.
# Safe to re-run; it only reads OUTDIR and replaces OUTDIR/REPORT.md.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_tools jq awk
kv_results_dir "$@"
R=$OUT/REPORT.md.tmp
: >"$R"
# The capacity part (scripts/study/capacity.sh) keeps its raw runs
# compressed in results/.
CAPRAW=""
if [ -s "$OUT/raw/capacity.jsonl" ] || [ -s "$OUT/raw/capacity.jsonl.gz" ]; then CAPRAW=1; fi
w() { printf '%s\n' "$@" >>"$R"; }

# Number formatting and comparison phrases shared by every jq program.
FMT='
def r($n): . as $x | if $x == null then null else (pow(10; $n)) as $p | ($x * $p | round) / $p end;
def n0: if . == null then "n/a" else (round | tostring
        | if length > 3 then .[:-3] + "," + .[-3:] else . end
        | if length > 7 then .[:-7] + "," + .[-7:] else . end) end;
def n1: if . == null then "n/a" else r(1) | tostring end;
def n2: if . == null then "n/a" else r(2) | tostring end;
def us: if . == null then "n/a" elif . >= 100 then n0 elif . >= 10 then n1 else n2 end;
def x: if . == null then "n/a" else r(2) | tostring | . + "x" end;
def vs($a; $b): if $a == null or $b == null then "n/a"
    elif $a <= $b then "\($b / $a | x) faster" else "\($a / $b | x) slower" end;
def pct: if . == null then "n/a" else r(1) | tostring | . + "%" end;
def sig3: if . >= 100 then r(0) elif . >= 10 then r(1) else r(2) end;
def sz3: if . == null then "n/a" elif . >= 1e6 then "\(. / 1e6 | sig3)M"
    elif . >= 1e3 then "\(. / 1e3 | sig3)k" else "\(round)" end;
'
# Ratios with their 95% interval (csv/intervals.json, from tables.sh): each
# is the median of per-round ratios of two variants measured in the same
# round. ci(KEY) is null when there is none (then the plain ratio of the
# medians is used). cmp(CI; "time"|"rate") words a comparison: a time ratio
# below 1, or a rate ratio above 1, is faster, but only where the interval
# excludes 1; rat(CI) a ratio that is no comparison (kvtest load / wrk).
# The same words in one place: tests/cli/study/report.bats checks them.
CIFMT='
def ci($k): ($cis[0][$k] // null);
def civ($c): if $c.covered then "95% CI \($c.lo | n2)–\($c.hi | n2)"
    else "range \($c.lo | n2)–\($c.hi | n2) over \($c.n) rounds, too few for a 95% CI" end;
def nodiff($c): "no difference measurable here (\($c.est | x), \(civ($c)))";
def cmp($c; $kind):
    ($c | if $kind == "rate" then {est: (1 / .est), lo: (1 / .hi), hi: (1 / .lo), n, covered} else . end) as $t
    | if $t.lo <= 1 and $t.hi >= 1 then nodiff($c)
      elif $t.hi < 1 then "\(1 / $t.est | x) faster (\(civ({lo: (1 / $t.hi), hi: (1 / $t.lo), n: $t.n, covered: $t.covered})))"
      else "\($t.est | x) slower (\(civ($t)))" end;
def cmpor($c; $kind; $fallback): if $c == null then $fallback else cmp($c; $kind) end;
def ivl($l; $h): if .[$l] != null and .[$h] != null then " (\(.[$l] | n2)–\(.[$h] | n2))" else "" end;
def ivl: ivl("ratio_lo"; "ratio_hi");
def rat($c): if $c.lo <= 1 and $c.hi >= 1 then nodiff($c) else "\($c.est | x) (\(civ($c)))" end;
'
FMT=$FMT$CIFMT
CIF=$C/intervals.json
if [ ! -s "$CIF" ]; then   # tables from before intervals: plain ratios
    CIF=$OUT/.intervals-none.json
    echo '{}' >"$CIF"
    kv_track_dir "$CIF"
fi
# j FILE [JQ OPTIONS...] PROGRAM: run PROGRAM (with FMT and the intervals)
# over FILE.
j() {
    local f=$1 prog=${!#}
    local opts=("${@:2:$#-2}")
    jq -r --slurpfile cis "$CIF" "${opts[@]}" "$FMT$prog" "$f"
}

# findings_tsv: OUT/findings.tsv, one line per headline finding with its
# figure and interval, for scripts/study/repro.sh to set two runs side by side:
#   id  label  estimate  lo  hi  kind
# kind: ratio (of times, NUM/DEN: below 1 NUM is faster), rate (of rates:
# above 1 NUM is faster), us (time added to a request, report-tls.sh) or
# bytes (a crossover size). lo/hi: NA when the
# run gave no interval; -inf/inf for an open end of a crossover interval.
# A crossover that did not happen has its kind (db_wins, files_win) as the
# estimate.
findings_tsv() {
    local sw=$C/sweep-crossover.json
    [ -s "$sw" ] || sw=/dev/null
    {
        printf 'id\tlabel\testimate\tlo\thi\tkind\n'
        jq -rn --slurpfile cis "$CIF" --slurpfile sw <(cat "$sw" 2>/dev/null || echo '[]') '
          def num: if . == null then "NA" else tostring end;
          ($cis[0] // {}) as $c
          | ([["reads-warm-blob", "warm reads, blob API / flat files (time)", "read/warm/db-blob/flat", "ratio"],
              ["reads-warm-sql", "warm reads, SQL / flat files (time)", "read/warm/db-sql/flat", "ratio"],
              ["reads-warm-mmap", "warm reads, blob API + mmap / flat files (time)", "read/warm/db-blob-mmap/flat", "ratio"],
              ["reads-warm-tree", "warm reads, tree / flat files (time)", "read/warm/tree/flat", "ratio"],
              ["reads-cold-blob", "cold reads, blob API / flat files (time)", "read/cold/db-blob/flat", "ratio"],
              ["reads-cold-sql", "cold reads, SQL / flat files (time)", "read/cold/db-sql/flat", "ratio"],
              ["reads-cold-mmap", "cold reads, blob API + mmap / flat files (time)", "read/cold/db-blob-mmap/flat", "ratio"],
              ["writes-wal", "writes, WAL / flat files (time)", "write/warm/db-wal/flat", "ratio"],
              ["writes-nosync", "writes, journal+sync off / flat files (time)", "write/warm/db-nosync/flat", "ratio"],
              ["writes-multitrans", "writes, one WAL txn per blob / one for all (time)", "write/warm/db-wal-multitrans/db-wal", "ratio"],
              ["lookup-valkey", "in-process lookups, valkey / sqlite (rate)", "lookup/valkey/sqlite", "rate"],
              ["lookup-nocache", "in-process lookups, sqlite page cache off / on (rate)", "lookup/sqlite-nocache/sqlite", "rate"],
              ["lookup-track", "in-process lookups, valkey+track / sqlite (rate)", "lookup/valkey-track/sqlite", "rate"],
              ["lookup-covering", "in-process lookups, covering / seed schema (rate)", "lookup/sqlite-covering/sqlite", "rate"],
              ["lookup-cold-valkey", "in-process lookups --cold, valkey / sqlite (rate)", "lookup-cold/valkey/sqlite", "rate"],
              ["http-valkey", "HTTP GET/s, valkey / no cache (rate)", "http/valkey/sqlite", "rate"],
              ["http-track", "HTTP GET/s, valkey+track / valkey (rate)", "http/valkey-track/valkey", "rate"],
              ["http-track-sqlite", "HTTP GET/s, valkey+track / no cache (rate)", "http/valkey-track/sqlite", "rate"],
              ["http-zipf-valkey", "HTTP GET/s with Zipf keys, valkey / no cache (rate)", "http-zipf/valkey/sqlite", "rate"],
              ["http-zipf-track", "HTTP GET/s with Zipf keys, valkey+track / valkey (rate)", "http-zipf/valkey-track/valkey", "rate"],
              ["http-zipf-track-sqlite", "HTTP GET/s with Zipf keys, valkey+track / no cache (rate)", "http-zipf/valkey-track/sqlite", "rate"],
              ["loadwrk-sqlite", "HTTP, kvtest load / wrk, no cache (rate)", "loadwrk/sqlite/wrk", "rate"],
              ["loadwrk-valkey", "HTTP, kvtest load / wrk, valkey (rate)", "loadwrk/valkey/wrk", "rate"],
              ["http-ceiling", "HTTP GET/s, service (no cache) / nginx fixed body (rate)", "ceiling/service/nginx", "rate"]][]
             | . as [$id, $lab, $key, $kind] | select($c[$key])
             | [$id, $lab, $c[$key].est, $c[$key].lo, $c[$key].hi, $kind]),
            ($c | to_entries | sort_by(.key)[] | select(.key | test("^memlimit/[^/]+/[^/]+/[^/]+/[^/]+/sqlite$"))
             | (.key | split("/")) as [$_, $leg, $mem, $keys, $conf]
             | ["memlimit-\($leg)-\($mem)-\($keys)-\($conf)",
                "db larger than memory, \(if $leg == "http" then "HTTP GET/s" else "in-process lookups" end) \(if $mem == "unlimited" then "without a memory limit" else "under \($mem)" end), \($keys) keys, \($conf) / sqlite (rate)",
                .value.est, .value.lo, .value.hi, "rate"]),
            (($sw[0] // [])[] as $p
             | ([$p.first_size, $p.last_size] | unique[]) as $s
             | ($c["sweep/\($p.pagesize)/\($s)"] // {}) as $k
             | select($k.est or ($s == $p.first_size and $p.first_ratio) or ($s == $p.last_size and $p.last_ratio))
             | ["sweep-\($p.pagesize)-\($s)", "sweep, files / blob API at \($s) bytes, \($p.pagesize)-byte pages (time)",
                ($k.est // (if $s == $p.first_size then $p.first_ratio else $p.last_ratio end)), $k.lo, $k.hi, "ratio"]),
            (($sw[0] // [])[]
             | ["crossover-\(.pagesize)", "crossover size, \(.pagesize)-byte pages",
                (if .kind == "cross" then .size else .kind end),
                (.ci // null | if . == null then null elif .lo_open then "-inf" else .lo end),
                (.ci // null | if . == null then null elif .hi_open then "inf" else .hi end), "bytes"])
          | map(num) | join("\t")'
        # The sweep's other stores (tables.sh: sweep-stores.json): each
        # one's crossover against the blob API, per page size, as above.
        if [ -s "$C/sweep-stores.json" ]; then
            jq -r '.crossovers[] | select(.store != "files")
                | ["crossover-\(.store)-\(.pagesize)", "crossover size, \(.store) / blob API, \(.pagesize)-byte pages",
                   (if .kind == "cross" then .size else .kind end),
                   (.ci // null | if . == null then null elif .lo_open then "-inf" else .lo end),
                   (.ci // null | if . == null then null elif .hi_open then "inf" else .hi end), "bytes"]
                | map(if . == null then "NA" else tostring end) | join("\t")' "$C/sweep-stores.json"
        fi
        # The four stores (tables.sh: stores.json): each store against the
        # database, per workload; the RocksDB anchor (db_bench / kvtest).
        if [ -s "$C/stores.json" ]; then
            jq -r '.[] | select(.kind == "time") | . as $o | ($o.members[] | select(.store == "database")) as $d
                | .members[] | select(.variant != null and .store != "database" and .ratio_to_db != null)
                | ["stores-\($o.mode)-\(.store)", "\($o.title), \(.store) (\(.label)) / database (\($d.label)) (time)",
                   .ratio_to_db, .ratio_lo, .ratio_hi, "ratio"] | map(if . == null then "NA" else tostring end) | join("\t")' "$C/stores.json"
        fi
        jq -r '.["anchor/rocksdb/dbbench/kvtest"] // empty
            | ["anchor-rocksdb", "RocksDB random reads, db_bench readrandom micros/op / kvtest mean per read (time)",
               .est, .lo, .hi, "ratio"] | map(tostring) | join("\t")' "$CIF"
        # The store tier (scripts/study/storetier.sh), from its own intervals.
        if [ -s "$C/storetier-summary.csv" ]; then bash "$KV_SCRIPTS/report-storetier.sh" --findings "$OUT"; fi
        # HTTPS and HTTP/2 (scripts/study/http/tlscost.sh).
        if [ -s "$C/tlscost.json" ]; then bash "$KV_SCRIPTS/report-tls.sh" --findings "$OUT"; fi
    } >"$OUT/findings.tsv"
}
param() { [ -s "$1" ] || return 0; awk -F'\t' -v k="$2" '$1 == k { print $2; exit }' "$1"; }

# part_note: when the blob part (raw/blobs-params.tsv) was run on its own
# after the run raw/bench.tsv describes, say so, with its kvtest and commit.
part_note() {
    local bs be el
    bs=$(param "$BP" started_utc)
    be=$(param "$OUT/raw/bench.tsv" started_utc)
    el=$(param "$OUT/raw/bench.tsv" elapsed_s)
    [ -n "$bs" ] && [ -n "$be" ] || return 0
    bs_s=$(date -u -d "$bs" +%s 2>/dev/null) || return 0
    be_s=$(date -u -d "$be" +%s 2>/dev/null) || return 0
    [ "$bs_s" -gt "$(awk -v a="$be_s" -v e="${el:-0}" 'BEGIN { printf "%d", a + e }')" ] || return 0
    w "*This section was measured by a later run of the blob part alone* (\`scripts/study/fasterthanfs.sh\` with the settings of \`make bench SCALE=${SCALE:-full}\`, started $bs$(awk -F'\t' '$1 == "blobs-total" { printf ", %.0f s", $2 }' "$OUT/logs/timings.tsv" 2>/dev/null); $(param "$BP" kvtest), commit $(param "$BP" git)); the other sections come from the run above." ""
}

# ------------------------------------------------------------ four stores
# csv/stores.json (tables.sh): one object per workload ("mode"), its
# members (database, files, lmdb, rocksdb), each with the variant standing
# for it and its ratio to the database's. kind "time" (µs per blob) or
# "bytes" (disk space); a workload of another kind (a crossover size per
# store, once kvtest sweep --stores gives one) needs a clause of its own
# in the finding's one() and a table in stores_section.
STORES_FMT='
def sname($s): {"database":"database", "files":"files", "lmdb":"LMDB", "rocksdb":"RocksDB"}[$s] // $s;
def mem($o; $s): ([$o.members[] | select(.store == $s)][0] // {});
def dbm($o): mem($o; "database");
def rci: {est: .ratio_to_db, lo: .ratio_lo, hi: .ratio_hi, n: .ratio_n, covered: .ratio_covered};
def vsdb($m): if $m.ratio_to_db == null then "n/a" elif $m.ratio_lo == null then "\($m.ratio_to_db | x) the time (no interval)" else cmp($m | rci; "time") end;
def verdict($m): if $m.store == "database" then "(reference)" elif $m.ratio_lo == null then "–"
    elif $m.ratio_hi < 1 then "faster" elif $m.ratio_lo > 1 then "slower" else "no difference measurable" end;
def mib: if . == null then "n/a" else . / 1048576 | r(1) | tostring end;
def pctd: r(1) | if . >= 0 then "+\(.)%" else "\(.)%" end;
'

# ------------------------------------------------------ sweep by store
# csv/sweep-stores.json (tables.sh, only from kvtest sweep --stores): the
# crossover of each store against the blob API per page size, and per blob
# size the fastest store against the runner-up.
SWEEP_FMT='
def stname($s): {"database":"the database", "files":"files", "lmdb":"LMDB", "rocksdb":"RocksDB"}[$s] // $s;
def stcap($s): {"database":"The database"}[$s] // stname($s);
def kib: "\(. / 1024) KiB";
def dbas($m): "\(if $m.api == "sql" then "SQL" else "blob API" end), \($m.page | kib) pages";
# A crossover entry: its size (or none), its interval, its words.
def xci: . as $e | (.ci // null) | if . == null then null
    elif .beyond == "below" then "below \($e.first_size | sz3)"
    elif .beyond == "above" then "above \($e.last_size | sz3)"
    else "\(if .lo_open then "below \($e.first_size | sz3)" else .lo | sz3 end)–\(if .hi_open then "above \($e.last_size | sz3)" else .hi | sz3 end)" end;
def xcell: if .kind == "cross" then "\(.size | sz3)" elif .kind == "db_wins" then "none: the database faster at every size"
    elif .kind == "files_win" then "none: \(stname(.store)) faster from the smallest size" else "no valid figures" end;
def xwords: stname(.store) as $n
    | if .kind == "cross" then "\($n) faster above \(.size | sz3) bytes\(xci | if . then " (95% CI \(.))" else "" end)"
      elif .kind == "db_wins" then "no crossover in \(.first_size | sz3)..\(.last_size | sz3) (the database faster at every size)"
      elif .kind == "files_win" then "no crossover (\($n) already faster at \(.first_size | sz3)\(if .slower_from then ", but slower than the database from \(.slower_from | sz3) on" else "" end))"
      else "no valid figures" end
    + (if (.line // "") | test("not monotonic") then " (the ratio crosses 1 more than once: noisy)" else "" end);
def xrat($c; $r): if $c then rat($c) elif $r then ($r | x) else "n/a" end;
def xcellr($c; $r): if $c then "\($c.est | x) (\($c.lo | n2)–\($c.hi | n2))" elif $r then ($r | x) else "–" end;
# The fastest store of a size against the runner-up, in words.
def fwords: stname(.runner_up // "none") as $n | .fastest_vs_runner_up as $c
    | if $c == null then "n/a"
      elif $c.lo == null then "\(1 / $c.est | x) faster than \($n) by the medians (no interval)"
      elif $c.hi < 1 then "\(1 / $c.est | x) faster than \($n) (\(civ({lo: (1 / $c.hi), hi: (1 / $c.lo), n: $c.n, covered: $c.covered})))"
      elif $c.lo > 1 then "\($c.est | x) slower than \($n) by the paired rounds (\(civ($c)))"
      else "no difference measurable from \($n) (\($c.est | x), \(civ($c)))" end;
def fverdict: if .verdict == "faster" then "\(stname(.fastest)) faster" elif .verdict then .verdict else "–" end;
'
# The sweep section's part on the stores: each store's crossover against
# the blob API per page size, then the fastest store at each blob size.
sweep_stores_section() {
    local f=$C/sweep-stores.json
    w "" "By store (\`kvtest sweep --stores $(jq -r '["db"] + .stores | join(",")' "$f")\`: each size's database, made with the first page size, also exported into $(j "$f" "$SWEEP_FMT"'[.stores[] | select(. != "files") | stname(.)] | join(" and ")'); every store read the same keys in the same order in the same interleaved rounds, and timed once per blob size, since none depends on SQLite's page size). Each store's crossover against the blob API of each page size, as \`kvtest sweep\` finds it (the size above which the store is faster, with its bootstrap interval), and the ratio store / blob API at both ends (the median of the per-round ratios, 95% CI):" "" \
      "| store | page size | crossover (store faster above) | 95% CI | store / blob API at the smallest size | at the largest size | database faster again from |" \
      "|---|---|---:|---:|---:|---:|---:|"
    j "$f" "$SWEEP_FMT"'.crossovers[]
        | "| \(stname(.store)) | \(.pagesize | kib) | \(xcell) | \(xci // "–") | \(.first_size | sz3): \(xcellr(.first_ci; .first_ratio)) | \(.last_size | sz3): \(xcellr(.last_ci; .last_ratio)) | \(if .slower_from then .slower_from | sz3 else "–" end) |"' >>"$R"
    w "" "kvtest sweep's lines for the stores (the files' are above):" ""
    j "$f" '.crossovers[] | select(.store != "files") | .line + "."' | sed 's/$/  /' >>"$R"
    w "" "Fastest store at each blob size (warm cache, random reads, medians over the rounds): $(j "$f" "$SWEEP_FMT"'["the database at its best of SQL and the blob API\(if (.page_sizes | length) > 1 then " over the page sizes" else "" end)"] + [.stores[] | stname(.)] | join(", ")'). \"Fastest / runner-up\" is the median over rounds of the fastest store's time per blob divided by the runner-up's in the same round, with its 95% interval: the fastest is called faster only where the interval lies below 1." "" \
      "| blob size | database µs/blob (best) | $(j "$f" "$SWEEP_FMT"'[.stores[] | "\(stname(.)) µs/blob"] | join(" | ")') | fastest | runner-up | fastest / runner-up (95% CI) | verdict |" \
      "|---:|---:|$(j "$f" '[.stores[] | "---:|"] | join("")')---|---|---:|---|"
    j "$f" "$SWEEP_FMT"'.stores as $st | .sizes[]
        | (.members | map({key: .store, value: .}) | from_entries) as $m
        | "| \(.size | sz3) | \(if $m.database then "\($m.database.us | us) (\(dbas($m.database)))" else "–" end) | \([$st[] | $m[.].us // null | if . then us else "–" end] | join(" | ")) | \(if .fastest then stname(.fastest) else "–" end) | \(if .runner_up then stname(.runner_up) else "–" end) | \(.fastest_vs_runner_up // null | if . == null then "–" elif .lo == null then "\(.est | x)" else "\(.est | x) (\(.lo | n2)–\(.hi | n2))" end) | \(fverdict) |"' >>"$R"
}

stores_section() {
    local bc
    bc=$(jq -r 'select(.bench.variant == "rocksdb" and .result.block_cache) | .result.block_cache' \
        "$OUT/raw/blobs.jsonl" 2>/dev/null | head -n1 || true)
    bc=${bc:+$bc bytes}
    bc=${bc:-the default size}
    w "" "### Four stores side by side: SQLite, files, LMDB, RocksDB" "" \
      "The same blobs in four stores: the SQLite database (its fastest API by median of SQL, blob API and blob API + mmap, per cache state), files (the faster layout by median of flat and tree), LMDB (\`kvtest export DB lmdb:DIR\`, pages filled in key order; reads in place in its map, every page of the value touched, nothing copied) and RocksDB (\`kvtest export DB rocksdb:DIR\`: no compression, flushed and compacted at the end; reads pinned in its block cache of $bc). Every store read the same keys in a round (\`--random\`, the same \`--seed\` and \`--count\`), its runs interleaved round by round with the other variants'. Writes, fresh content over the same random keys: *one transaction per run synced at its end* sets LMDB (one write transaction, committed and synced at the end) and RocksDB (unsynced WAL writes, one WAL sync at the end) beside SQLite in WAL mode (one transaction per run; the checkpoint at close syncs it); files have no such mode (their durable variant syncs every blob, see *Random writes*). *Never synced* (\`--nosync\`: MDB_NOSYNC, a WAL never synced) sets them beside SQLite with journal and sync off and files without fsync. \"vs database\" is the median over rounds of the store's time per blob divided by the database's in the same round, with its 95% interval: faster or slower only where it excludes 1. Rank: by median time." "" \
      "| workload | store | measured as | µs per blob (median) | vs database (95% CI) | verdict | rank |" \
      "|---|---|---|---:|---:|---|---:|"
    j "$C/stores.json" "$STORES_FMT"'.[] | select(.kind == "time") | . as $o
        | ([.members[] | select(.us != null)] | sort_by(.us) | map(.store)) as $rank
        | .members[] | . as $m
        | "| \($o.title) | \(sname(.store)) | \(.label // "no equivalent") | \(if .us then (.us | us) else "–" end) | \(if .store == "database" then "1x" elif .ratio_to_db then "\(.ratio_to_db | x)\(ivl)" else "–" end) | \(verdict($m)) | \(($rank | index($m.store)) // null | if . == null then "–" else . + 1 | tostring end) |"' >>"$R"
    j "$C/stores.json" "$STORES_FMT"'.[] | select(.kind == "time" and .runner_up) | . as $o
        | def named($s): sname($s) + (mem($o; $s).label | if . == null or . == sname($s) then "" else " (\(.))" end);
          "", "\($o.title | .[:1] | ascii_upcase)\($o.title | .[1:]): \(named($o.fastest)) against the runner-up \(named($o.runner_up)): \(if $o.fastest_vs_runner_up then cmp($o.fastest_vs_runner_up; "time") else "n/a" end)."' >>"$R"
    if jq -e 'any(.[]; .kind == "bytes")' "$C/stores.json" >/dev/null; then
        w "" "Disk space (\`kvtest space\`, once, after the exports and before any write; files: the smaller layout):" "" \
          "| store | layout | files | content MiB | on disk MiB | vs database |" "|---|---|---:|---:|---:|---:|"
        j "$C/stores.json" "$STORES_FMT"'.[] | select(.kind == "bytes") | .members[] | select(.bytes != null)
            | "| \(sname(.store)) | \(.label) | \(.files | n0) | \(.content_bytes | mib) | \(.bytes | mib) | \((.ratio_to_db - 1) * 100 | pctd) |"' >>"$R"
    fi
    image stores "Four stores: time per blob relative to the database"
    w "" "<details><summary>Commands</summary>" "" '```sh'
    cmds '^blobs-' | grep -E 'lmdb:|rocksdb:' >>"$R" || true
    w "# SCRATCH: any empty directory; OUT: this directory"
    plotlines stores
    w '```' "" "</details>"
}

# ---------------------------------------------------------------- anchors
# scripts/study/anchors.sh: kvtest's LMDB figure against mdb_stat, its
# RocksDB reads against db_bench. The 1.2x target: met when the whole 95%
# interval of db_bench / kvtest lies within 1/1.2..1.2.
ANCHOR_FMT='
def within($c): (1 / 1.2) as $a | (if $c.covered then "95% interval" else "range" end) as $i
    | if $c == null then "n/a"
    elif $c.lo >= $a and $c.hi <= 1.2 then "within 1.2x of each other (the whole \($i) lies within 0.83–1.2): target met"
    elif $c.hi < $a or $c.lo > 1.2 then "**not within 1.2x** (the whole \($i) lies outside 0.83–1.2): target missed"
    elif $c.est >= $a and $c.est <= 1.2 then "within 1.2x by the estimate, but the \($i) reaches beyond 0.83–1.2: target not shown"
    else "**outside 1.2x by the estimate**, the \($i) reaching into 0.83–1.2: target not shown" end;
def rat2($c): if $c == null then "n/a" else "\($c.est | r(3))x (\(civ($c)))" end;
'
lmdb_anchor_words() {
    [ -s "$C/anchors-lmdb.csv" ] || return 0
    awk -F, 'NR > 1 { n++; if ($8 == "yes") y++; s = s (s == "" ? "" : ", ") sprintf("%s bytes %s", $4, ($1 == "exported" ? "after the export" : $1 == "after-writes" ? "after the writes" : "(" $1 ")"))
                      if ($8 != "yes") bad = bad (bad == "" ? "" : "; ") sprintf("%s: mdb_stat %s bytes, kvtest %s", $1, $4, $7) }
        END { if (n == 0) exit
              if (y == n) printf "LMDB: `mdb_stat -e` (pages used x page size) and `kvtest stat lmdb:DIR` (used_bytes) agree exactly (%s)", s
              else printf "LMDB: `mdb_stat -e` and `kvtest stat lmdb:DIR` **disagree** (%s)", bad }' "$C/anchors-lmdb.csv"
}
anchors_finding() {
    local l r=""
    l=$(lmdb_anchor_words)
    if [ -s "$C/anchors-rocksdb.csv" ]; then
        r=$(j "$CIF" "$ANCHOR_FMT"'
            ci("anchor/rocksdb/dbbench/kvtest") as $c | ci("anchor-us/dbbench_us_per_op") as $b
            | ci("anchor-us/kvtest_mean_us") as $k | ci("anchor-us/kvtest_us_per_blob") as $kb
            | if $c then "RocksDB: db_bench'"'"'s readrandom \($b.est | us) µs per read (micros/op, median of \($c.n) rounds) against kvtest'"'"'s \($k.est | us) µs (mean per read; \($kb.est | us) µs per blob from open to close) on the same keys, value sizes and block cache: db_bench / kvtest \(rat2($c)), \(within($c))" else empty end')
    fi
    [ -n "$l$r" ] || return 0
    printf -- '- **Anchors** (`scripts/study/anchors.sh`, kvtest against the engines'"'"' own tools): %s.\n' \
        "$(printf '%s\n' "$l" "$r" | sed '/^$/d' | paste -sd';' | sed 's/;/; /')"
}
anchors_section() {
    w "" "### Anchors: kvtest against mdb_stat and db_bench" "" \
      "Before a figure of kvtest's LMDB or RocksDB store is compared with SQLite's, it is checked against the engine's own tool (\`scripts/study/anchors.sh\`, run by \`scripts/study/fasterthanfs.sh\` after the reads and before the writes, which would change the stores; the LMDB check once more after the writes)."
    if [ -s "$C/anchors-lmdb.csv" ]; then
        w "" "**LMDB, bytes used.** \`mdb_stat -e DIR\` prints the environment's \"Number of pages used\" and \"Page size\"; \`kvtest stat lmdb:DIR --json\` gives \`result.lmdb.used_bytes\`, which must be their product exactly." "" \
          "| state | mdb_stat pages used | page size | mdb_stat bytes | kvtest used_bytes | agree |" "|---|---:|---:|---:|---:|---|"
        awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s |\n", $1, $3, $2, $4, $7, ($8 == "yes" ? "yes" : "**no**") }' "$C/anchors-lmdb.csv" >>"$R"
    fi
    if [ -s "$C/anchors-rocksdb.csv" ]; then
        w "" "**RocksDB, random reads.** db_bench (RocksDB's own benchmark, linked to the same librocksdb as kvtest) fills its own database in a scratch directory and compacts it (\`--benchmarks=fillseq,compact,readrandom\`, its readrandom a warm-up, as kvtest's first run), then db_bench (\`--use_existing_db=1 --readonly=1 --benchmarks=readrandom\`) and \`kvtest run rocksdb:DIR --random\` on the study's export alternate round by round (odd rounds db_bench first), each a fresh process, the round number as both seeds. The figure compared is the time per read with the database open: db_bench's micros/op (the wall time of its read loop over its reads) against kvtest's mean latency (\`result.latency.mean\`: its per-read timer is chained from one read to the next, so like db_bench's loop time it also holds the loop's bookkeeping). kvtest's \`us_per_blob\` also spans opening and closing the database, as SQLite's kvtest times a run; that difference is in the last column." "" \
          "| round | first | db_bench µs/op | db_bench P50 / P99 µs | kvtest mean µs | kvtest p50 / p99 µs | kvtest µs per blob (open to close) | kvtest open + close ms |" \
          "|---:|---|---:|---:|---:|---:|---:|---:|"
        awk -F, 'function f(v, d) { return v == "" || v == "NA" ? "–" : sprintf("%." d "f", v) }
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            function v(k) { return $(c[k]) }
            { printf "| %s | %s | %s | %s / %s | %s | %s / %s | %s | %s |\n", v("round"), v("first"), f(v("dbbench_us_per_op"), 2),
                  f(v("dbbench_p50_us"), 2), f(v("dbbench_p99_us"), 1), f(v("kvtest_mean_us"), 2), f(v("kvtest_p50_us"), 2),
                  f(v("kvtest_p99_us"), 1), f(v("kvtest_us_per_blob"), 2), f(v("kvtest_open_close_ms"), 1) }' "$C/anchors-rocksdb.csv" >>"$R"
        j "$CIF" --arg reads "$(awk -F, 'NR == 2 { for (i = 1; i <= NF; i++) if (h[i] == "kvtest_reads") print $i; exit } NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i }' "$C/anchors-rocksdb.csv")" \
            --arg share "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $(c["kvtest_seconds"]) > 0 { print $(c["kvtest_open_close_ms"]) / ($(c["kvtest_seconds"]) * 1000) * 100 }' "$C/anchors-rocksdb.csv" | sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }')" \
            "$ANCHOR_FMT"'
            ci("anchor/rocksdb/dbbench/kvtest") as $c | ci("anchor/rocksdb-p50/dbbench/kvtest") as $p
            | ci("anchor/rocksdb-blob/dbbench/kvtest") as $b | ci("anchor-us/kvtest_open_close_ms") as $oc
            | "", "db_bench / kvtest, the median of the per-round ratios with its 95% interval: **\(rat2($c))** per read (micros/op over kvtest'"'"'s mean): \(within($c)). The medians: \(rat2($p)) (P50 over p50; db_bench interpolates its percentiles within coarse histogram buckets, such as 4–6 and 6–10 µs, so this is the less exact figure); \(rat2($b)) against kvtest'"'"'s `us_per_blob`. Opening and closing the database added \($oc.est | n1) ms to each kvtest run of \($reads | tonumber | n0) reads (median \($share | tonumber | r(2))% of its time), so `us_per_blob` and the mean per read differ by that share: here the choice of figure \(if ($share | tonumber) < 2 then "hardly matters" else "matters" end)."' >>"$R"
        if [ -s "$C/anchors-rocksdb-settings.tsv" ]; then
            w "" "The settings each side ran with (*matched*: the same on both; *read path*: it changes what a read of the open database does; the OPTIONS files RocksDB wrote for each database, diffed, are in \`logs/anchors-rocksdb-options.diff\` of the run):" "" \
              "| setting | kvtest | db_bench | matched | read path |" "|---|---|---|---|---|"
            awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, ($4 == "yes" ? "yes" : "**no**"), $5 }' \
                "$C/anchors-rocksdb-settings.tsv" >>"$R"
            un=$(awk -F'\t' 'NR > 1 && $4 != "yes" && $5 == "yes" { printf "%s%s", (n++ ? "; " : ""), $1 }' "$C/anchors-rocksdb-settings.tsv")
            if [ -z "$un" ]; then
                w "" "Every setting on the read path matched."
            else
                w "" "Unmatched on the read path (rows marked **no** above; the ratio above includes their effect): ${un}."
            fi
        fi
    fi
    w "" "<details><summary>Commands</summary>" "" '```sh'
    cmds '^anchors-' >>"$R"
    w "# SCRATCH: any empty directory; OUT: this directory" '```' "" "</details>"
}

# Distinct commands of the given command-log tags, ports and random
# directory names normalised so repeated rounds collapse into one line.
cmds() {
    local pat=$1
    [ -s "$OUT/commands.tsv" ] || return 0
    awk -F'\t' -v p="$pat" '$1 ~ p { print $2 }' "$OUT/commands.tsv" |
        sed -E 's/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g; s/(--port|-p) [0-9]+/\1 PORT/g; s/--seed [0-9]+ --json/--seed N --json/; s/(--benchmarks=readrandom --reads=[0-9]+) --seed=[0-9]+/\1 --seed=N/; s#\$OUT/scratch/[a-z]+\.[A-Za-z0-9]{6}/#$SCRATCH/#g' |
        awk '!seen[$0]++'
}
plotcmd() { grep -F "charts/$1.png'" "$OUT/charts/commands.txt" 2>/dev/null | head -n1 || true; }
# image NAME TITLE: a section's chart, where plot.sh drew it; plotlines
# NAME: the commands that redraw it, for the section's commands block.
image() { [ ! -s "$OUT/charts/$1.png" ] || w "" "![$2](charts/$1.png)"; }
plotlines() { [ ! -s "$OUT/charts/$1.png" ] || w "bash scripts/study/plot.sh \$OUT" "$(plotcmd "$1")"; }
figure() { # figure NAME TITLE TAGPATTERN
    local name=$1 title=$2 pat=$3
    [ -s "$OUT/charts/$name.png" ] || return 0
    w "" "![$title](charts/$name.png)" "" \
      "<details><summary>Commands behind this figure</summary>" "" '```sh'
    cmds "$pat" >>"$R"
    w "# SCRATCH: any empty directory; OUT: this directory; PORT: a free port" \
      "bash scripts/study/tables.sh \$OUT && bash scripts/study/plot.sh \$OUT" "$(plotcmd "$name")" '```' "" "</details>"
}

# provenance_header: what made these figures, from the run's own records
# (raw/bench.tsv, raw/parts.tsv: bench.sh) and from every kvtest --json
# object kept in raw/ (its env names the commit it was built from): the
# commit, whether binary and tree were clean, the kernel, when the machine
# booted, each part's start and length. Figures from more than one commit
# (a part run again later) are named with their counts, never hidden.
provenance_header() {
    local B=$OUT/raw/bench.tsv commits
    if [ -n "$(param "$B" commit)" ]; then
        w "" "Commit $(param "$B" commit) (binary built $(param "$B" binary), tree $(param "$B" tree)); kvtest $(param "$B" kvtest); $(param "$B" kernel); machine booted $(param "$B" booted_utc)."
    fi
    if [ -s "$OUT/raw/parts.tsv" ]; then
        w "" "| part | started (UTC) | seconds | status |" "|---|---|---|---|"
        awk -F'\t' 'NR > 1 { printf "| %s %s | %s | %.0f | %s |\n", $1, $2, $3, $4, $5 }' "$OUT/raw/parts.tsv" >>"$R"
    fi
    # The machine's pace at the start and the end (scripts/study/probe.sh).
    if [ -s "$OUT/raw/probe.tsv" ]; then
        w "" "The machine at the start and the end of the run (\`scripts/study/probe.sh\`, \`raw/probe.tsv\`; no kvtest involved):" "" \
          "| reference | start | end |" "|---|---|---|"
        awk -F'\t' '
            NR > 1 { v[$1, $3] = $4; u[$3] = $5; if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 } }
            END {
                name["cpu_loop_ms"] = "fixed CPU loop"; name["steal_pct"] = "CPU stolen by the hypervisor, 2 s idle"
                name["loopback_rtt_us"] = "loopback round trip (valkey-benchmark -c 1)"
                name["fsync_write_us"] = "synced 4 KiB write to the output disk"
                for (i = 1; i <= n; i++) {
                    m = order[i]
                    if (m ~ /jiffies$/) continue
                    printf "| %s | %s %s | %s %s |\n", name[m] ? name[m] : m, v["start", m], u[m], v["end", m], u[m]
                }
                dt = v["end", "total_jiffies"] - v["start", "total_jiffies"]
                if (dt > 0 && v["start", "steal_jiffies"] != "")
                    printf "| CPU stolen over the whole run | %.2f %% | |\n", 100 * (v["end", "steal_jiffies"] - v["start", "steal_jiffies"]) / dt
            }' "$OUT/raw/probe.tsv" >>"$R"
    fi
    # Every kvtest run kept in raw/, by the commit its binary names.
    [ -d "$OUT/raw" ] || return 0
    commits=$(find "$OUT/raw" -maxdepth 1 \( -name '*.jsonl' -o -name '*.jsonl.gz' \) -print0 |
        xargs -0 -r zcat -f | jq -r 'select(type == "object" and .env) | (.env.commit // "not recorded")
            + (if .env.dirty == true then " with changes" else "" end)' 2>/dev/null |
        sort | uniq -c | sort -rn | awk '{ n = $1; $1 = ""; sub(/^ /, ""); printf "%s%s (%d runs)", sep, $0, n; sep = ", " }')
    [ -z "$commits" ] || w "" "The kvtest runs kept in \`raw/\` name their build: $commits."
}

SCALE=$(param "$OUT/raw/bench.tsv" scale)
ELAPSED=$(param "$OUT/raw/bench.tsv" elapsed_s)
BP=$OUT/raw/blobs-params.tsv
SP=$OUT/raw/shortener-params.tsv

w "# kvtest results" ""
if [ -n "$SCALE" ]; then
    w "Produced by \`make bench SCALE=$SCALE\` (scripts/study/bench.sh) on $(kv_envl date_utc)$([ -n "$ELAPSED" ] && printf ' in %.0f s' "$ELAPSED")."
else
    w "Produced by the kvtest experiment scripts on $(kv_envl date_utc)."
fi
w "Machine: $(kv_envl cpu), $(kv_envl memory) RAM, $(kv_envl kernel), $(kv_envl os); output directory on $(kv_envl 'filesystem of output dir' | cut -d' ' -f1). Full environment at the end."
provenance_header
w "" "Every figure is the median over measured rounds; variants were interleaved round by round, and warm-up rounds were discarded (see *Methodology* in the project's docs/study.md). Each ratio is the median of the per-round ratios of two paths measured in the same round, with its 95% interval (percentile bootstrap over the paired rounds, 10000 resamples, fixed seed: \`build/ratioci\`); a ratio is called faster or slower only where its interval excludes 1, otherwise *no difference measurable here*. Below 4 paired rounds the bootstrap cannot reach 95%: such ratios give the range of the resampled medians instead. Intervals are in \`csv/intervals.json\` and the \`*_lo\`, \`*_hi\` columns of \`csv/\`; the headline findings with their intervals are in \`findings.tsv\`." ""

# ------------------------------------------------------------- findings
w "## Findings" ""
if [ -s "$C/reads.json" ]; then
    j "$C/reads.json" '
      def g($v; $c): (map(select(.variant == $v and .cache == $c))[0] // {});
      def vf($v): cmpor(ci("read/warm/\($v)/flat"); "time"; vs(g($v; "warm").us; g("flat"; "warm").us));
      g("flat"; "warm") as $f | g("db-blob"; "warm") as $b | g("db-sql"; "warm") as $s
      | g("db-blob-mmap"; "warm") as $m | g("tree"; "warm") as $t
      | if $f.us and $b.us then
        "- **Reads, warm cache** (\($b.rounds) rounds of \($b.count | n0) random reads): SQLite blob-API reads took \($b.us | us) µs per blob against \($f.us | us) µs for separate flat files: \(vf("db-blob")). SQL `SELECT` reads: \($s.us | us) µs, vs files \(vf("db-sql")); blob API with the whole database memory-mapped: \($m.us | us) µs, vs files \(vf("db-blob-mmap")); files in a tree of directories: \($t.us | us) µs, vs flat files \(vf("tree"))."
        else empty end' >>"$R"
    j "$C/reads.json" --arg size "$(param "$BP" size)" '
      def g($v; $c): (map(select(.variant == $v and .cache == $c))[0] // {});
      def vf($v): cmpor(ci("read/cold/\($v)/flat"); "time"; vs(g($v; "cold").us; g("flat"; "cold").us));
      g("flat"; "cold") as $f | g("db-blob"; "cold") as $b | g("db-sql"; "cold") as $s
      | g("db-blob-mmap"; "cold") as $m | g("db-blob-ra-off"; "cold") as $bra | g("flat-ra-off"; "cold") as $fra
      | if $f.us and $b.us then
        "- **Reads, cold cache** (page cache evicted before every run; at most \([.[] | select(.cache == "cold") | .resident // 0] | max * 100 | pct) of the files stayed resident\(if all(.[] | select(.cache == "cold"); .effective != false) then "" else ", **eviction did not fully take hold**" end)): blob API \($b.us | us) µs vs flat files \($f.us | us) µs per blob: \(vf("db-blob")); SQL \($s.us | us) µs, vs files \(vf("db-sql")); mmap \($m.us | us) µs, vs files \(vf("db-blob-mmap")). Bytes read from storage per blob: database \(($b.storage_per_blob // null) | if . then (. / 1024 | n1) + " KiB" else "n/a" end), files \(($f.storage_per_blob // null) | if . then (. / 1024 | n1) + " KiB" else "n/a" end), for blobs of \($size) bytes on average.\(if $bra.us then " With readahead off (`--fadvise random`): blob API \($bra.us | us) µs and \(($bra.storage_per_blob // 0) / 1024 | n1) KiB per blob, flat files \($fra.us | us) µs and \(($fra.storage_per_blob // 0) / 1024 | n1) KiB." else "" end)"
        else empty end' >>"$R"
fi
if [ -s "$C/space.csv" ]; then
    awk -F, 'NR > 1 { a[$1] = $4; c[$1] = $3; o[$1] = $5 }
        END { if (a["db"] > 0 && a["flat"] > 0)
            printf "- **Disk space** (one measurement: sizes do not vary between rounds): the database took %.1f MiB for %.1f MiB of blob content; the flat export took %.1f MiB (%+.1f%%, so the database is %.1f%% smaller) and the tree %.1f MiB (%+.1f%%).\n",
                a["db"], c["db"], a["flat"], o["flat"], (1 - a["db"] / a["flat"]) * 100, a["tree"], o["tree"] }' \
        "$C/space.csv" >>"$R"
fi
if [ -s "$C/writes.json" ]; then
    j "$C/writes.json" '
      def g($v): (map(select(.variant == $v))[0] // {});
      g("flat") as $f | g("db-wal") as $w | g("db-nosync") as $n | g("flat-fsync") as $fs
      | g("db-wal-multitrans") as $mt | g("tree") as $t
      | if $f.us and $w.us then
        "- **Writes** (fresh content over \($w.count | n0) blobs in random order, \($w.rounds) rounds): SQLite in WAL mode \($w.us | us) µs per blob vs flat files \($f.us | us) µs: \(cmpor(ci("write/warm/db-wal/flat"); "time"; vs($w.us; $f.us))); SQLite with journal and sync off \($n.us | us) µs, vs files \(cmpor(ci("write/warm/db-nosync/flat"); "time"; vs($n.us; $f.us)))\(if $t.us then "; tree files \($t.us | us) µs" else "" end). Durable variants: files with `fsync` after each \($fs.us | us) µs per blob; one WAL transaction per blob (`--multitrans`) \($mt.us | us) µs, vs one transaction for all \(cmpor(ci("write/warm/db-wal-multitrans/db-wal"); "time"; vs($mt.us; $w.us)))."
        else empty end' >>"$R"
fi
if [ -s "$C/sweep-crossover.json" ]; then
    # The ratio at both ends of the sweep and the crossover, per page size;
    # the crossover line (and its interval) as kvtest sweep words it.
    j "$C/sweep-crossover.json" '
      def at($p; $s; $r): ci("sweep/\($p)/\($s)") as $c | if $c then rat($c) else ($r | x) end;
      def noci: if any(.[]; ci("sweep/\(.pagesize)/\(.first_size)") == null) then " (no intervals: this kvtest sweep gave no per-run times)" else "" end;
      def cross: if .kind == "cross" then "files faster above \(.size | sz3) bytes\(.ci // null | if . then " (95% CI \(if .lo_open then "below the smallest size" else .lo | sz3 end)–\(if .hi_open then "above the largest size" else .hi | sz3 end))" else "" end)"
          elif .kind == "db_wins" then "no crossover in \(.first_size | sz3)..\(.last_size | sz3) (the database faster at every size)"
          elif .kind == "files_win" then "no crossover (files already faster at \(.first_size | sz3))"
          else "no valid figures" end
          + (if (.line // "") | test("not monotonic") then " (the ratio crosses 1 more than once: noisy)" else "" end);
      . as $all | if length == 0 then empty else
        (.[0] | "- **Blob-size sweep** (warm cache, random reads, \(.pagesize / 1024) KiB pages): reading separate files took, relative to the blob API, \(at(.pagesize; .first_size; .first_ratio)) the time at \(.first_size | sz3) bytes and \(at(.pagesize; .last_size; .last_ratio)) at \(.last_size | sz3) bytes\($all | noci). \(.line)."),
        (if length > 1 then
          "- **Crossover by page size** (the same blobs in one database per page size; the files, which do not depend on it, timed once per blob size): "
          + (map("\(.pagesize / 1024) KiB pages: \(cross), files/blob API \(at(.pagesize; .first_size; .first_ratio)) at \(.first_size | sz3) and \(at(.pagesize; .last_size; .last_ratio)) at \(.last_size | sz3)") | join("; ")) + "."
         else empty end)
      end' >>"$R"
fi
if [ -s "$C/sweep-stores.json" ]; then
    # The sweep with the other stores: their crossovers against the blob
    # API, and the fastest store by blob size against the runner-up,
    # consecutive sizes with the same fastest store in one clause.
    j "$C/sweep-stores.json" "$SWEEP_FMT"'
      ([.crossovers[] | select(.store != "files")] | group_by(.store)) as $g
      | (if ($g | length) > 0 then
          "- **Crossover by store** (each store against the SQLite blob API of each page size, in the sweep'"'"'s rounds): "
          + ([$g[] | "\(stname(.[0].store)): " + (map("\(.pagesize | kib) pages \(xwords), \(stname(.store)) / blob API \(xrat(.first_ci; .first_ratio)) at \(.first_size | sz3) and \(xrat(.last_ci; .last_ratio)) at \(.last_size | sz3)") | join("; "))] | join(". ")) + "."
         else empty end),
        (.sizes as $s | if ($s | length) == 0 then empty else
          (reduce $s[] as $x ([]; if length > 0 and .[-1][0].fastest == $x.fastest then .[:-1] + [.[-1] + [$x]] else . + [[$x]] end)) as $runs
          | "- **Fastest store by blob size** (the sweep'"'"'s warm random reads, \($s | length) sizes from \($s[0].size | sz3) to \($s[-1].size | sz3); the database at its best of SQL and the blob API\(if (.page_sizes | length) > 1 then " over the page sizes" else "" end); against the runner-up of each size, paired by round): "
            + ([$runs[] | "\(stcap(.[0].fastest // "none")) \(if ($runs | length) == 1 then "at every size" elif length == 1 then "at \(.[0].size | sz3)" else "from \(.[0].size | sz3) to \(.[-1].size | sz3)" end): "
                + (map("at \(.size | sz3) \(fwords)") | join("; "))] | join(". ")) + "."
          end)' >>"$R"
fi
if [ -s "$C/stores.json" ]; then
    # The four stores: per workload the fastest by median, against the
    # runner-up, and every store against the database, with intervals.
    j "$C/stores.json" "$STORES_FMT"'
      def one($o):
        if $o.kind == "time" then
          (dbm($o)) as $d | (mem($o; $o.fastest)) as $f | (mem($o; $o.runner_up // "")) as $u
          | "\($o.title | .[:1] | ascii_upcase)\($o.title | .[1:]): fastest \(if $o.fastest == "database" then "the database (\($f.label), " else "\(sname($o.fastest)) (\(if $f.label != sname($o.fastest) then "\($f.label), " else "" end)" end)\($f.us | us) µs per blob)"
            + (if $o.runner_up and $o.fastest != "database" and $o.runner_up != "database" then
                 ", against the runner-up \(sname($o.runner_up)) (\($u.us | us) µs) \(if $o.fastest_vs_runner_up then cmp($o.fastest_vs_runner_up; "time") else "n/a" end)" else "" end)
            + "; against the database\(if $o.fastest == "database" then "" else " (\($d.label), \($d.us | us) µs)" end): "
            + ([$o.members[] | select(.store != "database") | if .variant == null then "\(sname(.store)) no equivalent"
                else "\(sname(.store))\(if .label != sname(.store) and .store != $o.fastest then " (\(.label))" else "" end) \(vsdb(.))" end] | join(", "))
        elif $o.kind == "bytes" then
          "Disk space: the database \(dbm($o).bytes | mib) MiB; "
            + ([$o.members[] | select(.store != "database" and .bytes != null)
                | "\(sname(.store))\(if .store == "files" then " (\(.label))" else "" end) \(.bytes | mib) MiB (\((.ratio_to_db - 1) * 100 | pctd))"] | join(", "))
            + ", smallest \(if $o.fastest == "database" then "the database" else sname($o.fastest) end)"
        else empty end;
      if length > 0 then
        "- **Four stores** (the database'"'"'s fastest API, the files'"'"' faster layout, LMDB, RocksDB; the same keys in every store, rounds interleaved): " + (map(one(.)) | join(". ")) + "."
      else empty end' >>"$R"
fi
if [ -s "$C/anchors-lmdb.csv" ] || [ -s "$C/anchors-rocksdb.csv" ]; then
    anchors_finding >>"$R"
fi
if [ -s "$C/shortener-bench.json" ]; then
    vb=$(jq -r '. // empty' "$C/valkey-benchmark.json" 2>/dev/null || true)
    j "$C/shortener-bench.json" --argjson vb "${vb:-null}" '
      def g($c): (map(select(.config == $c))[0] // {});
      g("sqlite") as $s | g("valkey") as $v | g("sqlite-nocache") as $sn | g("valkey-nocache") as $vn
      | if $s.lookups_per_s and $v.lookups_per_s then
        "- **Shortener, in-process lookups** (no HTTP, one thread): SQLite answered \($s.lookups_per_s | n0) lookups/s (p50 \($s.p50 | us) µs); through the Valkey cache-aside \($v.lookups_per_s | n0)/s (p50 \($v.p50 | us) µs, hit ratio \($v.hit_ratio // 0 | . * 100 | pct)), vs SQLite \(cmpor(ci("lookup/valkey/sqlite"); "rate"; vs(1 / $v.lookups_per_s; 1 / $s.lookups_per_s))). A cache hit costs a loopback round trip, which is slower than an SQLite B-tree lookup from the page cache\(if $vb then ": valkey-benchmark -c 1 measured \($vb | n0) GET/s on one connection here" else "" end). With SQLite'"'"'s page cache off (`cache_size=0`), SQLite did \($sn.lookups_per_s | n0)/s, vs with it \(cmpor(ci("lookup/sqlite-nocache/sqlite"); "rate"; vs(1 / $sn.lookups_per_s; 1 / $s.lookups_per_s))), and Valkey in front of it \($vn.lookups_per_s | n0)/s."
        else empty end' >>"$R"
fi
# Break-even, client-side caching and the covering schema, straight from
# bench's JSON (warm run: experiment lookup; cold run: lookup-cold).
if [ -s "$OUT/raw/shortener.jsonl" ]; then
    j "$OUT/raw/shortener.jsonl" -s '
      (map(select(.bench.experiment == "lookup" and .result.break_even))[0].result // null) as $w
      | (map(select(.bench.experiment == "lookup-cold" and .result.break_even))[0].result // null) as $c
      | def row($r; $n): ($r.configs | map(select(.config == $n))[0] // {});
      if $w then
        "- **Cache break-even** (kvtest shortener bench, same run): Valkey cache-aside pays off only when an SQLite lookup costs more than \($w.break_even.cache_hit_us | r(1)) µs (the median cost of a cache hit here); SQLite lookups cost \($w.break_even.sqlite_us | r(1)) µs warm\(if $c then " and \($c.break_even.sqlite_us | r(1)) µs with `--cold` (cache hit \($c.break_even.cache_hit_us | r(1)) µs in that run)" else "" end), so here the cache \(if $w.break_even.pays_off then "pays off warm" else "does not pay off warm" end)\(if $c then (if $c.break_even.pays_off then " and pays off cold" else " nor cold" end) else "" end)\(ci("lookup-cold/valkey/sqlite") as $k | if $k then "; Valkey vs SQLite lookups with `--cold`: \(cmp($k; "rate"))" else "" end)."
        + (row($w; "valkey-track") as $t
           | if $t.lookups_per_s then " With client-side caching (`valkey+track://`, CLIENT TRACKING with invalidations) lookups ran at \($t.lookups_per_s | n0)/s, vs SQLite \(cmpor(ci("lookup/valkey-track/sqlite"); "rate"; "\($t.ratio_to_sqlite | r(2))x sqlite")), \(($t.local_hit_ratio // 0) * 100 | r(0))% answered from process memory; latency p50 \($t.latency.p50 | us) µs, mean \($t.latency.mean | us) µs, p99 \($t.latency.p99 | us) µs\(if $t.latency.mean and $t.latency.p50 and $t.latency.mean > 2 * $t.latency.p50 then " (the mean is \($t.latency.mean / $t.latency.p50 | r(1))x the median: a tail of slow lookups)" else "" end)." else "" end)
        + (row($w; "sqlite-covering") as $v
           | if $v.lookups_per_s then " The covering schema (`init --schema covering`: a WITHOUT ROWID table keyed by the id) did \($v.lookups_per_s | n0) lookups/s, vs the seed schema \(cmpor(ci("lookup/sqlite-covering/sqlite"); "rate"; "\($v.ratio_to_sqlite | r(2))x"))." else "" end)
      else empty end' >>"$R"
fi
if [ -s "$C/shortener-http.json" ]; then
    j "$C/shortener-http.json" --arg th "$(param "$SP" threads)" '
      def g($c): (map(select(.config == $c))[0] // {});
      def lw($c): ci("loadwrk/\($c)/wrk") as $k | if $k then rat($k) else (g($c).load_over_wrk | n2) end;
      g("sqlite") as $s | g("valkey") as $v | g("sqlite-nocache") as $sn | g("valkey-nocache") as $vn
      | if $s.rps and $v.rps then
        (g("valkey-track") as $t | if $t.rps then "- **HTTP with client-side caching**: \($t.rps | n0) requests/s with `valkey+track://` against \($v.rps | n0)/s with plain cache-aside, vs it \(cmpor(ci("http/valkey-track/valkey"); "rate"; vs(1 / $t.rps; 1 / $v.rps))), and \($s.rps | n0)/s without a cache, vs it \(cmpor(ci("http/valkey-track/sqlite"); "rate"; vs(1 / $t.rps; 1 / $s.rps))); same run, rounds alternating.\n" else "" end) +
        "- **Shortener over HTTP** (\($th) concurrent users resolving existing links for the measured duration, \($s.rounds) rounds): without a cache the service answered \($s.rps | n0) requests/s (p50 \($s.p50_ms | n2) ms, p99 \($s.p99_ms | n2) ms); with the Valkey cache \($v.rps | n0)/s (p50 \($v.p50_ms | n2) ms, p99 \($v.p99_ms | n2) ms), vs no cache \(cmpor(ci("http/valkey/sqlite"); "rate"; vs(1 / $v.rps; 1 / $s.rps))). SQLite page cache off: \($sn.rps | n0)/s without Valkey, \($vn.rps | n0)/s with it. Failed requests: \(map(.failed // 0) | add | n0). wrk against the same service measured \($s.wrk_rps | n0) and \($v.wrk_rps | n0) requests/s; kvtest load / wrk: \(lw("sqlite")) without a cache, \(lw("valkey")) with it."
        else empty end' >>"$R"
    j "$C/shortener-http.json" '
      (map(select(.config == "sqlite"))[0] // {}) as $s
      | if $s.classic_tasks_per_s then
        "- **The classic stress test** (100 tasks, each one POST then 80 GETs of the new link, 30 users; SQLite without cache): \($s.classic_seconds | n2) s, \($s.classic_tasks_per_s | n1) tasks/s, mean request latency \($s.classic_mean_ms | n2) ms (p99 \($s.classic_p99_ms | n2) ms), \($s.classic_failed // 0 | n0) failed requests. Latency is timed per request here; the original Python script timed from the start of each task and so reported hundreds of milliseconds."
        else empty end' >>"$R"
fi
if [ -s "$C/shortener-payoff.json" ]; then
    j "$C/shortener-payoff.json" '
      def row($k; $c): (map(select(.keys == $k and .config == $c))[0] // null);
      def say($k; $c): row($k; $c) as $r
        | if $r == null or $r.ratio_lo == null then empty
          else "\($c) \($r.rps | n0) GET/s, vs no cache \(cmp({est: $r.ratio_to_sqlite, lo: $r.ratio_lo, hi: $r.ratio_hi, n: $r.rounds, covered: $r.ratio_covered}; "rate")): \(if $r.pays_off == "yes" then "pays off" else "does not pay off" end)" end;
      (map(.keys) | unique) as $ks
      | if length > 0 then
        "- **Does a cache pay off over HTTP?** " + ([ $ks[] as $k
            | ([say($k; "valkey"), say($k; "valkey-track")] | join("; ")) as $t
            | select($t != "")
            | "\($k) keys (no cache \(row($k; "sqlite").rps | n0) GET/s): \($t)" ] | join(". ")) + "."
        else empty end' >>"$R"
fi
if [ -s "$C/nginx.tsv" ]; then
    j /dev/null -n '
      ci("ceiling/service/nginx") as $k
      | def med($s): ci("ceiling/rate/\($s)").est;
      if $k then
        "- **The HTTP ceiling** (`scripts/study/nginx.sh`, \($k.n) rounds alternating): without a cache the service answered \(med("service") | n0) GET/s against \(med("nginx") | n0) for nginx returning the same body from its configuration: \($k.est * 100 | r(0))% of that ceiling (95% CI \($k.lo * 100 | r(0))–\($k.hi * 100 | r(0))%\(if $k.covered then "" else ", fewer than 4 rounds" end))."
      else empty end' >>"$R"
fi
ML=$OUT/raw/memlimit-params.tsv
if [ -s "$C/memlimit.json" ]; then
    j "$C/memlimit.json" --arg db "$(param "$ML" db_bytes)" --arg hl "$(param "$ML" http_limit)" '
      def row($l; $m; $k; $c): (map(select(.leg == $l and .mem == $m and .keys == $k and .config == $c))[0] // null);
      def say($l; $m; $k; $c): row($l; $m; $k; $c) as $r
        | if $r == null or $r.ratio_lo == null then empty
          else "\($c) \(cmp({est: $r.ratio_to_sqlite, lo: $r.ratio_lo, hi: $r.ratio_hi, n: $r.ratio_n, covered: $r.ratio_covered}; "rate")): \(if $r.pays_off == "yes" then "pays off" else "does not pay off" end)" end;
      def leg($l; $m): [ ["uniform", "zipf"][] as $k
            | ([say($l; $m; $k; "valkey"), say($l; $m; $k; "valkey-track")] | join("; ")) as $t
            | select($t != "") | "\($k) keys: \($t)" ] | join(". ");
      (if $hl != "" then $hl else (map(select(.mem != "unlimited"))[0].mem // "") end) as $m
      | (map(select(.mem == $m) | .rounds // 0) | max) as $n
      | [ (leg("inproc"; $m) | select(. != "") | "In-process, " + .),
          (leg("http"; $m) | select(. != "") | "Over HTTP, " + .),
          (leg("inproc"; "unlimited") | select(. != "") | "Without the limit (in-process, the database in the OS file cache), " + .) ] as $parts
      | if $m != "" and ($parts | length) > 0 then
        "- **A database larger than memory** (`scripts/study/memlimit.sh`: a \(if $db != "" then "\($db | tonumber / 1e6 | r(0)) MB " else "" end)links database, the process in a memory cgroup of \($m) that counts its page cache, Valkey outside it, \($n) rounds): does a cache pay off? " + ($parts | join(". ")) + "."
        else empty end' >>"$R"
fi
if [ -s "$C/storetier-summary.csv" ]; then
    bash "$KV_SCRIPTS/report-storetier.sh" --headline "$OUT" >>"$R"
fi
# (Not in findings.tsv: a search's interval brackets a rate between a pass
# and a fail, it is no 95% interval to be checked against a second run's.)
if [ -n "$CAPRAW" ]; then
    bash "$KV_SCRIPTS/report-capacity.sh" --headline "$OUT" >>"$R"
fi
if [ -s "$C/tlscost.json" ]; then
    bash "$KV_SCRIPTS/report-tls.sh" --headline "$OUT" >>"$R"
fi
if [ -s "$OUT/logs/blobs-skipped.txt" ] || [ -s "$OUT/logs/anchors-skipped.txt" ]; then
    w "- **Not measured in this run:** $(cat "$OUT/logs/blobs-skipped.txt" "$OUT/logs/anchors-skipped.txt" 2>/dev/null | paste -sd';' | sed 's/;/; /g')."
fi
findings_tsv

# ------------------------------------------------------------ section 1
if [ -s "$C/reads.json" ] || [ -s "$C/space.csv" ]; then
    w "" "## 1. Blobs: SQLite database or separate files?" ""
    if [ -s "$BP" ]; then
        WR=$(param "$BP" write_repeat)
        part_note
        w "SQLite's article \"35% Faster Than The Filesystem\", reproduced: $(param "$BP" count) blobs ($(param "$BP" data || true)) in one database (\`kv(k INTEGER PRIMARY KEY, v BLOB)\`), exported as one file per blob in a flat directory and in a tree (\`00/00/01\`)$(if [ -s "$C/stores.json" ]; then printf '%s' ", and into LMDB and RocksDB (see *Four stores side by side*)"; fi). Reads: $(param "$BP" count) random keys per run, $(param "$BP" repeat) measured rounds after $(param "$BP" warmup) warm-up round(s). Cold cache: $(param "$BP" cold_count) random keys per run over the whole key range, $(param "$BP" cold_repeat) rounds, the files evicted from the page cache before each run. Writes: $(param "$BP" writes) random blobs per run (a tenth for the durable variants)${WR:+, $WR measured rounds}."
    fi
fi
if [ -s "$C/space.csv" ]; then
    w "" "### Disk space" "" "| layout | files | content MiB | on disk MiB | vs database |" "|---|---:|---:|---:|---:|"
    awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %+.1f%% |\n", $1, $2, $3, $4, $5 }' "$C/space.csv" >>"$R"
    if [ -s "$C/space.json" ]; then
        j "$C/space.json" '.database | select(. != null) | "", "Database: page size \(.page_size), \(.page_count | n0) pages (\(.freelist_count) free), page utilisation \(.page_utilisation * 100 | pct). \"On disk\" counts allocated blocks plus directory blocks (kvtest space); du agrees within a few blocks (csv/space-du.csv)."' >>"$R"
    fi
    figure space "Disk space" '^blobs-(init|export|space)'
fi
if [ -s "$C/reads.json" ]; then
    w "" "### Random reads" "" \
      "| method | cache | µs per blob (min–max) | vs flat files (95% CI) | MB/s | p50 µs | p99 µs | p99.9 µs | storage KiB per blob |" \
      "|---|---|---:|---:|---:|---:|---:|---:|---:|"
    j "$C/reads.json" '.[] | "| \(.label) | \(.cache) | \(.us | us) (\(.us_min | us)–\(.us_max | us)) | \(.ratio_vs_flat | x)\(ivl) | \(.mbps | n0) | \(.p50 | us) | \(.p99 | us) | \(.p999 | us) | \(.storage_per_blob // null | if . then (. / 1024 | n1) else "–" end) |"' >>"$R"
    w "" "\"vs flat files\" is the median over rounds of time per blob divided by that of flat files in the same round and cache state (below 1x: faster than files), with its 95% interval."
    figure reads "Random reads relative to files" '^blobs-read-'
    figure percentiles "Read latency percentiles" '^blobs-read-'
fi
if [ -s "$C/writes.json" ]; then
    w "" "### Random writes" "" \
      "| variant | blobs per run | µs per blob (min–max) | vs flat files (95% CI) | MB/s | p50 µs | p99 µs |" \
      "|---|---:|---:|---:|---:|---:|---:|"
    j "$C/writes.json" '.[] | "| \(.label) | \(.count | n0) | \(.us | us) (\(.us_min | us)–\(.us_max | us)) | \(.ratio_vs_flat | x)\(ivl) | \(.mbps | n0) | \(.p50 | us) | \(.p99 | us) |"' >>"$R"
    w "" "Each run overwrites blobs with fresh random content of the same size; the database timer spans open to close, so the WAL checkpoint counts."
    figure writes "Write latency" '^blobs-write-'
fi
if [ -s "$C/sweep.csv" ]; then
    w "" "### Blob-size sweep" ""
    if [ -s "$C/sweep.md" ]; then cat "$C/sweep.md" >>"$R"; fi
    if [ -s "$C/sweep-stores.json" ]; then sweep_stores_section; fi
    figure sweep "Blob-size sweep" '^blobs-sweep'
fi
if [ -s "$C/stores.json" ]; then
    stores_section
fi
if [ -s "$C/anchors-lmdb.csv" ] || [ -s "$C/anchors-rocksdb.csv" ]; then
    anchors_section
fi

# ------------------------------------------------------------ section 2
if [ -s "$C/shortener-bench.json" ] || [ -s "$C/shortener-http.json" ]; then
    w "" "## 2. Does a Valkey cache speed up an SQLite-backed service?" ""
    if [ -s "$SP" ]; then
        w "A URL shortener (\`kvtest shortener serve\`: libh2o, SQLite in WAL mode, optional Valkey cache-aside) with $(param "$SP" links) links. Configurations: \`sqlite\` (SQLite's default page cache), \`sqlite-nocache\` (\`PRAGMA cache_size=0\`, \`temp_store=0\`), \`valkey\` and \`valkey-nocache\` (the same with Valkey in front). In-process: $(param "$SP" lookups) lookups per configuration and round, $(param "$SP" repeat) rounds after a warm-up, configurations interleaved. HTTP: $(param "$SP" rounds) round(s) per configuration in rotating order, each a fresh service, every id GET twice first (\`kvtest shortener load --walk 2\`: Valkey and valkey-track's local map then hold every link and SQLite's page cache is warm, so every configuration is measured from the same steady state, not from an empty cache), a 2 s warm-up, then $(param "$SP" duration) s of GETs by $(param "$SP" threads) virtual users over existing ids, then wrk with the same connection count and ids."
    fi
fi
if [ -s "$C/shortener-bench.json" ]; then
    w "" "### In-process lookups (no HTTP)" "" \
      "| configuration | lookups/s (min–max) | vs sqlite (95% CI) | hit ratio | p50 µs | mean µs | p90 µs | p99 µs | p99.9 µs |" \
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    j "$C/shortener-bench.json" '.[] | "| \(.config) | \(.lookups_per_s | n0) (\(.lookups_min | n0)–\(.lookups_max | n0)) | \(.ratio_to_sqlite | x)\(ivl) | \(.hit_ratio // null | if . then (. * 100 | pct) else "–" end) | \(.p50 | us) | \(.mean // null | us) | \(.p90 | us) | \(.p99 | us) | \(.p999 | us) |"' >>"$R"
    w "" "\"vs sqlite\" is the median over rounds of lookups/s divided by that of sqlite in the same round (above 1x: faster), with its 95% interval. The mean beside the median shows a heavy tail (a mean far above p50)."
    vb=$(jq -r '. // empty' "$C/valkey-benchmark.json" 2>/dev/null || true)
    [ -z "$vb" ] || w "" "Reference: \`valkey-benchmark -c 1 -t get\` against the same Valkey: $(printf '%.0f' "$vb") GET/s on one connection (one loopback round trip ≈ $(awk -v r="$vb" 'BEGIN { printf "%.0f", 1e6 / r }') µs)."
fi
if [ -s "$C/shortener-http.json" ]; then
    w "" "### Over HTTP" "" \
      "| configuration | GET/s (min–max) | vs sqlite (95% CI) | wrk GET/s | load / wrk (95% CI) | p50 ms | p90 ms | p99 ms | p99.9 ms | wrk p50 / p99 ms | failed | classic tasks/s | classic mean ms |" \
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    j "$C/shortener-http.json" '.[] | "| \(.config) | \(.rps | n0) (\(.rps_min | n0)–\(.rps_max | n0)) | \(.ratio_to_sqlite // null | x)\(ivl) | \(.wrk_rps | n0) | \(.load_over_wrk | n2)\(ivl("load_over_wrk_lo"; "load_over_wrk_hi")) | \(.p50_ms | n2) | \(.p90_ms | n2) | \(.p99_ms | n2) | \(.p999_ms | n2) | \(.wrk_p50_ms | n2) / \(.wrk_p99_ms | n2) | \(.failed // 0 | n0) | \(.classic_tasks_per_s | n1) | \(.classic_mean_ms | n2) |"' >>"$R"
fi
if [ -s "$C/shortener-payoff.json" ]; then
    w "" "### Does a cache pay off over HTTP? Uniform and Zipf keys" "" \
      "Uniform keys: the HTTP rounds above. Zipf keys: the same service, walk of every id twice, warm-up and duration with \`kvtest shortener load --zipf $(param "$SP" zipf)\` over the same ids (a few links get most lookups), $(param "$SP" rounds) round(s) of no cache, \`valkey\` and \`valkey-track\` in rotating order, kvtest load only (wrk's script picks ids uniformly). \"vs no cache\" is the median over rounds of GET/s divided by that without a cache in the same round, with its 95% interval; a cache pays off only where the interval lies above 1." "" \
      "| keys | configuration | GET/s (median) | vs no cache (95% CI) | pays off | vs valkey (95% CI) |" \
      "|---|---|---:|---:|---|---:|"
    j "$C/shortener-payoff.json" '.[] | "| \(.keys) | \(.config) | \(.rps | n0) | \(.ratio_to_sqlite // null | x)\(ivl) | \(.pays_off // "–") | \(if .ratio_to_valkey then "\(.ratio_to_valkey | x)\(ivl("valkey_lo"; "valkey_hi"))" else "–" end) |"' >>"$R"
fi
if [ -s "$C/nginx.md" ]; then
    # scripts/study/nginx.sh: the same client against nginx returning the
    # service's body from its config, the ceiling of HTTP on this machine.
    frac=$(awk -F'|' '/service \/ nginx/ { gsub(/^ +| +$/, "", $3); print $3 }' "$C/nginx.md")
    w "" "### The HTTP ceiling: the service against nginx" "" \
      "nginx (Debian's \`nginx-light\`, one worker per core, its own configuration in a scratch directory) returns the body of one \`GET /link/<id>\` from its configuration: no storage at all: a ceiling for an HTTP server on this machine with this client. \`kvtest shortener serve --cache none\` answers the same path with one SQLite lookup per request. Both run side by side and the same \`wrk\` alternates between them round by round (ABBA). The service reaches **${frac:-–}** of nginx's rate (median of the per-round ratios, 95% CI). \`results/http/NOTES.md\` profiles where the service spends the difference." ""
    cat "$C/nginx.md" >>"$R"
fi
if [ -s "$C/tlscost.json" ]; then
    # TLS, new connections and HTTP/2 streams (scripts/study/http/tlscost.sh,
    # and tls.sh's comparison with wrk and h2load; report-tls.sh's section).
    bash "$KV_SCRIPTS/report-tls.sh" "$OUT" >>"$R"
fi
if [ -s "$C/memlimit.json" ]; then
    # scripts/study/memlimit.sh: the links database several times a memory
    # limit that counts the page cache, so SQLite reads from storage.
    db=$(param "$ML" db_bytes)
    w "" "### A database larger than memory" "" \
      "The shortener's own caveat: the OS file cache can mask what an external cache is worth. Here the process runs in a memory cgroup of its own (\`--mem-limit\`: the limit counts the page cache, so pages that do not fit are read from storage again), on a database of $(param "$ML" links) links (${db:+$(awk -v b="$db" 'BEGIN { printf "%.0f MB", b / 1e6 }')}), limits $(param "$ML" limits | sed 's/,/, /g'); Valkey runs outside the limit. In-process: \`kvtest shortener bench\`, sqlite, valkey cache-aside and valkey-track interleaved in each of $(param "$ML" rounds) rounds, $(param "$ML" lookups) lookups per run, under each limit and without one (a limit above the machine's memory). Over HTTP, under $(param "$ML" http_limit) only: a fresh \`kvtest shortener serve --mem-limit\` per run, $(param "$ML" warmup | sed -E 's/^[0-9]+$/& s/') of warm-up, then $(param "$ML" duration | sed -E 's/^[0-9]+$/& s/') of GETs by $(param "$ML" threads) users over $(param "$ML" lookups) ids drawn at random from the whole database, uniform or Zipf $(param "$ML" zipf), configurations in rotating order. \"vs sqlite\" is the median over rounds of the rate divided by that of sqlite in the same round, with its 95% interval; a cache pays off only where that interval lies above 1." "" \
      "| leg | memory | keys | configuration | rate /s (median) | vs sqlite (95% CI) | pays off | vs valkey (95% CI) | HTTP cache hits (from process memory) |" \
      "|---|---|---|---|---:|---:|---|---:|---:|"
    j "$C/memlimit.json" --arg db "${db:-}" '.[] | "| \(if .leg == "http" then "HTTP" else "in-process" end) | \(.mem)\(if .mem != "unlimited" and $db != "" then " (db \(($db | tonumber) / .limit_bytes | r(1))x)" else "" end) | \(.keys) | \(.config) | \(.rate | n0) | \(.ratio_to_sqlite // null | x)\(ivl) | \(.pays_off // "–") | \(if .ratio_to_valkey then "\(.ratio_to_valkey | x)\(ivl("valkey_lo"; "valkey_hi"))" else "–" end) | \(if .hit_ratio and .config != "sqlite" then "\(.hit_ratio * 100 | pct)\(if .config == "valkey-track" then " (\(.local_hit_ratio * 100 | pct))" else "" end)" else "–" end) |"' >>"$R"
    w "" "HTTP cache hits: lookups answered by the cache (Valkey or the process's own map) over all lookups of the services' lives, warm-up included (their \`/stats\` counters); the in-process runs answer from the cache throughout (their warm-up run fills it with the same ids)."
    if [ -s "$C/memlimit-breakeven.csv" ]; then
        w "" "The break-even line of each in-process run (\`result.break_even\`): Valkey cache-aside can only pay off when an SQLite lookup costs more than a cache hit (\"break-even\" says whether it does). These are medians: with Zipf keys most lookups find their page in memory, so the median SQLite lookup can stay below a cache hit while the rate above, which counts the slow reads from storage too, still favours the cache." "" \
          "| memory | keys | SQLite lookup µs | cache hit µs (hit ratio) | break-even: pays off | valkey-track µs (from process memory) | read from storage MB | peak memory MiB |" \
          "|---|---|---:|---:|---|---:|---:|---:|"
        awk -F, -v db="${db:-}" 'function f(v, m, d) { return v == "" ? "–" : sprintf("%." d "f", v * m) }
            NR > 1 { mem = $1; if ($1 != "unlimited" && db > 0 && $2 > 0) mem = sprintf("%s (db %.1fx)", $1, db / $2)
                     printf "| %s | %s | %s | %s (%s%%) | %s | %s (%s%%) | %s | %s |\n", mem, $3, f($4, 1, 2), f($5, 1, 2),
                     f($6, 100, 0), ($7 == "true" ? "yes" : $7 == "false" ? "no" : "–"), f($8, 1, 2), f($9, 100, 0),
                     f($10, 1e-6, 0), f($11, 1 / 1048576, 0) }' "$C/memlimit-breakeven.csv" >>"$R"
        # The line: where cache-aside passes its break-even as the
        # database outgrows the memory, per key distribution.
        awk -F, 'NR > 1 { k[$3] = 1; m = ($1 == "unlimited" ? "no limit" : $1)
                          if ($7 == "true") y[$3] = y[$3] (y[$3] == "" ? "" : ", ") m
                          else if ($7 == "false") n[$3] = n[$3] (n[$3] == "" ? "" : ", ") m }
            END { for (key in k) printf "%s keys: an SQLite lookup costs more than a cache hit (cache-aside can pay off) with %s; less with %s.\n",
                      key, (y[key] == "" ? "none of these memory sizes" : y[key]), (n[key] == "" ? "none" : n[key]) }' \
            "$C/memlimit-breakeven.csv" | sort | paste -sd' ' | sed 's/^/\n/' >>"$R"
    fi
    image memlimit "A database larger than memory: each cache against no cache"
    w "" "<details><summary>Commands</summary>" "" '```sh'
    cmds '^memlimit-' >>"$R"
    plotlines memlimit
    w '```' "" "</details>"
fi
if [ -s "$C/cluster-summary.csv" ]; then
    # Valkey Cluster (scripts/study/cluster.sh): lookups through 3 primaries
    # beside one Valkey and no cache, and the raw round trip of each.
    w "" "### The cache as a Valkey Cluster (in-process lookups)" "" \
      "Three configurations interleaved round by round ($(awk -F, 'NR > 1 { r[$1] = 1 } END { print length(r) }' "$C/cluster.csv") rounds, a warm-up run each time): no cache, one Valkey (\`valkey://\`), and a 3-primary Valkey Cluster (\`valkey-cluster://\`: the key's slot picks the primary). The reference is \`valkey-benchmark -c 1 -t get\` (with \`--cluster\` for the cluster): one loopback round trip; \"lookup / round trip\" is what the cache-aside code adds to it." "" \
      "| configuration | lookups/s (median) | p50 µs | µs per lookup | valkey-benchmark round trip µs | lookup / round trip |" \
      "|---|---:|---:|---:|---:|---:|"
    awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $5, ($6 == "" ? "–" : $6), ($7 == "" ? "–" : $7) }' "$C/cluster-summary.csv" |
        sed 's/| none |/| no cache |/; s/| valkey |/| one Valkey |/; s/| cluster |/| Valkey Cluster |/' >>"$R"
    if [ -s "$C/cluster-ci.json" ]; then
        w "" "$(jq -r 'def r(k): if .[k] then "\(.[k].est * 1000 | round / 1000) (95% CI \(.[k].lo * 1000 | round / 1000)–\(.[k].hi * 1000 | round / 1000)\(if .[k].covered then "" else ", fewer than 4 rounds" end))" else "–" end;
            "Ratios of lookups/s, median of the per-round ratios: cluster / one Valkey \(r("cluster/valkey")), cluster / no cache \(r("cluster/none")), one Valkey / no cache \(r("valkey/none"))."' "$C/cluster-ci.json")"
    fi
    image cluster "The cache as a Valkey Cluster"
    w "" "<details><summary>Commands</summary>" "" '```sh'
    cmds '^cluster-' >>"$R"
    plotlines cluster
    w '```' "" "</details>"
fi
figure shortener-throughput "Shortener throughput" '^shortener-'
figure shortener-latency "Shortener latency percentiles" '^shortener-'
figure shortener-timeline "Shortener latency and throughput over each run (first round)" '^shortener-load'
if [ -s "$C/storetier-summary.csv" ]; then
    # SQLite beside PostgreSQL, each with and without a cache
    # (scripts/study/storetier.sh; the section is report-storetier.sh's).
    if [ ! -s "$C/shortener-bench.json" ] && [ ! -s "$C/shortener-http.json" ]; then
        w "" "## 2. Does a Valkey cache speed up the service?"
    fi
    bash "$KV_SCRIPTS/report-storetier.sh" "$OUT" >>"$R"
    if [ -s "$OUT/charts/storetier.png" ]; then image storetier "The store tier over HTTP: GET/s by store and cache"; w ""; fi
    w "<details><summary>Commands</summary>" "" '```sh'
    cmds '^storetier-' >>"$R"
    w "# SCRATCH: any empty directory; OUT: this directory; PORT: a free port; the servers:" \
      "# source tests/lib/pg.bash; start_pg; start_pg_replica; start_pg_replica (PostgreSQL)" \
      "# source tests/lib/servers.bash; start_valkey (valkey-server)"
    plotlines storetier
    w '```' "" "</details>"
fi
if [ -n "$CAPRAW" ]; then
    # The highest rate each configuration holds at a p99 bound
    # (scripts/study/capacity.sh; the section is report-capacity.sh's).
    bash "$KV_SCRIPTS/report-capacity.sh" "$OUT" >>"$R"
    if [ -s "$OUT/charts/capacity.png" ]; then image capacity "Capacity: p99 of each search step against the rate offered"; w ""; fi
    w "<details><summary>Commands</summary>" "" '```sh'
    cmds '^capacity-' >>"$R"
    w "# SCRATCH: any empty directory; OUT: this directory; the servers:" \
      "# source tests/lib/pg.bash; start_pg (PostgreSQL)" \
      "# source tests/lib/servers.bash; start_valkey (valkey-server)"
    plotlines capacity
    w '```' "" "</details>"
fi

# ---------------------------------------------------------- environment
w "" "## Environment" "" '```'
cat "$OUT/env/environment.txt" >>"$R" 2>/dev/null || true
one=$(head -n1 "$OUT/raw/blobs.jsonl" 2>/dev/null || head -n1 "$OUT/raw/shortener.jsonl" 2>/dev/null || true)
if [ -n "$one" ]; then
    printf '%s\n' "$one" | jq -r '.env // {} | "sqlite: \(.sqlite_version // "?") \(.sqlite_source_id // "")",
        "sqlite compile options: \((.sqlite_compile_options // []) | join(" "))",
        "filesystem measured (kvtest): \(.fs_type // "?")"' >>"$R"
fi
w '```'
if [ -s "$OUT/logs/timings.tsv" ]; then
    w "" "Step durations (s): $(awk -F'\t' '{ printf "%s%s %.0f", (NR > 1 ? ", " : ""), $1, $2 }' "$OUT/logs/timings.tsv")."
fi
w "" "## Files" "" \
  "- \`raw/*.jsonl\`: one JSON object per kvtest run, straight from \`--json\` (options, environment, every figure), plus \`\"bench\"\` saying which experiment, variant and round it belongs to." \
  "- \`csv/\`: the tables behind each chart; \`charts/\`: PNG and SVG; \`commands.tsv\`: every command run, in order; \`logs/\`: text output and stderr; \`env/\`: the environment." \
  "- Regenerate everything: \`make bench$([ -n "$SCALE" ] && [ "$SCALE" != full ] && echo " SCALE=$SCALE")\`. Redraw from the raw data: \`bash scripts/study/tables.sh DIR && bash scripts/study/plot.sh DIR && bash scripts/study/report.sh DIR\`."
mv "$R" "$OUT/REPORT.md"

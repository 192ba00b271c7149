#!/usr/bin/env bash
# shellcheck disable=SC2016  # $names inside single quotes are jq variables
# tables.sh OUTDIR: turn the raw JSON Lines of an experiment run into the
# CSV files the charts and the report are drawn from (OUTDIR/csv/).
#
#   raw/blobs.jsonl      -> reads.csv, reads.json, reads-ratio.csv,
#                           writes.csv, writes.json,
#                           percentiles-warm.csv, percentiles-cold.csv
#   csv/space-du.csv + raw/space.jsonl -> space.csv, space.json
#   raw/sweep.jsonl      -> sweep.csv, sweep-crossover.txt, sweep.md, and
#                           with several page sizes sweep-pages.csv, .tsv;
#                           with other stores (kvtest sweep --stores)
#                           sweep-stores.json, sweep-stores.csv (the fastest
#                           store per blob size), sweep-crossovers.csv
#   raw/shortener.jsonl  -> shortener-bench.csv, shortener-bench.json,
#                           shortener-http.csv, shortener-http.json,
#                           shortener-bench-pct.csv, shortener-http-pct.csv,
#                           shortener-payoff.csv, shortener-payoff.json,
#                           valkey-benchmark.json
#   csv/memlimit.csv     -> memlimit.json, memlimit-ratios.csv (the chart's;
#                           scripts/study/memlimit.sh)
#   raw/blobs.jsonl + raw/space.jsonl -> stores.json, stores.csv (the four
#                           stores side by side: the database's best API,
#                           the files' best layout, LMDB, RocksDB)
#   csv/anchors-rocksdb.csv (scripts/study/anchors.sh) -> its intervals
#   all of them          -> intervals.json (below)
#
# (csv/space-du.csv is written by fasterthanfs.sh, from du.)
# Every figure is the median over the measured rounds (warm-up rounds are
# in the raw file, marked "warmup": true, and ignored here). Percentiles
# are the median of each round's percentile. Safe to re-run.
#
# Intervals (csv/intervals.json, build/ratioci): every ratio is the median
# of the per-round ratios of two variants measured in the same round, with
# its 95% percentile-bootstrap interval (10000 resamples, fixed seed); every
# median over rounds has its 95% interval (order statistics; below 6 rounds
# that is min-max and "covered" is false). Keys: EXP/CACHE/VARIANT/REF
# (blob reads and writes, time ratio), lookup[-cold]/CONFIG/sqlite and
# http/CONFIG/REF and http-zipf/CONFIG/REF (throughput ratio, uniform and
# Zipf keys), loadwrk/CONFIG/wrk, sweep/PAGE/SIZE
# (files / blob API time), sweep-STORE/PAGE/SIZE (LMDB or RocksDB / blob
# API), sweep-best/SIZE (the fastest store's time / the runner-up's, each
# store at its best by median), memlimit/LEG/MEM/KEYS/CONFIG/REF (a database
# larger than memory, throughput ratio), anchor/rocksdb[-p50|-blob]/dbbench/kvtest
# (db_bench's time per read over kvtest's: micros/op over the mean, P50
# over p50, micros/op over us_per_blob), us/EXP/CACHE/VARIANT, rate/EXP/CONFIG,
# anchor-us/WHAT and memlimit-rate/LEG/MEM/KEYS/CONFIG (medians). The
# four stores' ratios to the database are EXP/CACHE/VARIANT/REF keys too. The CSVs carry them as *_lo, *_hi columns.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_tools jq awk
kv_results_dir "$@"
kv_find_ratioci
mkdir -p "$C"

# jq: one record per (experiment, variant, cache) with medians over rounds.
VLABEL_DEFS='
def vlabel: {"db-sql":"SQLite SQL", "db-blob":"SQLite blob API",
  "db-blob-mmap":"SQLite blob API + mmap", "flat":"flat files",
  "tree":"tree files", "db-wal":"SQLite WAL", "db-nosync":"SQLite journal off + sync off",
  "flat-fsync":"flat files + fsync", "db-wal-multitrans":"SQLite WAL 1 txn per blob",
  "db-blob-ra-off":"SQLite blob API readahead off", "flat-ra-off":"flat files readahead off",
  "lmdb":"LMDB", "rocksdb":"RocksDB", "lmdb-ra-off":"LMDB readahead off",
  "lmdb-nosync":"LMDB no sync", "rocksdb-nosync":"RocksDB no sync"}[.] // .;'
BLOB_SUMMARY="$KV_JQ_DEFS$VLABEL_DEFS"'
def vorder: {"db-sql":1, "db-blob":2, "db-blob-mmap":3, "tree":4, "flat":5, "db-blob-ra-off":6.1, "flat-ra-off":6.2,
  "db-wal":1, "db-nosync":2, "db-wal-multitrans":3, "flat-fsync":6,
  "lmdb":5.5, "lmdb-nosync":5.55, "rocksdb":5.6, "rocksdb-nosync":5.65, "lmdb-ra-off":6.3}[.] // 9;
[ .[] | select(.bench.experiment == $exp and (.bench.warmup | not)) ]
| group_by([.bench.cache, .bench.variant])
| map({
    variant: .[0].bench.variant, cache: .[0].bench.cache,
    label: (.[0].bench.variant | vlabel), ord: (.[0].bench.variant | vorder),
    rounds: length,
    count: .[0].result.count,
    us: (map(.result.us_per_blob) | median),
    us_min: (map(.result.us_per_blob) | min),
    us_max: (map(.result.us_per_blob) | max),
    mbps: (map(.result.mb_per_s) | median),
    p50: (map(.result.latency.p50) | median),
    p90: (map(.result.latency.p90) | median),
    p99: (map(.result.latency.p99) | median),
    p999: (map(.result.latency.p999) | median),
    max: (map(.result.latency.max) | median),
    resident: (map(.result.cold.resident_fraction // null) | max),
    effective: (if .[0].result.cold then all(.result.cold.effective) else null end),
    storage_per_blob: (map(.result.cold.storage_bytes_per_blob // null) | median)
  })
| sort_by(.cache != "warm", .ord)'

csv_of() { # jq array of objects + field list -> CSV with header
    local fields=$1
    jq -r --arg f "$fields" '($f | split(",")) as $k | ($k | join(",")),
        (.[] | [ .[$k[]] | if type == "number" then (. * 1000 | round / 1000)
                 elif . == null then "" else tostring end ] | join(","))'
}

# The sweep: one row per blob size (medians of the measured runs, as
# kvtest sweep reports them), the crossover line, and a markdown table.
tables_sweep() {
    local sw=$OUT/raw/sweep.jsonl obj
    obj=$(jq -sc 'map(select(.command == "sweep" and .rows)) | last // empty' "$sw")
    [ -n "$obj" ] || return 1
    # ratio_files_blob_lo/_hi: the 95% interval of files / blob API over the
    # paired runs (intervals.json; empty when kvtest sweep gave no runs).
    # With other stores (kvtest sweep --stores): STORE_us, ratio_STORE_blob
    # and its interval per store besides files, appended (the first page
    # size's ratio).
    printf '%s\n' "$obj" | jq -r --slurpfile ci "$CI" "$KV_JQ_DEFS$SWEEP_DEFS"'
        (.options.pagesize // .pages[0].pagesize) as $p
        | [swstores[] | select(. != "files")] as $st
        | ("size,count,sql_us,blob_us,files_us,ratio_files_blob,ratio_files_sql,ratio_files_blob_lo,ratio_files_blob_hi"
           + ([$st[] | ",\(.)_us,ratio_\(.)_blob,ratio_\(.)_blob_lo,ratio_\(.)_blob_hi"] | join(""))),
        (.rows[] | . as $r | ($ci[0]["sweep/\($p)/\(.size)"] // {}) as $i
                 | [ .size, .count, (.sql.us_per_blob | r3), (.blob.us_per_blob | r3),
                     (.files.us_per_blob | r3), (.ratio_files_blob | r3), (.ratio_files_sql | r3),
                     ($i.lo | r3 // ""), ($i.hi | r3 // "") ]
                   + [ $st[] as $s | ($ci[0]["sweep-\($s)/\($p)/\($r.size)"] // {}) as $k
                       | ($r[$s].us_per_blob | r3 // ""), ($r["ratio_\($s)_blob"] | r3 // ""),
                         ($k.lo | r3 // ""), ($k.hi | r3 // "") ]
                 | map(tostring) | join(","))' >"$C/sweep.csv"
    # One object per page size: the crossover, its interval when kvtest
    # sweep gives one (crossover.ci), and the sizes at both ends (report.sh).
    printf '%s\n' "$obj" | jq '
        (if (.pages // []) | length > 0 then .pages
         else [{pagesize: .options.pagesize, crossover: .crossover, rows: .rows}] end)
        | map({pagesize, kind: .crossover.kind, size: .crossover.size, line: .crossover.line,
               ci: (.crossover.ci // null), first_size: .rows[0].size, last_size: .rows[-1].size,
               first_ratio: .rows[0].ratio_files_blob, last_ratio: .rows[-1].ratio_files_blob})' \
        >"$C/sweep-crossover.json"
    printf '%s\n' "$obj" | jq -r '"crossover_bytes=\(.crossover.size // 0)",
        "kind=\(.crossover.kind)", "line=\(.crossover.line)",
        "complete=\(.complete)", "total=\(.options.total)", "repeat=\(.options.repeat)"' \
        >"$C/sweep-crossover.txt"
    printf '%s\n' "$obj" | jq -r '
        def s: if . >= 1000000 then "\(. / 1000000)M" elif . >= 1000 then "\(. / 1000)k" else tostring end;
        def f: (. * 100 | round / 100 | tostring);
        "| blob size | blobs | SQL µs/blob | blob API µs/blob | files µs/blob | files / blob API |",
        "|---:|---:|---:|---:|---:|---:|",
        (.rows[] | "| \(.size | s) | \(.count) | \(.sql.us_per_blob | f) | \(.blob.us_per_blob | f) | \(.files.us_per_blob | f) | \(.ratio_files_blob | f) |"),
        "",
        "About \(.options.total / 1000000) MB of blobs per size, page size\(if (.options.page_sizes // []) | length > 1 then "s \(.options.page_sizes | map(tostring) | join(", "))" else " \(.options.pagesize)" end), every key read once per run in random order, \(.options.warmup) warm-up + \(.options.repeat) measured run(s), medians. \(.crossover.line)."' \
        >"$C/sweep.md"
    tables_sweep_pages "$obj"
    tables_sweep_stores "$obj"
}

# With other stores (kvtest sweep --stores; old results have none, and get
# none of these files): sweep-stores.json with
#   stores      the stores besides the database, as listed
#   crossovers  one per store (files first) and page size: kind, size,
#               line, ci (kvtest sweep's bootstrap), the store / blob API
#               ratio at both ends with its interval, at every size (ratios)
#               and, for a store faster at the smallest size, slower_from:
#               the size from which it is slower at every larger size
#   sizes       one per blob size: every store's best median (members;
#               the database's best of SQL and the blob API over the page
#               sizes), the fastest and the runner-up, the fastest's time
#               over the runner-up's (median of the per-round ratios, 95%
#               interval: sweep-best/SIZE) and the verdict: "faster" only
#               where that interval lies below 1
# sweep-stores.csv (sizes) and sweep-crossovers.csv (crossovers), the same
# as tables.
tables_sweep_stores() {
    rm -f "$C/sweep-stores.json" "$C/sweep-stores.csv" "$C/sweep-crossovers.csv"
    printf '%s\n' "$1" | jq -e '.options.stores and .crossovers' >/dev/null || return 0
    printf '%s\n' "$1" | jq --slurpfile ci "$CI" "$KV_JQ_DEFS$SWEEP_DEFS"'
        def iv($k): ($ci[0][$k] // null);
        def rkey($s; $p; $size): if $s == "files" then "sweep/\($p)/\($size)" else "sweep-\($s)/\($p)/\($size)" end;
        . as $o
        | {stores: swstores, page_sizes: [swpages[].pagesize],
           crossovers: [ swstores[] as $s | $o | swpages[] | .pagesize as $p | .rows as $rows
               | ((.crossovers // $o.crossovers // {})[$s] // (if $s == "files" then .crossover else null end)) as $x
               | select($x != null)
               | ($rows[0].size) as $fs | ($rows[-1].size) as $ls
               | {store: $s, pagesize: $p, kind: $x.kind, size: $x.size, line: $x.line, ci: ($x.ci // null),
                  first_size: $fs, last_size: $ls,
                  first_ratio: $rows[0]["ratio_\($s)_blob"], last_ratio: $rows[-1]["ratio_\($s)_blob"],
                  first_ci: iv(rkey($s; $p; $fs)), last_ci: iv(rkey($s; $p; $ls)),
                  ratios: [$rows[] | .size as $z | iv(rkey($s; $p; $z)) as $k
                           | {size: $z, ratio: .["ratio_\($s)_blob"], lo: ($k.lo // null), hi: ($k.hi // null)}]}
               # kvtest sweep looks for the size above which the store is
               # faster; a store faster at the smallest size can still be
               # slower at the large ones: the smallest size from which
               # every ratio (its interval where there is one) lies above 1.
               | . + {slower_from: (if (.first_ratio // 1) < 1 then
                        ([.ratios | range(length) as $j | select(all(.[$j:][]; (.lo // .ratio // 0) > 1)) | .[$j].size][0] // null)
                      else null end)} ],
           sizes: [ range(.rows | length) as $i | .rows[$i] as $r
               | ($o | swbest($i) | map(del(.runs)) | sort_by(.us)) as $m
               | iv("sweep-best/\($r.size)") as $c
               | {size: $r.size, count: $r.count, members: $m,
                  fastest: ($m[0].store // null), runner_up: ($m[1].store // null),
                  fastest_vs_runner_up: (if $c then $c elif ($m | length) > 1 then {est: ($m[0].us / $m[1].us)} else null end),
                  verdict: (if $c == null then null elif $c.hi < 1 then "faster"
                            elif $c.lo > 1 then "slower by the paired rounds" else "no difference measurable" end)} ]}' \
        >"$C/sweep-stores.json"
    jq -r '
        def c($v): if $v == null then "" elif ($v | type) == "number" then ($v * 1000 | round / 1000 | tostring) else ($v | tostring) end;
        .stores as $st
        | (["size", "count", "database_us", "database_api", "database_page"] + [$st[] | "\(.)_us"]
           + ["fastest", "runner_up", "fastest_vs_runner_up", "lo", "hi", "n", "verdict"] | join(",")),
          (.sizes[] | (.members | map({key: .store, value: .}) | from_entries) as $m
           | [c(.size), c(.count), c($m.database.us), c($m.database.api), c($m.database.page)]
             + [$st[] | c($m[.].us)]
             + [c(.fastest), c(.runner_up), c(.fastest_vs_runner_up.est), c(.fastest_vs_runner_up.lo),
                c(.fastest_vs_runner_up.hi), c(.fastest_vs_runner_up.n), c(.verdict)]
           | join(","))' "$C/sweep-stores.json" >"$C/sweep-stores.csv"
    jq -r '
        def c($v): if $v == null then "" elif ($v | type) == "number" then ($v * 1000 | round / 1000 | tostring) else ($v | tostring) end;
        "store,pagesize,kind,crossover_bytes,ci_lo,ci_hi,first_size,first_ratio,first_lo,first_hi,last_size,last_ratio,last_lo,last_hi,slower_from",
        (.crossovers[] | [c(.store), c(.pagesize), c(.kind), c(.size),
            (.ci // null | if . == null then "" elif .lo_open then "0" else c(.lo) end),
            (.ci // null | if . == null then "" elif .hi_open then "inf" else c(.hi) end),
            c(.first_size), c(.first_ci.est // .first_ratio), c(.first_ci.lo), c(.first_ci.hi),
            c(.last_size), c(.last_ci.est // .last_ratio), c(.last_ci.lo), c(.last_ci.hi), c(.slower_from)] | join(","))' \
        "$C/sweep-stores.json" >"$C/sweep-crossovers.csv"
}

# With several page sizes (kvtest sweep --page-sizes): the files time (read
# once per blob size) and, per page size, the blob-API time and the ratio
# files / blob API, one column each (sweep-pages.csv, for the chart); one
# line per page size with its crossover (sweep-pages.tsv, for the report);
# and a markdown table appended to sweep.md.
tables_sweep_pages() {
    rm -f "$C/sweep-pages.csv" "$C/sweep-pages.tsv"
    printf '%s\n' "$1" | jq -e '(.pages // []) | length > 1' >/dev/null || return 0
    printf '%s\n' "$1" | jq -r --slurpfile ci "$CI" "$KV_JQ_DEFS"'
        ([.pages[].pagesize]) as $ps
        | def iv($p; $s; $f): ($ci[0]["sweep/\($p)/\($s)"] // {})[$f] | r3 // "";
          (["size", "files_us"] + [$ps[] | "blob_us_\(.)"] + [$ps[] | "ratio_\(.)"]
           + [$ps[] | "ratio_lo_\(.)"] + [$ps[] | "ratio_hi_\(.)"] | join(",")),
          (range(.rows | length) as $i | .rows[$i].size as $s
           | [$s, (.rows[$i].files.us_per_blob | r3)]
             + [.pages[] | .rows[$i].blob.us_per_blob | r3]
             + [.pages[] | .rows[$i].ratio_files_blob | r3]
             + [$ps[] | iv(.; $s; "lo")] + [$ps[] | iv(.; $s; "hi")]
           | map(tostring) | join(","))' >"$C/sweep-pages.csv"
    # ci_lo/ci_hi: the crossover's 95% interval when kvtest sweep gives one
    # (0 and inf for an open end), empty otherwise.
    printf '%s\n' "$1" | jq -r '
        "pagesize\tkind\tcrossover_bytes\tfirst_size\tfirst_ratio\tlast_size\tlast_ratio\tline\tci_lo\tci_hi",
        (.pages[] | [.pagesize, .crossover.kind, (.crossover.size // 0),
                     .rows[0].size, .rows[0].ratio_files_blob,
                     .rows[-1].size, .rows[-1].ratio_files_blob, .crossover.line,
                     (.crossover.ci // null | if . == null then "" elif .lo_open then 0 else .lo end),
                     (.crossover.ci // null | if . == null then "" elif .hi_open then "inf" else .hi end)]
                  | map(tostring) | join("\t"))' >"$C/sweep-pages.tsv"
    printf '%s\n' "$1" | jq -r '
        def s: if . >= 1000000 then "\(. / 1000000)M" elif . >= 1000 then "\(. / 1000)k" else tostring end;
        def f: (. * 100 | round / 100 | tostring);
        def kib: "\(. / 1024) KiB";
        "", "By page size (the same blobs in one database per page size; the files, which do not depend on it, timed once per blob size):", "",
        "| blob size | files µs/blob | " + ([.pages[] | "blob API µs, \(.pagesize | kib) pages"] | join(" | ")) + " | " + ([.pages[] | "files / blob API, \(.pagesize | kib)"] | join(" | ")) + " |",
        "|---:|---:|" + ([.pages[] | "---:|---:|"] | join("")),
        (range(.rows | length) as $i
         | "| \(.rows[$i].size | s) | \(.rows[$i].files.us_per_blob | f) | " + ([.pages[] | .rows[$i].blob.us_per_blob | f] | join(" | ")) + " | " + ([.pages[] | .rows[$i].ratio_files_blob | f] | join(" | ")) + " |"),
        "", (.pages[] | .crossover.line + "."), ""' >>"$C/sweep.md"
}

# ------------------------------------------------------------ intervals
# Paired rounds of each raw file as "KEY<TAB>NUM<TAB>DEN" lines and single
# figures as "KEY<TAB>VALUE" lines, for kv_ci_table (lib.sh).
PAIRS_DEFS='def ok: type == "number" and . > 0;'
PAIRS_BLOBS=$PAIRS_DEFS'
[ .[] | select((.bench.experiment == "read" or .bench.experiment == "write")
               and (.bench.warmup | not) and (.result.us_per_blob | ok)) ]
| (.[] | "us/\(.bench.experiment)/\(.bench.cache)/\(.bench.variant)\t\(.result.us_per_blob)"),
  (group_by([.bench.experiment, .bench.cache, .bench.round]) | .[]
   | .[0].bench as $b | (map({key: .bench.variant, value: .result.us_per_blob}) | from_entries) as $v
   | ($v | keys[]) as $k
   | ([$k, "flat"], (if $k == "db-wal-multitrans" then [$k, "db-wal"] else empty end)) as [$n, $d]
   | select($n != $d and ($v[$d] | ok))
   | "\($b.experiment)/\($b.cache)/\($n)/\($d)\t\($v[$n])\t\($v[$d])")'
# The four stores side by side, one "mode" per workload (STORES_DEFS):
# each store is the variant of its candidates with the lowest median time
# (the database's best API, the files' best layout); each is paired round
# by round with the database's, and the fastest with the runner-up. Keys
# the pairs above already give (anything against flat files) are left out.
# Another workload (e.g. a crossover size per store) is one more entry of
# smodes; kind says what its figures are.
STORES_DEFS=$KV_JQ_DEFS$VLABEL_DEFS'
def slabel: {"database":"database", "files":"files", "lmdb":"LMDB", "rocksdb":"RocksDB"}[.] // .;
def smembers($db; $files; $lmdb; $rocks):
  [{store: "database", pick: $db}, {store: "files", pick: $files},
   {store: "lmdb", pick: $lmdb}, {store: "rocksdb", pick: $rocks}];
def smodes: [
  {mode: "read-warm", exp: "read", cache: "warm", kind: "time", title: "warm random reads",
   members: smembers(["db-sql", "db-blob", "db-blob-mmap"]; ["flat", "tree"]; ["lmdb"]; ["rocksdb"])},
  {mode: "read-cold", exp: "read", cache: "cold", kind: "time", title: "cold random reads",
   members: smembers(["db-sql", "db-blob", "db-blob-mmap"]; ["flat", "tree"]; ["lmdb"]; ["rocksdb"])},
  {mode: "write-synced", exp: "write", cache: "warm", kind: "time",
   title: "random writes, one transaction per run synced at its end",
   members: smembers(["db-wal"]; []; ["lmdb"]; ["rocksdb"])},
  {mode: "write-nosync", exp: "write", cache: "warm", kind: "time", title: "random writes, never synced",
   members: smembers(["db-nosync"]; ["flat"]; ["lmdb-nosync"]; ["rocksdb-nosync"])} ];
def smeasured: [ .[] | select((.bench.experiment == "read" or .bench.experiment == "write")
    and (.bench.warmup | not) and (.result.us_per_blob | type == "number" and . > 0)) ];
def smedians: smeasured | group_by([.bench.experiment, .bench.cache, .bench.variant])
  | map({key: "\(.[0].bench.experiment)/\(.[0].bench.cache)/\(.[0].bench.variant)",
         value: {us: (map(.result.us_per_blob) | median), rounds: length}}) | from_entries;
# Each mode with its members resolved against the medians $m: variant (null
# where the run has none), us, rounds; database, fastest, runner_up.
def spick($m): smodes | map(. as $o
  | .members |= map(. as $s | ([$s.pick[] | . as $v | $m["\($o.exp)/\($o.cache)/\($v)"]
        | select(. != null) | {variant: $v, us, rounds}] | sort_by(.us) | .[0]) as $b
        | $s + {variant: $b.variant, us: $b.us, rounds: $b.rounds})
  | ([.members[] | select(.variant != null)] | sort_by(.us)) as $rank
  | . + {database: ([.members[] | select(.store == "database")][0].variant),
         fastest: $rank[0].store, runner_up: ($rank[1].store // null)});
# The [NUM, DEN] variant pairs of one mode.
def spairs: . as $o | (.members | map({key: .store, value: .variant}) | from_entries) as $v
  | ([.members[] | select(.variant != null and .variant != $o.database) | [.variant, $o.database]]
     + (if $o.runner_up then [[$v[$o.fastest], $v[$o.runner_up]]] else [] end))
  | map(select(.[1] != null and .[1] != "flat" and .[0] != .[1])) | unique;'
PAIRS_STORES=$STORES_DEFS'
def ok: type == "number" and . > 0;
smeasured as $runs
| select(any($runs[]; .bench.variant == "lmdb" or .bench.variant == "rocksdb"))
| (spick(. | smedians)) as $modes
| $runs | group_by([.bench.experiment, .bench.cache, .bench.round])[]
| .[0].bench as $b | (map({key: .bench.variant, value: .result.us_per_blob}) | from_entries) as $u
| ([$modes[] | select(.exp == $b.experiment and .cache == $b.cache) | spairs[]] | unique)[]
| . as [$n, $d] | select(($u[$n] | ok) and ($u[$d] | ok))
| "\($b.experiment)/\($b.cache)/\($n)/\($d)\t\($u[$n])\t\($u[$d])"'
# The in-process bench keeps its rounds inside one object: configs[].runs[]
# in round order, the configurations interleaved per round, so runs pair by
# index. HTTP rounds pair by bench.round; wrk ran right after kvtest load
# against the same service.
PAIRS_SHORT=$PAIRS_DEFS'
( .[] | select(.bench.experiment == "lookup" or .bench.experiment == "lookup-cold")
  | .bench.experiment as $e | .result.configs as $cs
  | ($cs[] | .config as $c | (.runs // [])[] | select(.lookups_per_s | ok)
     | "rate/\($e)/\($c)\t\(.lookups_per_s)"),
    (($cs | map(select(.config == "sqlite"))[0].runs // []) as $s
     | $cs[] | select(.config != "sqlite") | .config as $c | (.runs // []) as $r
     | range([($r | length), ($s | length)] | min) as $i
     | select(($r[$i].lookups_per_s | ok) and ($s[$i].lookups_per_s | ok))
     | "\($e)/\($c)/sqlite\t\($r[$i].lookups_per_s)\t\($s[$i].lookups_per_s)") ),
( [ .[] | select(.bench.experiment == "http" and (.bench.warmup | not))
    | {c: .bench.config, r: .bench.round, v: .result.by_type.get.requests_per_s}
    | select(.v | ok) ] as $h
  | [ .[] | select(.bench.experiment == "wrk")
      | {c: .bench.config, r: .bench.round, v: .requests_per_s} | select(.v | ok) ] as $w
  | ($h[] | "rate/http/\(.c)\t\(.v)"),
    ($h | group_by(.r)[] | (map({key: .c, value: .v}) | from_entries) as $m
     | ($m | keys[]) as $k
     | ([$k, "sqlite"], (if $k == "valkey-track" then [$k, "valkey"] else empty end)) as [$n, $d]
     | select($n != $d and ($m[$d] | ok)) | "http/\($n)/\($d)\t\($m[$n])\t\($m[$d])"),
    ($h[] as $x | $w[] | select(.c == $x.c and .r == $x.r) | "loadwrk/\($x.c)/wrk\t\($x.v)\t\(.v)") ),
( [ .[] | select(.bench.experiment == "http-zipf" and (.bench.warmup | not))
    | {c: .bench.config, r: .bench.round, v: .result.by_type.get.requests_per_s}
    | select(.v | ok) ] as $h
  | ($h[] | "rate/http-zipf/\(.c)\t\(.v)"),
    ($h | group_by(.r)[] | (map({key: .c, value: .v}) | from_entries) as $m
     | ($m | keys[]) as $k
     | ([$k, "sqlite"], (if $k == "valkey-track" then [$k, "valkey"] else empty end)) as [$n, $d]
     | select($n != $d and ($m[$d] | ok)) | "http-zipf/\($n)/\($d)\t\($m[$n])\t\($m[$d])") )'
# The sweep with other stores (kvtest sweep --stores: options.stores, and
# per row each store's figures beside "files"). Each store but the
# database is timed once per size (the top-level rows); the database once
# per page size. swbest($i): every store's best figure at size i by median,
# the database's the best of SQL and the blob API over the page sizes.
SWEEP_DEFS='
def swpages: if (.pages // []) | length > 0 then .pages
    else [{pagesize: .options.pagesize, rows: .rows, crossover: .crossover, crossovers: (.crossovers // null)}] end;
def swstores: (.options.stores // ["db", "files"]) | map(select(. != "db"));
def swok: type == "number" and . > 0;
def swbest($i): . as $o
  | ([swpages[] | .pagesize as $p | .rows[$i] as $r | ["blob", "sql"][] as $a
      | ($r[$a] // {}) | select(.us_per_blob | swok)
      | {store: "database", api: $a, page: $p, us: .us_per_blob, runs: (.runs_us // [])}]
     | sort_by(.us) | .[0:1])
  + [swstores[] as $s | ($o.rows[$i][$s] // {}) | select(.us_per_blob | swok)
      | {store: $s, api: null, page: null, us: .us_per_blob, runs: (.runs_us // [])}];'
# The sweep: files / blob API per blob size and page size, from the runs of
# each layout (runs_us, in round order) when kvtest sweep gives them; with
# other stores also STORE / blob API (sweep-STORE/PAGE/SIZE) and, per size,
# the fastest store's time over the runner-up's by median (sweep-best/SIZE).
PAIRS_SWEEP=$PAIRS_DEFS$SWEEP_DEFS'
map(select(.command == "sweep" and .rows)) | last // empty
| . as $o
| ( (if (.pages // []) | length > 0 then .pages else [{pagesize: .options.pagesize, rows: .rows}] end)[]
    | .pagesize as $p | .rows | to_entries[] | .key as $i | .value as $row
    | ($row.files.runs_us // $o.rows[$i].files.runs_us // []) as $f | ($row.blob.runs_us // []) as $b
    | ( (range([($f | length), ($b | length)] | min) as $j
         | select(($f[$j] | ok) and ($b[$j] | ok))
         | "sweep/\($p)/\($row.size)\t\($f[$j])\t\($b[$j])"),
        ($o | swstores[] | select(. != "files") as $s
         | ($o.rows[$i][$s].runs_us // []) as $x
         | range([($x | length), ($b | length)] | min) as $j
         | select(($x[$j] | ok) and ($b[$j] | ok))
         | "sweep-\($s)/\($p)/\($row.size)\t\($x[$j])\t\($b[$j])") ) ),
  ( select(.options.stores) | range(.rows | length) as $i | .rows[$i].size as $size
    | (swbest($i) | sort_by(.us)) as $r | select(($r | length) > 1)
    | $r[0].runs as $a | $r[1].runs as $b
    | range([($a | length), ($b | length)] | min) as $j
    | select(($a[$j] | ok) and ($b[$j] | ok))
    | "sweep-best/\($size)\t\($a[$j])\t\($b[$j])" )'
{
    [ ! -s "$OUT/raw/blobs.jsonl" ] || jq -rs "$PAIRS_BLOBS" "$OUT/raw/blobs.jsonl"
    [ ! -s "$OUT/raw/blobs.jsonl" ] || jq -rs "$PAIRS_STORES" "$OUT/raw/blobs.jsonl"
    # scripts/study/anchors.sh: db_bench and kvtest alternating, round by
    # round: db_bench's time per read over kvtest's.
    [ ! -s "$C/anchors-rocksdb.csv" ] || awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        function v(k) { return $(c[k]) }
        function ok(x) { return x ~ /^[0-9.]+([eE][-+]?[0-9]+)?$/ && x + 0 > 0 }
        { if (ok(v("dbbench_us_per_op")) && ok(v("kvtest_mean_us")))
              print "anchor/rocksdb/dbbench/kvtest\t" v("dbbench_us_per_op") "\t" v("kvtest_mean_us")
          if (ok(v("dbbench_p50_us")) && ok(v("kvtest_p50_us")))
              print "anchor/rocksdb-p50/dbbench/kvtest\t" v("dbbench_p50_us") "\t" v("kvtest_p50_us")
          if (ok(v("dbbench_us_per_op")) && ok(v("kvtest_us_per_blob")))
              print "anchor/rocksdb-blob/dbbench/kvtest\t" v("dbbench_us_per_op") "\t" v("kvtest_us_per_blob")
          n = split("dbbench_us_per_op dbbench_p50_us kvtest_mean_us kvtest_p50_us kvtest_us_per_blob kvtest_open_close_ms", k, " ")
          for (i = 1; i <= n; i++) if (ok(v(k[i]))) print "anchor-us/" k[i] "\t" v(k[i]) }' "$C/anchors-rocksdb.csv"
    [ ! -s "$OUT/raw/shortener.jsonl" ] || jq -rs "$PAIRS_SHORT" "$OUT/raw/shortener.jsonl"
    [ ! -s "$OUT/raw/sweep.jsonl" ] || jq -rs "$PAIRS_SWEEP" "$OUT/raw/sweep.jsonl"
    # scripts/study/nginx.sh: "round server requests_per_s", the two
    # servers of a round paired (service / nginx: the fraction of the ceiling).
    [ ! -s "$C/nginx.tsv" ] || awk -F'\t' 'NR > 1 { v[$1 "\t" $2] = $3; r[$1] = 1; print "ceiling/rate/" $2 "\t" $3 }
        END { for (i in r) if (v[i "\tservice"] > 0 && v[i "\tnginx"] > 0)
                  print "ceiling/service/nginx\t" v[i "\tservice"] "\t" v[i "\tnginx"] }' "$C/nginx.tsv"
    # scripts/study/memlimit.sh: "leg,mem,limit_bytes,keys,config,round,rate";
    # the configurations of one (leg, memory, keys, round) paired: each cache
    # against sqlite, tracking against plain cache-aside.
    [ ! -s "$C/memlimit.csv" ] || awk -F, 'NR > 1 && $7 > 0 { k = $1 "/" $2 "/" $4
            print "memlimit-rate/" k "/" $5 "\t" $7; v[k SUBSEP $6 SUBSEP $5] = $7; g[k SUBSEP $6] = k }
        END { for (i in g) { s = v[i SUBSEP "sqlite"]; a = v[i SUBSEP "valkey"]; t = v[i SUBSEP "valkey-track"]
                  if (s > 0 && a > 0) print "memlimit/" g[i] "/valkey/sqlite\t" a "\t" s
                  if (s > 0 && t > 0) print "memlimit/" g[i] "/valkey-track/sqlite\t" t "\t" s
                  if (a > 0 && t > 0) print "memlimit/" g[i] "/valkey-track/valkey\t" t "\t" a } }' "$C/memlimit.csv"
} | kv_ci_table >"$C/intervals.json"
CI=$C/intervals.json

RAW=$OUT/raw/blobs.jsonl
if [ -s "$RAW" ]; then
    jq -s --arg exp read "$BLOB_SUMMARY" "$RAW" >"$C/reads.json"
    jq -s --arg exp write "$BLOB_SUMMARY" "$RAW" >"$C/writes.json"
    # Ratio to flat files of the same cache state: > 1 means slower than files.
    jq '[ .[] as $r | (map(select(.cache == $r.cache and .variant == "flat"))[0].us) as $f
          | $r + {ratio_vs_flat: (if $f then $r.us / $f else null end),
                  speedup_vs_flat: (if $f and $r.us > 0 then $f / $r.us else null end)} ]' \
        "$C/reads.json" >"$C/reads.tmp" && mv "$C/reads.tmp" "$C/reads.json"
    jq '[ .[] as $r | (map(select(.variant == "flat"))[0].us) as $f
          | $r + {ratio_vs_flat: (if $f then $r.us / $f else null end)} ]' \
        "$C/writes.json" >"$C/writes.tmp" && mv "$C/writes.tmp" "$C/writes.json"
    # The ratio to files becomes the median of the per-round ratios, with
    # its interval (intervals.json); the median time gains its interval.
    for exp in read write; do
        f=$C/${exp}s.json
        jq --slurpfile ci "$CI" --arg e "$exp" '[ .[]
            | ($ci[0]["\($e)/\(.cache)/\(.variant)/flat"] // {}) as $r
            | ($ci[0]["us/\($e)/\(.cache)/\(.variant)"] // {}) as $u
            | . + {ratio_vs_flat: ($r.est // .ratio_vs_flat), ratio_lo: $r.lo, ratio_hi: $r.hi,
                   ratio_n: $r.n, ratio_covered: $r.covered,
                   us_lo: $u.lo, us_hi: $u.hi, us_covered: $u.covered} ]' "$f" >"$f.tmp"
        mv "$f.tmp" "$f"
    done
    F=variant,label,cache,rounds,count,us,us_min,us_max,mbps,ratio_vs_flat,p50,p90,p99,p999,max,resident,effective,storage_per_blob,ratio_lo,ratio_hi,us_lo,us_hi
    csv_of "$F" <"$C/reads.json" >"$C/reads.csv"
    csv_of "variant,label,rounds,count,us,us_min,us_max,mbps,ratio_vs_flat,p50,p90,p99,p999,max,ratio_lo,ratio_hi,us_lo,us_hi" \
        <"$C/writes.json" >"$C/writes.csv"
    # One row per access method, warm and cold side by side (chart input).
    jq -r "$KV_JQ_DEFS"'"label,warm_ratio,cold_ratio,warm_us,cold_us,warm_lo,warm_hi,cold_lo,cold_hi",
        (group_by(.variant) | sort_by(.[0].ord) | .[]
         | (map(select(.cache == "warm"))[0] // {}) as $w
         | (map(select(.cache == "cold"))[0] // {}) as $c
         | [ "\"" + .[0].label + "\"", ($w.ratio_vs_flat // ""), ($c.ratio_vs_flat // ""),
             ($w.us // ""), ($c.us // ""), ($w.ratio_lo // ""), ($w.ratio_hi // ""),
             ($c.ratio_lo // ""), ($c.ratio_hi // "") ]
         | map(if type == "number" then r3 else . end | tostring) | join(","))' \
        "$C/reads.json" >"$C/reads-ratio.csv"
    for cache in warm cold; do
        jq -r --arg c "$cache" "$KV_JQ_DEFS"'
            map(select(.cache == $c)) as $v | if ($v | length) == 0 then empty else
            ("pct," + ($v | map("\"" + .label + "\"") | join(","))),
            ( ["p50","p90","p99","p999","max"] as $p
              | range(0; 5) as $i
              | ([["p50","p90","p99","p99.9","max"][$i]] + ($v | map(.[$p[$i]] | r3 | tostring)))
              | join(",") ) end' "$C/reads.json" >"$C/percentiles-$cache.csv"
        [ -s "$C/percentiles-$cache.csv" ] || rm -f "$C/percentiles-$cache.csv"
    done
fi

# ------------------------------------------------------------------ space
# kvtest space (content, allocated, directory bytes) when available, else du.
SPJ=$OUT/raw/space.jsonl
if [ -s "$SPJ" ] && jq -se 'any(.command == "space" and .layouts != null)' "$SPJ" >/dev/null 2>&1; then
    jq -rs '"layout,files,apparent_mib,allocated_mib,overhead_vs_db_pct,directory_mib",
        (map(select(.command == "space"))[0].layouts[]
         | [ (if .layout == "database" then "db" else .layout end), .files,
             (.content_bytes / 1048576 * 10 | round / 10),
             (.total_bytes / 1048576 * 10 | round / 10),
             ((.vs_db - 1) * 1000 | round / 10),
             (.directory_bytes / 1048576 * 100 | round / 100) ] | map(tostring) | join(","))' \
        "$SPJ" >"$C/space.csv"
    jq -s 'map(select(.command == "space"))[0] | {layouts, database}' "$SPJ" >"$C/space.json"
elif [ -s "$C/space-du.csv" ]; then
    awk -F, 'NR == 1 { print "layout,files,apparent_mib,allocated_mib,overhead_vs_db_pct,directory_mib"; next }
        { l[NR] = $1; f[NR] = $2; a[NR] = $3; s[NR] = $4; if ($1 == "db") db = $4 }
        END { for (i = 2; i <= NR; i++)
                printf "%s,%s,%.1f,%.1f,%.1f,\n", l[i], f[i], a[i] / 1024, s[i] / 1024,
                       (db > 0 ? (s[i] / db - 1) * 100 : 0) }' "$C/space-du.csv" >"$C/space.csv"
fi

# ------------------------------------------------------------- four stores
# stores.json: one object per workload (mode): its members (store, the
# variant that stands for it, its median time, rounds, the ratio to the
# database with its interval), the fastest and the runner-up by median,
# and the fastest against the runner-up. Disk space is one more mode
# (kind "bytes", from kvtest space), where files are the smaller layout.
# stores.csv: the same, one row per (mode, store).
rm -f "$C/stores.json" "$C/stores.csv"
if [ -s "$RAW" ] && jq -se 'any(.[]; .bench.variant == "lmdb" or .bench.variant == "rocksdb")' "$RAW" >/dev/null; then
    SPACE_LAYOUTS='[]'
    [ ! -s "$C/space.json" ] || SPACE_LAYOUTS=$(jq -c '.layouts // []' "$C/space.json")
    jq -s --slurpfile ci "$CI" --argjson space "$SPACE_LAYOUTS" "$STORES_DEFS"'
        def ivl($k): ($ci[0][$k] // null);
        [ spick(smedians)[] | select(.database != null) | . as $o
          | .members |= map(. as $s
              | (if $s.variant == null or $s.variant == $o.database then null
                 else ivl("\($o.exp)/\($o.cache)/\($s.variant)/\($o.database)") end) as $r
              | $s + {label: (if $s.variant then ($s.variant | vlabel) else null end),
                      ratio_to_db: (if $s.variant == null then null elif $s.variant == $o.database then 1 else $r.est end),
                      ratio_lo: $r.lo, ratio_hi: $r.hi, ratio_n: $r.n, ratio_covered: $r.covered}
              | del(.pick))
          | (.members | map({key: .store, value: .variant}) | from_entries) as $v
          | . + {fastest_vs_runner_up: (if .runner_up then
                    ivl("\(.exp)/\(.cache)/\($v[.fastest])/\($v[.runner_up])")
                    // (ivl("\(.exp)/\(.cache)/\($v[.runner_up])/\($v[.fastest])")
                        | if . then {est: (1 / .est), lo: (1 / .hi), hi: (1 / .lo), n, covered} else null end)
                  else null end)} ]
        + (if ($space | length) > 0 then
            ($space | map({key: .layout, value: .}) | from_entries) as $l
            | ([$l.flat, $l.tree] | map(select(. != null)) | sort_by(.total_bytes) | .[0]) as $f
            | [ {mode: "space", kind: "bytes", title: "disk space",
                 members: [ {store: "database", layout: $l.database}, {store: "files", layout: $f},
                            {store: "lmdb", layout: $l.lmdb}, {store: "rocksdb", layout: $l.rocksdb} ]
                   | map(.layout as $x | {store, variant: ($x.layout // null),
                          label: ($x.layout // null | if . == null then null else {"database":"SQLite database", "flat":"flat files", "tree":"tree files", "lmdb":"LMDB", "rocksdb":"RocksDB"}[.] // . end),
                          bytes: ($x.total_bytes // null), content_bytes: ($x.content_bytes // null),
                          files: ($x.files // null), ratio_to_db: ($x.vs_db // null)})}
              | ([.members[] | select(.bytes != null)] | sort_by(.bytes)) as $rank
              | . + {database: "database", fastest: $rank[0].store, runner_up: ($rank[1].store // null)} ]
           else [] end)' "$RAW" >"$C/stores.json"
    jq -r '"mode,store,variant,label,us,bytes,rounds,ratio_to_db,ratio_lo,ratio_hi,ratio_n,fastest",
        (.[] | . as $o | .members[]
         | [$o.mode, .store, .variant, .label, (.us | if . then . * 1000 | round / 1000 else . end), .bytes,
            .rounds, (.ratio_to_db | if . then . * 1000 | round / 1000 else . end),
            (.ratio_lo | if . then . * 1000 | round / 1000 else . end),
            (.ratio_hi | if . then . * 1000 | round / 1000 else . end), .ratio_n, ($o.fastest == .store)]
         | map(if . == null then "" else tostring end) | map(if test(",") then "\"" + . + "\"" else . end) | join(","))' \
        "$C/stores.json" >"$C/stores.csv"
fi

# ------------------------------------------------------------------ sweep
SW=$OUT/raw/sweep.jsonl
if [ -s "$SW" ]; then
    tables_sweep || say "could not tabulate the sweep (see raw/sweep.jsonl)"
fi

# -------------------------------------------------------------- shortener
SH=$OUT/raw/shortener.jsonl
if [ -s "$SH" ]; then
    CONF_ORDER='def cord: {"sqlite":1, "sqlite-nocache":2, "valkey":3, "valkey-nocache":4}[.] // 9;'
    jq -s "$KV_JQ_DEFS$CONF_ORDER"'
        [ .[] | select(.bench.experiment == "lookup") | .result.configs[] ]
        | group_by(.config) | map({
            config: .[0].config, ord: (.[0].config | cord),
            lookups_per_s: (map(.lookups_per_s) | median),
            lookups_min: (map(.lookups_per_s_spread.min) | min),
            lookups_max: (map(.lookups_per_s_spread.max) | max),
            ratio_to_sqlite: (map(.ratio_to_sqlite) | median),
            hit_ratio: (map(.hit_ratio) | median),
            p50: (map(.latency.p50) | median), p90: (map(.latency.p90) | median),
            p99: (map(.latency.p99) | median), p999: (map(.latency.p999) | median),
            max: (map(.latency.max) | median),
            wrong_answers: (map(.wrong_answers) | add),
            cache_errors: (map(.cache.errors // 0) | add) })
        | sort_by(.ord)' "$SH" >"$C/shortener-bench.json"
    # Intervals: the median rate's, and the ratio to sqlite as the median of
    # the per-round ratios (intervals.json); mean latency beside the
    # percentiles, so a heavy tail shows.
    jq --slurpfile ci "$CI" --slurpfile raw <(jq -c 'select(.bench.experiment == "lookup")' "$SH") '
        ($raw | map(.result.configs[]) | group_by(.config)
         | map({key: .[0].config, value: (map(.latency.mean // empty) | add / length)}) | from_entries) as $mean
        | [ .[] | ($ci[0]["lookup/\(.config)/sqlite"] // {}) as $r | ($ci[0]["rate/lookup/\(.config)"] // {}) as $u
            | . + {mean: $mean[.config], lookups_lo: $u.lo, lookups_hi: $u.hi,
                   ratio_to_sqlite: ($r.est // .ratio_to_sqlite), ratio_lo: $r.lo, ratio_hi: $r.hi,
                   ratio_covered: $r.covered} ]' "$C/shortener-bench.json" >"$C/shortener-bench.tmp"
    mv "$C/shortener-bench.tmp" "$C/shortener-bench.json"
    csv_of config,lookups_per_s,lookups_min,lookups_max,ratio_to_sqlite,hit_ratio,p50,p90,p99,p999,max,mean,lookups_lo,lookups_hi,ratio_lo,ratio_hi \
        <"$C/shortener-bench.json" >"$C/shortener-bench.csv"
    jq -s "$KV_JQ_DEFS$CONF_ORDER"'
        . as $all
        | [ .[] | select(.bench.experiment == "http" and (.bench.warmup | not)) ]
        | group_by(.bench.config) | map(
            .[0].bench.config as $c
            | [ $all[] | select(.bench.experiment == "wrk" and .bench.config == $c) ] as $w
            | [ $all[] | select(.bench.experiment == "classic" and .bench.config == $c) ] as $k
            | (map(.result.by_type.get.requests_per_s) | median) as $rps
            | ($w | map(.requests_per_s) | median) as $wrps
            | {
              config: $c, ord: ($c | cord), rounds: length,
              rps: $rps,
              rps_min: (map(.result.by_type.get.requests_per_s) | min),
              rps_max: (map(.result.by_type.get.requests_per_s) | max),
              wrk_rps: $wrps,
              load_over_wrk: (if $wrps then $rps / $wrps else null end),
              p50_ms: (map(.result.by_type.get.latency.p50) | median / 1000),
              p90_ms: (map(.result.by_type.get.latency.p90) | median / 1000),
              p99_ms: (map(.result.by_type.get.latency.p99) | median / 1000),
              p999_ms: (map(.result.by_type.get.latency.p999) | median / 1000),
              max_ms: (map(.result.by_type.get.latency.max) | median / 1000),
              mean_ms: (map(.result.by_type.get.latency.mean) | median / 1000),
              wrk_p50_ms: ($w | map(.latency.p50) | median | if . then . / 1000 else null end),
              wrk_p99_ms: ($w | map(.latency.p99) | median | if . then . / 1000 else null end),
              wrk_errors: ($w | map(.errors | add) | add),
              failed: (map(.result.requests_failed) | add),
              requests: (map(.result.requests) | add),
              classic_tasks_per_s: ($k | map(.result.tasks_per_s) | median),
              classic_seconds: ($k | map(.result.seconds) | median),
              classic_mean_ms: ($k | map(.result.by_type.all.latency.mean) | median
                                | if . then . / 1000 else null end),
              classic_p99_ms: ($k | map(.result.by_type.all.latency.p99) | median
                               | if . then . / 1000 else null end),
              classic_failed: ($k | map(.result.requests_failed) | add)
            })
        | sort_by(.ord)' "$SH" >"$C/shortener-http.json"
    jq --slurpfile ci "$CI" '[ .[]
        | ($ci[0]["rate/http/\(.config)"] // {}) as $u | ($ci[0]["http/\(.config)/sqlite"] // {}) as $r
        | ($ci[0]["loadwrk/\(.config)/wrk"] // {}) as $l
        | . + {rps_lo: $u.lo, rps_hi: $u.hi,
               ratio_to_sqlite: (if .config == "sqlite" then 1 else $r.est end),
               ratio_lo: $r.lo, ratio_hi: $r.hi,
               load_over_wrk: ($l.est // .load_over_wrk), load_over_wrk_lo: $l.lo,
               load_over_wrk_hi: $l.hi} ]' "$C/shortener-http.json" >"$C/shortener-http.tmp"
    mv "$C/shortener-http.tmp" "$C/shortener-http.json"
    csv_of config,rps,rps_min,rps_max,wrk_rps,load_over_wrk,p50_ms,p90_ms,p99_ms,p999_ms,max_ms,wrk_p50_ms,wrk_p99_ms,failed,classic_tasks_per_s,classic_mean_ms,rps_lo,rps_hi,ratio_to_sqlite,ratio_lo,ratio_hi,load_over_wrk_lo,load_over_wrk_hi \
        <"$C/shortener-http.json" >"$C/shortener-http.csv"
    # Does each cache mode pay off over HTTP, per key distribution? One row
    # per (keys, config) of the uniform rounds ("http") and the Zipf rounds
    # ("http-zipf"): median GET/s, the ratio to no cache (sqlite) in the
    # same round with its 95% interval, and the verdict: "yes" only where
    # the interval lies above 1, "no (slower)" where it lies below.
    jq -s --slurpfile ci "$CI" --arg zipf "$(awk -F'\t' '$1 == "zipf" { print $2 }' \
        "$OUT/raw/shortener-params.tsv" 2>/dev/null)" "$KV_JQ_DEFS"'
        def ok: type == "number" and . > 0;
        def verdict($c): if $c == null then null elif $c.lo > 1 then "yes"
            elif $c.hi < 1 then "no (slower)" else "no difference measurable" end;
        [ ["http", "uniform"], ["http-zipf", "zipf \(if $zipf == "" then "1.0" else $zipf end)"] ] as $exps
        | . as $all
        | [ $exps[] as [$e, $keys]
            | ["sqlite", "valkey", "valkey-track"][] as $c
            | [ $all[] | select(.bench.experiment == $e and .bench.config == $c and (.bench.warmup | not))
                | .result.by_type.get.requests_per_s | select(ok) ] as $v
            | select($v | length > 0)
            | ($ci[0]["\($e)/\($c)/sqlite"] // null) as $r
            | ($ci[0]["\($e)/\($c)/valkey"] // null) as $t
            | {keys: $keys, config: $c, rounds: ($v | length), rps: ($v | median),
               ratio_to_sqlite: (if $c == "sqlite" then 1 else $r.est end),
               ratio_lo: $r.lo, ratio_hi: $r.hi, ratio_covered: $r.covered,
               pays_off: (if $c == "sqlite" then null else verdict($r) end),
               ratio_to_valkey: $t.est, valkey_lo: $t.lo, valkey_hi: $t.hi} ]' \
        "$SH" >"$C/shortener-payoff.json"
    csv_of keys,config,rounds,rps,ratio_to_sqlite,ratio_lo,ratio_hi,pays_off,ratio_to_valkey,valkey_lo,valkey_hi \
        <"$C/shortener-payoff.json" >"$C/shortener-payoff.csv"
    [ "$(wc -l <"$C/shortener-payoff.csv")" -ge 2 ] || rm -f "$C/shortener-payoff.csv" "$C/shortener-payoff.json"
    jq -s '[ .[] | select(.tool == "valkey-benchmark") | .requests_per_s ] | first // null' \
        "$SH" >"$C/valkey-benchmark.json"
    [ "$(wc -l <"$C/shortener-http.csv")" -ge 2 ] || rm -f "$C/shortener-http.csv"
    [ "$(wc -l <"$C/shortener-bench.csv")" -ge 2 ] || rm -f "$C/shortener-bench.csv"
fi
# A database larger than memory (scripts/study/memlimit.sh): one row per
# (leg, memory, keys, config) in the order measured: the median rate with
# its interval, each ratio (median of the per-round ratios, intervals.json)
# and the verdict: a cache pays off only where its interval vs sqlite lies
# above 1.
if [ -s "$C/memlimit.csv" ]; then
    jq -R -s --slurpfile ci "$CI" '
        def pays($c): if $c == null then null elif $c.lo > 1 then "yes" elif $c.hi < 1 then "no (slower)" else "no difference measurable" end;
        [ split("\n")[1:][] | select(length > 0) | split(",")
          | {leg: .[0], mem: .[1], limit_bytes: (.[2] | tonumber), keys: .[3], config: .[4]} ]
        | reduce .[] as $r ([]; if any(.[]; . == $r) then . else . + [$r] end)
        | map(("\(.leg)/\(.mem)/\(.keys)") as $k
              | ($ci[0]["memlimit-rate/\($k)/\(.config)"] // null) as $u
              | ($ci[0]["memlimit/\($k)/\(.config)/sqlite"] // null) as $s
              | ($ci[0]["memlimit/\($k)/\(.config)/valkey"] // null) as $v
              | . + {rounds: $u.n, rate: $u.est, rate_lo: $u.lo, rate_hi: $u.hi,
                     ratio_to_sqlite: (if .config == "sqlite" then 1 else $s.est end),
                     ratio_lo: $s.lo, ratio_hi: $s.hi, ratio_n: $s.n, ratio_covered: $s.covered,
                     pays_off: (if .config == "sqlite" then null else pays($s) end),
                     ratio_to_valkey: $v.est, valkey_lo: $v.lo, valkey_hi: $v.hi})' \
        "$C/memlimit.csv" >"$C/memlimit.json"
    # Over HTTP, the services' cache counters (warm-up included): answers
    # from the cache (Valkey or process memory) over all lookups, per config.
    if [ -s "$C/memlimit-http-hits.csv" ]; then
        awk -F, 'NR > 1 { k = $1 "," $2; h[k] += $4 + $6; l[k] += $6; a[k] += $4 + $5 + $6 }
            END { for (k in a) if (a[k] > 0) printf "%s,%.4f,%.4f\n", k, h[k] / a[k], l[k] / a[k] }' \
            "$C/memlimit-http-hits.csv" |
            jq -R -s --slurpfile m "$C/memlimit.json" '
                [split("\n")[] | select(length > 0) | split(",")
                 | {key: "\(.[0])/\(.[1])", value: {hit: (.[2] | tonumber), local: (.[3] | tonumber)}}]
                | from_entries as $h
                | $m[0] | map(if .leg == "http" and $h["\(.keys)/\(.config)"]
                              then . + {hit_ratio: $h["\(.keys)/\(.config)"].hit,
                                        local_hit_ratio: $h["\(.keys)/\(.config)"].local}
                              else . end)' >"$C/memlimit.tmp"
        mv "$C/memlimit.tmp" "$C/memlimit.json"
    fi
    # csv/memlimit-ratios.csv, for the chart (plot/memlimit.gp): one row per
    # (leg, memory, keys), in-process first, sqlite's median rate and
    # each cache's ratio to sqlite with its 95% interval (empty if none).
    jq -r 'def c: if . == null then "" else tostring end;
        "leg,mem,keys,sqlite_per_s,valkey_ratio,valkey_lo,valkey_hi,track_ratio,track_lo,track_hi",
        (group_by([.leg, .mem, .keys]) | sort_by(.[0].leg != "inproc")[]
         | . as $g | (map(select(.config == "sqlite"))[0] // {}) as $s
         | (map(select(.config == "valkey"))[0] // {}) as $v
         | (map(select(.config == "valkey-track"))[0] // {}) as $t
         | [$g[0].leg, $g[0].mem, $g[0].keys, $s.rate, $v.ratio_to_sqlite, $v.ratio_lo, $v.ratio_hi,
            $t.ratio_to_sqlite, $t.ratio_lo, $t.ratio_hi] | map(c) | join(","))' \
        "$C/memlimit.json" >"$C/memlimit-ratios.tmp"
    mv "$C/memlimit-ratios.tmp" "$C/memlimit-ratios.csv"
fi
exit 0

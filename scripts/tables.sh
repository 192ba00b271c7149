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
#                           with several page sizes sweep-pages.csv, .tsv
#   raw/shortener.jsonl  -> shortener-bench.csv, shortener-bench.json,
#                           shortener-http.csv, shortener-http.json,
#                           shortener-bench-pct.csv, shortener-http-pct.csv,
#                           valkey-benchmark.json
#
# (csv/space-du.csv is written by fasterthanfs.sh, from du.)
# Every figure is the median over the measured rounds (warm-up rounds are
# in the raw file, marked "warmup": true, and ignored here). Percentiles
# are the median of each round's percentile. Safe to re-run.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_tools jq awk
kv_results_dir "$@"
mkdir -p "$C"

# jq: one record per (experiment, variant, cache) with medians over rounds.
BLOB_SUMMARY="$KV_JQ_DEFS"'
def vlabel: {"db-sql":"SQLite SQL", "db-blob":"SQLite blob API",
  "db-blob-mmap":"SQLite blob API + mmap", "flat":"flat files",
  "tree":"tree files", "db-wal":"SQLite WAL", "db-nosync":"SQLite journal off + sync off",
  "flat-fsync":"flat files + fsync", "db-wal-multitrans":"SQLite WAL 1 txn per blob",
  "db-blob-ra-off":"SQLite blob API readahead off", "flat-ra-off":"flat files readahead off"}[.] // .;
def vorder: {"db-sql":1, "db-blob":2, "db-blob-mmap":3, "tree":4, "flat":5, "db-blob-ra-off":6.1, "flat-ra-off":6.2,
  "db-wal":1, "db-nosync":2, "db-wal-multitrans":3, "flat-fsync":6}[.] // 9;
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
    printf '%s\n' "$obj" | jq -r "$KV_JQ_DEFS"'
        "size,count,sql_us,blob_us,files_us,ratio_files_blob,ratio_files_sql",
        (.rows[] | [ .size, .count, (.sql.us_per_blob | r3), (.blob.us_per_blob | r3),
                     (.files.us_per_blob | r3), (.ratio_files_blob | r3), (.ratio_files_sql | r3) ]
                 | map(tostring) | join(","))' >"$C/sweep.csv"
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
}

# With several page sizes (kvtest sweep --page-sizes): the files time (read
# once per blob size) and, per page size, the blob-API time and the ratio
# files / blob API, one column each (sweep-pages.csv, for the chart); one
# line per page size with its crossover (sweep-pages.tsv, for the report);
# and a markdown table appended to sweep.md.
tables_sweep_pages() {
    rm -f "$C/sweep-pages.csv" "$C/sweep-pages.tsv"
    printf '%s\n' "$1" | jq -e '(.pages // []) | length > 1' >/dev/null || return 0
    printf '%s\n' "$1" | jq -r "$KV_JQ_DEFS"'
        ([.pages[].pagesize]) as $ps
        | (["size", "files_us"] + [$ps[] | "blob_us_\(.)"] + [$ps[] | "ratio_\(.)"] | join(",")),
          (range(.rows | length) as $i
           | [.rows[$i].size, (.rows[$i].files.us_per_blob | r3)]
             + [.pages[] | .rows[$i].blob.us_per_blob | r3]
             + [.pages[] | .rows[$i].ratio_files_blob | r3]
           | map(tostring) | join(","))' >"$C/sweep-pages.csv"
    printf '%s\n' "$1" | jq -r '
        "pagesize\tkind\tcrossover_bytes\tfirst_size\tfirst_ratio\tlast_size\tlast_ratio\tline",
        (.pages[] | [.pagesize, .crossover.kind, (.crossover.size // 0),
                     .rows[0].size, .rows[0].ratio_files_blob,
                     .rows[-1].size, .rows[-1].ratio_files_blob, .crossover.line]
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
    F=variant,label,cache,rounds,count,us,us_min,us_max,mbps,ratio_vs_flat,p50,p90,p99,p999,max,resident,effective,storage_per_blob
    csv_of "$F" <"$C/reads.json" >"$C/reads.csv"
    csv_of "variant,label,rounds,count,us,us_min,us_max,mbps,ratio_vs_flat,p50,p90,p99,p999,max" \
        <"$C/writes.json" >"$C/writes.csv"
    # One row per access method, warm and cold side by side (chart input).
    jq -r "$KV_JQ_DEFS"'"label,warm_ratio,cold_ratio,warm_us,cold_us",
        (group_by(.variant) | sort_by(.[0].ord) | .[]
         | (map(select(.cache == "warm"))[0] // {}) as $w
         | (map(select(.cache == "cold"))[0] // {}) as $c
         | [ "\"" + .[0].label + "\"", ($w.ratio_vs_flat // ""), ($c.ratio_vs_flat // ""),
             ($w.us // ""), ($c.us // "") ] | map(if type == "number" then r3 else . end | tostring) | join(","))' \
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
    csv_of config,lookups_per_s,lookups_min,lookups_max,ratio_to_sqlite,hit_ratio,p50,p90,p99,p999,max \
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
    csv_of config,rps,rps_min,rps_max,wrk_rps,load_over_wrk,p50_ms,p90_ms,p99_ms,p999_ms,max_ms,wrk_p50_ms,wrk_p99_ms,failed,classic_tasks_per_s,classic_mean_ms \
        <"$C/shortener-http.json" >"$C/shortener-http.csv"
    jq -s '[ .[] | select(.tool == "valkey-benchmark") | .requests_per_s ] | first // null' \
        "$SH" >"$C/valkey-benchmark.json"
    [ "$(wc -l <"$C/shortener-http.csv")" -ge 2 ] || rm -f "$C/shortener-http.csv"
    [ "$(wc -l <"$C/shortener-bench.csv")" -ge 2 ] || rm -f "$C/shortener-bench.csv"
fi
exit 0

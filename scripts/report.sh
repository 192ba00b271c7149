#!/usr/bin/env bash
# shellcheck disable=SC2016  # $names inside single quotes are jq variables
# report.sh OUTDIR: write OUTDIR/REPORT.md from the tables (csv/*.json),
# charts, environment and command log of an experiment run. Findings are
# stated as sentences with the numbers behind them; every chart is followed
# by the exact commands that produced its data and the chart itself.
# Safe to re-run; it only reads OUTDIR and replaces OUTDIR/REPORT.md.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_tools jq awk
kv_results_dir "$@"
R=$OUT/REPORT.md.tmp
: >"$R"
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
'
# j FILE [JQ OPTIONS...] PROGRAM: run PROGRAM (with FMT) over FILE.
j() {
    local f=$1 prog=${!#}
    local opts=("${@:2:$#-2}")
    jq -r "${opts[@]}" "$FMT$prog" "$f"
}
param() { [ -s "$1" ] || return 0; awk -F'\t' -v k="$2" '$1 == k { print $2; exit }' "$1"; }

# Distinct commands of the given command-log tags, ports and random
# directory names normalised so repeated rounds collapse into one line.
cmds() {
    local pat=$1
    [ -s "$OUT/commands.tsv" ] || return 0
    awk -F'\t' -v p="$pat" '$1 ~ p { print $2 }' "$OUT/commands.tsv" |
        sed -E 's/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g; s/(--port|-p) [0-9]+/\1 PORT/g; s/--seed [0-9]+ --json/--seed N --json/; s#\$OUT/scratch/[a-z]+\.[A-Za-z0-9]{6}/#$SCRATCH/#g' |
        awk '!seen[$0]++'
}
plotcmd() { grep -F "charts/$1.png'" "$OUT/charts/commands.txt" 2>/dev/null | head -n1 || true; }
figure() { # figure NAME TITLE TAGPATTERN
    local name=$1 title=$2 pat=$3
    [ -s "$OUT/charts/$name.png" ] || return 0
    w "" "![$title](charts/$name.png)" "" \
      "<details><summary>Commands behind this figure</summary>" "" '```sh'
    cmds "$pat" >>"$R"
    w "# SCRATCH: any empty directory; OUT: this directory; PORT: a free port" \
      "bash scripts/tables.sh \$OUT && bash scripts/plot.sh \$OUT" "$(plotcmd "$name")" '```' "" "</details>"
}

SCALE=$(param "$OUT/raw/bench.tsv" scale)
ELAPSED=$(param "$OUT/raw/bench.tsv" elapsed_s)
BP=$OUT/raw/blobs-params.tsv
SP=$OUT/raw/shortener-params.tsv

w "# kvtest results" ""
if [ -n "$SCALE" ]; then
    w "Produced by \`make bench SCALE=$SCALE\` (scripts/bench.sh) on $(kv_envl date_utc)$([ -n "$ELAPSED" ] && printf ' in %.0f s' "$ELAPSED")."
else
    w "Produced by the kvtest experiment scripts on $(kv_envl date_utc)."
fi
w "Machine: $(kv_envl cpu), $(kv_envl memory) RAM, $(kv_envl kernel), $(kv_envl os); output directory on $(kv_envl 'filesystem of output dir' | cut -d' ' -f1). Full environment at the end." \
  "" "Every figure is the median over measured rounds; variants were interleaved round by round, and warm-up rounds were discarded (see *Methodology* in the project README). Ratios compare two paths measured in the same run." ""

# ------------------------------------------------------------- findings
w "## Findings" ""
if [ -s "$C/reads.json" ]; then
    j "$C/reads.json" '
      def g($v; $c): (map(select(.variant == $v and .cache == $c))[0] // {});
      g("flat"; "warm") as $f | g("db-blob"; "warm") as $b | g("db-sql"; "warm") as $s
      | g("db-blob-mmap"; "warm") as $m | g("tree"; "warm") as $t
      | if $f.us and $b.us then
        "- **Reads, warm cache:** SQLite blob-API reads took \($b.us | us) µs per blob against \($f.us | us) µs for separate flat files: \(vs($b.us; $f.us)) (median of \($b.rounds) rounds of \($b.count | n0) random reads). SQL `SELECT` reads: \($s.us | us) µs (\(vs($s.us; $f.us)) than files); blob API with the whole database memory-mapped: \($m.us | us) µs (\(vs($m.us; $f.us))); files in a tree of directories: \($t.us | us) µs (\(vs($t.us; $f.us)) than flat)."
        else empty end' >>"$R"
    j "$C/reads.json" --arg size "$(param "$BP" size)" '
      def g($v; $c): (map(select(.variant == $v and .cache == $c))[0] // {});
      g("flat"; "cold") as $f | g("db-blob"; "cold") as $b | g("db-sql"; "cold") as $s
      | g("db-blob-mmap"; "cold") as $m | g("db-blob-ra-off"; "cold") as $bra | g("flat-ra-off"; "cold") as $fra
      | if $f.us and $b.us then
        "- **Reads, cold cache** (page cache evicted before every run; at most \([.[] | select(.cache == "cold") | .resident // 0] | max * 100 | pct) of the files stayed resident\(if all(.[] | select(.cache == "cold"); .effective != false) then "" else ", **eviction did not fully take hold**" end)): blob API \($b.us | us) µs vs flat files \($f.us | us) µs per blob, \(vs($b.us; $f.us)); SQL \($s.us | us) µs; mmap \($m.us | us) µs. Bytes read from storage per blob: database \(($b.storage_per_blob // null) | if . then (. / 1024 | n1) + " KiB" else "n/a" end), files \(($f.storage_per_blob // null) | if . then (. / 1024 | n1) + " KiB" else "n/a" end), for blobs of \($size) bytes on average.\(if $bra.us then " With readahead off (`--fadvise random`): blob API \($bra.us | us) µs and \(($bra.storage_per_blob // 0) / 1024 | n1) KiB per blob, flat files \($fra.us | us) µs and \(($fra.storage_per_blob // 0) / 1024 | n1) KiB." else "" end)"
        else empty end' >>"$R"
fi
if [ -s "$C/space.csv" ]; then
    awk -F, 'NR > 1 { a[$1] = $4; c[$1] = $3; o[$1] = $5 }
        END { if (a["db"] > 0 && a["flat"] > 0)
            printf "- **Disk space:** the database took %.1f MiB for %.1f MiB of blob content; the flat export took %.1f MiB (%+.1f%%, so the database is %.1f%% smaller) and the tree %.1f MiB (%+.1f%%).\n",
                a["db"], c["db"], a["flat"], o["flat"], (1 - a["db"] / a["flat"]) * 100, a["tree"], o["tree"] }' \
        "$C/space.csv" >>"$R"
fi
if [ -s "$C/writes.json" ]; then
    j "$C/writes.json" '
      def g($v): (map(select(.variant == $v))[0] // {});
      g("flat") as $f | g("db-wal") as $w | g("db-nosync") as $n | g("flat-fsync") as $fs
      | g("db-wal-multitrans") as $mt | g("tree") as $t
      | if $f.us and $w.us then
        "- **Writes** (fresh content over \($w.count | n0) blobs in random order): SQLite in WAL mode \($w.us | us) µs per blob vs flat files \($f.us | us) µs, \(vs($w.us; $f.us)); SQLite with journal and sync off \($n.us | us) µs (\(vs($n.us; $f.us)) than files)\(if $t.us then "; tree files \($t.us | us) µs" else "" end). Durable variants: files with `fsync` after each \($fs.us | us) µs per blob; one WAL transaction per blob (`--multitrans`) \($mt.us | us) µs, \(if $mt.us and $w.us then ($mt.us / $w.us | x) else "n/a" end) the cost of one transaction for all."
        else empty end' >>"$R"
fi
if [ -s "$C/sweep-crossover.txt" ] && [ -s "$C/sweep.csv" ]; then
    line=$(sed -n 's/^line=//p' "$C/sweep-crossover.txt")
    awk -F, -v line="$line" 'NR == 2 { s0 = $1; r0 = $6 } NR > 1 { s1 = $1; r1 = $6 }
        function sz(b) { return b >= 1e6 ? b / 1e6 "M" : b >= 1e3 ? b / 1e3 "k" : b }
        END { if (NR > 2) printf "- **Blob-size sweep** (warm cache, random reads): reading separate files took %.2fx the time of the blob API at %s bytes and %.2fx at %s bytes. %s.\n", r0, sz(s0), r1, sz(s1), line }' \
        "$C/sweep.csv" >>"$R"
fi
if [ -s "$C/sweep-pages.tsv" ]; then
    # One clause per page size, from kvtest sweep --page-sizes (tables.sh).
    awk -F'\t' 'function sz(b) { return b >= 1e6 ? b / 1e6 "M" : b >= 1e3 ? b / 1e3 "k" : b }
        function sz3(b) { return b >= 1e6 ? sprintf("%.3gM", b / 1e6) : b >= 1e3 ? sprintf("%.3gk", b / 1e3) : sprintf("%.0f", b) }
        function kib(p) { return p / 1024 " KiB pages" }
        NR == 1 { next }
        { c = $2 == "cross" ? sprintf("files faster above %s bytes", sz3($3)) \
            : $2 == "db_wins" ? sprintf("no crossover in %s..%s (the database faster at every size)", sz($4), sz($6)) \
            : $2 == "files_win" ? sprintf("no crossover (files already faster at %s)", sz($4)) : "no valid figures"
          if ($8 ~ /not monotonic/) c = c " (the ratio crosses 1 more than once: noisy)"
          out = out (n++ ? "; " : "") sprintf("%s: %s, files/blob API %.2fx at %s and %.2fx at %s", kib($1), c, $5, sz($4), $7, sz($6)) }
        END { if (n > 1) printf "- **Crossover by page size** (the same blobs in one database per page size; the files, which do not depend on it, timed once per blob size): %s.\n", out }' \
        "$C/sweep-pages.tsv" >>"$R"
fi
if [ -s "$C/shortener-bench.json" ]; then
    vb=$(jq -r '. // empty' "$C/valkey-benchmark.json" 2>/dev/null || true)
    j "$C/shortener-bench.json" --argjson vb "${vb:-null}" '
      def g($c): (map(select(.config == $c))[0] // {});
      g("sqlite") as $s | g("valkey") as $v | g("sqlite-nocache") as $sn | g("valkey-nocache") as $vn
      | if $s.lookups_per_s and $v.lookups_per_s then
        "- **Shortener, in-process lookups** (no HTTP, one thread): SQLite answered \($s.lookups_per_s | n0) lookups/s (p50 \($s.p50 | us) µs); through the Valkey cache-aside \($v.lookups_per_s | n0)/s (p50 \($v.p50 | us) µs, hit ratio \($v.hit_ratio // 0 | . * 100 | pct)), \(vs(1 / $v.lookups_per_s; 1 / $s.lookups_per_s)). A cache hit costs a loopback round trip, which is slower than an SQLite B-tree lookup from the page cache\(if $vb then ": valkey-benchmark -c 1 measured \($vb | n0) GET/s on one connection here" else "" end). With SQLite'"'"'s page cache off (`cache_size=0`), SQLite did \($sn.lookups_per_s | n0)/s (\(vs(1 / $sn.lookups_per_s; 1 / $s.lookups_per_s)) than with it) and Valkey in front of it \($vn.lookups_per_s | n0)/s."
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
        "- **Cache break-even** (kvtest shortener bench, same run): Valkey cache-aside pays off only when an SQLite lookup costs more than \($w.break_even.cache_hit_us | r(1)) µs (the median cost of a cache hit here); SQLite lookups cost \($w.break_even.sqlite_us | r(1)) µs warm\(if $c then " and \($c.break_even.sqlite_us | r(1)) µs with `--cold` (cache hit \($c.break_even.cache_hit_us | r(1)) µs in that run)" else "" end), so here the cache \(if $w.break_even.pays_off then "pays off warm" else "does not pay off warm" end)\(if $c then (if $c.break_even.pays_off then " and pays off cold" else " nor cold" end) else "" end)."
        + (row($w; "valkey-track") as $t | row($w; "sqlite") as $s
           | if $t.lookups_per_s then " With client-side caching (`valkey+track://`, CLIENT TRACKING with invalidations) lookups ran at \($t.lookups_per_s | n0)/s, \($t.ratio_to_sqlite | r(2))x sqlite, \(($t.local_hit_ratio // 0) * 100 | r(0))% answered from process memory (p50 \($t.latency.p50 | r(2)) µs)." else "" end)
        + (row($w; "sqlite-covering") as $v
           | if $v.lookups_per_s then " The covering schema (`init --schema covering`: a WITHOUT ROWID table keyed by the id) did \($v.lookups_per_s | n0) lookups/s, \($v.ratio_to_sqlite | r(2))x the seed schema." else "" end)
      else empty end' >>"$R"
fi
if [ -s "$C/shortener-http.json" ]; then
    j "$C/shortener-http.json" --arg th "$(param "$SP" threads)" '
      def g($c): (map(select(.config == $c))[0] // {});
      g("sqlite") as $s | g("valkey") as $v | g("sqlite-nocache") as $sn | g("valkey-nocache") as $vn
      | if $s.rps and $v.rps then
        (g("valkey-track") as $t | if $t.rps then "- **HTTP with client-side caching**: \($t.rps | n0) requests/s with `valkey+track://` against \($v.rps | n0)/s with plain cache-aside and \($s.rps | n0)/s without a cache (same run, rounds alternating).\n" else "" end) +
        "- **Shortener over HTTP** (\($th) concurrent users resolving existing links for the measured duration): without a cache the service answered \($s.rps | n0) requests/s (p50 \($s.p50_ms | n2) ms, p99 \($s.p99_ms | n2) ms); with the Valkey cache \($v.rps | n0)/s (p50 \($v.p50_ms | n2) ms, p99 \($v.p99_ms | n2) ms): \(($v.rps / $s.rps - 1) * 100 | if . >= 0 then "+" else "" end)\(($v.rps / $s.rps - 1) * 100 | pct) throughput. SQLite page cache off: \($sn.rps | n0)/s without Valkey, \($vn.rps | n0)/s with it. Failed requests: \(map(.failed // 0) | add | n0). wrk against the same service measured \($s.wrk_rps | n0) and \($v.wrk_rps | n0) requests/s; kvtest load reached \($s.load_over_wrk | n2) and \($v.load_over_wrk | n2) of wrk'"'"'s rate."
        else empty end' >>"$R"
    j "$C/shortener-http.json" '
      (map(select(.config == "sqlite"))[0] // {}) as $s
      | if $s.classic_tasks_per_s then
        "- **The classic stress test** (100 tasks, each one POST then 80 GETs of the new link, 30 users; SQLite without cache): \($s.classic_seconds | n2) s, \($s.classic_tasks_per_s | n1) tasks/s, mean request latency \($s.classic_mean_ms | n2) ms (p99 \($s.classic_p99_ms | n2) ms), \($s.classic_failed // 0 | n0) failed requests. Latency is timed per request here; the original Python script timed from the start of each task and so reported hundreds of milliseconds."
        else empty end' >>"$R"
fi
if [ -s "$OUT/logs/blobs-skipped.txt" ]; then
    w "- **Not measured in this run:** $(paste -sd';' "$OUT/logs/blobs-skipped.txt" | sed 's/;/; /g')."
fi

# ------------------------------------------------------------ section 1
if [ -s "$C/reads.json" ] || [ -s "$C/space.csv" ]; then
    w "" "## 1. Blobs: SQLite database or separate files?" ""
    if [ -s "$BP" ]; then
        w "SQLite's article \"35% Faster Than The Filesystem\", reproduced: $(param "$BP" count) blobs ($(param "$BP" data || true)) in one database (\`kv(k INTEGER PRIMARY KEY, v BLOB)\`), exported as one file per blob in a flat directory and in a tree (\`00/00/01\`). Reads: $(param "$BP" count) random keys per run, $(param "$BP" repeat) measured rounds after $(param "$BP" warmup) warm-up round(s). Cold cache: $(param "$BP" cold_count) random keys per run over the whole key range, $(param "$BP" cold_repeat) rounds, the files evicted from the page cache before each run. Writes: $(param "$BP" writes) random blobs per run (a tenth for the durable variants)."
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
      "| method | cache | µs per blob (min–max) | vs flat files | MB/s | p50 µs | p99 µs | p99.9 µs | storage KiB per blob |" \
      "|---|---|---:|---:|---:|---:|---:|---:|---:|"
    j "$C/reads.json" '.[] | "| \(.label) | \(.cache) | \(.us | us) (\(.us_min | us)–\(.us_max | us)) | \(.ratio_vs_flat | x) | \(.mbps | n0) | \(.p50 | us) | \(.p99 | us) | \(.p999 | us) | \(.storage_per_blob // null | if . then (. / 1024 | n1) else "–" end) |"' >>"$R"
    w "" "\"vs flat files\" is time per blob divided by that of flat files in the same cache state (below 1x: faster than files)."
    figure reads "Random reads relative to files" '^blobs-read-'
    figure percentiles "Read latency percentiles" '^blobs-read-'
fi
if [ -s "$C/writes.json" ]; then
    w "" "### Random writes" "" \
      "| variant | blobs per run | µs per blob (min–max) | vs flat files | MB/s | p50 µs | p99 µs |" \
      "|---|---:|---:|---:|---:|---:|---:|"
    j "$C/writes.json" '.[] | "| \(.label) | \(.count | n0) | \(.us | us) (\(.us_min | us)–\(.us_max | us)) | \(.ratio_vs_flat | x) | \(.mbps | n0) | \(.p50 | us) | \(.p99 | us) |"' >>"$R"
    w "" "Each run overwrites blobs with fresh random content of the same size; the database timer spans open to close, so the WAL checkpoint counts."
    figure writes "Write latency" '^blobs-write-'
fi
if [ -s "$C/sweep.csv" ]; then
    w "" "### Blob-size sweep" ""
    if [ -s "$C/sweep.md" ]; then cat "$C/sweep.md" >>"$R"; fi
    figure sweep "Blob-size sweep" '^blobs-sweep'
fi

# ------------------------------------------------------------ section 2
if [ -s "$C/shortener-bench.json" ] || [ -s "$C/shortener-http.json" ]; then
    w "" "## 2. Does a Valkey cache speed up an SQLite-backed service?" ""
    if [ -s "$SP" ]; then
        w "A URL shortener (\`kvtest shortener serve\`: libmicrohttpd, SQLite in WAL mode, optional Valkey cache-aside) with $(param "$SP" links) links. Configurations: \`sqlite\` (SQLite's default page cache), \`sqlite-nocache\` (\`PRAGMA cache_size=0\`, \`temp_store=0\`), \`valkey\` and \`valkey-nocache\` (the same with Valkey in front). In-process: $(param "$SP" lookups) lookups per configuration and round, $(param "$SP" repeat) rounds after a warm-up, configurations interleaved. HTTP: $(param "$SP" rounds) round(s) per configuration in rotating order, each a fresh service, a 2 s warm-up, then $(param "$SP" duration) s of GETs by $(param "$SP" threads) virtual users over existing ids, then wrk with the same connection count and ids."
    fi
fi
if [ -s "$C/shortener-bench.json" ]; then
    w "" "### In-process lookups (no HTTP)" "" \
      "| configuration | lookups/s (min–max) | vs sqlite | hit ratio | p50 µs | p90 µs | p99 µs | p99.9 µs |" \
      "|---|---:|---:|---:|---:|---:|---:|---:|"
    j "$C/shortener-bench.json" '.[] | "| \(.config) | \(.lookups_per_s | n0) (\(.lookups_min | n0)–\(.lookups_max | n0)) | \(.ratio_to_sqlite | x) | \(.hit_ratio // null | if . then (. * 100 | pct) else "–" end) | \(.p50 | us) | \(.p90 | us) | \(.p99 | us) | \(.p999 | us) |"' >>"$R"
    vb=$(jq -r '. // empty' "$C/valkey-benchmark.json" 2>/dev/null || true)
    [ -z "$vb" ] || w "" "Reference: \`valkey-benchmark -c 1 -t get\` against the same Valkey: $(printf '%.0f' "$vb") GET/s on one connection (one loopback round trip ≈ $(awk -v r="$vb" 'BEGIN { printf "%.0f", 1e6 / r }') µs)."
fi
if [ -s "$C/shortener-http.json" ]; then
    w "" "### Over HTTP" "" \
      "| configuration | GET/s (min–max) | wrk GET/s | load / wrk | p50 ms | p90 ms | p99 ms | p99.9 ms | wrk p50 / p99 ms | failed | classic tasks/s | classic mean ms |" \
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    j "$C/shortener-http.json" '.[] | "| \(.config) | \(.rps | n0) (\(.rps_min | n0)–\(.rps_max | n0)) | \(.wrk_rps | n0) | \(.load_over_wrk | n2) | \(.p50_ms | n2) | \(.p90_ms | n2) | \(.p99_ms | n2) | \(.p999_ms | n2) | \(.wrk_p50_ms | n2) / \(.wrk_p99_ms | n2) | \(.failed // 0 | n0) | \(.classic_tasks_per_s | n1) | \(.classic_mean_ms | n2) |"' >>"$R"
fi
figure shortener-throughput "Shortener throughput" '^shortener-'
figure shortener-latency "Shortener latency percentiles" '^shortener-'

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
  "- Regenerate everything: \`make bench$([ -n "$SCALE" ] && [ "$SCALE" != full ] && echo " SCALE=$SCALE")\`. Redraw from the raw data: \`bash scripts/tables.sh DIR && bash scripts/plot.sh DIR && bash scripts/report.sh DIR\`."
mv "$R" "$OUT/REPORT.md"

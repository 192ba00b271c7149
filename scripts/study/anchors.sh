#!/usr/bin/env bash
# shellcheck disable=SC2016  # $names inside single quotes are jq/awk variables
# anchors.sh: kvtest's LMDB and RocksDB figures against the engines' own tools.
#
#   bash scripts/study/anchors.sh [--lmdb DIR] [--lmdb-state LABEL]
#       [--rocksdb DIR] [--reads N] [--rounds 5] [--block-cache BYTES]
#       [--sizes uniform|fixed] [--scratch DIR] [--out DIR] [--force]
#       [--keep] [--kvtest PATH]
#   bash scripts/study/anchors.sh --check-lmdb MDB_DIR KVTEST_DIR [--kvtest PATH]
#
# LMDB (--lmdb DIR, an export made by "kvtest export DB lmdb:DIR"): the
# bytes the environment uses, "Number of pages used" x "Page size" of
# "mdb_stat -e DIR", against result.lmdb.used_bytes of "kvtest stat
# lmdb:DIR --json". The two must agree exactly. One row per --lmdb-state
# (default "exported"; a second call with another label, e.g. after
# writes, adds a row) in OUT/csv/anchors-lmdb.csv.
#
# RocksDB (--rocksdb DIR, an export made by "kvtest export DB rocksdb:DIR"):
# db_bench's readrandom against kvtest's own random reads of DIR. db_bench
# fills its own database in a scratch directory with the same number of
# keys (8-byte big-endian integers, as kvtest's), the same value sizes
# (uniform between the export's smallest and largest, or --sizes fixed:
# all at their mean), no compression, no bloom filter, checksums verified,
# kvtest's block cache size (its result.block_cache, or --block-cache),
# one thread, then compacts it: db_bench --benchmarks=fillseq,compact,
# readrandom, whose readrandom is the warm-up, as kvtest's first run is.
# Then --rounds rounds, the two alternating (odd rounds db_bench first,
# even rounds kvtest first; both databases' files synced first, so no
# writeback of the fill runs under them), each a fresh process reading --reads random
# keys (default: as many as the export holds) with the round's --seed:
#   db_bench --use_existing_db=1 --readonly=1 --benchmarks=readrandom --histogram=1 ...
#   kvtest run rocksdb:DIR --random --count N --block-cache B --seed R --json
# Compared per read: db_bench's micros/op (its readrandom loop's wall time
# over its reads, the database already open) against kvtest's mean
# latency per read (result.latency.mean: the per-read timer, chained from
# one read to the next, so it also holds the loop's own bookkeeping as
# db_bench's loop time does). kvtest's us_per_blob spans open to close as
# SQLite's kvtest does; the difference, seconds - mean x count, is
# reported as the open and close time. Both open the database read-only.
# The settings each side ran with (OPTIONS files diffed, levels from "ldb
# manifest_dump") go to csv/anchors-rocksdb-settings.tsv.
#
# Writes into OUT (default bench-out/anchors-DATE; an existing non-empty
# one only with --force, and then only these files are replaced):
#   csv/anchors-lmdb.csv, csv/anchors-rocksdb.csv,
#   csv/anchors-rocksdb-settings.tsv, raw/anchors.jsonl (kvtest's --json,
#   tagged {"bench": {"experiment": "anchor-rocksdb"|"anchor-lmdb", ...}};
#   kvtest stat's list of every blob's size left out),
#   logs/anchors-dbbench.txt, logs/anchors-mdb_stat.txt,
#   logs/anchors-rocksdb-options.diff, commands.tsv (anchors-* lines).
# The ratios and their 95% intervals are made by tables.sh, the section
# of REPORT.md by report.sh. A tool that is missing (mdb_stat from
# lmdb-utils, db_bench and ldb from rocksdb-tools) skips its anchor with
# one line, logged in logs/anchors-skipped.txt.
#
# --check-lmdb MDB_DIR KVTEST_DIR: no files written; compare mdb_stat's
# figure for MDB_DIR with kvtest's for KVTEST_DIR (the same directory for
# a real check, two different ones to see a mismatch caught). One line;
# exit 0 when they agree, 1 when they do not.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LMDB="" ROCKS="" READS="" ROUNDS=5 CACHE="" SIZES=uniform SCRATCH="" STATE=exported
# shellcheck disable=SC2034  # REPORT: set by kv_common_flag (--no-report), unused here
OUTDIR="" FORCE=0 KEEP=0 KV="" REPORT=0 CHECK=()
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --check-lmdb)
            [ $# -ge 3 ] || usage_die "--check-lmdb needs two directories: MDB_DIR KVTEST_DIR"
            CHECK=("$2" "$3"); shift 3 ;;
        --lmdb|--lmdb-state|--rocksdb|--reads|--rounds|--block-cache|--sizes|--scratch|--out|--kvtest)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --lmdb) LMDB=$2 ;; --lmdb-state) STATE=$2 ;; --rocksdb) ROCKS=$2 ;;
                --reads) READS=$2 ;; --rounds) ROUNDS=$2 ;; --block-cache) CACHE=$2 ;;
                --sizes) SIZES=$2 ;; --scratch) SCRATCH=$2 ;; --out) OUTDIR=$2 ;;
                --kvtest) KV=$2 ;;
            esac
            shift 2 ;;
        *) kv_common_flag "$1" || usage_die "unknown option $1 (try --help)"; shift ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || usage_die "--rounds must be a positive whole number, not $ROUNDS"
[ -z "$READS" ] || [[ $READS =~ ^[1-9][0-9]*[kKMG]?$ ]] || usage_die "--reads must be a count, not $READS"
[ -z "$CACHE" ] || [[ $CACHE =~ ^[1-9][0-9]*$ ]] || usage_die "--block-cache must be a number of bytes, not $CACHE"
case $SIZES in uniform|fixed) ;; *) usage_die "--sizes must be uniform or fixed, not $SIZES" ;; esac
[[ $STATE =~ ^[A-Za-z0-9_-]+$ ]] || usage_die "--lmdb-state must be a word (letters, digits, - or _), not $STATE"
need_tools jq awk
kv_find_kvtest "$KV"

# lmdb_figures DIR: sets MDB_TEXT (the text of mdb_stat -e DIR), PS and PU
# (its "Page size" and "Number of pages used"); 1 if mdb_stat fails or
# prints neither.
lmdb_figures() {
    local f
    MDB_TEXT=$(mdb_stat -e "$1" 2>&1) || { say "mdb_stat -e $1 failed: $(head -n1 <<<"$MDB_TEXT")"; return 1; }
    f=$(awk -F': *' '/^ *Page size:/ { ps = $2 } /^ *Number of pages used:/ { pu = $2 }
        END { if (ps !~ /^[0-9]+$/ || pu !~ /^[0-9]+$/) exit 1; print ps, pu }' <<<"$MDB_TEXT") ||
        { say "mdb_stat -e $1 printed no page size or pages used"; return 1; }
    read -r PS PU <<<"$f"
}
# kvtest_lmdb JSON: sets KPS KPU KUSED from "kvtest stat lmdb:DIR --json"'s
# result.lmdb (page_size, pages_used, used_bytes); 1 if it has none.
kvtest_lmdb() {
    local f
    f=$(jq -er '.result.lmdb | "\(.page_size) \(.pages_used) \(.used_bytes)"' <<<"$1" 2>/dev/null) || f=""
    if ! [[ $f =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]]; then
        say "kvtest stat lmdb:DIR --json gave no result.lmdb.used_bytes"
        return 1
    fi
    read -r KPS KPU KUSED <<<"$f"
}

# ------------------------------------------------------------- --check-lmdb
if [ ${#CHECK[@]} -eq 2 ]; then
    need_tools mdb_stat
    lmdb_figures "${CHECK[0]}" || exit 1
    J=$("$KVTEST" stat "lmdb:${CHECK[1]}" --json) || die "kvtest stat lmdb:${CHECK[1]} failed"
    kvtest_lmdb "$J" || exit 1
    if [ "$((PS * PU))" = "$KUSED" ]; then
        echo "agree: mdb_stat -e ${CHECK[0]}: $PU pages used x $PS bytes = $((PS * PU)) bytes; kvtest stat lmdb:${CHECK[1]}: used_bytes $KUSED"
        exit 0
    fi
    echo "MISMATCH: mdb_stat -e ${CHECK[0]}: $PU pages used x $PS bytes = $((PS * PU)) bytes; kvtest stat lmdb:${CHECK[1]}: used_bytes $KUSED ($KPU pages x $KPS bytes)"
    exit 1
fi

[ -n "$LMDB$ROCKS" ] || usage_die "nothing to anchor: give --lmdb DIR and/or --rocksdb DIR (or --check-lmdb)"
[ -z "$LMDB" ] || [ -d "$LMDB" ] || usage_die "--lmdb $LMDB: not a directory"
[ -z "$ROCKS" ] || [ -d "$ROCKS" ] || usage_die "--rocksdb $ROCKS: not a directory"
OUTDIR=${OUTDIR:-$KV_ROOT/bench-out/anchors-$(date -u +%Y%m%d-%H%M%S)}
kv_prepare_out "$OUTDIR" "$FORCE"
RAW=$OUT/raw/anchors.jsonl
touch "$RAW" "$OUT/logs/anchors-skipped.txt"
skipped() { say "skipping: $*"; printf '%s\n' "$*" >>"$OUT/logs/anchors-skipped.txt"; }
have() { command -v "$1" >/dev/null 2>&1; }

# ------------------------------------------------------------------ LMDB
# csv/anchors-lmdb.csv: one row per state; a call replaces its own state's
# row and keeps the others.
if [ -n "$LMDB" ]; then
    LCSV=$OUT/csv/anchors-lmdb.csv
    HDR="state,mdb_stat_page_size,mdb_stat_pages_used,mdb_stat_bytes,kvtest_page_size,kvtest_pages_used,kvtest_used_bytes,agree"
    if [ -s "$LCSV" ] && [ "$(head -n1 "$LCSV")" = "$HDR" ]; then
        awk -F, -v s="$STATE" 'NR == 1 || $1 != s' "$LCSV" >"$LCSV.tmp"
    else
        echo "$HDR" >"$LCSV.tmp"
    fi
    jq -c --arg s "$STATE" '. | select(.bench.experiment != "anchor-lmdb" or .bench.state != $s)' \
        "$RAW" >"$RAW.tmp" && mv "$RAW.tmp" "$RAW"
    if ! have mdb_stat; then
        skipped "LMDB anchor ($STATE): no mdb_stat (lmdb-utils)"
    else
        printf 'anchors-lmdb\t%s\n' "$(kv_show_cmd mdb_stat -e "$LMDB")" >>"$OUT/commands.tsv"
        lmdb_figures "$LMDB" || die "LMDB anchor: mdb_stat gave no figures"
        { printf '== %s (%s)\n' "$(kv_show_cmd mdb_stat -e "$LMDB")" "$STATE"; printf '%s\n' "$MDB_TEXT"; } \
            >>"$OUT/logs/anchors-mdb_stat.txt"
        kv_json anchors-lmdb "$(jq -cn --arg s "$STATE" '{experiment: "anchor-lmdb", state: $s}')" "$RAW" \
            "$KVTEST" stat "lmdb:$LMDB" --json || die "LMDB anchor: kvtest stat lmdb:$LMDB failed"
        # The size of every blob (result.size_distribution.sizes) is no
        # figure of this check and would be most of the file: left out.
        jq -c 'if .bench.experiment == "anchor-lmdb" then del(.result.size_distribution.sizes) else . end' \
            "$RAW" >"$RAW.tmp" && mv "$RAW.tmp" "$RAW"
        kvtest_lmdb "$(jq -c --arg s "$STATE" 'select(.bench.experiment == "anchor-lmdb" and .bench.state == $s)' "$RAW" | tail -n1)" ||
            die "LMDB anchor: kvtest stat lmdb:$LMDB gave no used_bytes"
        agree=no
        [ "$((PS * PU))" != "$KUSED" ] || agree=yes
        printf '%s,%s,%s,%s,%s,%s,%s,%s\n' "$STATE" "$PS" "$PU" "$((PS * PU))" "$KPS" "$KPU" "$KUSED" "$agree" >>"$LCSV.tmp"
        if [ "$agree" = yes ]; then
            say "LMDB ($STATE): mdb_stat $PU pages x $PS = $((PS * PU)) bytes; kvtest used_bytes $KUSED: agree"
        else
            say "LMDB ($STATE): MISMATCH: mdb_stat $PU pages x $PS = $((PS * PU)) bytes; kvtest used_bytes $KUSED"
        fi
    fi
    mv "$LCSV.tmp" "$LCSV"
fi

# --------------------------------------------------------------- RocksDB
# dbbench_figures FILE: "US_PER_OP AVG P50 P99 DONE FOUND" of the
# readrandom block of db_bench's output in FILE.
dbbench_figures() {
    awk '/^readrandom +:/ { for (i = 1; i <= NF; i++) if ($i == "micros/op") us = $(i - 1)
                             if (match($0, /\([0-9]+ of [0-9]+ found\)/)) { split(substr($0, RSTART + 1, RLENGTH - 2), m, " "); found = m[1]; done = m[3] }
                             rr = 1 }
         rr && /^Count: / { avg = $4 }
         rr && /^Percentiles: / { for (i = 1; i <= NF; i++) { if ($i == "P50:") p50 = $(i + 1); if ($i == "P99:") p99 = $(i + 1) } rr = 0 }
         END { if (us == "") exit 1; print us, (avg == "" ? "NA" : avg), (p50 == "" ? "NA" : p50), (p99 == "" ? "NA" : p99), done, found }' "$1"
}
# levels DIR: the RocksDB database's files per level, "L1: 16 files" (ldb).
levels() {
    ldb --db="$1" manifest_dump 2>/dev/null | LC_ALL=C awk '
        /^--- level [0-9]+ ---/ { l = $3; next }
        l != "" && /^ *[0-9]+:[0-9]+\[/ { n[l]++; split($1, a, /[:[]/); b[l] += a[2] }
        END { s = ""; for (i = 0; i <= 9; i++) if (n[i]) s = s (s == "" ? "" : "; ") sprintf("L%d: %d files, %.1f MiB", i, n[i], b[i] / 1048576)
              print (s == "" ? "unknown" : s) }'
}
# opt NAME FILE: the value of one option of a RocksDB OPTIONS file.
opt() { sed -n "s/^ *$1=//p" "$2" | head -n1; }

if [ -n "$ROCKS" ]; then
    RCSV=$OUT/csv/anchors-rocksdb.csv
    SCSV=$OUT/csv/anchors-rocksdb-settings.tsv
    rm -f "$RCSV" "$SCSV" "$OUT/logs/anchors-dbbench.txt" "$OUT/logs/anchors-rocksdb-options.diff"
    jq -c 'select(.bench.experiment != "anchor-rocksdb")' "$RAW" >"$RAW.tmp" && mv "$RAW.tmp" "$RAW"
    if ! have db_bench; then
        skipped "RocksDB anchor: no db_bench (rocksdb-tools)"
        ROCKS=""
    fi
fi
if [ -n "$ROCKS" ]; then
    ST=$("$KVTEST" stat "rocksdb:$ROCKS" --json) || die "kvtest stat rocksdb:$ROCKS failed"
    read -r NUM VMIN VMAX VAVG SSTN SSTB < <(jq -r '.result | "\(.entries) \(.min_size) \(.max_size) \(.avg_size | round) \(.rocksdb.sst_files) \(.rocksdb.sst_bytes)"' <<<"$ST")
    N=$(kv_count "${READS:-$NUM}")
    if [ -n "$SCRATCH" ]; then mkdir -p "$SCRATCH"; S=$(mktemp -d "$SCRATCH/anchors.XXXXXX")
    else kv_scratch anchors; S=$SCR; fi
    [ "$KEEP" = 1 ] || kv_track_dir "$S"
    BDB=$S/dbbench
    # db_bench's flags: what must match kvtest's reads (see the header).
    VALS=(--value_size="$VAVG")
    [ "$SIZES" = fixed ] || VALS+=(--value_size_distribution_type=uniform --value_size_min="$VMIN" --value_size_max="$((VMAX + 1))")
    # kvtest's warm-up run: the page cache holds the export, as db_bench's
    # database is after its fill, and its result names the block cache.
    W=$(mktemp "$OUT/logs/.anchor.XXXXXX")
    CARGS=()
    [ -z "$CACHE" ] || CARGS=(--block-cache "$CACHE")
    say "RocksDB anchor: $N random reads of $NUM keys, $ROUNDS rounds, db_bench and kvtest alternating"
    kv_json anchors-rocksdb '{"experiment":"anchor-rocksdb","tool":"kvtest","round":0,"warmup":true}' "$RAW" \
        "$KVTEST" run "rocksdb:$ROCKS" --random --count "$N" "${CARGS[@]}" --json || die "kvtest run rocksdb:$ROCKS failed"
    CACHE=$(jq -r 'select(.bench.experiment == "anchor-rocksdb") | .result.block_cache // empty' "$RAW" | tail -n1)
    [ -n "$CACHE" ] || die "kvtest's RocksDB run states no result.block_cache"
    BFLAGS=(--db="$BDB" --num="$NUM" --key_size=8 "${VALS[@]}" --compression_type=none
            --cache_size="$CACHE" --bloom_bits=0 --verify_checksum=1 --threads=1 --histogram=1)
    dbb() { # dbb ROUND ARGS...: one db_bench run, its output appended to the log
        local r=$1 rc=0
        shift
        printf 'anchors-dbbench\t%s\n' "$(kv_show_cmd db_bench "${BFLAGS[@]}" "$@")" >>"$OUT/commands.tsv"
        { printf '== round %s: %s\n' "$r" "$(kv_show_cmd db_bench "${BFLAGS[@]}" "$@")"
          db_bench "${BFLAGS[@]}" "$@" 2>>"$OUT/logs/stderr.log" | tee "$W"; } >>"$OUT/logs/anchors-dbbench.txt" || rc=$?
        [ "$rc" = 0 ] || { say "db_bench failed (exit $rc): see logs/anchors-dbbench.txt"; return 1; }
    }
    dbb 0 --benchmarks=fillseq,compact,readrandom --reads="$N" --seed=1000 ||
        die "db_bench could not build its database"
    dbbench_figures "$W" >/dev/null || die "db_bench printed no readrandom figures"
    # The fill left its database (as an export may have left the store) in
    # dirty pages: write them back now, not under the measured rounds,
    # where the kernel's writeback would slow whichever run it meets.
    find "$BDB" "$ROCKS" -type f -exec sync -- {} + 2>/dev/null || sync

    echo "round,first,dbbench_us_per_op,dbbench_avg_us,dbbench_p50_us,dbbench_p99_us,dbbench_reads,dbbench_found,kvtest_mean_us,kvtest_p50_us,kvtest_p99_us,kvtest_us_per_blob,kvtest_seconds,kvtest_open_close_ms,kvtest_reads,block_cache" >"$RCSV"
    for ((r = 1; r <= ROUNDS; r++)); do
        first=db_bench
        [ $((r % 2)) = 1 ] || first=kvtest
        for side in $([ "$first" = db_bench ] && echo "db_bench kvtest" || echo "kvtest db_bench"); do
            if [ "$side" = db_bench ]; then
                dbb "$r" --use_existing_db=1 --readonly=1 --benchmarks=readrandom --reads="$N" --seed="$r" || die "db_bench round $r failed"
                read -r bus bavg bp50 bp99 bdone bfound < <(dbbench_figures "$W") || die "db_bench round $r printed no readrandom figures"
            else
                kv_json anchors-rocksdb "$(jq -cn --argjson r "$r" '{experiment: "anchor-rocksdb", tool: "kvtest", round: $r, warmup: false}')" \
                    "$RAW" "$KVTEST" run "rocksdb:$ROCKS" --random --count "$N" --block-cache "$CACHE" --seed "$r" --json ||
                    die "kvtest round $r failed"
            fi
        done
        read -r kmean kp50 kp99 kus ksec kopen kn < <(jq -r --argjson r "$r" '
            select(.bench.experiment == "anchor-rocksdb" and .bench.round == $r) | .result
            | "\(.latency.mean) \(.latency.p50) \(.latency.p99) \(.us_per_blob) \(.seconds) \((.seconds - .latency.mean * .latency.count / 1e6) * 1000) \(.count)"' "$RAW" | tail -n1)
        printf '%s\n' "$r,$first,$bus,$bavg,$bp50,$bp99,$bdone,$bfound,$kmean,$kp50,$kp99,$kus,$ksec,$kopen,$kn,$CACHE" >>"$RCSV"
        say "round $r/$ROUNDS ($first first): db_bench $bus µs/op, kvtest mean $kmean µs per read ($kus µs/blob open to close)"
    done
    rm -f "$W"

    # The settings: OPTIONS files side by side, and what each run was given.
    # The newest OPTIONS file of each (numbered, zero-padded).
    KO=$(find "$ROCKS" -maxdepth 1 -name 'OPTIONS-*' | sort | tail -n1)
    BO=$(find "$BDB" -maxdepth 1 -name 'OPTIONS-*' | sort | tail -n1)
    if [ -n "$KO" ] && [ -n "$BO" ]; then
        diff <(grep -v '^ *#' "$KO") <(grep -v '^ *#' "$BO") >"$OUT/logs/anchors-rocksdb-options.diff" || true
    fi
    KLEV=unknown BLEV=unknown
    if have ldb; then KLEV=$(levels "$ROCKS"); BLEV=$(levels "$BDB"); else skipped "RocksDB anchor: no ldb (rocksdb-tools): compaction state not compared"; fi
    BSST=$(find "$BDB" -name '*.sst' | wc -l)
    BSSTB=$(find "$BDB" -name '*.sst' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    OTHER=""
    [ ! -s "$OUT/logs/anchors-rocksdb-options.diff" ] ||
        OTHER=$(sed -n 's/^[<>] *\([a-z_]*\)=.*/\1/p' "$OUT/logs/anchors-rocksdb-options.diff" | sort -u | paste -sd' ')
    {
        printf 'setting\tkvtest\tdb_bench\tmatched\tread_path\n'
        # row SETTING KVTEST DB_BENCH MATCHED [READ_PATH]: read_path "yes"
        # for a setting that changes what a read of an open database does.
        row() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-yes}"; }
        same() { [ "$1" = "$2" ] && echo yes || echo no; }
        row "keys" "$NUM, 8-byte big-endian integers" "--num=$NUM --key_size=8 (8-byte big-endian integers)" yes
        if [ "$SIZES" = fixed ]; then
            row "value sizes" "$VMIN-$VMAX bytes, mean $VAVG" "--value_size=$VAVG (fixed)" no
        else
            row "value sizes" "$VMIN-$VMAX bytes, mean $VAVG (uniform)" "--value_size_distribution_type=uniform --value_size_min=$VMIN --value_size_max=$((VMAX + 1))" yes
        fi
        row "reads per run" "$N (--count $N)" "$N (--reads=$N)" yes
        # kvtest --random walks a permutation (each key once: a block read
        # is never in the cache yet); readrandom draws with replacement, so
        # a read finds its block cached with about the share of the data
        # the cache holds. Negligible when the cache is small beside the data.
        HIT=$(awk -v c="$CACHE" -v n="$NUM" -v v="$VAVG" 'BEGIN { h = c / (n * v); if (h > 1) h = 1; printf "%.2g", h * 100 }')
        row "key order" "a permutation, each key once (--random): no block read twice" \
            "uniform draws with replacement (readrandom): about $HIT% of reads find their block cached (cache / data)" \
            "$(awk -v h="$HIT" 'BEGIN { print (h < 2 ? "yes" : "no") }')"   # yes: under 2% of reads differ
        for o in compression block_size checksum filter_policy cache_index_and_filter_blocks; do
            a=$( [ -n "$KO" ] && opt "$o" "$KO" || echo "?"); b=$( [ -n "$BO" ] && opt "$o" "$BO" || echo "?")
            row "$o" "$a" "$b" "$(same "$a" "$b")"
        done
        row "block cache" "$CACHE bytes LRU (--block-cache)" "--cache_size=$CACHE (LRU)" yes
        row "checksums verified on read" "yes (ReadOptions default)" "--verify_checksum=1" yes
        row "bloom filter" "none (no filter policy)" "--bloom_bits=0 (none)" yes
        # Matched: each side one sorted run (one level, not L0), the
        # state both compactions leave; the level and file sizes may differ.
        one() { [[ $1 =~ ^L[1-9]:\ [0-9]+\ files,\ [0-9.]+\ MiB$ ]]; }
        row "compaction state" "$KLEV ($SSTN SST files, $SSTB bytes)" "$BLEV ($BSST SST files, $BSSTB bytes)" \
            "$(one "$KLEV" && one "$BLEV" && echo yes || echo no)"
        row "threads" "1" "--threads=1" yes
        row "open" "read-only (rocksdb_open_for_read_only)" "read-only (--readonly=1 --use_existing_db=1)" yes
        row "per-read timer" "latency histogram (chained per read)" "--histogram=1 (per read)" yes
        # Of the OPTIONS that differ, these two touch a read: the table
        # cache's shards and how index keys are shortened.
        RP=$(tr ' ' '\n' <<<"$OTHER" | grep -E '^(table_cache_numshardbits|index_shortening)$' | paste -sd' ' || true)
        NRP=$(tr ' ' '\n' <<<"$OTHER" | grep -vE '^(table_cache_numshardbits|index_shortening)$' | sed '/^$/d' | paste -sd' ' || true)
        row "other OPTIONS that differ, read path" "${RP:-none}" "(logs/anchors-rocksdb-options.diff)" "$([ -z "$RP" ] && echo yes || echo no)"
        row "other OPTIONS that differ, writes, recovery, logging" "${NRP:-none}" "(logs/anchors-rocksdb-options.diff)" "$([ -z "$NRP" ] && echo yes || echo no)" no
        if grep 'Assertions are enabled' "$OUT/logs/anchors-dbbench.txt" >/dev/null; then
            row "db_bench build" "-" "prints \"WARNING: Assertions are enabled\": its own code (loop, keys, histogram); both call the same librocksdb" no yes
        fi
    } >"$SCSV"
fi
say "anchors: $OUT/csv/anchors-*.csv"

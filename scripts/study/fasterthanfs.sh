#!/usr/bin/env bash
# fasterthanfs.sh: SQLite's "35% Faster Than The Filesystem" on this machine.
#
#   scripts/study/fasterthanfs.sh [--count 100k] [--size 10k] [--variance 2k]
#       [--repeat 5] [--warmup 1] [--writes 10k] [--write-repeat N] [--cold-count 5k]
#       [--cold-repeat 3] [--sweep-sizes 1k,4k,10k,30k,100k,300k,1M]
#       [--sweep-total 200M] [--sweep-repeat 3] [--sweep-pages 4k]
#       [--no-cold] [--no-sweep]
#       [--out DIR] [--force] [--keep] [--no-report] [--kvtest PATH]
#       [--defer-delete LISTFILE] [--from DIR | --sizes-from DIR|FILE]
#
# --from DIR runs the study on your own files (kvtest init --from: one blob
# per regular file, --count becomes the number stored); --sizes-from DIR or
# FILE (saved by "kvtest stat DIR --json") on random blobs with their size
# distribution (--count defaults to the number of files). The report and
# raw/blobs-params.tsv say which data was used.
#
# Steps: init a database of COUNT random blobs, stat it, export it flat and
# as a tree, account the disk space of the three layouts, then time reads in
# random order (SQL, blob API, blob API + mmap of the whole database, flat
# files, tree files) warm and cold, writes in random order (WAL, journal off
# + synchronous off, files with and without fsync, one --multitrans run;
# --write-repeat rounds, by default half of --repeat rounded up), and
# a blob-size sweep for the crossover size (one per page size of
# --sweep-pages, e.g. 4k,64k). Variants are interleaved round by
# round, so drift on a shared machine hits them alike; round 0 is a warm-up
# and is discarded. Writes into DIR (default bench-out/fasterthanfs-DATE):
#   raw/blobs.jsonl   one object per kvtest run, straight from --json, plus
#                     {"bench": {...}} saying which experiment it belongs to
#   csv/*.csv         one file per chart;  charts/*.png *.svg;  REPORT.md
#   commands.tsv      every command run, as typed; logs/, env/
# Databases and exports live in DIR/scratch and are removed at exit unless
# --keep. An existing non-empty DIR is refused unless --force.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

COUNT=100k SIZE=10k VARIANCE=2k REPEAT=5 WARMUP=1 WRITES=10k WREPEAT=""
COLD_COUNT=5k COLD_REPEAT=3 DO_COLD=1 DO_SWEEP=1
SWEEP_SIZES=1k,4k,10k,30k,100k,300k,1M SWEEP_TOTAL=200M SWEEP_REPEAT=3 SWEEP_PAGES=4k
OUTDIR="" FORCE=0 KEEP=0 KV="" REPORT=1 DEFER="" FROM="" SIZES_FROM="" COUNT_SET=0

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --count|--size|--variance|--repeat|--warmup|--writes|--write-repeat|--cold-count|--cold-repeat|\
        --sweep-sizes|--sweep-total|--sweep-repeat|--sweep-pages|--out|--kvtest|--defer-delete|\
        --from|--sizes-from)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --count) COUNT=$2 ;; --size) SIZE=$2 ;; --variance) VARIANCE=$2 ;;
                --repeat) REPEAT=$2 ;; --warmup) WARMUP=$2 ;; --writes) WRITES=$2 ;;
                --write-repeat) WREPEAT=$2 ;;
                --cold-count) COLD_COUNT=$2 ;; --cold-repeat) COLD_REPEAT=$2 ;;
                --sweep-sizes) SWEEP_SIZES=$2 ;; --sweep-total) SWEEP_TOTAL=$2 ;;
                --sweep-repeat) SWEEP_REPEAT=$2 ;; --sweep-pages) SWEEP_PAGES=$2 ;;
                --out) OUTDIR=$2 ;; --kvtest) KV=$2 ;;
                --defer-delete) DEFER=$2 ;;
                --from) FROM=$2 ;; --sizes-from) SIZES_FROM=$2 ;;
            esac
            [ "$1" != --count ] || COUNT_SET=1
            shift 2 ;;
        --no-cold) DO_COLD=0; shift ;;
        --no-sweep) DO_SWEEP=0; shift ;;
        *) kv_common_flag "$1" || usage_die "unknown option $1 (try --help)"; shift ;;
    esac
done
for v in REPEAT WARMUP COLD_REPEAT SWEEP_REPEAT; do
    [[ ${!v} =~ ^[0-9]+$ ]] || usage_die "--${v,,} must be a whole number, not ${!v}"
done
[ "$REPEAT" -ge 1 ] || usage_die "--repeat must be at least 1"
WREPEAT=${WREPEAT:-$(( (REPEAT + 1) / 2 ))}
[[ $WREPEAT =~ ^[1-9][0-9]*$ ]] || usage_die "--write-repeat must be a positive whole number, not $WREPEAT"
[ -z "$FROM" ] || [ -z "$SIZES_FROM" ] || usage_die "--from and --sizes-from conflict"
[ -z "$FROM" ] || [ "$COUNT_SET" = 0 ] || usage_die "--from stores every file: no --count"
[ -z "$FROM" ] || [ -d "$FROM" ] || usage_die "--from $FROM: not a directory"
[ -z "$SIZES_FROM" ] || [ -e "$SIZES_FROM" ] || usage_die "--sizes-from $SIZES_FROM: not found"

need_tools jq awk du find sort
kv_find_kvtest "$KV"
OUTDIR=${OUTDIR:-$KV_ROOT/bench-out/fasterthanfs-$(date -u +%Y%m%d-%H%M%S)}
kv_prepare_out "$OUTDIR" "$FORCE"
export KEEP
RAW=$OUT/raw/blobs.jsonl
rm -f "$RAW" "$OUT"/raw/sweep.jsonl "$OUT"/raw/space.jsonl "$OUT"/logs/blobs-*.txt
: >"$RAW"
[ -e "$OUT/commands.tsv" ] && sed -i '/^blobs-/d' "$OUT/commands.tsv"
[ -s "$OUT/env/environment.txt" ] || kv_env_capture
# With --defer-delete the data outlives this script: the caller deletes it
# (bench.sh does so in the background while the in-memory shortener runs,
# because deleting 200k files takes minutes on a filesystem mounted with
# discard).
if [ -n "$DEFER" ]; then KEEP=1 kv_scratch blobs; else kv_scratch blobs; fi
DB=$SCR/x1.db FLAT=$SCR/x1 TREE=$SCR/x1-tree
T0=$(kv_now)
printf 'count\t%s\nsize\t%s\nvariance\t%s\nrepeat\t%s\nwarmup\t%s\nwrites\t%s\nwrite_repeat\t%s\ncold_count\t%s\ncold_repeat\t%s\nsweep_sizes\t%s\nsweep_total\t%s\nsweep_repeat\t%s\n' \
    "$COUNT" "$SIZE" "$VARIANCE" "$REPEAT" "$WARMUP" "$WRITES" "$WREPEAT" "$COLD_COUNT" \
    "$COLD_REPEAT" "$SWEEP_SIZES" "$SWEEP_TOTAL" "$SWEEP_REPEAT" >"$OUT/raw/blobs-params.tsv"
: >"$OUT/logs/blobs-skipped.txt"
skipped() { say "skipping: $*"; printf '%s\n' "$*" >>"$OUT/logs/blobs-skipped.txt"; }
step() { say "[$(kv_since "$T0")s] $*"; }
timing() { printf '%s\t%s\n' "$1" "$2" >>"$OUT/logs/timings.tsv"; }

JSON=()
kv_has_opt run --json && JSON=(--json)
[ ${#JSON[@]} -eq 1 ] || die "kvtest run has no --json option; the scripts need it"

# ---------------------------------------------------------------- dataset
# DATA says in words which blobs the study ran on; it goes to the params
# file and the report.
INIT_ARGS=(--count "$COUNT" --size "$SIZE" --variance "$VARIANCE")
DATA="random blobs of $SIZE ± $VARIANCE bytes"
if [ -n "$FROM" ]; then
    INIT_ARGS=(--from "$FROM")
    DATA="the files of $FROM"
elif [ -n "$SIZES_FROM" ]; then
    INIT_ARGS=(--sizes-from "$SIZES_FROM")
    [ "$COUNT_SET" = 0 ] || INIT_ARGS+=(--count "$COUNT")
    DATA="random blobs with the size distribution of $SIZES_FROM"
fi
step "init $DB: $DATA"
t=$(kv_now)
KV_PROGRESS=1 kv_run blobs-init "$OUT/logs/blobs-init.txt" "$KVTEST" init "$DB" "${INIT_ARGS[@]}"
timing init "$(kv_since "$t")"
if [ -n "$FROM$SIZES_FROM" ]; then
    # Every later step reads COUNT keys: the number the database holds.
    COUNT=$("$KVTEST" stat "$DB" --json | jq -r '.result.entries')
    DIST=$("$KVTEST" stat "$DB" --json |
        jq -r '.result.size_distribution | "p10 \(.p10), p50 \(.p50), p90 \(.p90), p99 \(.p99), max \(.max), mean \(.mean | floor) bytes"')
    DATA="$DATA ($DIST)"
    sed -i "s/^count\t.*/count\t$COUNT/" "$OUT/raw/blobs-params.tsv"
fi
printf 'data\t%s\n' "$DATA" >>"$OUT/raw/blobs-params.tsv"
kv_run blobs-stat "$OUT/logs/blobs-stat.txt" "$KVTEST" stat "$DB"

JOBS=()
kv_has_opt export --jobs && JOBS=(--jobs 2)
step "export flat $FLAT"
t=$(kv_now)
KV_PROGRESS=1 kv_run blobs-export "$OUT/logs/blobs-export.txt" "$KVTEST" export "$DB" "$FLAT" "${JOBS[@]}"
timing export-flat "$(kv_since "$t")"
step "export tree $TREE"
t=$(kv_now)
KV_PROGRESS=1 kv_run blobs-export "$OUT/logs/blobs-export.txt" "$KVTEST" export "$DB" "$TREE" --tree "${JOBS[@]}"
timing export-tree "$(kv_since "$t")"

# ------------------------------------------------------------------ space
step "disk space of the three layouts"
t=$(kv_now)
{
    echo "layout,files,apparent_kib,allocated_kib"
    for l in db:"$DB" flat:"$FLAT" tree:"$TREE"; do
        p=${l#*:}
        n=1
        [ -d "$p" ] && n=$(find "$p" -type f | wc -l)
        printf '%s,%s,%s,%s\n' "${l%%:*}" "$n" \
            "$(du -sk --apparent-size "$p" | cut -f1)" "$(du -sk "$p" | cut -f1)"
    done
} >"$OUT/csv/space-du.csv"
printf 'blobs-space\t%s\n' "du -sk --apparent-size \$LAYOUT; du -sk \$LAYOUT" >>"$OUT/commands.tsv"
if kv_has_opt space --json || "$KVTEST" space --help 2>/dev/null | grep . >/dev/null; then
    kv_json blobs-space '{"experiment":"space"}' "$OUT/raw/space.jsonl" \
        "$KVTEST" space "$DB" "$FLAT" "$TREE" --json ||
        skipped "kvtest space failed; space chart uses du only"
else
    skipped "kvtest space not available; space chart uses du only"
fi
kv_json blobs-space '{"experiment":"stat"}' "$OUT/raw/space.jsonl" "$KVTEST" stat "$DB" --json || true

timing space "$(kv_since "$t")"

# The mmap variant maps the whole database: round its size up to 1 MiB.
DBBYTES=$(stat -c %s "$DB")
MMAP=$(( (DBBYTES / 1048576 + 1) * 1048576 ))

# ------------------------------------------------------------ measurements
# round VARIANTS_ARRAY_NAME EXPERIMENT CACHE ROUND WARMUP(0|1) COMMON_ARGS...
# runs every variant once, starting at a different one each round so no
# variant always runs right after the same neighbour.
run_round() {
    local -n vars=$1
    local exp=$2 cache=$3 round=$4 warm=$5 n i k name path extra meta
    shift 5
    n=${#vars[@]}
    for ((i = 0; i < n; i++)); do
        k=$(( (i + round) % n ))
        IFS='|' read -r name path extra <<<"${vars[$k]}"
        meta=$(jq -cn --arg e "$exp" --arg v "$name" --arg c "$cache" \
            --argjson r "$round" --argjson w "$warm" \
            '{experiment:$e, variant:$v, cache:$c, round:$r, warmup:($w==1)}')
        # shellcheck disable=SC2086  # extra holds several options
        kv_json "blobs-$exp-$cache" "$meta" "$RAW" "$KVTEST" run "$path" "$@" $extra "${JSON[@]}"
    done
}

# shellcheck disable=SC2034  # used through a nameref in run_round
READS=("db-sql|$DB|" "db-blob|$DB|--blob-api" "db-blob-mmap|$DB|--blob-api --mmap $MMAP"
       "flat|$FLAT|" "tree|$TREE|")
total=$((WARMUP + REPEAT))
t=$(kv_now)
for ((r = 0; r < total; r++)); do
    w=0; [ "$r" -lt "$WARMUP" ] && w=1
    step "reads, warm cache: round $((r + 1))/$total$([ $w = 1 ] && echo ' (warm-up, discarded)')"
    run_round READS read warm "$r" "$w" --random --count "$COUNT"
done
timing reads-warm "$(kv_since "$t")"

if [ "$DO_COLD" = 1 ]; then
    if kv_has_opt run --cold; then
        # Cold reads also run with readahead off (POSIX_FADV_RANDOM), which
        # shows how much of the cold gap is the kernel reading ahead.
        COLD_READS=("${READS[@]}")
        if kv_has_opt run --fadvise; then
            COLD_READS+=("db-blob-ra-off|$DB|--blob-api --fadvise random"
                         "flat-ra-off|$FLAT|--fadvise random")
        fi
        t=$(kv_now)
        for ((r = 0; r < COLD_REPEAT; r++)); do
            step "reads, cold cache ($COLD_COUNT of $COUNT keys): round $((r + 1))/$COLD_REPEAT"
            run_round COLD_READS read cold "$r" 0 --random --count "$COLD_COUNT" --cold
        done
        timing reads-cold "$(kv_since "$t")"
    else
        skipped "kvtest run has no --cold yet: no cold-cache reads"
    fi
fi

# Writes: fresh random content over WRITES blobs in random order. The
# fsync'd file writes and --multitrans (one transaction per blob, each
# synced) are far slower per blob, so they run a tenth of the writes.
FEW=$(( $(kv_count "$WRITES") / 10 ))
[ "$FEW" -ge 100 ] || FEW=100
SYNC=()
kv_has_opt run --synchronous && SYNC=(--synchronous normal)
# shellcheck disable=SC2034  # used through a nameref in run_round
WRITE_VARS=("db-wal|$DB|--jmode wal ${SYNC[*]} --count $WRITES"
            "db-nosync|$DB|--jmode off --nosync --count $WRITES"
            "flat|$FLAT|--count $WRITES"
            "flat-fsync|$FLAT|--fsync --count $FEW"
            "db-wal-multitrans|$DB|--jmode wal ${SYNC[*]} --multitrans --count $FEW")
[ ${#SYNC[@]} -gt 0 ] || skipped "kvtest run has no --synchronous: WAL writes use SQLite's default (FULL)"
wtotal=$((WARMUP + WREPEAT))
t=$(kv_now)
for ((r = 0; r < wtotal; r++)); do
    w=0; [ "$r" -lt "$WARMUP" ] && w=1
    step "writes: round $((r + 1))/$wtotal$([ $w = 1 ] && echo ' (warm-up, discarded)')"
    run_round WRITE_VARS write warm "$r" "$w" --update --random
done
timing writes "$(kv_since "$t")"

t=$(kv_now)
if [ -n "$FROM" ]; then
    # The user's bytes carry no kvtest checksum, and after the writes some
    # blobs do: run --verify would take the untouched ones for corrupt.
    skipped "verify: --from data carries no checksum (integrity check only)"
elif kv_has_opt run --verify; then
    # A random sample of 10k blobs per layout (all of them if fewer): it
    # catches a store that corrupts or mixes up blobs without re-reading
    # gigabytes whose pages the updates have just dirtied.
    NV=$(kv_count "$COUNT")
    [ "$NV" -le 10000 ] || NV=10000
    step "verify $NV blobs per layout after the updates (not a timing)"
    for p in "$DB" "$FLAT" "$TREE"; do
        kv_json blobs-verify '{"experiment":"verify"}' "$RAW" \
            "$KVTEST" run "$p" --random --seed 7 --count "$NV" --verify "${JSON[@]}" ||
            die "verification failed for $p"
    done
fi
kv_run blobs-integrity "$OUT/logs/blobs-integrity.txt" \
    "$KVTEST" run "$DB" --count 1 --integrity-check || die "integrity check failed"
timing verify "$(kv_since "$t")"
if [ -n "$DEFER" ]; then
    printf '%s\n' "$SCR" >>"$DEFER"
elif [ "$KEEP" = 0 ]; then
    t=$(kv_now)
    step "deleting the database and exports"
    rm -rf "$FLAT" "$TREE" "$DB" "$DB"-wal "$DB"-shm
    timing remove-data "$(kv_since "$t")"
fi

# ----------------------------------------------------------------- sweep
if [ "$DO_SWEEP" = 1 ]; then
    if "$KVTEST" sweep --help 2>/dev/null | grep -- --sizes >/dev/null; then
        step "size sweep $SWEEP_SIZES, about $SWEEP_TOTAL per size, page sizes $SWEEP_PAGES"
        t=$(kv_now)
        KV_PROGRESS=1 kv_json blobs-sweep '{"experiment":"sweep"}' "$OUT/raw/sweep.jsonl" \
            "$KVTEST" sweep "$SCR/sweep" --sizes "$SWEEP_SIZES" --total "$SWEEP_TOTAL" \
            --repeat "$SWEEP_REPEAT" --page-sizes "$SWEEP_PAGES" "${JSON[@]}" ||
            skipped "kvtest sweep failed: no sweep chart"
        timing sweep "$(kv_since "$t")"
    else
        skipped "kvtest sweep not available: no sweep chart"
    fi
fi
timing blobs-total "$(kv_since "$T0")"

if [ "$REPORT" = 1 ]; then
    step "tables, charts, report"
    kv_report "$OUT"
fi
say "done in $(kv_since "$T0")s"

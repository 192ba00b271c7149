#!/usr/bin/env bash
# fasterthanfs.sh: SQLite's "35% Faster Than The Filesystem" on this machine.
#
#   scripts/study/fasterthanfs.sh [--count 100k] [--size 10k] [--variance 2k]
#       [--repeat 5] [--warmup 1] [--writes 10k] [--write-repeat N] [--cold-count 5k]
#       [--cold-repeat 3] [--sweep-sizes 1k,4k,10k,30k,100k,300k,1M]
#       [--sweep-total 200M] [--sweep-repeat 3] [--sweep-pages 4k]
#       [--anchor-rounds 5] [--no-cold] [--no-sweep] [--no-anchors]
#       [--out DIR] [--force] [--keep] [--no-report] [--kvtest PATH]
#       [--defer-delete LISTFILE] [--from DIR | --sizes-from DIR|FILE]
#
# --from DIR runs the study on your own files (kvtest init --from: one blob
# per regular file, --count becomes the number stored); --sizes-from DIR or
# FILE (saved by "kvtest stat DIR --json") on random blobs with their size
# distribution (--count defaults to the number of files). The report and
# raw/blobs-params.tsv say which data was used.
#
# Steps: init a database of COUNT random blobs, stat it, export it flat, as
# a tree, and into LMDB and RocksDB (lmdb:DIR, rocksdb:DIR; each skipped,
# with a line in logs/blobs-skipped.txt, when "kvtest --version" does not
# list it), account the disk space of every layout, then time reads in
# random order (SQL, blob API, blob API + mmap of the whole database, flat
# files, tree files, LMDB, RocksDB) warm and cold, the anchors
# (scripts/study/anchors.sh: mdb_stat against kvtest stat, db_bench
# against kvtest's RocksDB reads of this export, --anchor-rounds rounds,
# before any write changes the export), writes in random order (WAL,
# journal off + synchronous off, files with and without fsync, one
# --multitrans run, LMDB and RocksDB with one transaction per run synced
# at its end and with --nosync; --write-repeat rounds, by default half of
# --repeat rounded up), and a blob-size sweep for the crossover size (one
# per page size of --sweep-pages, e.g. 4k,64k; with LMDB and RocksDB
# beside the database and files, kvtest sweep --stores, when this kvtest
# has both: each store's crossover and the fastest store per size; at full
# scale 43 s in the reference run, against 27 s without them). Every read
# of a cache state uses the same keys (--random, kvtest's default --seed 1,
# the same --count). Variants are interleaved round by round, so drift on
# a shared machine hits them alike; round 0 is a warm-up and is discarded.
# Writes into DIR (default bench-out/fasterthanfs-DATE):
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
COLD_COUNT=5k COLD_REPEAT=3 DO_COLD=1 DO_SWEEP=1 DO_ANCHORS=1 ANCHOR_ROUNDS=5
SWEEP_SIZES=1k,4k,10k,30k,100k,300k,1M SWEEP_TOTAL=200M SWEEP_REPEAT=3 SWEEP_PAGES=4k
OUTDIR="" FORCE=0 KEEP=0 KV="" REPORT=1 DEFER="" FROM="" SIZES_FROM="" COUNT_SET=0

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --count|--size|--variance|--repeat|--warmup|--writes|--write-repeat|--cold-count|--cold-repeat|\
        --sweep-sizes|--sweep-total|--sweep-repeat|--sweep-pages|--out|--kvtest|--defer-delete|\
        --from|--sizes-from|--anchor-rounds)
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
                --anchor-rounds) ANCHOR_ROUNDS=$2 ;;
            esac
            [ "$1" != --count ] || COUNT_SET=1
            shift 2 ;;
        --no-cold) DO_COLD=0; shift ;;
        --no-sweep) DO_SWEEP=0; shift ;;
        --no-anchors) DO_ANCHORS=0; shift ;;
        *) kv_common_flag "$1" || usage_die "unknown option $1 (try --help)"; shift ;;
    esac
done
for v in REPEAT WARMUP COLD_REPEAT SWEEP_REPEAT ANCHOR_ROUNDS; do
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
DB=$SCR/x1.db FLAT=$SCR/x1 TREE=$SCR/x1-tree LMDB=$SCR/x1-lmdb ROCKS=$SCR/x1-rocksdb
T0=$(kv_now)
STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)
printf 'count\t%s\nsize\t%s\nvariance\t%s\nrepeat\t%s\nwarmup\t%s\nwrites\t%s\nwrite_repeat\t%s\ncold_count\t%s\ncold_repeat\t%s\nsweep_sizes\t%s\nsweep_total\t%s\nsweep_repeat\t%s\n' \
    "$COUNT" "$SIZE" "$VARIANCE" "$REPEAT" "$WARMUP" "$WRITES" "$WREPEAT" "$COLD_COUNT" \
    "$COLD_REPEAT" "$SWEEP_SIZES" "$SWEEP_TOTAL" "$SWEEP_REPEAT" >"$OUT/raw/blobs-params.tsv"
# When and with what this part ran (the report says so when the part was
# refreshed on its own, after the rest of the study).
printf 'started_utc\t%s\nkvtest\t%s\ngit\t%s\n' "$STARTED" \
    "$("$KVTEST" --version 2>/dev/null | sed -n '1p; s/^Stores: /stores: /p' | paste -sd';' | sed 's/;/; /')" \
    "$(git -C "$KV_ROOT" rev-parse --short HEAD 2>/dev/null || echo none)$(git -C "$KV_ROOT" diff --quiet HEAD 2>/dev/null || echo ' (uncommitted changes)')" \
    >>"$OUT/raw/blobs-params.tsv"
: >"$OUT/logs/blobs-skipped.txt"
skipped() { say "skipping: $*"; printf '%s\n' "$*" >>"$OUT/logs/blobs-skipped.txt"; }
step() { say "[$(kv_since "$T0")s] $*"; }
timing() { printf '%s\t%s\n' "$1" "$2" >>"$OUT/logs/timings.tsv"; }

JSON=()
kv_has_opt run --json && JSON=(--json)
# The embedded KV stores this kvtest was built with ("Stores: db, files,
# lmdb 0.9.24, rocksdb 7.8.3"; the portable core build lists neither).
STORES=$("$KVTEST" --version 2>/dev/null | sed -n 's/^Stores: //p')
HAVE_LMDB=0 HAVE_ROCKS=0
[[ ", $STORES," =~ ,\ lmdb[\ ,] ]] && HAVE_LMDB=1
[[ ", $STORES," =~ ,\ rocksdb[\ ,] ]] && HAVE_ROCKS=1
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
# export_kv NAME DIR: export the database into the store NAME (lmdb,
# rocksdb) at DIR; 1 (and a skipped line) when this kvtest lacks it or the
# export fails, so the study goes on with the stores it has.
export_kv() {
    local name=$1 dir=$2 have=$3
    if [ "$have" != 1 ]; then
        skipped "$name: not in this kvtest (kvtest --version lists stores: ${STORES:-none}); no $name variants"
        return 1
    fi
    step "export $name:$dir"
    t=$(kv_now)
    if ! KV_PROGRESS=1 kv_run blobs-export "$OUT/logs/blobs-export.txt" "$KVTEST" export "$DB" "$name:$dir"; then
        skipped "$name: kvtest export $name:DIR failed (logs/stderr.log); no $name variants"
        return 1
    fi
    timing "export-$name" "$(kv_since "$t")"
}
export_kv lmdb "$LMDB" "$HAVE_LMDB" || HAVE_LMDB=0
export_kv rocksdb "$ROCKS" "$HAVE_ROCKS" || HAVE_ROCKS=0
# LAYOUTS: name:path of every layout, for the disk space and the checks.
LAYOUTS=(db:"$DB" flat:"$FLAT" tree:"$TREE")
[ "$HAVE_LMDB" = 0 ] || LAYOUTS+=(lmdb:"$LMDB")
[ "$HAVE_ROCKS" = 0 ] || LAYOUTS+=(rocksdb:"$ROCKS")
KVPATHS=()   # the same as kvtest names them
for l in "${LAYOUTS[@]}"; do
    case ${l%%:*} in db|flat|tree) KVPATHS+=("${l#*:}") ;; *) KVPATHS+=("$l") ;; esac
done

# ------------------------------------------------------------------ space
step "disk space of the ${#LAYOUTS[@]} layouts"
t=$(kv_now)
{
    echo "layout,files,apparent_kib,allocated_kib"
    for l in "${LAYOUTS[@]}"; do
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
        "$KVTEST" space "${KVPATHS[@]}" --json ||
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
# LMDB reads in place in its map, RocksDB through its block cache (kvtest's
# default size, RocksDB 7's own default; result.block_cache says it).
[ "$HAVE_LMDB" = 0 ] || READS+=("lmdb|lmdb:$LMDB|")
[ "$HAVE_ROCKS" = 0 ] || READS+=("rocksdb|rocksdb:$ROCKS|")
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
            # LMDB's map with MDB_NORDAHEAD, as SQLite's mmap would need.
            [ "$HAVE_LMDB" = 0 ] || COLD_READS+=("lmdb-ra-off|lmdb:$LMDB|--fadvise random")
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

# Anchors (scripts/study/anchors.sh): kvtest's LMDB figures against
# mdb_stat, its RocksDB reads against db_bench on the same keys, value
# sizes and block cache. Before the writes, which would change the
# RocksDB export's compaction state.
if [ "$DO_ANCHORS" = 1 ]; then
    ANCH=()
    [ "$HAVE_LMDB" = 0 ] || ANCH+=(--lmdb "$LMDB")
    [ "$HAVE_ROCKS" = 0 ] || ANCH+=(--rocksdb "$ROCKS" --reads "$COUNT")
    # Random blobs of SIZE +- VARIANCE have uniformly spread sizes, which
    # db_bench can draw; other data gets db_bench's fixed size at the mean.
    [ -z "$FROM$SIZES_FROM" ] || ANCH+=(--sizes fixed)
    [ "$KEEP" = 0 ] || ANCH+=(--keep)
    if [ ${#ANCH[@]} -gt 0 ]; then
        step "anchors: mdb_stat and db_bench beside kvtest ($ANCHOR_ROUNDS rounds)"
        t=$(kv_now)
        bash "$KV_SCRIPTS/anchors.sh" "${ANCH[@]}" --rounds "$ANCHOR_ROUNDS" --out "$OUT" --force \
            --kvtest "$KVTEST" --scratch "$SCR" ||
            skipped "anchors: scripts/study/anchors.sh failed (logs/stderr.log)"
        timing anchors "$(kv_since "$t")"
    else
        skipped "anchors: no LMDB or RocksDB store to anchor"
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
# LMDB and RocksDB: one transaction for the run, synced once at its end
# (LMDB one write transaction; RocksDB unsynced WAL writes and one WAL
# sync), like the WAL database's run; and with --nosync, never synced, like
# the database with journal and sync off and the files without fsync.
[ "$HAVE_LMDB" = 0 ] || WRITE_VARS+=("lmdb|lmdb:$LMDB|--count $WRITES" "lmdb-nosync|lmdb:$LMDB|--nosync --count $WRITES")
[ "$HAVE_ROCKS" = 0 ] || WRITE_VARS+=("rocksdb|rocksdb:$ROCKS|--count $WRITES" "rocksdb-nosync|rocksdb:$ROCKS|--nosync --count $WRITES")
[ ${#SYNC[@]} -gt 0 ] || skipped "kvtest run has no --synchronous: WAL writes use SQLite's default (FULL)"
wtotal=$((WARMUP + WREPEAT))
t=$(kv_now)
for ((r = 0; r < wtotal; r++)); do
    w=0; [ "$r" -lt "$WARMUP" ] && w=1
    step "writes: round $((r + 1))/$wtotal$([ $w = 1 ] && echo ' (warm-up, discarded)')"
    run_round WRITE_VARS write warm "$r" "$w" --update --random
done
timing writes "$(kv_since "$t")"
# The LMDB anchor again, now that the writes have left free pages behind.
if [ "$DO_ANCHORS" = 1 ] && [ "$HAVE_LMDB" = 1 ]; then
    bash "$KV_SCRIPTS/anchors.sh" --lmdb "$LMDB" --lmdb-state after-writes --out "$OUT" --force \
        --kvtest "$KVTEST" || skipped "anchors: the LMDB check after the writes failed (logs/stderr.log)"
fi

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
    for p in "${KVPATHS[@]}"; do
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
    rm -rf "$FLAT" "$TREE" "$LMDB" "$ROCKS" "$DB" "$DB"-wal "$DB"-shm
    timing remove-data "$(kv_since "$t")"
fi

# ----------------------------------------------------------------- sweep
if [ "$DO_SWEEP" = 1 ]; then
    if "$KVTEST" sweep --help 2>/dev/null | grep -- --sizes >/dev/null; then
        # The embedded stores beside the database and files in the same
        # rounds (sweep --stores), when this kvtest has both; otherwise
        # the default stores (db, files) and a skipped line.
        SW_STORES=()
        if [ "$HAVE_LMDB" = 1 ] && [ "$HAVE_ROCKS" = 1 ] &&
            "$KVTEST" sweep --help 2>/dev/null | grep -- --stores >/dev/null; then
            # shellcheck disable=SC2054  # the comma-separated list is one value
            SW_STORES=(--stores db,files,lmdb,rocksdb)
        else
            skipped "sweep: this kvtest lacks LMDB or RocksDB (or sweep --stores): the database and files only"
        fi
        step "size sweep $SWEEP_SIZES, about $SWEEP_TOTAL per size, page sizes $SWEEP_PAGES${SW_STORES[*]:+, ${SW_STORES[*]}}"
        t=$(kv_now)
        KV_PROGRESS=1 kv_json blobs-sweep '{"experiment":"sweep"}' "$OUT/raw/sweep.jsonl" \
            "$KVTEST" sweep "$SCR/sweep" --sizes "$SWEEP_SIZES" --total "$SWEEP_TOTAL" \
            --repeat "$SWEEP_REPEAT" --page-sizes "$SWEEP_PAGES" "${SW_STORES[@]}" "${JSON[@]}" ||
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

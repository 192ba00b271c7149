#!/usr/bin/env bash
# shellcheck disable=SC2054  # commas in option values (--sweep-sizes 1k,4k) are meant
# bench.sh: the whole study in one command (what "make bench" runs).
#
#   bash scripts/bench.sh [full|small] [--out DIR] [--force] [--keep]
#
#   full   the article's scale: 100k blobs of 10k +- 2k bytes, 4 measured
#          rounds, cold-cache reads, a size sweep on 4 KiB and 64 KiB pages,
#          and the shortener cache experiment with 100k links (under 15
#          minutes on 2 cores)
#   small  the same steps at a tenth of the scale (under 2 minutes)
#
# Runs scripts/fasterthanfs.sh and scripts/shortener.sh into one output
# directory (default bench-out/DATE-SCALE; an existing one is refused unless
# --force), then draws the charts and writes DIR/REPORT.md. Builds nothing:
# "make bench" has already installed the dependencies and built ./kvtest.
# Environment: KVTEST=path/to/kvtest to measure another binary.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SCALE=full OUTDIR="" FORCE=0 KEEP=0 LATEST=0
while [ $# -gt 0 ]; do
    case $1 in
        full|small) SCALE=$1; shift ;;
        --out) [ $# -ge 2 ] || usage_die "--out needs a directory"; OUTDIR=$2; shift 2 ;;
        --force) FORCE=1; shift ;;
        --keep) KEEP=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) usage_die "unknown argument $1 (expected full, small, --out DIR, --force, --keep)" ;;
    esac
done

need_tools jq gnuplot awk du valkey-server valkey-cli wrk curl
kv_find_kvtest ""
if [ -z "$OUTDIR" ]; then
    OUTDIR=$KV_ROOT/bench-out/$(date -u +%Y%m%d-%H%M%S)-$SCALE
    LATEST=1
    [ ! -e "$OUTDIR" ] || die "$OUTDIR already exists; wait a second or pass --out DIR"
fi
kv_prepare_out "$OUTDIR" "$FORCE"
kv_env_capture
# Measure one binary throughout, even if ./kvtest is rebuilt meanwhile.
mkdir -p "$OUT/scratch"
cp "$KVTEST" "$OUT/scratch/kvtest"
[ "$KEEP" = 1 ] || kv_track_dir "$OUT/scratch"
KVTEST=$OUT/scratch/kvtest
T0=$(kv_now)

case $SCALE in
    full)
        # The 64 KiB sweep costs about 30 s more (a database per page size
        # and blob size); one round less of the main experiment and of the
        # sweep pays for it (README, make bench).
        BLOBS=(--count 100k --size 10k --variance 2k --repeat 4 --warmup 1
               --writes 10k --cold-count 5k --cold-repeat 3
               --sweep-sizes 1k,4k,10k,30k,100k,300k,1M --sweep-total 100M --sweep-repeat 2
               --sweep-pages 4k,64k)
        SHORT=(--links 100k --lookups 20k --repeat 3 --duration 6 --rounds 3) ;;
    small)
        BLOBS=(--count 10k --size 10k --variance 2k --repeat 3 --warmup 1
               --writes 2k --cold-count 500 --cold-repeat 2
               --sweep-sizes 1k,10k,100k,1M --sweep-total 20M --sweep-repeat 1
               --sweep-pages 4k,64k)
        SHORT=(--links 10k --lookups 20k --repeat 2 --duration 2 --rounds 1) ;;
esac
EXTRA=(--out "$OUT" --force --no-report)
TRASH=$OUT/scratch/.delete-later
[ "$KEEP" = 1 ] && EXTRA+=(--keep)
printf 'scale\t%s\ncommand\t%s\nstarted_utc\t%s\n' "$SCALE" \
    "make bench SCALE=$SCALE" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$OUT/raw/bench.tsv"

failed=()
say "scale $SCALE; results in $OUT"
say "part 1/2: blobs in SQLite or files (scripts/fasterthanfs.sh ${BLOBS[*]})"
DEFER=()
[ "$KEEP" = 1 ] || DEFER=(--defer-delete "$TRASH")
bash "$KV_SCRIPTS/fasterthanfs.sh" "${BLOBS[@]}" "${EXTRA[@]}" "${DEFER[@]}" --kvtest "$KVTEST" ||
    failed+=(fasterthanfs.sh)
# Deleting 200k files is slow (minutes with ext4 "discard") but needs
# little CPU: do it while the shortener, which works in memory, runs.
RM_PID=""
if [ -s "$TRASH" ]; then
    xargs -d '\n' rm -rf -- <"$TRASH" &
    RM_PID=$!
    kv_track_pid "$RM_PID"
fi
say "part 2/2: SQLite with or without a Valkey cache (scripts/shortener.sh ${SHORT[*]})"
bash "$KV_SCRIPTS/shortener.sh" "${SHORT[@]}" "${EXTRA[@]}" --kvtest "$KVTEST" ||
    failed+=(shortener.sh)

if [ -n "$RM_PID" ]; then
    say "waiting for the blob data to be deleted"
    wait "$RM_PID" || true
    stop_pid "$RM_PID"
fi
printf 'elapsed_s\t%s\n' "$(kv_since "$T0")" >>"$OUT/raw/bench.tsv"
kv_report "$OUT"
[ "$LATEST" = 0 ] || ln -sfn "$(basename "$OUT")" "$(dirname "$OUT")/latest"
say "finished in $(kv_since "$T0")s"
echo "Report: $OUT/REPORT.md"
[ ${#failed[@]} -eq 0 ] || die "failed: ${failed[*]} (the report covers what completed; see $OUT/logs/stderr.log)"

#!/usr/bin/env bash
# shellcheck disable=SC2054  # commas in option values (--sweep-sizes 1k,4k) are meant
# bench.sh: the whole study in one command (what "make bench" runs).
#
#   bash scripts/study/bench.sh [full|small] [--out DIR] [--force] [--keep] [--allow-dirty]
#
#   full   the article's scale: 100k blobs of 10k +- 2k bytes, 6 measured
#          rounds of reads and of writes, 5 of cold-cache reads, a size sweep
#          on 4 KiB and 64 KiB pages (5 rounds), and the shortener cache
#          experiment with 100k links (6 in-process rounds, 5 HTTP rounds
#          with uniform keys, 5 with Zipf 1.0 keys for no cache, valkey and
#          valkey-track; every HTTP run starts with load --walk 2, about
#          10 minutes in all), then the HTTP ceiling (about 70 s), a
#          database larger than memory (about 2.5 minutes) and the store
#          tier, SQLite beside PostgreSQL (20k links, 5 rounds, 2 s HTTP
#          runs: about 5 minutes), and the capacity of each shortener
#          configuration at a p99 bound (100k links, 2 s steps: about 7.5
#          minutes), then HTTPS and HTTP/2 (5 rounds of 2 s cells: about 6
#          minutes): about 37 minutes on 2 cores (2,222 s on 2026-12-06)
#   small  the same steps at a tenth of the scale, 3-4 rounds each (about
#          9 minutes, 552 s on 2026-12-03: 1 for the database larger than
#          memory, 1-1.5 for the store tier, 2.5 for the capacity searches;
#          about 2 more for HTTPS and HTTP/2 since)
#
# A full run is a reference: it is refused, before anything runs, when the
# tree has uncommitted changes or ./kvtest was not built from the tree's
# commit with no changes (kvtest --version), unless --allow-dirty
# (make bench ALLOW_DIRTY=1). Either way raw/bench.tsv records the commit,
# whether the binary and the tree were clean, the build, the kernel and
# when the machine booted, and raw/parts.tsv when each part started, how
# long it took and whether it failed: REPORT.md's header is written from
# them. raw/probe.tsv holds the machine's own pace at the start and the
# end (scripts/study/probe.sh: CPU, steal, loopback round trip, synced
# disk write), in the header too.
#
# Rounds are what the report's 95% intervals are made of (a bootstrap over
# paired rounds needs at least 4 for 95%), so full scale runs at least 5 of
# every experiment; small scale trades that for time (its report says which
# ratios rest on too few rounds).
#
# Runs scripts/study/fasterthanfs.sh, scripts/study/shortener.sh and
# scripts/study/cluster.sh (in-process lookups through a 3-primary Valkey
# Cluster beside one Valkey and none, 5 rounds at full scale),
# scripts/study/nginx.sh (the HTTP ceiling: nginx returning the service's
# GET body from its config beside serve --cache none, same wrk, 6 rounds of
# 5 s at full scale, about 70 s) and scripts/study/memlimit.sh (a links
# database 2x and 4x a memory limit that counts the page cache: sqlite,
# valkey and valkey-track in-process and over HTTP, uniform and Zipf keys,
# 5 rounds at full scale, about 3 minutes, 1 small; root only: without
# root or a memory controller it fails in one line and the rest stands) and
# scripts/study/storetier.sh (SQLite in the process beside PostgreSQL with
# two streaming replicas across loopback, each with no cache, Valkey
# cache-aside and valkey+track: in-process lookups with the pgbench and
# valkey-benchmark references, HTTP GETs with uniform and Zipf keys,
# creates, replicas; PostgreSQL 15 and pgbench needed, else it fails in one
# line and the rest stands) and scripts/study/capacity.sh (the highest
# constant rate each shortener configuration holds with its p99 under one
# bound chosen from the unloaded latency, beside its closed-loop rate) and
# scripts/study/http/tlscost.sh (what TLS, a new connection per request
# and HTTP/2 streams cost the service's GET, without a cache and with
# Valkey) and scripts/study/http/tls.sh (kvtest load beside wrk over https
# and h2load over h2, against the service and nginx) into
# one output directory (default bench-out/DATE-SCALE; an existing one is
# refused unless --force), then draws the charts and writes DIR/REPORT.md. Builds nothing:
# "make bench" has already installed the dependencies and built ./kvtest.
# Environment: KVTEST=path/to/kvtest to measure another binary.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SCALE=full OUTDIR="" FORCE=0 KEEP=0 LATEST=0 ALLOW_DIRTY=0
while [ $# -gt 0 ]; do
    case $1 in
        full|small) SCALE=$1; shift ;;
        --out) [ $# -ge 2 ] || usage_die "--out needs a directory"; OUTDIR=$2; shift 2 ;;
        --force) FORCE=1; shift ;;
        --keep) KEEP=1; shift ;;
        --allow-dirty) ALLOW_DIRTY=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) usage_die "unknown argument $1 (expected full, small, --out DIR, --force, --keep)" ;;
    esac
done

need_tools jq gnuplot awk du valkey-server valkey-cli wrk curl nginx h2load openssl
kv_find_kvtest ""
if [ "$SCALE" = full ] && [ "$ALLOW_DIRTY" = 0 ]; then kv_reference_check; else kv_provenance; fi
kv_find_ratioci   # the report's intervals: fail now, not after the study
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
        # Enough rounds for 95% intervals (docs/study.md, make bench). The 2026-11
        # reference run (4 read rounds, 2 write, 3 cold, 2 sweep, 3 in-process,
        # 3 HTTP of 6 s) took 347 s; these add about 3 minutes, most of it
        # the two extra HTTP rounds (5 s each now instead of 6).
        BLOBS=(--count 100k --size 10k --variance 2k --repeat 6 --write-repeat 6 --warmup 1
               --writes 10k --cold-count 5k --cold-repeat 5
               --sweep-sizes 1k,4k,10k,30k,100k,300k,1M --sweep-total 100M --sweep-repeat 5
               --sweep-pages 4k,64k)
        SHORT=(--links 100k --lookups 20k --repeat 6 --duration 5 --rounds 5)
        CLUSTER=(--links 100k --lookups 20k --rounds 5)
        NGINX=(--repeat 6 --duration 5)
        MEMLIMIT=(--links 800k --limits 24MiB,48MiB --rounds 5 --lookups 10k --duration 2 --warmup 1)
        # 20k links, not 100k: the walks that fill the caches before every
        # HTTP run grow with the links (storetier.sh's header); 2 s runs.
        STORETIER=(--links 20k --lookups 10k --rounds 5 --duration 2)
        # 2 s steps (2000 p99 samples from 1000/s on); uniform sqlite is
        # searched twice, to show how far two searches agree.
        CAPACITY=(--scale full --links 100k --step-time 2s --closed-time 3s --again uniform/sqlite)
        TLSCOST=(--rounds 5 --duration 2 --links 10000)
        TLSANCHOR=(--rounds 5 --duration 2) ;;
    small)
        BLOBS=(--count 10k --size 10k --variance 2k --repeat 4 --write-repeat 4 --warmup 1
               --writes 2k --cold-count 500 --cold-repeat 4
               --sweep-sizes 1k,10k,100k,1M --sweep-total 20M --sweep-repeat 3
               --sweep-pages 4k,64k)
        SHORT=(--links 10k --lookups 20k --repeat 4 --duration 2 --rounds 3)
        CLUSTER=(--links 10k --lookups 20k --rounds 4)
        NGINX=(--repeat 4 --duration 2)
        MEMLIMIT=(--links 400k --limits 24MiB --rounds 4 --lookups 5k --duration 1 --warmup 500ms)
        STORETIER=(--links 10k --lookups 5k --rounds 3 --duration 500ms)
        CAPACITY=(--scale small --links 10k --step-time 500ms --closed-time 1s)
        TLSCOST=(--rounds 3 --duration 1 --links 2000)
        TLSANCHOR=(--rounds 3 --duration 1) ;;
esac
EXTRA=(--out "$OUT" --force --no-report)
TRASH=$OUT/scratch/.delete-later
[ "$KEEP" = 1 ] && EXTRA+=(--keep)
{
    printf 'scale\t%s\ncommand\t%s\nstarted_utc\t%s\n' "$SCALE" \
        "make bench SCALE=$SCALE" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf 'commit\t%s\nbinary\t%s\ntree\t%s\n' "$KV_COMMIT" "$KV_BUILT" "${KV_TREE:-unknown}"
    printf 'kvtest\t%s\n' "$("$KVTEST" --version | sed -n 's/^kvtest //p; s/^Compiler: //p' | paste -sd'|' | sed 's/|/; /')"
    printf 'kernel\t%s\n' "$(uname -srm)"
    # When the machine started: two runs of one commit are independent only
    # if they do not share a boot (page cache, CPU placement, neighbours).
    printf 'booted_utc\t%s\n' "$(date -u -d "@$(awk '$1 == "btime" { print $2 }' /proc/stat)" +%Y-%m-%dT%H:%M:%SZ)"
} >"$OUT/raw/bench.tsv"
printf 'part\tname\tstarted_utc\tseconds\tstatus\n' >"$OUT/raw/parts.tsv"
# part N NAME CMD...: run one part, record when it started, how long it
# took and whether it failed; a failure is listed at the end, the rest goes on.
part() {
    local n=$1 name=$2 t started st=ok
    shift 2
    t=$(kv_now)
    started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    "$@" || { st=failed; failed+=("$name"); }
    printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$name" "$started" "$(kv_since "$t")" "$st" >>"$OUT/raw/parts.tsv"
}

failed=()
say "scale $SCALE; results in $OUT"
# The machine's pace at the start and the end (CPU, steal, loopback, disk):
# what to look at first when two runs of one commit disagree.
bash "$KV_SCRIPTS/probe.sh" "$OUT" start || say "the machine probe failed; the study goes on"
say "part 1/8: blobs in SQLite, files, LMDB or RocksDB, with the anchors (scripts/study/fasterthanfs.sh ${BLOBS[*]})"
DEFER=()
[ "$KEEP" = 1 ] || DEFER=(--defer-delete "$TRASH")
part 1 fasterthanfs.sh bash "$KV_SCRIPTS/fasterthanfs.sh" "${BLOBS[@]}" "${EXTRA[@]}" "${DEFER[@]}" --kvtest "$KVTEST"
# Deleting 200k files is slow (minutes with ext4 "discard") but needs
# little CPU: do it while the shortener, which works in memory, runs.
RM_PID=""
if [ -s "$TRASH" ]; then
    xargs -d '\n' rm -rf -- <"$TRASH" &
    RM_PID=$!
    kv_track_pid "$RM_PID"
fi
say "part 2/8: SQLite with or without a Valkey cache (scripts/study/shortener.sh ${SHORT[*]})"
part 2 shortener.sh bash "$KV_SCRIPTS/shortener.sh" "${SHORT[@]}" "${EXTRA[@]}" --kvtest "$KVTEST"
say "part 3/8: the cache as a Valkey Cluster (scripts/study/cluster.sh ${CLUSTER[*]})"
CL_EXTRA=(--force --no-report)
[ "$KEEP" = 1 ] && CL_EXTRA+=(--keep)
part 3 cluster.sh bash "$KV_SCRIPTS/cluster.sh" "$OUT" "${CLUSTER[@]}" "${CL_EXTRA[@]}" --kvtest "$KVTEST"
say "part 4/8: the HTTP ceiling, nginx beside the service (scripts/study/nginx.sh ${NGINX[*]})"
part 4 nginx.sh bash "$KV_SCRIPTS/nginx.sh" "${NGINX[@]}" --out "$OUT/csv" --kvtest "$KVTEST" \
    >"$OUT/logs/nginx.txt"

# The next part reads from storage: the deletion must not compete with it.
if [ -n "$RM_PID" ]; then
    say "waiting for the blob data to be deleted"
    wait "$RM_PID" || true
    stop_pid "$RM_PID"
fi
say "part 5/8: a database larger than memory (scripts/study/memlimit.sh ${MEMLIMIT[*]})"
ML_EXTRA=(--force --no-report)
[ "$KEEP" = 1 ] && ML_EXTRA+=(--keep)
part 5 memlimit.sh bash "$KV_SCRIPTS/memlimit.sh" "${MEMLIMIT[@]}" --out "$OUT" "${ML_EXTRA[@]}" --kvtest "$KVTEST" \
    >"$OUT/logs/memlimit.txt"
say "part 6/8: the store tier, SQLite beside PostgreSQL (scripts/study/storetier.sh ${STORETIER[*]})"
part 6 storetier.sh bash "$KV_SCRIPTS/storetier.sh" "$OUT" "${STORETIER[@]}" "${CL_EXTRA[@]}" --kvtest "$KVTEST" \
    >"$OUT/logs/storetier.txt"
say "part 7/8: capacity at a p99 bound (scripts/study/capacity.sh ${CAPACITY[*]})"
part 7 capacity.sh bash "$KV_SCRIPTS/capacity.sh" "$OUT" "${CAPACITY[@]}" "${CL_EXTRA[@]}" --kvtest "$KVTEST" \
    >"$OUT/logs/capacity.txt"
say "part 8/8: HTTPS and HTTP/2 (scripts/study/http/tlscost.sh ${TLSCOST[*]}; tls.sh ${TLSANCHOR[*]})"
part 8 tlscost.sh bash "$KV_SCRIPTS/http/tlscost.sh" "${TLSCOST[@]}" --out "$OUT/csv" --kvtest "$KVTEST" \
    >"$OUT/logs/tlscost.txt"
part 8 tls.sh bash "$KV_SCRIPTS/http/tls.sh" "${TLSANCHOR[@]}" --out "$OUT/csv" --kvtest "$KVTEST" \
    >"$OUT/logs/tls.txt"
bash "$KV_SCRIPTS/probe.sh" "$OUT" end || say "the machine probe failed"
printf 'elapsed_s\t%s\n' "$(kv_since "$T0")" >>"$OUT/raw/bench.tsv"
kv_report "$OUT"
[ "$LATEST" = 0 ] || ln -sfn "$(basename "$OUT")" "$(dirname "$OUT")/latest"
say "finished in $(kv_since "$T0")s"
echo "Report: $OUT/REPORT.md"
[ ${#failed[@]} -eq 0 ] || die "failed: ${failed[*]} (the report covers what completed; see $OUT/logs/stderr.log)"

#!/usr/bin/env bash
# getpath.sh: what a GET costs the service beyond its HTTP layer, counted
# and timed (run by hand; nginx.sh --exclusive gives the rates over HTTP).
#
#   scripts/study/getpath.sh [--links 10k] [--rounds 6] [--kvtest PATH]
#       [--out DIR]
#
# 1. System calls per GET: "kvtest shortener serve --cache none" under
#    strace -f -c, a walk over every id (load --walk 1, 30 connections) to
#    warm it, then 2 walks (2 x LINKS GETs) counted; the same with nothing
#    sent gives the start's own calls, taken off. For the default service,
#    --sqlite-exclusive and --processes 2. Per GET: every call that
#    happened at least 0.005 times a GET.
# 2. The in-process lookup at SQLite's own limit: "kvtest shortener bench
#    --configs sqlite --repeat 1" beside build/lookuploop (bind, step,
#    reset on the same statement and ids), ROUNDS rounds alternating which
#    goes first; the median of the per-round ratios bench / lookuploop
#    with its 95% interval (build/ratioci).
# Prints both tables; with --out DIR writes DIR/getpath-syscalls.tsv,
# DIR/getpath-lookups.tsv and DIR/getpath.md. About 1 minute at 10k links.
# Needs strace. Every server it starts is stopped by PID.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LINKS=10k ROUNDS=6 KV="" OUTDIR=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --links|--rounds|--kvtest|--out)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --links) LINKS=$2 ;; --rounds) ROUNDS=$2 ;; --kvtest) KV=$2 ;; --out) OUTDIR=$2 ;;
            esac
            shift 2 ;;
        -h|--help) usage 0 ;;
        *) usage_die "unknown argument '$1' (see --help)" ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || usage_die "--rounds must be a positive whole number, not $ROUNDS"
NLINKS=$(kv_count "$LINKS")
[ "$NLINKS" -gt 0 ] || usage_die "--links must be at least 1"
need_tools strace jq awk
kv_find_ratioci
kv_find_kvtest "$KV"
LOOP=${KV_LOOKUPLOOP:-$KV_ROOT/build/lookuploop}
[ -x "$LOOP" ] || die "no $LOOP (make build/lookuploop)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-getpath.XXXXXX")
kv_track_dir "$WORK"
export SERVERS_DIR=$WORK
DB=$WORK/links.db
"$KVTEST" shortener init "$DB" --links "$LINKS" --seed 1 >/dev/null
"$KVTEST" shortener keys "$DB" >"$WORK/keys.txt"

# count WALKS ARGS...: "NAME CALLS" of a service run (ARGS) under strace
# -f -c that served WALKS walks over every id after a warm-up walk (none
# for 0). Stopped by its own PID: strace would detach and leave it.
count() {
    local walks=$1 child
    shift
    SERVICE_WRAP=(strace -f -c -o "$WORK/strace.txt")
    start_service "$DB" --cache none "$@" || die "the service did not start"
    SERVICE_WRAP=()
    if [ "$walks" -gt 0 ]; then
        "$KVTEST" shortener load "$SERVICE_URL" --keys "$WORK/keys.txt" --walk 1 >/dev/null ||
            die "the warm-up walk failed"
        "$KVTEST" shortener load "$SERVICE_URL" --keys "$WORK/keys.txt" --walk "$walks" \
            >/dev/null || die "the walk failed"
    fi
    child=$(pgrep -P "$SERVICE_PID" | head -n1)
    [ -z "$child" ] || kill -TERM "$child"
    stop_service TERM
    awk '$1 ~ /^[0-9.]+$/ && $NF ~ /^[a-z_0-9]+$/ && $NF != "total" { print $NF, $4 }' "$WORK/strace.txt"
}
SYS=$WORK/syscalls.tsv
printf 'service\tsyscall\tper_get\n' >"$SYS"
for variant in default exclusive processes2; do
    case $variant in
        default) args=() ;; exclusive) args=(--sqlite-exclusive) ;; processes2) args=(--processes 2) ;;
    esac
    say "system calls per GET: $variant"
    rm -f "$DB-wal" "$DB-shm"
    count 0 "${args[@]}" >"$WORK/base.txt"
    count 2 "${args[@]}" >"$WORK/full.txt"
    # The warm-up walk is counted too: 3 walks of NLINKS GETs in all.
    awk -v v="$variant" -v n="$((3 * NLINKS))" 'FILENAME == ARGV[1] { b[$1] = $2; next }
        { p = ($2 - b[$1]) / n; if (p >= 0.005) printf "%s\t%s\t%.3f\n", v, $1, p }' \
        "$WORK/base.txt" "$WORK/full.txt" | sort -t$'\t' -k3,3gr >>"$SYS"
done

LK=$WORK/lookups.tsv
printf 'round\tbench_per_s\tlookuploop_per_s\n' >"$LK"
bench_rate() {
    "$KVTEST" shortener bench "$DB" --configs sqlite --repeat 1 --json |
        jq -e '.result.configs[0].lookups_per_s' || die "shortener bench failed"
}
loop_rate() { "$LOOP" "$DB" --repeat 1 | awk '/^median/ { print $2; f = 1 } END { exit !f }'; }
for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then b=$(bench_rate); l=$(loop_rate); else l=$(loop_rate); b=$(bench_rate); fi
    printf '%s\t%s\t%s\n' "$r" "$b" "$l" >>"$LK"
    say "round $r: bench $b, lookuploop $l lookups/s"
done

MD=$WORK/getpath.md
{
    echo "| service | system call | per GET |"
    echo "|:--|:--|--:|"
    awk -F'\t' 'NR > 1 { printf "| %s | %s | %s |\n", $1, $2, $3 }' "$SYS"
    echo
    awk -F'\t' 'NR > 1 && $1 != "processes2" && ($2 == "fcntl" || $2 == "newfstatat" || $2 == "futex") { s[$1] += $3 }
        END { for (v in s) printf "fcntl + newfstatat + futex per GET, %s: %.3f\n", v, s[v] }' "$SYS" | sort
    echo
    echo "| in-process lookups, $ROUNDS rounds, $LINKS links | lookups/s, median [95% CI] |"
    echo "|:--|--:|"
    echo "| kvtest shortener bench --configs sqlite | $(awk -F'\t' 'NR > 1 { print $2 }' "$LK" | "$KV_RATIOCI" --median | awk '{ printf "%.0f [%.0f, %.0f]", $1, $2, $3 }') |"
    echo "| build/lookuploop (bind, step, reset) | $(awk -F'\t' 'NR > 1 { print $3 }' "$LK" | "$KV_RATIOCI" --median | awk '{ printf "%.0f [%.0f, %.0f]", $1, $2, $3 }') |"
    echo "| bench / lookuploop (per-round ratios) | $(awk -F'\t' 'NR > 1 { print $2, $3 }' "$LK" | "$KV_RATIOCI" | awk '{ printf "%.3f [%.3f, %.3f]%s", $1, $2, $3, ($5 == 1 ? "" : " (n<95%)") }') |"
} >"$MD"
cat "$MD"
if [ -n "$OUTDIR" ]; then
    mkdir -p "$OUTDIR"
    cp "$SYS" "$OUTDIR/getpath-syscalls.tsv"
    cp "$LK" "$OUTDIR/getpath-lookups.tsv"
    cp "$MD" "$OUTDIR/getpath.md"
    say "wrote $OUTDIR/getpath-syscalls.tsv, getpath-lookups.tsv and getpath.md"
fi

#!/usr/bin/env bash
# cgdiff.sh: where a change point of the http series comes from, function by
# function: the service of commit A and of commit B, each under cachegrind
# while it answers the same GETs, and cg_diff's table of B - A.
#   scripts/study/history/cgdiff.sh [--requests N] [--kvtest PATH] A B
#
# Each commit is extracted with git archive and built as own.sh builds it
# (build/sqlite3.o reused when SQLite is unchanged). Each service gets a
# copy of one links database (5,000 links) and answers the first N (default
# 1000) of its ids once each, GET /link/ID over one connection from the
# current kvtest (--kvtest, else ./kvtest; not counted), as the CI check's
# http path does. Prints cg_annotate's table of the difference: the
# functions whose instruction counts moved, the largest first; "PROGRAM
# TOTALS" divided by N is the change per request (start-up and shut-down
# are the same work in both and cancel out).
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=scripts/ci/ci-perf-layers.sh
source "$KV_SCRIPTS/../ci/ci-perf-layers.sh"

N=1000 KV="" REVS=()
while [ $# -gt 0 ]; do
    case $1 in
        --requests|--kvtest)
            if [ $# -lt 2 ] || [ -z "$2" ]; then usage_die "$1 needs a value"; fi
            if [ "$1" = --requests ]; then N=$2; else KV=$2; fi
            shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) usage_die "unknown option $1 (try --help)" ;;
        *) REVS+=("$1"); shift ;;
    esac
done
[ "${#REVS[@]}" = 2 ] || usage_die "give two commits, A and B (try --help)"
if ! [[ $N =~ ^[1-9][0-9]*$ ]] || [ "$N" -gt 5000 ]; then
    usage_die "--requests must be 1 to 5000, not '$N'"
fi
need_tools git make tar valgrind cg_diff cg_annotate
kv_find_kvtest "$KV"
for r in "${REVS[@]}"; do
    git -C "$KV_ROOT" rev-parse -q --verify "$r^{commit}" >/dev/null || usage_die "'$r' names no commit"
done
SCR=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-cgdiff.XXXXXX")
kv_track_dir "$SCR"
OUT=$SCR   # kv_run's commands.tsv and logs/
mkdir -p "$SCR/logs"

kv_run cg-links "$SCR/data.log" "$KVTEST" shortener init "$SCR/links.db" --links 5000 || die "kvtest shortener init failed"
kv_run cg-keys "$SCR/keys" "$KVTEST" shortener keys "$SCR/links.db" || die "kvtest shortener keys failed"
head -n "$N" "$SCR/keys" >"$SCR/k"

# measure NAME REV: SCR/NAME.out, cachegrind's counts of REV's service
measure() {
    local name=$1 rev=$2 dir=$SCR/src-$1 port pid
    mkdir -p "$dir"
    git -C "$KV_ROOT" archive "$rev" | tar -x -C "$dir"
    kv_reuse_sqlite "$rev" "$dir" || true
    make --no-print-directory -C "$dir" -j2 kvtest >"$SCR/build-$name.log" 2>&1 ||
        die "$rev does not build (see $SCR/build-$name.log)"
    cp "$SCR/links.db" "$SCR/$name.db"
    port=$(free_port) || die "no free port"
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$SCR/$name.out" \
        "$dir/kvtest" shortener serve "$SCR/$name.db" --port "$port" --threads 1 >"$SCR/serve-$name.log" 2>&1 &
    pid=$!
    kv_track_pid "$pid"
    wait_for_port "$port" 60 || die "$rev's service did not start (see $SCR/serve-$name.log)"
    kv_run "cg-load-$name" "$SCR/load-$name.log" "$KVTEST" shortener load "http://127.0.0.1:$port" \
        --walk 1 --keys "$SCR/k" --connections 1 --workers 1 || die "the load on $rev failed"
    stop_pid "$pid" TERM 60
    # the same file names in both, so that cg_diff pairs their functions
    sed -i "s|$dir/||g" "$SCR/$name.out"
}
measure a "${REVS[0]}"
measure b "${REVS[1]}"
cg_diff "$SCR/a.out" "$SCR/b.out" >"$SCR/diff.out"
echo "# cachegrind, the service answering $N GETs: ${REVS[1]} minus ${REVS[0]}"
# the totals, then the functions (cg_annotate's second table) up to its end
cg_annotate --auto=no "$SCR/diff.out" | awk -v n="$N" '
    /PROGRAM TOTALS/ { t = $1; gsub(/,/, "", t); print; printf "per request: %+.1f instructions\n\n", t / n }
    /file:function/ { on = 1 }
    on && /^$/ { exit }
    on && !/^-+$/ { print }'

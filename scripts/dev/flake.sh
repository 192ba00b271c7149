#!/usr/bin/env bash
# flake.sh: how often does the suite fail when nothing changed?
#   scripts/dev/flake.sh [--runs N] [--load] [--sets LIST] [--out DIR]
#
# Runs make test, make test-servers and make test-repo (LIST, default
# "test,test-servers,test-repo")
# N times in a row (default 10) in this checkout and counts what failed in
# which run. A test that fails one run in N for reasons outside the code
# teaches people to rerun until green, and then a real failure is rerun
# away too; this is how such a test is found. The first run builds what is
# missing; its time says so.
#
# --load runs a CPU-heavy job beside the runs: one compiler per core,
# compiling sqlite3.c again and again into a scratch directory (what a
# developer's build does to a shared machine). It is stopped by PID when
# the runs end, and on Ctrl-C or SIGTERM.
#
# Writes DIR (default bench-out/flake-UTC) with runs.tsv (run, set, passed,
# failed, skipped, seconds, exit status), failures.tsv (run, set, each
# failing suite or test line), suites.tsv (run, set, every suite's line)
# and logs/RUN-SET.log; prints the table and
# one line per set. Exit 0 when every run passed, 1 when one failed, 2 on
# bad arguments.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
usage_die() { echo "flake.sh: $*" >&2; exit 2; }

RUNS=10 LOAD=0 SETS=test,test-servers,test-repo OUTDIR=""
while [ $# -gt 0 ]; do
    case $1 in
        --runs) [ $# -ge 2 ] || usage_die "--runs needs a value"; RUNS=$2; shift 2 ;;
        --sets) [ $# -ge 2 ] || usage_die "--sets needs a value"; SETS=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || usage_die "--out needs a value"; OUTDIR=$2; shift 2 ;;
        --load) LOAD=1; shift ;;
        -h | --help) sed -n '2,23s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) usage_die "unknown option $1 (try --help)" ;;
    esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || usage_die "--runs must be a positive whole number, not $RUNS"
IFS=, read -r -a SET_LIST <<<"$SETS"
[ ${#SET_LIST[@]} -gt 0 ] || usage_die "--sets needs at least one of test, test-servers, test-repo"
for s in "${SET_LIST[@]}"; do
    case $s in test | test-servers | test-repo) ;; *) usage_die "--sets: unknown set '$s' (test, test-servers, test-repo)" ;; esac
done
OUT=${OUTDIR:-$ROOT/bench-out/flake-$(date -u +%Y%m%d-%H%M%S)}
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
    usage_die "$OUT is not empty (--out needs a new or empty directory)"
fi
mkdir -p "$OUT/logs" || exit 1

LOADERS=() SCR=""
stop_load() {
    local p
    for p in ${LOADERS[@]+"${LOADERS[@]}"}; do kill -TERM -- "-$p" 2>/dev/null; done
    for p in ${LOADERS[@]+"${LOADERS[@]}"}; do wait "$p" 2>/dev/null; done
    LOADERS=()
    [ -z "$SCR" ] || rm -rf "$SCR"
}
trap stop_load EXIT
trap 'echo "flake.sh: interrupted" >&2; exit 130' INT
trap 'echo "flake.sh: terminated" >&2; exit 143' TERM

if [ "$LOAD" = 1 ]; then
    SCR=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-flake-load.XXXXXX")
    for ((i = 0; i < $(nproc); i++)); do
        # a process group of its own, so that stop_load takes the compiler too
        # shellcheck disable=SC2016  # expanded by the inner bash
        setsid bash -c 'while :; do cc -O2 -c "$1" -o "$2/load-$3.o" 2>/dev/null; done' \
            flake-load "$ROOT/sqlite3.c" "$SCR" "$i" </dev/null >/dev/null 2>&1 &
        LOADERS+=("$!")
    done
fi

printf 'run\tset\tpassed\tfailed\tskipped\tseconds\tstatus\n' >"$OUT/runs.tsv"
printf 'run\tset\tfailure\n' >"$OUT/failures.tsv"
printf 'run\tset\tsuite\tpassed\tfailed\tskipped\tseconds\n' >"$OUT/suites.tsv"
printf '%-4s %-13s %7s %7s %7s %8s\n' run set passed failed skipped seconds
for ((r = 1; r <= RUNS; r++)); do
    for s in "${SET_LIST[@]}"; do
        log=$OUT/logs/$r-$s.log t0=$SECONDS
        make --no-print-directory -C "$ROOT" "$s" >"$log" 2>&1
        st=$?
        secs=$((SECONDS - t0))
        # the runner's closing line: "N passed, N failed, N skipped"
        read -r p f k < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$log" | tail -n1)
        if [ -z "${p:-}" ]; then p=0 f=1 k=0; fi   # no closing line: the build or the runner died
        [ "$st" -eq 0 ] || [ "$f" -gt 0 ] || f=1
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$s" "$p" "$f" "$k" "$secs" "$st" >>"$OUT/runs.tsv"
        printf '%-4s %-13s %7s %7s %7s %8s\n' "$r" "$s" "$p" "$f" "$k" "$secs"
        # what failed: each suite line with failures, each failing test
        grep -E '^[^ ].*: [0-9]+ passed, [1-9][0-9]* failed|^not ok |^\[  FAILED  \] [A-Za-z_]|^make.*Error' "$log" |
            sed "s/^/$r\t$s\t/" >>"$OUT/failures.tsv"
        # every suite's line, "cli FOLDER/NAME: P passed, F failed, S skipped[, T s]"
        # (unit binaries give no time): which suites slow down under load
        sed -nE 's/^((cli|unit) [^:]+): ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped(.*, ([0-9]+) s)?$/\1\t\3\t\4\t\5\t\7/p' "$log" |
            sed "s/^/$r\t$s\t/" >>"$OUT/suites.tsv"
    done
done
stop_load

echo
bad=0
for s in "${SET_LIST[@]}"; do
    awk -F'\t' -v s="$s" 'NR > 1 && $2 == s { n++; if ($4 == 0 && $7 == 0) ok++; t += $6 }
        END { printf "%s: %d of %d runs passed, %.0f s a run on average\n", s, ok, n, n ? t / n : 0 }' "$OUT/runs.tsv"
done
if [ "$(wc -l <"$OUT/failures.tsv")" -gt 1 ]; then
    echo "failures (run, set, line):"
    tail -n +2 "$OUT/failures.tsv"
    bad=1
fi
echo "flake.sh: results in $OUT"
exit "$bad"

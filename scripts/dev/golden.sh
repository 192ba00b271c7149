#!/usr/bin/env bash
# Behaviour snapshot for refactoring: run a fixed set of commands with fixed
# seeds over every subcommand and write their stdout, stderr and exit status
# with the timings masked, one file per command, into OUTDIR. Two snapshots
# taken before and after a change must be identical (diff -r).
#   scripts/dev/golden.sh KVTEST_BINARY OUTDIR
set -uo pipefail
K=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# Timings, rates, dates and the machine differ from run to run; counts,
# sizes, keys, labels and exit statuses must not.
mask() {
    sed -E \
        -e '/^\{/! { /(time|Microseconds|per BLOB|rate|Latency|latency|MB\/s|lookups\/s|req\/s|per second|throughput|\/s | in [0-9.]+ ?m?s)/ s/[0-9]+(\.[0-9]+)?/N/g; }' \
        -e 's/"(env|time_utc|seconds|us_per_blob|mb_per_s|latency|timer_ns|timer_share|runs|repeat|lookups_per_s|rps|elapsed|us|ratio|runs_us|ci_lo|ci_hi)":(\{[^{}]*(\{[^{}]*\}[^{}]*)*\}|\[[^]]*\]|[-0-9.e+]+|"[^"]*")/"\1":M/g' \
        -e 's/kvtest-tmp-[A-Za-z0-9]+/kvtest-tmp-X/g'
}
n=0
g() {
    n=$((n + 1))
    local f
    f=$(printf '%s/%02d' "$out" "$n")
    "$K" "$@" >"$f.out" 2>"$f.err"
    echo "exit $?" >"$f.rc"
    printf '%s\n' "$*" >"$f.cmd"
    mask <"$f.out" >"$f.tmp" && mv "$f.tmp" "$f.out"
    # Tables of timings (sweep, bench) and random link ids: shape only.
    if [ -n "${LOOSE:-}" ]; then
        sed -E 's/^[A-Za-z0-9]{10}$/ID/; s/[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?/N/g; s/ +/ /g; s/^Crossover:.*/Crossover: X/' "$f.out" >"$f.tmp" && mv "$f.tmp" "$f.out"
    fi
    mask <"$f.err" >"$f.tmp" && mv "$f.tmp" "$f.err"
}
for c in "" init stat export run space sweep shortener; do g help $c; done
g --version
g init g.db --count 300 --size 3000 --variance 1000 --seed 7
g init g.db --count 300
g init g2.db --count 50 --size 20k --pagesize 8192 --seed 2 --json
g stat g.db
g stat g.db --json
g export g.db gf
g export g.db gt --tree
g export g.db gf
g stat gf
g stat gt --json
for p in g.db gf gt; do
    g run "$p" --count 400 --random --seed 3 --verify
    g run "$p" --count 100 --desc --start 150
    g run "$p" --count 300 --zipf 1.1 --seed 5 --json
done
g run g.db --count 200 --random --blob-api --json
g run g.db --count 50 --update --seed 9 --verify
g run gt --count 50 --update --seed 9 --verify
g run g.db --count 100 --jmode wal --update --json
g run g.db --count 10 --threads 2 --repeat 2 --warmup 1
g run nosuch --count 10
g run g.db --count 0
g run g.db --bogus
g space g.db gf gt
g space g.db gf gt --json
LOOSE=1 g sweep sw --sizes 1k,30k --total 300k --json
LOOSE=1 g sweep sw2 --sizes 2k,8k --total 200k
g shortener init s.db --links 500 --seed 4
LOOSE=1 g shortener keys s.db --limit 5
LOOSE=1 g shortener bench s.db --lookups 2000 --repeat 1 --warmup 0 --seed 2 --json
LOOSE=1 g shortener bench s.db --lookups 2000 --repeat 1 --warmup 0 --miss 0.2 --zipf 1.0
g shortener serve nosuch.db
g shortener load http://127.0.0.1:1/ --requests 1

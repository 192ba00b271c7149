#!/usr/bin/env bash
# ab.sh: two builds of "kvtest shortener serve --cache none" side by side,
# the tool behind NOTES.md's "second round" (issue 22 item 1).
#
#   scripts/study/http/ab.sh OLD_KVTEST NEW_KVTEST [--rounds 8] [--duration 3]
#       [--connections 30] [--wrk-threads 2] [--serve-args "ARGS"]
#       [--old-args "ARGS"] [--new-args "ARGS"] [--raw FILE]
#
# One scratch database of 1000 links (seed 1), copied, one copy per
# service (each service its own file: no shared WAL between the two). Both
# services run the whole time on free loopback ports; then ROUNDS rounds of
# "wrk -tT -cC -dDs GET /link/<first id>" against each, the order
# alternating (ABBA). Per run: requests/s and the service's CPU (user+sys
# of its pid from /proc/PID/stat, clock ticks) over the run, divided by the
# requests wrk completed. --serve-args go to both services, --old-args and
# --new-args to one (OLD and NEW may then be the same binary). Prints the medians and the per-round ratios NEW/OLD
# of requests/s and of CPU per request with their 95% intervals
# (build/ratioci). A run with a non-2xx answer or a socket error is refused.
set -euo pipefail
KV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck source=scripts/study/lib.sh
source "$KV_ROOT/scripts/study/lib.sh"

[ $# -ge 2 ] || usage_die "usage: ab.sh OLD_KVTEST NEW_KVTEST [options]"
OLD=$(realpath "$1") NEW=$(realpath "$2")
shift 2
ROUNDS=8 DURATION=3 CONNS=30 WRKT=2 SARGS="" OARGS="" NARGS="" RAWOUT=""
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage_die "$1 needs a value"
    case $1 in
        --rounds) ROUNDS=$2 ;; --duration) DURATION=$2 ;; --connections) CONNS=$2 ;;
        --wrk-threads) WRKT=$2 ;; --serve-args) SARGS=$2 ;; --raw) RAWOUT=$2 ;;
        --old-args) OARGS=$2 ;; --new-args) NARGS=$2 ;;
        *) usage_die "unknown argument '$1'" ;;
    esac
    shift 2
done
need_tools wrk curl
kv_find_ratioci
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-ab.XXXXXX")
kv_track_dir "$WORK"
export SERVERS_DIR=$WORK
"$OLD" shortener init "$WORK/a.db" --links 1000 --seed 1 >/dev/null
# AB_NEW_SCHEMA=covering: NEW serves the same links in the covering
# schema (one B-tree descent per lookup instead of index + table).
if [ -n "${AB_NEW_SCHEMA:-}" ]; then
    "$OLD" shortener init "$WORK/b.db" --schema "$AB_NEW_SCHEMA" --from "$WORK/a.db" >/dev/null
else
    cp "$WORK/a.db" "$WORK/b.db"
fi
ID=$("$OLD" shortener keys "$WORK/a.db" | sed -n 1p)
# shellcheck disable=SC2086 # SARGS is a list of words
{ KVTEST=$OLD start_service "$WORK/a.db" --cache none $SARGS $OARGS; } || die "OLD did not start"
A_PID=$SERVICE_PID A_URL=$SERVICE_URL
# shellcheck disable=SC2086
{ KVTEST=$NEW start_service "$WORK/b.db" --cache none $SARGS $NARGS; } || die "NEW did not start"
B_PID=$SERVICE_PID B_URL=$SERVICE_URL
[ "$(curl -fsS "$A_URL/link/$ID")" = "$(curl -fsS "$B_URL/link/$ID")" ] || die "bodies differ"
# AB_NEW_POST=1: one POST /link to NEW first, so its WAL holds a commit
# (SQLite then takes the database size from the WAL header instead of an
# fstat at every read transaction).
if [ "${AB_NEW_POST:-0}" = 1 ]; then
    curl -fsS -d '{"url":"https://example.com/"}' "$B_URL/link" >/dev/null || die "POST failed"
fi

TCK=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# run URL PID: "requests/s requests ticks"
run() {
    local c0 c1 out
    c0=$(cpu "$2")
    out=$(wrk -t"$WRKT" -c"$CONNS" -d"${DURATION}s" "$1/link/$ID") || die "wrk failed"
    c1=$(cpu "$2")
    case $out in *Non-2xx*|*"Socket errors"*) die "wrk saw errors: $out" ;; esac
    echo "$out" | awk -v t=$((c1 - c0)) '/requests in/ { n = $1 } /^Requests\/sec:/ { r = $2 }
        END { print r, n, t }'
}
run "$A_URL" "$A_PID" >/dev/null
run "$B_URL" "$B_PID" >/dev/null
RAW=$WORK/raw
: >"$RAW"
for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
    for v in $order; do
        if [ "$v" = old ]; then line=$(run "$A_URL" "$A_PID"); else line=$(run "$B_URL" "$B_PID"); fi
        printf '%s\t%s\t%s\n' "$r" "$v" "${line// /$'\t'}" >>"$RAW"
        say "round $r $v: $line"
    done
done
[ -z "$RAWOUT" ] || cp "$RAW" "$RAWOUT"
pairs() {   # COLUMN-EXPR: "new old" per round
    awk -F'\t' -v e="$1" -v t="$TCK" '{ v = (e == "rps") ? $3 : 1e6 * $5 / t / $4; x[$1 "," $2] = v; r[$1] = 1 }
        END { for (i in r) print x[i ",new"], x[i ",old"] }' "$RAW"
}
echo "raw (round variant rps requests cpu_ticks):"
cat "$RAW"
for v in old new; do
    printf '%s median rps: %s\n' "$v" "$(awk -F'\t' -v v="$v" '$2 == v { print $3 }' "$RAW" | "$KV_RATIOCI" --median)"
    printf '%s median cpu us/req: %s\n' "$v" \
        "$(awk -F'\t' -v v="$v" -v t="$TCK" '$2 == v { print 1e6 * $5 / t / $4 }' "$RAW" | "$KV_RATIOCI" --median)"
done
echo "new/old rps:         $(pairs rps | "$KV_RATIOCI")"
echo "new/old cpu per req: $(pairs cpu | "$KV_RATIOCI")"

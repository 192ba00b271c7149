#!/usr/bin/env bash
# pipeline.sh: HTTP/1.1 pipelining, kvtest shortener load --pipeline N
# against wrk with the same pipelining (scripts/study/wrk-pipeline.lua, as
# wrk's own pipeline.lua), on the same running service.
#
#   scripts/study/pipeline.sh [--duration 5] [--connections 10] [--workers 2]
#       [--repeat 3] [--depths "1 4 16"] [--path /heart-beat] [--kvtest PATH]
#
# Starts "kvtest shortener serve DB --cache none" on a free loopback port (a
# scratch database of 1000 links), then for each depth N, REPEAT times,
# alternating the two tools: "kvtest shortener load URL --scenario get
# --path PATH --pipeline N" and "wrk -tWORKERS -cCONNECTIONS -s
# wrk-pipeline.lua URL -- N PATH", same connections, threads and duration.
# Prints one markdown row per depth: the requests/s median of each tool
# and their ratio, and the runs behind them (stderr). Stops the service by
# PID on exit. Not part of make bench: about 2 x 3 x 3 x DURATION seconds.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION=5 CONNECTIONS=10 WORKERS=2 REPEAT=3 DEPTHS="1 4 16" URLPATH=/heart-beat KV=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --duration|--connections|--workers|--repeat|--depths|--path|--kvtest)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --duration) DURATION=$2 ;; --connections) CONNECTIONS=$2 ;;
                --workers) WORKERS=$2 ;; --repeat) REPEAT=$2 ;; --depths) DEPTHS=$2 ;;
                --path) URLPATH=$2 ;; --kvtest) KV=$2 ;;
            esac
            shift 2 ;;
        -h|--help) usage 0 ;;
        *) usage_die "unknown argument '$1' (see --help)" ;;
    esac
done
need_tools wrk jq
kv_find_kvtest "$KV"
kv_has_opt "shortener load" --pipeline || die "$KVTEST has no shortener load --pipeline"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-pipeline.XXXXXX")
kv_track_dir "$WORK"
export SERVERS_DIR=$WORK
"$KVTEST" shortener init "$WORK/links.db" --links 1000 --seed 1 >/dev/null
start_service "$WORK/links.db" --cache none || die "the service did not start"
say "service on $SERVICE_URL (pid $SERVICE_PID)"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "| depth | kvtest load req/s | wrk req/s | kvtest / wrk |"
echo "|------:|------------------:|----------:|-------------:|"
for n in $DEPTHS; do
    kv_runs=() wrk_runs=()
    for r in $(seq 1 "$REPEAT"); do
        k=$("$KVTEST" shortener load "$SERVICE_URL" --scenario get --path "$URLPATH" \
            --duration "$DURATION" --connections "$CONNECTIONS" --workers "$WORKERS" \
            --pipeline "$n" --json | jq -r 'if .result.requests_failed == 0
                then .result.requests_per_s else error("failed requests") end')
        w=$(wrk -t"$WORKERS" -c"$CONNECTIONS" -d"${DURATION}s" -s "$KV_SCRIPTS/wrk-pipeline.lua" \
            "$SERVICE_URL" -- "$n" "$URLPATH" | grep '^{"tool":"wrk"' |
            jq -r 'if (.errors | add) == 0 then .requests_per_s else error("wrk errors") end')
        say "depth $n run $r: kvtest $k req/s, wrk $w req/s"
        kv_runs+=("$k") wrk_runs+=("$w")
    done
    km=$(printf '%s\n' "${kv_runs[@]}" | median)
    wm=$(printf '%s\n' "${wrk_runs[@]}" | median)
    awk -v n="$n" -v k="$km" -v w="$wm" \
        'BEGIN { printf "| %d | %.0f | %.0f | %.2f |\n", n, k, w, k / w }'
done

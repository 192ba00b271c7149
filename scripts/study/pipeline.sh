#!/usr/bin/env bash
# pipeline.sh: HTTP/1.1 pipelining, kvtest shortener load --pipeline N
# against wrk with the same pipelining (scripts/study/wrk-pipeline.lua, as
# wrk's own pipeline.lua), on the same running service.
#
#   scripts/study/pipeline.sh [--duration 5] [--connections 10] [--workers 2]
#       [--repeat 6] [--depths "1 4 16"] [--path /heart-beat] [--kvtest PATH]
#       [--out DIR]
#
# Starts "kvtest shortener serve DB --cache none" on a free loopback port (a
# scratch database of 1000 links), then for each depth N, REPEAT times,
# alternating the two tools: "kvtest shortener load URL --scenario get
# --path PATH --pipeline N" and "wrk -tWORKERS -cCONNECTIONS -s
# wrk-pipeline.lua URL -- N PATH", same connections, threads and duration.
# Prints one markdown row per depth: the requests/s median of each tool
# with its 95% interval, and the median of the per-round ratios kvtest/wrk
# with its 95% interval (build/ratioci: paired bootstrap; 4 rounds or more
# reach 95%). With --out DIR, also DIR/pipeline-raw.tsv (one line per run:
# depth, round, tool, requests/s) and DIR/pipeline.md (the table). Stops
# the service by PID on exit. Not part of make bench: about
# 2 x 3 x 6 x DURATION seconds.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION=5 CONNECTIONS=10 WORKERS=2 REPEAT=6 DEPTHS="1 4 16" URLPATH=/heart-beat KV="" OUTDIR=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --duration|--connections|--workers|--repeat|--depths|--path|--kvtest|--out)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --duration) DURATION=$2 ;; --connections) CONNECTIONS=$2 ;;
                --workers) WORKERS=$2 ;; --repeat) REPEAT=$2 ;; --depths) DEPTHS=$2 ;;
                --path) URLPATH=$2 ;; --kvtest) KV=$2 ;; --out) OUTDIR=$2 ;;
            esac
            shift 2 ;;
        -h|--help) usage 0 ;;
        *) usage_die "unknown argument '$1' (see --help)" ;;
    esac
done
need_tools wrk jq
kv_find_ratioci
kv_find_kvtest "$KV"
kv_has_opt "shortener load" --pipeline || die "$KVTEST has no shortener load --pipeline"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-pipeline.XXXXXX")
kv_track_dir "$WORK"
export SERVERS_DIR=$WORK
"$KVTEST" shortener init "$WORK/links.db" --links 1000 --seed 1 >/dev/null
start_service "$WORK/links.db" --cache none || die "the service did not start"
say "service on $SERVICE_URL (pid $SERVICE_PID)"

RAW=$WORK/raw.tsv TABLE=$WORK/table.md
: >"$RAW"
kv_load() {
    "$KVTEST" shortener load "$SERVICE_URL" --scenario get --path "$URLPATH" \
        --duration "$DURATION" --connections "$CONNECTIONS" --workers "$WORKERS" \
        --pipeline "$1" --json | jq -r 'if .result.requests_failed == 0
            then .result.requests_per_s else error("failed requests") end'
}
wrk_load() {
    wrk -t"$WORKERS" -c"$CONNECTIONS" -d"${DURATION}s" -s "$KV_SCRIPTS/wrk-pipeline.lua" \
        "$SERVICE_URL" -- "$1" "$URLPATH" | grep '^{"tool":"wrk"' |
        jq -r 'if (.errors | add) == 0 then .requests_per_s else error("wrk errors") end'
}
for n in $DEPTHS; do
    for r in $(seq 1 "$REPEAT"); do
        if [ $((r % 2)) -eq 1 ]; then order="kvtest wrk"; else order="wrk kvtest"; fi
        for tool in $order; do
            v=$(if [ "$tool" = kvtest ]; then kv_load "$n"; else wrk_load "$n"; fi)
            [ -n "$v" ] || die "depth $n round $r: $tool gave no figure"
            printf '%s\t%s\t%s\t%s\n' "$n" "$r" "$tool" "$v" >>"$RAW"
            say "depth $n round $r: $tool $v req/s"
        done
    done
done

# ci ARGS < lines: "EST [LO, HI]" from build/ratioci, or the bare estimate
# with "(n<4)" when the interval cannot reach 95%.
ci() {
    "$KV_RATIOCI" "$@" | awk '{ if ($5 == 1) printf "%.*f [%.*f, %.*f]", p, $1, p, $2, p, $3
                                else printf "%.*f [%.*f, %.*f] (n<95%%)", p, $1, p, $2, p, $3 }' p="$PREC"
}
{
    echo "| depth | kvtest load req/s | wrk req/s | kvtest / wrk |"
    echo "|------:|------------------:|----------:|-------------:|"
    for n in $DEPTHS; do
        PREC=0; k=$(awk -F'\t' -v n="$n" '$1 == n && $3 == "kvtest" { print $4 }' "$RAW" | ci --median)
        w=$(awk -F'\t' -v n="$n" '$1 == n && $3 == "wrk" { print $4 }' "$RAW" | ci --median)
        PREC=2; q=$(awk -F'\t' -v n="$n" '$1 == n { v[$2 "\t" $3] = $4; r[$2] = 1 }
                END { for (i in r) print v[i "\tkvtest"], v[i "\twrk"] }' "$RAW" | ci)
        echo "| $n | $k | $w | $q |"
    done
} >"$TABLE"
cat "$TABLE"
if [ -n "$OUTDIR" ]; then
    mkdir -p "$OUTDIR"
    { printf 'depth\tround\ttool\trequests_per_s\n'; cat "$RAW"; } >"$OUTDIR/pipeline-raw.tsv"
    cp "$TABLE" "$OUTDIR/pipeline.md"
    say "wrote $OUTDIR/pipeline-raw.tsv and $OUTDIR/pipeline.md"
fi

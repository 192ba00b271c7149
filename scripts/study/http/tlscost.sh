#!/usr/bin/env bash
# shellcheck disable=SC2016  # $names inside single quotes are jq variables
# tlscost.sh: what TLS and HTTP/2 cost the service's GET, with and without
# a Valkey cache: per request on a kept-alive connection, per new
# connection (resumed, and a full handshake), and HTTP/2 streams against
# HTTP/1.1 pipelining and against more connections, the same requests in
# flight.
#
#   scripts/study/http/tlscost.sh [--rounds 6] [--duration 3] [--connections 30]
#       [--streams 10] [--links 10000] [--workers 2] [--kvtest PATH] [--out DIR]
#
# A scratch CA and a certificate for 127.0.0.1 (openssl, as the tests make
# them), a database of LINKS links (seed 1), one valkey-server, and four
# services on free loopback ports for the whole run: "kvtest shortener
# serve" with --cache none and with --cache valkey://, each plain and with
# --tls-cert (each on its own copy of the database; the two cached ones
# share the Valkey, which holds the same links for both). Each service is
# walked once over every link first (load --walk 1: Valkey warm). Then
# ROUNDS rounds; each runs the fourteen cells, {none, valkey} x
#   http-keep   http://, CONNECTIONS kept-alive connections, one request each
#   https-keep  https://, the same
#   http-new    http://, --reconnect: a new connection per request
#   https-new   https://, --reconnect: each handshake resumes a session
#   https-full  https://, --reconnect --no-resume: each handshake full
#   https-pipe  https://, CONNECTIONS/STREAMS connections, --pipeline STREAMS
#   h2          https://, CONNECTIONS/STREAMS connections, --http2 --streams STREAMS
# in one order on odd rounds and reversed on even ones (ABBA), each
#   kvtest shortener load URL --keys KEYS --duration DURATION --workers
#       WORKERS --connections N --cacert ca.pem [ARGS] --json
# GETs of existing links picked uniformly. A run with a failed request is
# refused. Every cell has CONNECTIONS requests in flight, so https-keep,
# https-pipe and h2 compare one way of keeping them in flight with another.
#
# Prints per cache and cell: requests/s, p50 and p99 (medians of the
# rounds, with 95% intervals, build/ratioci: 4 rounds or more reach 95%),
# and the time a request costs beyond http-keep's in the same round,
# 1e6/rate(cell) - 1e6/rate(http-keep), in microseconds of the two cores'
# time; then, per round ratios, https-pipe / https-keep, h2 / https-keep
# and valkey / none per cell. With --out DIR: DIR/tlscost.tsv (round,
# cache, cell, requests_per_s, p50_us, p99_us, handshakes, resumed,
# handshake_p50_us), DIR/tlscost.csv (per cache and cell: the medians and
# their intervals, one row per cell named as above with both caches, for
# scripts/study/plot/tlscost.gp), DIR/tlscost.json
# (every interval) and DIR/tlscost.md (the tables).
# About 14 x ROUNDS x (DURATION + 1) seconds plus a minute: 7 minutes with
# the defaults.
set -euo pipefail
KV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck source=scripts/study/lib.sh
source "$KV_ROOT/scripts/study/lib.sh"

ROUNDS=6 DURATION=3 CONNS=30 STREAMS=10 LINKS=10000 WORKERS=2 KV="" OUTDIR=""
usage() { sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --rounds|--duration|--connections|--streams|--links|--workers|--kvtest|--out)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --rounds) ROUNDS=$2 ;; --duration) DURATION=$2 ;; --connections) CONNS=$2 ;;
                --streams) STREAMS=$2 ;; --links) LINKS=$2 ;; --workers) WORKERS=$2 ;;
                --kvtest) KV=$2 ;; --out) OUTDIR=$2 ;;
            esac
            shift 2 ;;
        -h|--help) usage 0 ;;
        *) usage_die "unknown argument '$1' (see --help)" ;;
    esac
done
for v in "$ROUNDS" "$DURATION" "$CONNS" "$STREAMS" "$LINKS" "$WORKERS"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || usage_die "not a positive whole number: $v"
done
[ $((CONNS % STREAMS)) -eq 0 ] ||
    usage_die "--connections ($CONNS) must be a multiple of --streams ($STREAMS): every cell has the same requests in flight"
FEW=$((CONNS / STREAMS))
need_tools valkey-server curl openssl jq
kv_find_ratioci
kv_find_kvtest "$KV"

kv_tls_scratch tlscost
"$KVTEST" shortener init "$WORK/links.db" --links "$LINKS" --seed 1 >/dev/null
"$KVTEST" shortener keys "$WORK/links.db" >"$WORK/keys"
# shellcheck disable=SC2119  # no arguments: a Valkey without a password
start_valkey || die "valkey-server did not start"
declare -A URL PIDS
for cache in none valkey; do
    c=none
    [ "$cache" = none ] || c=$VALKEY_URL
    for scheme in http https; do
        cp "$WORK/links.db" "$WORK/$cache-$scheme.db"
        tls=()
        [ "$scheme" = http ] || tls=(--tls-cert "$WORK/certs/server.pem" --tls-key "$WORK/certs/server.key")
        start_service "$WORK/$cache-$scheme.db" --cache "$c" "${tls[@]}" ||
            die "the $scheme service with --cache $cache did not start"
        URL[$cache/$scheme]=$scheme://127.0.0.1:$SERVICE_PORT
        PIDS[$cache/$scheme]=$SERVICE_PID
    done
done
say "services: ${URL[*]}; valkey on $VALKEY_URL"

# run_load CACHE CELL SECONDS [ARGS]: "rps p50_us p99_us handshakes resumed hs_p50_us".
run_load() {
    local cache=$1 cell=$2 secs=$3 u out
    shift 3
    local args=(--connections "$CONNS")
    case $cell in
        http-*) u=${URL[$cache/http]} ;;
        *) u=${URL[$cache/https]}; args+=(--cacert "$CA") ;;
    esac
    case $cell in
        *-new) args+=(--reconnect) ;;
        https-full) args+=(--reconnect --no-resume) ;;
        https-pipe) args=(--connections "$FEW" --cacert "$CA" --pipeline "$STREAMS") ;;
        h2) args=(--connections "$FEW" --cacert "$CA" --http2 --streams "$STREAMS") ;;
    esac
    out=$("$KVTEST" shortener load "$u" --keys "$WORK/keys" --duration "$secs" \
        --workers "$WORKERS" "${args[@]}" "$@" --json) || die "kvtest load failed on $cache $cell"
    jq -e '.result.requests_failed == 0 and .result.requests > 0' <<<"$out" >/dev/null ||
        die "kvtest load saw failures on $cache $cell"
    jq -r '[.result.requests_per_s, .result.by_type.all.latency.p50,
            .result.by_type.all.latency.p99, (.result.tls.handshakes // 0),
            (.result.tls.resumed // 0), (.result.tls.handshake.p50 // "-")] | @tsv' <<<"$out"
}

CELL_NAMES=(http-keep https-keep http-new https-new https-full https-pipe h2)
CELLS=()
for cache in none valkey; do for cell in "${CELL_NAMES[@]}"; do CELLS+=("$cache $cell"); done; done
for cache in none valkey; do   # every link once: the cache warm, the pages read
    for scheme in http https; do
        ca=()
        [ "$scheme" = http ] || ca=(--cacert "$CA")
        "$KVTEST" shortener load "${URL[$cache/$scheme]}" --keys "$WORK/keys" --walk 1 \
            "${ca[@]}" --json | jq -e '.result.requests_failed == 0' >/dev/null ||
            die "the warm-up walk failed on $cache $scheme"
    done
done
for cell in "${CELLS[@]}"; do   # a 1 s warm-up of each
    read -r cache c <<<"$cell"
    run_load "$cache" "$c" 1 >/dev/null
done
RAW=$WORK/tlscost.tsv
: >"$RAW"
for r in $(seq 1 "$ROUNDS"); do
    mapfile -t order < <(kv_abba "$r" "${CELLS[@]}")
    for cell in "${order[@]}"; do
        read -r cache c <<<"$cell"
        row=$(run_load "$cache" "$c" "$DURATION")
        printf '%s\t%s\t%s\t%s\n' "$r" "$cache" "$c" "$row" >>"$RAW"
        say "round $r: $cache $c $(cut -f1 <<<"$row") req/s"
    done
done
for k in "${!PIDS[@]}"; do
    kill -0 "${PIDS[$k]}" 2>/dev/null || die "the $k service (pid ${PIDS[$k]}) exited during the run"
done
kill -0 "$VALKEY_PID" 2>/dev/null || die "valkey-server exited during the run"

# Every interval, from kv_ci_table: per cache and cell the medians
# (rps/, p50/, p99/ and, over https, hs/ the handshake p50), the time
# added beyond http-keep (us/), and the paired ratios (x/).
CI=$WORK/tlscost.json
awk -F'\t' '
    { k = $2 "/" $3; rps[$1, k] = $4; r[$1] = 1
      print "rps/" k "\t" $4; print "p50/" k "\t" $5; print "p99/" k "\t" $6
      if ($9 != "-") print "hs/" k "\t" $9 }
    END {
        for (i in r) for (key in rps) {
            split(key, a, SUBSEP); if (a[1] != i) continue
            split(a[2], b, "/"); base = rps[i, b[1] "/http-keep"]
            if (b[2] != "http-keep") printf "us/%s\t%.3f\n", a[2], 1e6 / rps[key] - 1e6 / base
            if (b[2] == "https-pipe" || b[2] == "h2")
                print "x/" a[2] "/https-keep\t" rps[key] "\t" rps[i, b[1] "/https-keep"]
            if (b[1] == "valkey") print "x/valkey/none/" b[2] "\t" rps[key] "\t" rps[i, "none/" b[2]]
        }
    }' "$RAW" | kv_ci_table >"$CI"

declare -A LABEL=(
    [http-keep]="http, $CONNS kept-alive connections"
    [https-keep]="https, $CONNS kept-alive connections"
    [http-new]="http, a new connection per request"
    [https-new]="https, a new connection per request, resumed"
    [https-full]="https, a new connection per request, full handshake"
    [https-pipe]="https, $FEW connections x pipeline $STREAMS"
    [h2]="h2, $FEW connections x $STREAMS streams"
)
label() { echo "${LABEL[$1]}"; }

# jq helpers over the intervals: "EST [LO, HI]" with a precision, marked
# when fewer rounds than 95% needs.
JQ='def f($p): if . == null then "n/a" else (pow(10; $p)) as $m | (. * $m | round) / $m | tostring end;
    def ci($k; $p): .[$k] as $c | if $c == null then "n/a"
        else "\($c.est | f($p)) [\($c.lo | f($p)), \($c.hi | f($p))]\(if $c.covered then "" else " (n<95%)" end)" end;'
TABLE=$WORK/tlscost.md CSV=$WORK/tlscost.csv
{
    echo "| $ROUNDS rounds of ${DURATION} s, GETs of $LINKS links (uniform), $WORKERS client threads | cache | requests/s | p50 ms | p99 ms | us a request beyond http kept-alive | handshake p50 ms |"
    echo "|:--|:--|--:|--:|--:|--:|--:|"
    for cache in none valkey; do
        for c in "${CELL_NAMES[@]}"; do
            k=$cache/$c
            jq -r --arg k "$k" --arg l "$(label "$c")" --arg cache "$cache" "$JQ"'
                "| \($l) | \($cache) | \(ci("rps/" + $k; 0)) | \(.["p50/" + $k].est / 1000 | f(3))"
                + " | \(.["p99/" + $k].est / 1000 | f(3)) | \(if $k | endswith("http-keep") then "0 (the base)" else ci("us/" + $k; 1) end)"
                + " | \(if .["hs/" + $k] then .["hs/" + $k].est / 1000 | f(3) else "-" end) |"' "$CI"
        done
    done
    echo
    echo "| the same $CONNS requests in flight, over TLS | ratio of requests/s (per round) |"
    echo "|:--|--:|"
    for cache in none valkey; do
        for c in https-pipe h2; do
            jq -r --arg k "$cache/$c" --arg l "$(label "$c") / $(label https-keep), cache $cache" "$JQ"'
                "| \($l) | \(ci("x/" + $k + "/https-keep"; 3)) |"' "$CI"
        done
    done
    echo
    echo "| what the Valkey cache does to each | valkey / none requests/s (per round) |"
    echo "|:--|--:|"
    for c in "${CELL_NAMES[@]}"; do
        jq -r --arg c "$c" --arg l "$(label "$c")" "$JQ"'"| \($l) | \(ci("x/valkey/none/" + $c; 3)) |"' "$CI"
    done
} >"$TABLE"
{
    # one row per cell, the two caches side by side (the chart's bars)
    echo "cell,none_rps,none_rps_lo,none_rps_hi,valkey_rps,valkey_rps_lo,valkey_rps_hi,none_us,none_us_lo,none_us_hi,valkey_us,valkey_us_lo,valkey_us_hi,none_p50_ms,none_p99_ms,valkey_p50_ms,valkey_p99_ms"
    for c in "${CELL_NAMES[@]}"; do
        jq -r --arg c "$c" '
            . as $ci
            | def tri($k): [$ci[$k].est, $ci[$k].lo, $ci[$k].hi];
              def ms($k): if $ci[$k] then $ci[$k].est / 1000 else null end;
            [$c] + tri("rps/none/" + $c) + tri("rps/valkey/" + $c)
            + tri("us/none/" + $c) + tri("us/valkey/" + $c)
            + [ms("p50/none/" + $c), ms("p99/none/" + $c), ms("p50/valkey/" + $c), ms("p99/valkey/" + $c)]
            | @csv' "$CI"
    done
} >"$CSV"
cat "$TABLE"
if [ -n "$OUTDIR" ]; then
    mkdir -p "$OUTDIR"
    { printf 'round\tcache\tcell\trequests_per_s\tp50_us\tp99_us\thandshakes\tresumed\thandshake_p50_us\n'
      cat "$RAW"; } >"$OUTDIR/tlscost.tsv"
    cp "$TABLE" "$OUTDIR/tlscost.md"
    cp "$CSV" "$OUTDIR/tlscost.csv"
    # when and on what code, for a report that gathers parts run apart
    commit=$(git -C "$KV_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
    jq --argjson rounds "$ROUNDS" --argjson duration "$DURATION" --argjson connections "$CONNS" \
        --argjson streams "$STREAMS" --argjson links "$LINKS" --argjson workers "$WORKERS" \
        --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg commit "$commit" \
        '{rounds: $rounds, duration_s: $duration, connections: $connections, streams: $streams,
          links: $links, workers: $workers, date_utc: $date, commit: $commit, intervals: .}' \
        "$CI" >"$OUTDIR/tlscost.json"
    say "wrote $OUTDIR/tlscost.{tsv,csv,json,md}"
fi

#!/usr/bin/env bash
# tls.sh: kvtest shortener load over https against wrk and over HTTP/2
# against h2load, the same target in the same round, and what TLS and
# HTTP/2 streams do to a GET, for the service and for nginx.
#
#   scripts/study/http/tls.sh [--rounds 6] [--duration 3] [--connections 30]
#       [--workers 2] [--streams 10] [--kvtest PATH] [--out DIR]
#
# A scratch CA and a server certificate for 127.0.0.1 (openssl, as the
# tests make them), a database of 1000 links (seed 1), and four servers
# running the whole time on free loopback ports: "kvtest shortener serve
# --cache none" plain and with --tls-cert (each on its own copy of the
# database), and one nginx (Debian's nginx-light, lib.sh's configuration:
# the body of GET /link/<first id> from its config, no storage) listening
# for http and for https (h2 offered by ALPN). Then ROUNDS rounds; each
# runs the twelve cells {service, nginx} x {http, https, h2}, each with its
# anchor (wrk, or h2load for h2) and with kvtest load, in one order on odd
# rounds and reversed on even ones (ABBA), each for DURATION seconds on
# the one path with CONNECTIONS connections and WORKERS threads:
#   wrk -tWORKERS -cCONNECTIONS -dDURATIONs URL/link/ID
#   h2load -tWORKERS -cCONNECTIONS -mSTREAMS -DDURATION URL/link/ID
#   kvtest shortener load URL --scenario get --path /link/ID --connections
#       CONNECTIONS --workers WORKERS --duration DURATION --json
#       [--cacert ca.pem] [--http2 --streams STREAMS]
# wrk and h2load check no certificate; load verifies it once per
# connection (at the handshake: no cost per request on a kept-alive
# connection). A run with a failure (wrk: a non-2xx answer or a socket
# error; h2load: a request not 2xx) is refused.
#
# Prints, per target and scheme, each client's requests/s (median [95%
# CI]) and the per-round ratio load/anchor; per target and client the ratio
# https/http (TLS's cost to a kept-alive GET, as throughput) and the time
# it adds per request, 1/rate(https) - 1/rate(http), in microseconds of
# the two cores' time; and load's handshake time (median of the rounds'
# p50, from TCP connect to the finished handshake); per target and client,
# HTTP/2 with STREAMS streams against HTTP/1.1 over TLS (h2load against
# wrk, load --http2 against load). Intervals: build/ratioci
# (4 rounds or more reach 95%). With --out DIR: DIR/tls.tsv (round,
# target, scheme, client, requests_per_s, handshake_p50_us) and DIR/tls.md.
# About 12 x ROUNDS x (DURATION + 1) seconds: 5 minutes with the defaults.
set -euo pipefail
KV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck source=scripts/study/lib.sh
source "$KV_ROOT/scripts/study/lib.sh"

ROUNDS=6 DURATION=3 CONNS=30 WORKERS=2 STREAMS=10 KV="" OUTDIR=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --rounds|--duration|--connections|--workers|--streams|--kvtest|--out)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --rounds) ROUNDS=$2 ;; --duration) DURATION=$2 ;; --connections) CONNS=$2 ;;
                --workers) WORKERS=$2 ;; --streams) STREAMS=$2 ;; --kvtest) KV=$2 ;;
                --out) OUTDIR=$2 ;;
            esac
            shift 2 ;;
        -h|--help) usage 0 ;;
        *) usage_die "unknown argument '$1' (see --help)" ;;
    esac
done
for v in "$ROUNDS" "$DURATION" "$CONNS" "$WORKERS" "$STREAMS"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || usage_die "not a positive whole number: $v"
done
need_tools wrk h2load curl nginx openssl jq
kv_find_ratioci
kv_find_kvtest "$KV"

kv_tls_scratch tls
export CURL_CA_BUNDLE=$CA   # every curl below verifies against the scratch CA
"$KVTEST" shortener init "$WORK/plain.db" --links 1000 --seed 1 >/dev/null
cp "$WORK/plain.db" "$WORK/tls.db"
start_service "$WORK/plain.db" --cache none || die "the service did not start"
SVC_HTTP=$SERVICE_URL SVC_PID=$SERVICE_PID
start_service "$WORK/tls.db" --cache none --tls-cert "$WORK/certs/server.pem" \
    --tls-key "$WORK/certs/server.key" || die "the https service did not start"
SVC_HTTPS=https://127.0.0.1:$SERVICE_PORT SVC_TLS_PID=$SERVICE_PID

kv_nginx_id "$WORK/plain.db" "$SVC_HTTP"
# shellcheck disable=SC2031  # ID: set by kv_nginx_id, in this shell
URLPATH=/link/$ID
[ "$(curl -fsS "$SVC_HTTPS$URLPATH")" = "$BODY" ] || die "the https service's body differs"
CTYPE=$(curl -fsS -o /dev/null -w '%{content_type}' "$SVC_HTTP$URLPATH")
kv_nginx_start "$WORK/nginx" "$URLPATH" "$CTYPE" "$BODY" "$WORK/certs/server.pem" \
    "$WORK/certs/server.key"
say "service on $SVC_HTTP and $SVC_HTTPS, nginx on $NGINX_URL and $NGINX_TLS_URL, path $URLPATH"

url_of() {   # url_of TARGET SCHEME
    case $1/$2 in
        service/http) echo "$SVC_HTTP" ;; service/https|service/h2) echo "$SVC_HTTPS" ;;
        nginx/http) echo "$NGINX_URL" ;; nginx/https|nginx/h2) echo "$NGINX_TLS_URL" ;;
    esac
}

# run_wrk URL SECONDS: "requests/s -"; refused on any error.
run_wrk() {
    local out
    out=$(wrk -t"$WORKERS" -c"$CONNS" -d"$2s" "$1$URLPATH") || die "wrk failed on $1"
    case $out in *Non-2xx*|*"Socket errors"*) die "wrk saw errors on $1: $(echo "$out" | grep -E 'Non-2xx|Socket')" ;; esac
    echo "$out" | awk '/^Requests\/sec:/ { print $2, "-"; f = 1 } END { exit !f }' ||
        die "no Requests/sec in wrk's output for $1"
}
# run_h2load URL SECONDS: "requests/s -"; refused unless every request
# got a 2xx.
run_h2load() {
    local out
    out=$(h2load -t"$WORKERS" -c"$CONNS" -m"$STREAMS" -D"$2" "$1$URLPATH" 2>&1) ||
        die "h2load failed on $1"
    # "requests: N total, N started, D done, S succeeded, F failed, E errored, ..."
    # and "status codes: N 2xx, ...": every request done, a 2xx, no error
    echo "$out" | awk '/^requests:/ { d = $6 + 0; if ($8 + 0 != d || d == 0 || $10 + 0 || $12 + 0) bad = 1 }
                       /^status codes:/ { if ($3 + 0 != d) bad = 1 }
                       END { exit bad }' || die "h2load saw failures on $1: $(echo "$out" | grep -E '^requests:|^status')"
    echo "$out" | awk '/^finished in/ { r = $4; sub(/,$/, "", r); print r, "-"; f = 1 } END { exit !f }' ||
        die "no req/s in h2load's output for $1"
}
# run_load URL SECONDS [ARGS]: "requests/s handshake_p50_us" ("-" over http).
run_load() {
    local out ca=() u=$1 secs=$2
    shift 2
    case $u in https:*) ca=(--cacert "$CA") ;; esac
    out=$("$KVTEST" shortener load "$u" --scenario get --path "$URLPATH" --connections "$CONNS" \
        --workers "$WORKERS" --duration "$secs" "${ca[@]}" "$@" --json) ||
        die "kvtest load failed on $u"
    jq -e -r '.result.requests_failed == 0 and .result.requests > 0' <<<"$out" >/dev/null ||
        die "kvtest load saw failures on $1"
    jq -r '"\(.result.requests_per_s) \(.result.tls.handshake.p50 // "-")"' <<<"$out"
}
measure() {   # measure TARGET SCHEME CLIENT SECONDS
    local u
    u=$(url_of "$1" "$2")
    case $3/$2 in
        wrk/*) run_wrk "$u" "$4" ;;
        h2load/*) run_h2load "$u" "$4" ;;
        load/h2) run_load "$u" "$4" --http2 --streams "$STREAMS" ;;
        *) run_load "$u" "$4" ;;
    esac
}
anchor() { if [ "$1" = h2 ]; then echo h2load; else echo wrk; fi; }   # anchor SCHEME

CELLS=()
for t in service nginx; do
    for s in http https h2; do for c in "$(anchor "$s")" load; do CELLS+=("$t $s $c"); done; done
done
for cell in "${CELLS[@]}"; do   # a 1 s warm-up of each
    read -r t s c <<<"$cell"
    measure "$t" "$s" "$c" 1 >/dev/null
done
RAW=$WORK/tls.tsv TABLE=$WORK/tls.md
: >"$RAW"
for r in $(seq 1 "$ROUNDS"); do
    mapfile -t order < <(kv_abba "$r" "${CELLS[@]}")
    for cell in "${order[@]}"; do
        read -r t s c <<<"$cell"
        read -r rps hs <<<"$(measure "$t" "$s" "$c" "$DURATION")"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$t" "$s" "$c" "$rps" "$hs" >>"$RAW"
        say "round $r: $t $s $c $rps req/s"
    done
done
for p in "$SVC_PID" "$SVC_TLS_PID" "$NGINX_PID"; do
    kill -0 "$p" 2>/dev/null || die "a server (pid $p) exited during the run"
done

ci() {   # ci ARGS < lines: "EST [LO, HI]", marked below 95% coverage
    "$KV_RATIOCI" "$@" | awk '{ if ($5 == 1) printf "%.*f [%.*f, %.*f]", p, $1, p, $2, p, $3
                                else printf "%.*f [%.*f, %.*f] (n<95%%)", p, $1, p, $2, p, $3 }' p="$PREC"
}
col() {   # col TARGET SCHEME CLIENT [FIELD]: one value per round
    awk -F'\t' -v t="$1" -v s="$2" -v c="$3" -v f="${4:-5}" \
        '$2 == t && $3 == s && $4 == c { print $f }' "$RAW"
}
pairs() {   # pairs "T S C" "T S C": the two cells' rates of each round
    awk -F'\t' -v a="$1" -v b="$2" '{ v[$1 "\t" $2 " " $3 " " $4] = $5; r[$1] = 1 }
        END { for (i in r) print v[i "\t" a], v[i "\t" b] }' "$RAW"
}
# us_added T C: per round, 1e6/rate(https) - 1e6/rate(http), the median
# and interval of those differences (ratioci --median reads one column).
us_added() {
    pairs "$1 https $2" "$1 http $2" | awk '{ printf "%.3f\n", 1e6 / $1 - 1e6 / $2 }'
}
{
    echo "| $ROUNDS rounds, ${DURATION} s each, $CONNS connections, $WORKERS threads, GET $URLPATH (h2: $STREAMS streams a connection) | anchor | anchor requests/s | kvtest load requests/s | load / anchor |"
    echo "|:--|:--|--:|--:|--:|"
    for t in service nginx; do
        for s in http https h2; do
            an=$(anchor "$s")
            PREC=0
            w=$(col "$t" "$s" "$an" | ci --median) l=$(col "$t" "$s" load | ci --median)
            PREC=3
            echo "| $t, $s | $an | $w | $l | $(pairs "$t $s load" "$t $s $an" | ci) |"
        done
    done
    echo
    echo "| what TLS costs a kept-alive GET | https / http requests/s | us added per request | load's handshake p50, us |"
    echo "|:--|--:|--:|--:|"
    for t in service nginx; do
        for c in wrk load; do
            PREC=3
            ratio=$(pairs "$t https $c" "$t http $c" | ci)
            PREC=1
            added=$(us_added "$t" "$c" | ci --median)
            hs=-
            [ "$c" = wrk ] || hs=$(col "$t" https load 6 | ci --median)
            echo "| $t, $c | $ratio | $added | $hs |"
        done
    done
    echo
    echo "| HTTP/2, $STREAMS streams a connection, against HTTP/1.1 over TLS | h2 / https requests/s |"
    echo "|:--|--:|"
    PREC=3
    for t in service nginx; do
        echo "| $t, h2load / wrk | $(pairs "$t h2 h2load" "$t https wrk" | ci) |"
        echo "| $t, load --http2 / load | $(pairs "$t h2 load" "$t https load" | ci) |"
    done
} >"$TABLE"
cat "$TABLE"
if [ -n "$OUTDIR" ]; then
    mkdir -p "$OUTDIR"
    { printf 'round\ttarget\tscheme\tclient\trequests_per_s\thandshake_p50_us\n'; cat "$RAW"; } >"$OUTDIR/tls.tsv"
    cp "$TABLE" "$OUTDIR/tls.md"
    say "wrote $OUTDIR/tls.tsv and $OUTDIR/tls.md"
fi

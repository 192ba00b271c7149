#!/usr/bin/env bash
# nginx.sh: the HTTP ceiling of this machine as a reference for the
# service: nginx answering GET /link/<id> with the same JSON body from its
# config (no storage at all) beside "kvtest shortener serve --cache none"
# (one SQLite lookup per request), measured with the same client.
#
#   scripts/study/nginx.sh [--duration 5] [--connections 30] [--wrk-threads 2]
#       [--repeat 6] [--threads N] [--track] [--exclusive] [--kvtest PATH]
#       [--out DIR]
#
# On a scratch database of 1000 links it takes the first id, asks the
# service for GET /link/<id> and writes an nginx configuration (scratch
# directory, started with nginx -p SCRATCH -c nginx.conf, "daemon off", in
# the background, stopped by PID) whose one location returns that body
# byte for byte with the service's Content-Type (application/json):
#   worker_processes auto   one worker per core, nginx's own advice for a
#                           CPU-bound server; the service uses every core
#                           too (its worker threads)
#   keepalive_requests      high: the service never closes a keep-alive
#                           connection after N requests, so neither may
#                           the reference (nginx's default is 1000)
#   access_log off          the service keeps no access log either
# Both listen on free loopback ports. Then REPEAT rounds, the order
# alternating (ABBA): "wrk -tWRK_THREADS -cCONNECTIONS -dDURATIONs URL"
# on the same path against each (a 1 s warm-up of each first). A run with
# a non-2xx answer or a socket error is refused. Prints the requests/s
# median of each with its 95% interval and the median of the per-round
# ratios service/nginx with its 95% interval (build/ratioci: paired
# bootstrap; 4 rounds or more reach 95%). --threads N passes --threads to
# the service (default: the service's own default).
#
# --track splits the gap to nginx in two: a third server, the service with
# --cache valkey+track:// (a private valkey-server), answers the same GET
# from its process memory after the warm-up, with the same HTTP code and no
# SQLite transaction. Rounds then run "service track nginx" and "nginx
# track service"; the table adds its rate and the per-round ratios
# track/nginx (the HTTP layer's own distance from nginx) and service/track
# (what the SQLite lookup costs over HTTP), and the line "track: N of M
# GETs from process memory" is printed from its /stats (refused below 99%).
# Needs valkey-server.
#
# --exclusive adds a server: the service with --sqlite-exclusive on its own
# copy of the database (the option refuses any other process the file),
# the same lookup with no file lock and no fstat per GET. Rounds rotate it
# in after the service; the table adds its rate and the per-round ratios
# exclusive/nginx and exclusive/service (the option's gain, same run; the
# two services alternate which goes first).
# With --out DIR, also
# DIR/nginx.tsv (one line per run: round, server, requests/s) and
# DIR/nginx.md (the table). About 2 x REPEAT x DURATION seconds plus
# setup: 70 s with the defaults. Needs nginx (Debian nginx-light).
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION=5 CONNECTIONS=30 WRKT=2 REPEAT=6 THREADS="" KV="" OUTDIR="" TRACK=0 EXCL=0
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --duration|--connections|--wrk-threads|--repeat|--threads|--kvtest|--out)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --duration) DURATION=$2 ;; --connections) CONNECTIONS=$2 ;;
                --wrk-threads) WRKT=$2 ;; --repeat) REPEAT=$2 ;; --threads) THREADS=$2 ;;
                --kvtest) KV=$2 ;; --out) OUTDIR=$2 ;;
            esac
            shift 2 ;;
        --track) TRACK=1; shift ;;
        --exclusive) EXCL=1; shift ;;
        -h|--help) usage 0 ;;
        *) usage_die "unknown argument '$1' (see --help)" ;;
    esac
done
for v in "$DURATION" "$CONNECTIONS" "$WRKT" "$REPEAT" ${THREADS:+"$THREADS"}; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || usage_die "not a positive whole number: $v"
done
need_tools wrk curl nginx
[ "$TRACK" = 0 ] || need_tools valkey-server
kv_find_ratioci
kv_find_kvtest "$KV"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-nginx.XXXXXX")
kv_track_dir "$WORK"
export SERVERS_DIR=$WORK
"$KVTEST" shortener init "$WORK/links.db" --links 1000 --seed 1 >/dev/null
start_service "$WORK/links.db" --cache none ${THREADS:+--threads "$THREADS"} ||
    die "the service did not start"
say "service on $SERVICE_URL (pid $SERVICE_PID)"
SVC_URL=$SERVICE_URL SVC_PID=$SERVICE_PID
TRACK_URL="" TRACK_PID=""
if [ "$TRACK" = 1 ]; then
    start_valkey "$WORK" || die "valkey-server did not start"
    start_service "$WORK/links.db" --cache "valkey+track://127.0.0.1:$VALKEY_PORT" \
        ${THREADS:+--threads "$THREADS"} || die "the tracking service did not start"
    TRACK_URL=$SERVICE_URL TRACK_PID=$SERVICE_PID
    SERVICE_URL=$SVC_URL SERVICE_PID=$SVC_PID
    say "tracking service on $TRACK_URL (pid $TRACK_PID), valkey on port $VALKEY_PORT"
fi
EXCL_URL=""
if [ "$EXCL" = 1 ]; then
    cp "$WORK/links.db" "$WORK/excl.db"
    start_service "$WORK/excl.db" --cache none --sqlite-exclusive ${THREADS:+--threads "$THREADS"} ||
        die "the service with --sqlite-exclusive did not start"
    EXCL_URL=$SERVICE_URL
    say "service with --sqlite-exclusive on $EXCL_URL (pid $SERVICE_PID)"
    SERVICE_URL=$SVC_URL SERVICE_PID=$SVC_PID
fi

kv_nginx_id "$WORK/links.db" "$SERVICE_URL"
# shellcheck disable=SC2031  # ID: set by kv_nginx_id, in this shell
URLPATH=/link/$ID
CTYPE=$(curl -fsS -o /dev/null -w '%{content_type}' "$SERVICE_URL$URLPATH")

kv_nginx_start "$WORK/nginx" "$URLPATH" "$CTYPE" "$BODY"
[ "$(curl -fsS -o /dev/null -w '%{content_type}' "$NGINX_URL$URLPATH")" = "$CTYPE" ] ||
    die "nginx's Content-Type differs from the service's"
[ "$TRACK" = 0 ] || [ "$(curl -fsS "$TRACK_URL$URLPATH")" = "$BODY" ] ||
    die "the tracking service's body differs from the service's"
[ "$EXCL" = 0 ] || [ "$(curl -fsS "$EXCL_URL$URLPATH")" = "$BODY" ] ||
    die "the --sqlite-exclusive service's body differs from the service's"
say "nginx on $NGINX_URL (pid $NGINX_PID), path $URLPATH"

# wrk_rps URL SECONDS: requests/s of one wrk run; refused on any error.
wrk_rps() {
    local out
    out=$(wrk -t"$WRKT" -c"$CONNECTIONS" -d"$2s" "$1") || die "wrk failed on $1"
    case $out in *Non-2xx*|*"Socket errors"*) die "wrk saw errors on $1: $(echo "$out" | grep -E 'Non-2xx|Socket')" ;; esac
    echo "$out" | awk '/^Requests\/sec:/ { print $2; f = 1 } END { exit !f }' ||
        die "no Requests/sec in wrk's output for $1"
}
wrk_rps "$SERVICE_URL$URLPATH" 1 >/dev/null
wrk_rps "$NGINX_URL$URLPATH" 1 >/dev/null
[ "$TRACK" = 0 ] || wrk_rps "$TRACK_URL$URLPATH" 1 >/dev/null
[ "$EXCL" = 0 ] || wrk_rps "$EXCL_URL$URLPATH" 1 >/dev/null
# stat_local: "LOCAL REQUESTS" from the tracking service's /stats.
stat_local() {
    curl -fsS --max-time 5 "$TRACK_URL/stats" | jq -r '"\(.cache.local_hits) \(.requests)"' ||
        die "no /stats from the tracking service"
}
if [ "$TRACK" = 1 ]; then s=$(stat_local); read -r LOCAL0 REQ0 <<<"$s"; fi

RAW=$WORK/raw.tsv TABLE=$WORK/table.md
: >"$RAW"
for r in $(seq 1 "$REPEAT"); do
    if [ $((r % 2)) -eq 1 ]; then order="service nginx"; else order="nginx service"; fi
    [ "$TRACK" = 0 ] || order=${order/ / track }
    # (the service and the exclusive one alternate too: ABBA)
    if [ "$EXCL" = 1 ] && [ $((r % 2)) -eq 1 ]; then order=${order/service/service exclusive}
    elif [ "$EXCL" = 1 ]; then order=${order/service/exclusive service}; fi
    for srv in $order; do
        case $srv in
            service) url=$SERVICE_URL ;; track) url=$TRACK_URL ;; exclusive) url=$EXCL_URL ;;
            *) url=$NGINX_URL ;;
        esac
        v=$(wrk_rps "$url$URLPATH" "$DURATION")
        printf '%s\t%s\t%s\n' "$r" "$srv" "$v" >>"$RAW"
        say "round $r: $srv $v req/s"
    done
done
kill -0 "$NGINX_PID" 2>/dev/null || die "nginx exited during the run"
kill -0 "$SERVICE_PID" 2>/dev/null || die "the service exited during the run"
if [ "$TRACK" = 1 ]; then
    # The measured GETs (and the /stats request itself) of the tracking
    # service: how many came from its process memory.
    s=$(stat_local)
    read -r LOCAL1 REQ1 <<<"$s"
    nl=$((LOCAL1 - LOCAL0)) nr=$((REQ1 - REQ0 - 1))
    say "track: $nl of $nr GETs from process memory"
    awk -v l="$nl" -v n="$nr" 'BEGIN { exit !(n > 0 && l >= 0.99 * n) }' ||
        die "the tracking service answered only $nl of $nr GETs from process memory"
fi

# ci ARGS < lines: "EST [LO, HI]" from build/ratioci, marked when the
# interval cannot reach 95% (fewer than 4 rounds).
ci() {
    "$KV_RATIOCI" "$@" | awk '{ if ($5 == 1) printf "%.*f [%.*f, %.*f]", p, $1, p, $2, p, $3
                                else printf "%.*f [%.*f, %.*f] (n<95%%)", p, $1, p, $2, p, $3 }' p="$PREC"
}
# pairs A B: "rateA rateB" of each round.
pairs() {
    awk -F'\t' -v a="$1" -v b="$2" '{ v[$1 "\t" $2] = $3; r[$1] = 1 }
        END { for (i in r) print v[i "\t" a], v[i "\t" b] }' "$RAW"
}
{
    echo "| wrk -t$WRKT -c$CONNECTIONS -d${DURATION}s GET $URLPATH, $REPEAT rounds | requests/s, median [95% CI] |"
    echo "|:--|--:|"
    PREC=0
    echo "| kvtest shortener serve --cache none${THREADS:+ --threads $THREADS} | $(awk -F'\t' '$2 == "service" { print $3 }' "$RAW" | ci --median) |"
    [ "$TRACK" = 0 ] || echo "| kvtest shortener serve --cache valkey+track${THREADS:+ --threads $THREADS}, from process memory | $(awk -F'\t' '$2 == "track" { print $3 }' "$RAW" | ci --median) |"
    [ "$EXCL" = 0 ] || echo "| kvtest shortener serve --cache none --sqlite-exclusive${THREADS:+ --threads $THREADS} | $(awk -F'\t' '$2 == "exclusive" { print $3 }' "$RAW" | ci --median) |"
    echo "| nginx, fixed body (worker_processes auto, $(nproc) cores) | $(awk -F'\t' '$2 == "nginx" { print $3 }' "$RAW" | ci --median) |"
    PREC=3
    echo "| service / nginx (per-round ratios) | $(pairs service nginx | ci) |"
    if [ "$TRACK" = 1 ]; then
        echo "| track / nginx (per-round ratios) | $(pairs track nginx | ci) |"
        echo "| service / track (per-round ratios) | $(pairs service track | ci) |"
    fi
    if [ "$EXCL" = 1 ]; then
        echo "| exclusive / nginx (per-round ratios) | $(pairs exclusive nginx | ci) |"
        echo "| exclusive / service (per-round ratios) | $(pairs exclusive service | ci) |"
    fi
} >"$TABLE"
cat "$TABLE"
if [ -n "$OUTDIR" ]; then
    mkdir -p "$OUTDIR"
    { printf 'round\tserver\trequests_per_s\n'; cat "$RAW"; } >"$OUTDIR/nginx.tsv"
    cp "$TABLE" "$OUTDIR/nginx.md"
    say "wrote $OUTDIR/nginx.tsv and $OUTDIR/nginx.md"
fi

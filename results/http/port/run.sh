#!/usr/bin/env bash
# run.sh: the libh2o port (issue 22 item 1) side by side with the
# libmicrohttpd build and nginx, in one run.
#
#   results/http/port/run.sh MHD_KVTEST H2O_KVTEST [--rounds 6] [--duration 5]
#
# One 100,000-link database (seed 1), one copy per service; both services
# "shortener serve --cache none" (default threads), nginx returning the
# same body from its config (as scripts/study/nginx.sh writes it). All
# three run the whole time on free loopback ports. ROUNDS rounds of
# "wrk -t2 -c30 -dDs GET /link/<first id>", the order alternating
# (mhd h2o nginx, then nginx h2o mhd). Per run: requests/s and the
# server's CPU (user+sys over the run, children included) per request.
# Prints the raw lines, medians and per-round ratios (build/ratioci).
set -euo pipefail
KV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck source=scripts/study/lib.sh
source "$KV_ROOT/scripts/study/lib.sh"
[ $# -ge 2 ] || usage_die "usage: run.sh MHD_KVTEST H2O_KVTEST [options]"
MHD=$(realpath "$1") H2O=$(realpath "$2")
shift 2
ROUNDS=6 DURATION=5
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage_die "$1 needs a value"
    case $1 in
        --rounds) ROUNDS=$2 ;; --duration) DURATION=$2 ;;
        *) usage_die "unknown argument '$1'" ;;
    esac
    shift 2
done
need_tools wrk curl nginx
kv_find_ratioci
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-port.XXXXXX")
kv_track_dir "$WORK"
export SERVERS_DIR=$WORK
"$H2O" shortener init "$WORK/a.db" --links 100000 --seed 1 >/dev/null
cp "$WORK/a.db" "$WORK/b.db"
KVTEST=$MHD start_service "$WORK/a.db" --cache none || die "mhd did not start"
M_URL=$SERVICE_URL M_PID=$SERVICE_PID
KVTEST=$H2O start_service "$WORK/b.db" --cache none || die "h2o did not start"
H_URL=$SERVICE_URL H_PID=$SERVICE_PID
ID=""
while read -r id; do
    b=$(curl -fsS "$M_URL/link/$id")
    case $b in *'$'*|*"'"*) continue ;; esac
    ID=$id BODY=$b
    break
done < <("$H2O" shortener keys "$WORK/a.db" | head -n 20)
[ -n "$ID" ] || die "no usable id"
URLPATH=/link/$ID
[ "$(curl -fsS "$H_URL$URLPATH")" = "$BODY" ] || die "h2o's body differs from mhd's"
NGX=$WORK/nginx
mkdir -p "$NGX/logs" "$NGX/tmp"
NPORT=$(free_port)
cat >"$NGX/nginx.conf" <<NGINX
daemon off;
worker_processes auto;
pid $NGX/nginx.pid;
error_log $NGX/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 100000000;
    keepalive_timeout 60s;
    client_body_temp_path $NGX/tmp/body;
    proxy_temp_path $NGX/tmp/proxy;
    fastcgi_temp_path $NGX/tmp/fastcgi;
    uwsgi_temp_path $NGX/tmp/uwsgi;
    scgi_temp_path $NGX/tmp/scgi;
    server {
        listen 127.0.0.1:$NPORT;
        location = $URLPATH {
            default_type application/json;
            return 200 '$BODY';
        }
    }
}
NGINX
nginx -p "$NGX" -c "$NGX/nginx.conf" >>"$NGX/logs/error.log" 2>&1 3>&- &
N_PID=$!
kv_track_pid "$N_PID"
N_URL=http://127.0.0.1:$NPORT
wait_http "$N_URL$URLPATH" "$N_PID" || die "nginx did not start"
[ "$(curl -fsS "$N_URL$URLPATH")" = "$BODY" ] || die "nginx's body differs"
say "mhd $M_URL ($M_PID), h2o $H_URL ($H_PID), nginx $N_URL ($N_PID), path $URLPATH"

TCK=$(getconf CLK_TCK)
cpu() {
    local p t=0
    for p in "$1" $(pgrep -P "$1" || true); do
        t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat")))
    done
    echo "$t"
}
# rps URL SECONDS PID: "requests/s cpu_us_per_request"
rps() {
    local out c0 c1
    c0=$(cpu "$3")
    out=$(wrk -t2 -c30 -d"$2s" "$1") || die "wrk failed on $1"
    c1=$(cpu "$3")
    case $out in *Non-2xx*|*"Socket errors"*) die "wrk saw errors on $1" ;; esac
    echo "$out" | awk -v c=$((c1 - c0)) -v t="$TCK" '/requests in/ { n = $1 }
        /^Requests\/sec:/ { r = $2 } END { print r, 1e6 * c / t / n }'
}
for v in "$M_URL $M_PID" "$H_URL $H_PID" "$N_URL $N_PID"; do
    set -- $v
    rps "$1$URLPATH" 1 "$2" >/dev/null
done
RAW=$WORK/raw
: >"$RAW"
for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then order="mhd h2o nginx"; else order="nginx h2o mhd"; fi
    for v in $order; do
        case $v in
            mhd) u=$M_URL pid=$M_PID ;; h2o) u=$H_URL pid=$H_PID ;; *) u=$N_URL pid=$N_PID ;;
        esac
        x=$(rps "$u$URLPATH" "$DURATION" "$pid")
        printf '%s\t%s\t%s\n' "$r" "$v" "${x// /$'\t'}" >>"$RAW"
        say "round $r $v: $x (load $(cut -d' ' -f1 /proc/loadavg))"
    done
done
echo "raw (round server requests/s cpu_us_per_request):"
cat "$RAW"
for v in mhd h2o nginx; do
    printf '%s median rps: %s\n' "$v" "$(awk -F'\t' -v v="$v" '$2 == v { print $3 }' "$RAW" | "$KV_RATIOCI" --median)"
    printf '%s median cpu us/req: %s\n' "$v" "$(awk -F'\t' -v v="$v" '$2 == v { print $4 }' "$RAW" | "$KV_RATIOCI" --median)"
done
pair() {   # pair NEW OLD COLUMN
    awk -F'\t' -v a="$1" -v b="$2" -v c="$3" '{ x[$1 "," $2] = $c; r[$1] = 1 }
        END { for (i in r) print x[i "," a], x[i "," b] }' "$RAW" | "$KV_RATIOCI"
}
echo "h2o/nginx rps: $(pair h2o nginx 3)"
echo "mhd/nginx rps: $(pair mhd nginx 3)"
echo "h2o/mhd rps: $(pair h2o mhd 3)"
echo "h2o/mhd cpu per req: $(pair h2o mhd 4)"

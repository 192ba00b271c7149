#!/usr/bin/env bash
# port.sh: the libh2o port (issue 22 item 1) side by side with the
# libmicrohttpd build and nginx, in one run.
#
#   scripts/study/http/port.sh MHD_KVTEST H2O_KVTEST [--rounds 6] [--duration 5]
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
# shellcheck source=scripts/study/http/wrk-cpu.sh
source "$KV_ROOT/scripts/study/http/wrk-cpu.sh"
[ $# -ge 2 ] || usage_die "usage: port.sh MHD_KVTEST H2O_KVTEST [options]"
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
kv_nginx_start "$WORK/nginx" "$URLPATH" application/json "$BODY"
N_URL=$NGINX_URL N_PID=$NGINX_PID
say "mhd $M_URL ($M_PID), h2o $H_URL ($H_PID), nginx $N_URL ($N_PID), path $URLPATH"

for v in "$M_URL $M_PID" "$H_URL $H_PID" "$N_URL $N_PID"; do
    # shellcheck disable=SC2086 # "URL PID": two words on purpose
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

#!/usr/bin/env bash
# h2o.sh: could moving the service's HTTP glue to libh2o raise its ceiling?
# Debian's h2o server (2.2.5, the version of libh2o-evloop-dev in Debian 12)
# serving the service's GET /link/<id> body as a static file, beside nginx
# returning it from its config (as scripts/study/nginx.sh does), same wrk,
# ABBA rounds, and the service itself (KVTEST shortener serve --cache
# none) in the same rotation; requests/s and CPU per request (user+sys of
# the server's processes over the run / requests). H2O_EXTRA=PATH adds a
# fourth server, "extra": PATH shortener serve --cache none (e.g. the
# static-body bound of dropped/static-body-bound.patch). A one-off measurement for NOTES.md ("second round"), not
# part of make bench; needs h2o and nginx (apt-get install h2o nginx-light).
#
#   scripts/study/http/h2o.sh KVTEST [--rounds 8] [--duration 3] [--threads 2]
#
# Both servers get their own config in a scratch directory, listen on free
# loopback ports and are stopped by PID. h2o: num-threads THREADS (default
# 2, the cores), access log off; the body file has a .json name mapped to
# the path, so its Content-Type is application/json (h2o adds ETag and
# Last-Modified, a few bytes more than nginx's answer).
set -euo pipefail
KV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck source=scripts/study/lib.sh
source "$KV_ROOT/scripts/study/lib.sh"
# shellcheck source=scripts/study/http/wrk-cpu.sh
source "$KV_ROOT/scripts/study/http/wrk-cpu.sh"

[ $# -ge 1 ] || usage_die "usage: h2o.sh KVTEST [options]"
kv_find_kvtest "$1"
shift
ROUNDS=8 DURATION=3 THREADS=2
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage_die "$1 needs a value"
    case $1 in
        --rounds) ROUNDS=$2 ;; --duration) DURATION=$2 ;; --threads) THREADS=$2 ;;
        *) usage_die "unknown argument '$1'" ;;
    esac
    shift 2
done
need_tools wrk curl nginx h2o
kv_find_ratioci
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-h2o.XXXXXX")
kv_track_dir "$WORK"
export SERVERS_DIR=$WORK
"$KVTEST" shortener init "$WORK/links.db" --links 1000 --seed 1 >/dev/null
ID=$("$KVTEST" shortener keys "$WORK/links.db" | sed -n 1p)
start_service "$WORK/links.db" --cache none || die "the service did not start"
BODY=$(curl -fsS "$SERVICE_URL/link/$ID")
S_URL=$SERVICE_URL S_PID=$SERVICE_PID
SERVERS="h2o nginx service"
if [ -n "${H2O_EXTRA:-}" ]; then
    { KVTEST=$(realpath "$H2O_EXTRA") start_service "$WORK/links.db" --cache none; } ||
        die "H2O_EXTRA did not start"
    [ "$(curl -fsS "$SERVICE_URL/link/$ID")" = "$BODY" ] || die "H2O_EXTRA: body differs"
    X_URL=$SERVICE_URL X_PID=$SERVICE_PID
    SERVERS="$SERVERS extra"
fi
case $BODY in *'$'*|*"'"*) die "body not usable verbatim in nginx's config" ;; esac
URLPATH=/link/$ID

kv_nginx_start "$WORK/nginx" "$URLPATH" application/json "$BODY"
NPORT=$NGINX_PORT NPID=$NGINX_PID

H=$WORK/h2o
mkdir -p "$H"
printf '%s' "$BODY" >"$H/body.json"
HPORT=$(free_port)
cat >"$H/h2o.conf" <<EOF
listen:
  host: 127.0.0.1
  port: $HPORT
num-threads: $THREADS
user: $(id -un)
pid-file: $H/h2o.pid
error-log: $H/error.log
hosts:
  default:
    paths:
      $URLPATH:
        file.file: $H/body.json
EOF
h2o -c "$H/h2o.conf" >"$H/out.log" 2>&1 3>&- &
HPID=$!
kv_track_pid "$HPID"
wait_http "http://127.0.0.1:$HPORT$URLPATH" "$HPID" || die "h2o did not start: $(tail -n 3 "$H/out.log")"
for u in "http://127.0.0.1:$NPORT$URLPATH" "http://127.0.0.1:$HPORT$URLPATH"; do
    [ "$(curl -fsS "$u")" = "$BODY" ] || die "$u: body differs"
    [ "$(curl -fsS -o /dev/null -w '%{content_type}' "$u")" = application/json ] ||
        die "$u: Content-Type is not application/json"
done
say "nginx pid $NPID port $NPORT, h2o pid $HPID port $HPORT, path $URLPATH"

rps "http://127.0.0.1:$NPORT$URLPATH" 1 "$NPID" >/dev/null
rps "http://127.0.0.1:$HPORT$URLPATH" 1 "$HPID" >/dev/null
rps "$S_URL$URLPATH" 1 "$S_PID" >/dev/null
[ -z "${X_URL:-}" ] || rps "$X_URL$URLPATH" 1 "$X_PID" >/dev/null
RAW=$WORK/raw
: >"$RAW"
for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then order=$SERVERS; else order=$(echo "$SERVERS" | tr ' ' '\n' | tac | tr '\n' ' '); fi
    for v in $order; do
        case $v in
            h2o) u=http://127.0.0.1:$HPORT pid=$HPID ;;
            nginx) u=http://127.0.0.1:$NPORT pid=$NPID ;;
            service) u=$S_URL pid=$S_PID ;;
            *) u=$X_URL pid=$X_PID ;;
        esac
        x=$(rps "$u$URLPATH" "$DURATION" "$pid")
        printf '%s\t%s\t%s\n' "$r" "$v" "${x// /$'\t'}" >>"$RAW"
        say "round $r $v: $x"
    done
done
echo "raw (round server requests/s cpu_us_per_request):"
cat "$RAW"
for v in $SERVERS; do
    printf '%s median rps: %s\n' "$v" "$(awk -F'\t' -v v="$v" '$2 == v { print $3 }' "$RAW" | "$KV_RATIOCI" --median)"
    printf '%s median cpu us/req: %s\n' "$v" "$(awk -F'\t' -v v="$v" '$2 == v { print $4 }' "$RAW" | "$KV_RATIOCI" --median)"
done
for v in $SERVERS; do
    [ "$v" != nginx ] || continue
    for c in 3 4; do
        printf '%s/nginx %s: %s\n' "$v" "$([ $c = 3 ] && echo rps || echo 'cpu per req')" \
            "$(awk -F'\t' -v c=$c -v v="$v" '{ x[$1 "," $2] = $c; r[$1] = 1 }
                END { for (i in r) print x[i "," v], x[i ",nginx"] }' "$RAW" | "$KV_RATIOCI")"
    done
done

# shellcheck shell=bash
# servers.bash: start and stop private servers: the one copy of these
# helpers, used by the integration tests (loaded by common.bash in a .bats
# file) and by the experiment scripts (scripts/study/lib.sh sources this file).
#
# Everything binds 127.0.0.1 on a free port and is stopped by PID, never by
# name. Functions (all return non-zero and print a reason on failure):
#
#   free_port                 print a TCP port nobody listens on, 20000-29999:
#                             below the kernel's ephemeral range, and below
#                             30000-32767, where Valkey Cluster nodes
#                             (20000-22767) have their bus ports (port +
#                             10000): suites run side by side, and a server
#                             of one suite must not take another's bus port
#   wait_for_port PORT [S]    wait up to S seconds (default 30) until
#                             127.0.0.1:PORT accepts connections
#   wait_http URL PID         wait (up to 30 s) until URL answers 200, or
#                             until process PID exits (then return 1)
#   stop_pid PID [SIG [S]]    send SIG (default TERM), wait up to S seconds
#                             (default 5), then SIGKILL; exit status of our
#                             child in STOP_STATUS; PID leaves SERVERS_PIDS
#   wait_gone PID S           wait up to S seconds until PID has ended (or
#                             is a zombie not yet waited for: kill -0 says
#                             so only once it is reaped); 1 if it still runs
#   start_valkey [DIR [LOG]]  start valkey-server without persistence (up to
#                             3 ports tried); sets VALKEY_PORT, VALKEY_PID,
#                             VALKEY_URL (valkey://127.0.0.1:PORT); log in
#                             LOG (default DIR/valkey.log)
#   stop_valkey               stop VALKEY_PID (SIGKILL after 5 s)
#   restart_valkey            start a fresh valkey on the same VALKEY_PORT
#   start_service DB [ARGS]   run "$KVTEST shortener serve DB --port P ARGS";
#                             sets SERVICE_PORT, SERVICE_PID, SERVICE_URL
#                             (http://127.0.0.1:P), SERVICE_OUT/SERVICE_ERR
#                             (files with its stdout/stderr). A command in
#                             the array SERVICE_WRAP, if set, runs it (e.g.
#                             SERVICE_WRAP=(taskset -c 0))
#   stop_service [SIG]        send SIG (default TERM) to SERVICE_PID, wait for
#                             it (SIGKILL after 10 s); exit status in
#                             SERVICE_STATUS
#   start_py_server SCRIPT [ARGS]  a stand-in server of tests/lib
#                             (stall_server.py, delay_server.py: python3
#                             SCRIPT PORT ARGS) on a free port; sets PY_PORT,
#                             PY_PID, PY_URL (http://127.0.0.1:PORT), PY_OUT
#                             (its stdout and stderr)
#   stop_py_server            SIGTERM to PY_PID and wait (SIGKILL after 5 s)
#   start_silent_listener [PORT]  a socket on PORT (default a free one) that
#                             accepts connections and never answers (a hung
#                             server; or a program holding a port); sets
#                             SILENT_PORT, SILENT_PID
#   stop_all_servers          stop_service, stop_valkey, stop_py_server and
#                             the silent listener, whichever run; call it
#                             from teardown
#   start_fixedcap DIR W D_US [S]  build/fixedcap (FIXEDCAP: its path), an
#                             HTTP server of known capacity W / D_US for S
#                             seconds (default 120), its URL in DIR/fc.url;
#                             sets FC_URL, FC_PID
#
# Every PID started here is also listed in SERVERS_PIDS, so a caller's exit
# trap can stop whatever is still running (scripts/study/lib.sh does).
# Scratch files go to SERVERS_DIR (default: $BATS_TEST_TMPDIR, else a
# mktemp -d made on first use). Requires: KVTEST (absolute path) for
# start_service, valkey-server, bash /dev/tcp, curl for wait_http.

SERVERS_PIDS=("${SERVERS_PIDS[@]}")

# The scratch directory, decided on first use (sourcing creates nothing).
_servers_dir() {
    if [ -z "${SERVERS_DIR:-}" ]; then
        SERVERS_DIR=${BATS_TEST_TMPDIR:-$(mktemp -d "${TMPDIR:-/tmp}/kvtest-servers.XXXXXX")}
    fi
}

free_port() {
    local p i
    for i in $(seq 1 200); do
        # Below ip_local_port_range (32768+): there a port can be taken by
        # the local end of some outgoing connection, which bind() refuses
        # although nothing listens. A refused connect means nothing listens.
        p=$((20000 + RANDOM % 10000))
        if ! (exec 9<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return 0
        fi
        : "$i"
    done
    echo "free_port: no free port found" >&2
    return 1
}

wait_for_port() {
    local port=$1 secs=${2:-30} i
    for i in $(seq 1 $((secs * 20))); do
        if (exec 9<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            return 0
        fi
        : "$i"
        sleep 0.05
    done
    echo "wait_for_port: nothing listens on 127.0.0.1:$port after ${secs}s" >&2
    return 1
}

wait_http() {
    local url=$1 pid=$2 i
    for i in $(seq 1 300); do   # 30 s: a loaded machine starts slowly
        curl -fsS -o /dev/null --max-time 1 "$url" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        : "$i"
        sleep 0.1
    done
    echo "wait_http: no 200 from $url after 30 s" >&2
    return 1
}

_servers_track() { SERVERS_PIDS+=("$1"); }
_servers_forget() {
    local rest=() p
    for p in "${SERVERS_PIDS[@]}"; do
        [ "$p" = "$1" ] || rest+=("$p")
    done
    SERVERS_PIDS=("${rest[@]}")
}

wait_gone() {
    local pid=$1 secs=$2 i
    for i in $(seq 1 $((secs * 20))); do
        kill -0 "$pid" 2>/dev/null || return 0
        : "$i"
        sleep 0.05
    done
    ! kill -0 "$pid" 2>/dev/null
}

stop_pid() {
    local pid=$1 sig=${2:-TERM} secs=${3:-5}
    STOP_STATUS=
    _servers_forget "$pid"
    kill -"$sig" "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    if ! wait_gone "$pid" "$secs"; then
        echo "stop_pid: process $pid did not stop on SIG$sig; sending SIGKILL" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    # "|| ..." keeps errexit (bats, set -e scripts) from aborting on the
    # child's status.
    STOP_STATUS=0
    wait "$pid" 2>/dev/null || STOP_STATUS=$?
    return 0
}
# The former private name, kept for callers that still use it.
_stop_pid() { stop_pid "$@"; _STOP_STATUS=$STOP_STATUS; }

# VALKEY_ARGS (an array, may be unset): more valkey-server options, such
# as (--requirepass PW); valkey-cli then needs REDISCLI_AUTH=PW exported.
_start_valkey_on() {
    local port=$1 log=$2 dir
    dir=$(dirname "$log")
    valkey-server --save '' --appendonly no --port "$port" --bind 127.0.0.1 \
        --dir "$dir" --daemonize no ${VALKEY_ARGS[@]+"${VALKEY_ARGS[@]}"} >>"$log" 2>&1 3>&- &
    VALKEY_PID=$!
    _servers_track "$VALKEY_PID"
    VALKEY_PORT=$port
    VALKEY_URL="valkey://127.0.0.1:$port"
    export VALKEY_PID VALKEY_PORT VALKEY_URL
    # Ours, not another suite's that took the port between free_port and
    # the bind (ours then exits): the server answering says its PID.
    if wait_for_port "$port" 30 2>/dev/null; then
        local i
        for i in $(seq 1 300); do
            kill -0 "$VALKEY_PID" 2>/dev/null || break
            [ "$(valkey-cli -p "$port" INFO server 2>/dev/null | tr -d '\r' |
                 sed -n 's/^process_id://p')" != "$VALKEY_PID" ] || return 0
            : "$i"
            sleep 0.1
        done
    fi
    stop_pid "$VALKEY_PID"
    VALKEY_PID=
    return 1
}

start_valkey() {
    local dir=${1:-} log=${2:-} port attempt
    command -v valkey-server >/dev/null || { echo "start_valkey: valkey-server not installed" >&2; return 1; }
    [ -n "$dir" ] || { _servers_dir; dir=$SERVERS_DIR; }
    log=${log:-$dir/valkey.log}
    # Another process can take the port between free_port and bind.
    for attempt in 1 2 3; do
        port=$(free_port) || return 1
        _start_valkey_on "$port" "$log" && return 0
        : "$attempt"
    done
    echo "start_valkey: valkey-server did not start; its log ($log):" >&2
    tail -n 5 "$log" >&2
    return 1
}

stop_valkey() {
    [ -n "${VALKEY_PID:-}" ] || return 0
    stop_pid "$VALKEY_PID" TERM 5
    VALKEY_PID=
}

restart_valkey() {
    local dir=${1:-}
    [ -n "$dir" ] || { _servers_dir; dir=$SERVERS_DIR; }
    stop_valkey
    _start_valkey_on "$VALKEY_PORT" "$dir/valkey.log" || {
        echo "start_valkey: valkey-server did not restart on port $VALKEY_PORT" >&2
        cat "$dir/valkey.log" >&2
        return 1
    }
}

# The port answers once one process listens, before a parent of
# --processes N has forked the rest and before the start lines are out;
# those lines come once every process is ready. Up to 60 s, no new
# connections (a test may count them).
_service_started() {
    local i
    for i in $(seq 1 1200); do
        grep -q '^kvtest shortener serve: limits: ' "$SERVICE_ERR" && return 0
        kill -0 "$SERVICE_PID" 2>/dev/null || return 1
        : "$i"
        sleep 0.05
    done
    return 1
}

start_service() {
    local db=$1 try i
    shift
    _servers_dir
    # Retried on another port if the server dies at once: a free port can
    # still be taken between free_port and bind.
    for try in 1 2 3; do
        SERVICE_PORT=$(free_port) || return 1
        SERVICE_OUT="$SERVERS_DIR/service.$SERVICE_PORT.out"
        SERVICE_ERR="$SERVERS_DIR/service.$SERVICE_PORT.err"
        "${SERVICE_WRAP[@]}" "$KVTEST" shortener serve "$db" --port "$SERVICE_PORT" "$@" \
            >"$SERVICE_OUT" 2>"$SERVICE_ERR" 3>&- &
        SERVICE_PID=$!
        _servers_track "$SERVICE_PID"
        SERVICE_URL="http://127.0.0.1:$SERVICE_PORT"
        export SERVICE_PORT SERVICE_PID SERVICE_URL SERVICE_OUT SERVICE_ERR
        # Up to 60 s: a sanitizer build on a busy 2-core machine starts slowly.
        for i in $(seq 1 1200); do
            kill -0 "$SERVICE_PID" 2>/dev/null || break
            if (exec 9<>"/dev/tcp/127.0.0.1/$SERVICE_PORT") 2>/dev/null; then
                _service_started && return 0
                break
            fi
            : "$i"
            sleep 0.05
        done
        stop_pid "$SERVICE_PID"
        SERVICE_PID=
        grep -q 'in use' "$SERVICE_ERR" || break
        : "$try"
    done
    echo "start_service: the service did not start:" >&2
    cat "$SERVICE_ERR" >&2
    return 1
}

stop_service() {
    local sig=${1:-TERM}
    SERVICE_STATUS=
    [ -n "${SERVICE_PID:-}" ] || return 0
    stop_pid "$SERVICE_PID" "$sig" 10
    SERVICE_STATUS=$STOP_STATUS
    SERVICE_PID=
    export SERVICE_STATUS
}

start_py_server() {
    local script=$1
    shift
    _servers_dir
    PY_PORT=$(free_port) || return 1
    PY_URL="http://127.0.0.1:$PY_PORT"
    PY_OUT="$SERVERS_DIR/${script%.py}.$PY_PORT.out"
    python3 "$(dirname "${BASH_SOURCE[0]}")/$script" "$PY_PORT" "$@" >"$PY_OUT" 2>&1 3>&- &
    PY_PID=$!
    _servers_track "$PY_PID"
    export PY_PORT PY_PID PY_URL PY_OUT
    wait_for_port "$PY_PORT" 30
}

stop_py_server() {
    [ -n "${PY_PID:-}" ] || return 0
    stop_pid "$PY_PID" TERM
    PY_PID=
}

start_silent_listener() {
    SILENT_PORT=${1:-}
    [ -n "$SILENT_PORT" ] || SILENT_PORT=$(free_port) || return 1
    # python keeps the backlog open and never reads.
    python3 -c 'import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(128)
time.sleep(120)' "$SILENT_PORT" 3>&- &
    SILENT_PID=$!
    _servers_track "$SILENT_PID"
    wait_for_port "$SILENT_PORT" 30
}

stop_all_servers() {
    stop_service TERM
    stop_valkey
    stop_py_server
    [ -z "${SILENT_PID:-}" ] || stop_pid "$SILENT_PID" KILL
    SILENT_PID=
}

start_fixedcap() {
    local dir=$1 i
    "$FIXEDCAP" --workers "$2" --service-us "$3" --seconds "${4:-120}" >"$dir/fc.url" \
        2>"$dir/fc.err" 3>&- &
    FC_PID=$!
    SERVERS_PIDS+=("$FC_PID")
    # up to 60 s: a loaded machine can take seconds to start it
    for i in $(seq 1 1200); do
        [ -s "$dir/fc.url" ] && break
        kill -0 "$FC_PID" 2>/dev/null || break
        : "$i"
        sleep 0.05
    done
    FC_URL=$(cat "$dir/fc.url")
    [[ "$FC_URL" == http://127.0.0.1:* ]] || { echo "fixedcap printed no URL: $(cat "$dir/fc.err")"; return 1; }
}

# shellcheck shell=bash
# servers.bash: start and stop the private servers of integration tests.
# Source it from a .bats file:   load '../lib/servers'
#
# Everything binds 127.0.0.1 on a free port and is stopped by PID, never by
# name. Functions (all return non-zero and print a reason on failure):
#
#   free_port                 print a TCP port nobody listens on, below the
#                             kernel's ephemeral range (20000-32767)
#   wait_for_port PORT [S]    wait up to S seconds (default 10) until
#                             127.0.0.1:PORT accepts connections
#   start_valkey [DIR]        start valkey-server without persistence;
#                             sets VALKEY_PORT, VALKEY_PID, VALKEY_URL
#                             (valkey://127.0.0.1:PORT); log in DIR/valkey.log
#   stop_valkey               SIGTERM VALKEY_PID, wait (SIGKILL after 5 s)
#   restart_valkey            start a fresh valkey on the same VALKEY_PORT
#   start_service DB [ARGS]   run "$KVTEST shortener serve DB --port P ARGS";
#                             sets SERVICE_PORT, SERVICE_PID, SERVICE_URL
#                             (http://127.0.0.1:P), SERVICE_OUT/SERVICE_ERR
#                             (files with its stdout/stderr)
#   stop_service [SIG]        send SIG (default TERM) to SERVICE_PID, wait for
#                             it (SIGKILL after 10 s); exit status in
#                             SERVICE_STATUS
#   stop_all_servers          stop_service and stop_valkey, whichever run;
#                             call it from teardown
#
# Scratch files go to SERVERS_DIR (default: $BATS_TEST_TMPDIR, else a
# mktemp -d). Requires: KVTEST (absolute path), valkey-server, bash /dev/tcp.

SERVERS_DIR="${SERVERS_DIR:-${BATS_TEST_TMPDIR:-$(mktemp -d)}}"

free_port() {
    local p i
    for i in $(seq 1 200); do
        # Below ip_local_port_range (32768+): there a port can be taken by
        # the local end of some outgoing connection, which bind() refuses
        # although nothing listens. A refused connect means nothing listens.
        p=$((20000 + RANDOM % 12768))
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
    local port=$1 secs=${2:-10} i
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

_start_valkey_on() {
    local port=$1 dir=$2
    valkey-server --save '' --appendonly no --port "$port" --bind 127.0.0.1 \
        --dir "$dir" --daemonize no >>"$dir/valkey.log" 2>&1 3>&- &
    VALKEY_PID=$!
    VALKEY_PORT=$port
    VALKEY_URL="valkey://127.0.0.1:$port"
    export VALKEY_PID VALKEY_PORT VALKEY_URL
    if ! wait_for_port "$port" 10; then
        cat "$dir/valkey.log" >&2
        return 1
    fi
}

start_valkey() {
    local dir=${1:-$SERVERS_DIR} port
    command -v valkey-server >/dev/null || { echo "start_valkey: valkey-server not installed" >&2; return 1; }
    port=$(free_port) || return 1
    _start_valkey_on "$port" "$dir"
}

stop_valkey() {
    [ -n "${VALKEY_PID:-}" ] || return 0
    _stop_pid "$VALKEY_PID" TERM 5 || true
    VALKEY_PID=
}

restart_valkey() {
    local dir=${1:-$SERVERS_DIR}
    stop_valkey
    _start_valkey_on "$VALKEY_PORT" "$dir"
}

# _stop_pid PID SIG SECS: signal, wait up to SECS, then SIGKILL. Prints
# nothing; sets _STOP_STATUS to the exit status when it was our child.
_stop_pid() {
    local pid=$1 sig=$2 secs=$3 i
    _STOP_STATUS=
    kill -"$sig" "$pid" 2>/dev/null || return 0
    for i in $(seq 1 $((secs * 20))); do
        kill -0 "$pid" 2>/dev/null || break
        : "$i"
        sleep 0.05
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null || true
    fi
    # "|| ..." keeps errexit (bats) from aborting on the child's status.
    _STOP_STATUS=0
    wait "$pid" 2>/dev/null || _STOP_STATUS=$?
    return 0
}

start_service() {
    local db=$1 try
    shift
    # Retried on another port if the server dies at once: a free port can
    # still be taken between free_port and bind.
    for try in 1 2 3; do
        SERVICE_PORT=$(free_port) || return 1
        SERVICE_OUT="$SERVERS_DIR/service.$SERVICE_PORT.out"
        SERVICE_ERR="$SERVERS_DIR/service.$SERVICE_PORT.err"
        "$KVTEST" shortener serve "$db" --port "$SERVICE_PORT" "$@" \
            >"$SERVICE_OUT" 2>"$SERVICE_ERR" 3>&- &
        SERVICE_PID=$!
        SERVICE_URL="http://127.0.0.1:$SERVICE_PORT"
        export SERVICE_PORT SERVICE_PID SERVICE_URL SERVICE_OUT SERVICE_ERR
        while kill -0 "$SERVICE_PID" 2>/dev/null; do
            if (exec 9<>"/dev/tcp/127.0.0.1/$SERVICE_PORT") 2>/dev/null; then
                return 0
            fi
            sleep 0.05
        done
        wait "$SERVICE_PID" 2>/dev/null || true
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
    _stop_pid "$SERVICE_PID" "$sig" 10
    SERVICE_STATUS=$_STOP_STATUS
    SERVICE_PID=
    export SERVICE_STATUS
}

stop_all_servers() {
    stop_service TERM
    stop_valkey
}

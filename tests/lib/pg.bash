# shellcheck shell=bash
# pg.bash: private PostgreSQL servers (a primary and streaming replicas) for
# the integration tests (loaded by common.bash) and for the
# experiment scripts (source tests/lib/pg.bash). Sourcing starts nothing.
#
# Each server gets its own scratch directory under PG_DIR (mktemp -d
# /tmp/kvtest-pg.XXXXXX: short, for the unix socket path limit): data/ (the
# data directory), sock/ (its unix socket) and postgres.log. It listens on
# 127.0.0.1 only, on a free port, with the default settings except
# listen_addresses, port, unix_socket_directories (DATA/kvtest.conf,
# included by postgresql.conf) and, on a replica, recovery_min_apply_delay.
# As root, initdb, postgres and pg_basebackup run as the user postgres
# through setpriv, which execs: $! is the postmaster's own PID (checked
# against DATA/postmaster.pid). The servers are disowned (no job notice when
# one is killed; "wait PID" cannot give their status). Everything is stopped
# by PID, never by name.
# Functions (all return non-zero and print one reason on failure):
#
#   pg_bindir                 print the PostgreSQL bin dir: $PG_BINDIR if
#                             set, else the newest /usr/lib/postgresql/*/bin
#                             with initdb and postgres, else pg_config's
#   start_pg                  initdb and start the primary (up to 3 ports
#                             tried), wait (30 s) until it accepts
#                             connections, create the database kvtest and
#                             the role kvtest_auth (LOGIN, password
#                             'secret', CREATE on kvtest's schema public)
#                             whose TCP connections need the password
#                             (scram-sha-256; everything else is trust).
#                             Sets and exports PG_DIR, PG_DATA, PG_PORT,
#                             PG_PID, PG_URL (postgres://postgres@
#                             127.0.0.1:PORT/kvtest). On failure PG_DIR
#                             stays, with the logs, until stop_all_pg
#   pg_sql SQL [DB]           run SQL on the primary as postgres (psql -X -q
#                             -A -t, ON_ERROR_STOP; DB default kvtest) and
#                             print the result
#   pg_new_db NAME            (re)create the empty database NAME ([A-Za-z0-9_]
#                             only) on the primary; print its URL
#   start_pg_replica [DELAY]  pg_basebackup -R -X stream from the primary,
#                             with recovery_min_apply_delay = DELAY if given
#                             (e.g. 2s); start it on a free port and wait
#                             (30 s) until it accepts connections in
#                             recovery. Appends to the arrays
#                             PG_REPLICA_PORTS, PG_REPLICA_PIDS,
#                             PG_REPLICA_URLS (postgres://postgres@
#                             127.0.0.1:PORT/kvtest), PG_REPLICA_DATAS; sets
#                             PG_REPLICA_INDEX to its index (0, 1, ...)
#   pg_wait_replica_caught_up I [S]
#                             wait (S seconds, default 30) until replica I
#                             has replayed the primary's WAL up to
#                             pg_current_wal_lsn() taken at the call (not
#                             meant for a replica with an apply delay)
#   stop_pg_replica I [SIG]   send SIG (default INT: fast shutdown; KILL for
#                             a crash) to replica I, wait for it (SIGKILL
#                             after 10 s) and for its children; keeps its
#                             data dir and port; PG_REPLICA_PIDS[I] empty
#   restart_pg_replica I      start replica I again (same port, data dir),
#                             wait as start_pg_replica; PG_REPLICA_PIDS[I]
#   kill_pg [SIG]             the same for the primary (default INT); PG_PID
#                             empty; data dir and PG_PORT kept
#   restart_pg                start the primary again on PG_PORT (crash
#                             recovery after a SIGKILL), wait (30 s) until it
#                             accepts connections; sets PG_PID
#   stop_all_pg               fast shutdown of every server still running
#                             in PG_DIR, found on disk (bounded, SIGKILL
#                             after 10 s), wait for their
#                             children, remove PG_DIR, unset the variables.
#                             Idempotent: call it from teardown_file or an
#                             EXIT trap
#
# The truth is on disk: a server's PID is read from DATA/postmaster.pid
# (checked to be a live process working in DATA), so the stop and restart
# functions work from another process than the one that started the server
# (bats runs setup_file and each test in different processes) and after a
# restart done elsewhere. Only exported variables reach the tests, and
# arrays cannot be exported: the replica arrays are also exported as
# space-separated strings (_PG_REPLICA_*_S) and rebuilt when this file is
# loaded. Every PID started is also put in SERVERS_PIDS (servers.bash), so
# a caller's exit trap stops it; a script should still call stop_all_pg
# from its trap, which also removes PG_DIR.
# Requires: PostgreSQL (initdb, postgres, pg_basebackup, pg_isready, psql);
# as root, the user postgres and setpriv (util-linux).

if ! declare -F free_port >/dev/null || ! declare -F _servers_track >/dev/null; then
    # shellcheck source=tests/lib/servers.bash
    source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/servers.bash"
fi

# The replica arrays, kept when this file is sourced again, or rebuilt from
# their exported copies in a process that inherited only those (a bats test).
PG_REPLICA_PORTS=("${PG_REPLICA_PORTS[@]}")
PG_REPLICA_PIDS=("${PG_REPLICA_PIDS[@]}")
PG_REPLICA_URLS=("${PG_REPLICA_URLS[@]}")
PG_REPLICA_DATAS=("${PG_REPLICA_DATAS[@]}")
if [ ${#PG_REPLICA_PORTS[@]} -eq 0 ] && [ -n "${_PG_REPLICA_PORTS_S:-}" ]; then
    read -ra PG_REPLICA_PORTS <<<"$_PG_REPLICA_PORTS_S"
    read -ra PG_REPLICA_URLS <<<"${_PG_REPLICA_URLS_S:-}"
    read -ra PG_REPLICA_DATAS <<<"${_PG_REPLICA_DATAS_S:-}"
    # A stopped replica's PID is "-" there (an empty word would be lost).
    read -ra PG_REPLICA_PIDS <<<"${_PG_REPLICA_PIDS_S:-}"
    for _pg_i in "${!PG_REPLICA_PIDS[@]}"; do
        [ "${PG_REPLICA_PIDS[$_pg_i]}" != - ] || PG_REPLICA_PIDS[_pg_i]=
    done
    unset _pg_i
fi

_pg_export_replicas() {
    local pids=() p
    for p in "${PG_REPLICA_PIDS[@]}"; do pids+=("${p:--}"); done
    _PG_REPLICA_PORTS_S=${PG_REPLICA_PORTS[*]}
    _PG_REPLICA_PIDS_S=${pids[*]}
    _PG_REPLICA_URLS_S=${PG_REPLICA_URLS[*]}
    _PG_REPLICA_DATAS_S=${PG_REPLICA_DATAS[*]}
    export _PG_REPLICA_PORTS_S _PG_REPLICA_PIDS_S _PG_REPLICA_URLS_S _PG_REPLICA_DATAS_S
}

pg_bindir() {
    local d
    if [ -n "${PG_BINDIR:-}" ]; then
        if [ -x "$PG_BINDIR/initdb" ] && [ -x "$PG_BINDIR/postgres" ]; then
            echo "$PG_BINDIR"
            return 0
        fi
        echo "pg_bindir: PG_BINDIR=$PG_BINDIR has no initdb and postgres" >&2
        return 1
    fi
    # Newest version first (sort -V: 9.6 before 15).
    while IFS= read -r d; do
        if [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then
            echo "$d"
            return 0
        fi
    done < <(printf '%s\n' /usr/lib/postgresql/*/bin | sort -rV)
    if command -v pg_config >/dev/null 2>&1; then
        d=$(pg_config --bindir 2>/dev/null) || d=
        if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then
            echo "$d"
            return 0
        fi
    fi
    echo "pg_bindir: no PostgreSQL server binaries (initdb, postgres) found" >&2
    return 1
}

# _pg_init: _PG_BIN, _PG_PSQL and _PG_AS (the prefix that
# runs a server program as the user postgres when we are root; it execs).
_pg_init() {
    _PG_BIN=$(pg_bindir) || return 1
    if [ -x "$_PG_BIN/psql" ]; then
        _PG_PSQL=$_PG_BIN/psql
    elif command -v psql >/dev/null 2>&1; then
        _PG_PSQL=$(command -v psql)
    else
        echo "${_PG_FN:-pg.bash}: psql not found" >&2
        return 1
    fi
    _PG_AS=()
    if [ "$(id -u)" -eq 0 ]; then
        id -u postgres >/dev/null 2>&1 || { echo "${_PG_FN:-pg.bash}: running as root, but there is no user postgres to run the server" >&2; return 1; }
        command -v setpriv >/dev/null 2>&1 || { echo "${_PG_FN:-pg.bash}: running as root, setpriv (util-linux) is needed to run the server as postgres" >&2; return 1; }
        _PG_AS=(setpriv --reuid=postgres --regid=postgres --init-groups --reset-env)
    fi
}

# _pg_write FILE: write stdin to FILE, owned by postgres when we are root.
_pg_write() {
    cat >"$1" || { echo "${_PG_FN:-pg.bash}: cannot write $1" >&2; return 1; }
    if [ ${#_PG_AS[@]} -gt 0 ]; then chown postgres:postgres "$1"; fi
}

# _pg_alive PID: the process exists and is not a zombie (our PID 1 may not
# reap orphans).
_pg_alive() {
    local stat
    [ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 1
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}

# _pg_pid DATA [PID]: print the PID of the postmaster running in DATA (from
# DATA/postmaster.pid, else PID), if it is alive and works in DATA.
_pg_pid() {
    local data=$1 hint=${2:-} pid cand
    pid=$(head -n 1 "$data/postmaster.pid" 2>/dev/null) || pid=
    for cand in "$pid" "$hint"; do
        case $cand in '' | *[!0-9]*) continue ;; esac
        if _pg_alive "$cand" && [ "$(readlink "/proc/$cand/cwd" 2>/dev/null)" = "$data" ]; then
            echo "$cand"
            return 0
        fi
    done
    return 1
}

# _pg_procs_in DIR: print the PIDs of live postgres processes working in DIR
# or below (a postmaster's children chdir to its data dir; after a SIGKILL of
# the postmaster they linger until they notice).
_pg_procs_in() {
    local dir=$1 f p
    # One find reads every process's cwd: a readlink each took a fork per
    # process, seconds a call on a busy machine. -lname's * matches '/'.
    while IFS= read -r f; do
        p=${f#/proc/}
        p=${p%/cwd}
        case $(readlink "/proc/$p/exe" 2>/dev/null) in */postgres | */postmaster) ;; *) continue ;; esac
        if _pg_alive "$p"; then echo "$p"; fi
    done < <(find /proc/[0-9]*/cwd -maxdepth 0 \( -lname "$dir" -o -lname "$dir/*" \) 2>/dev/null)
}

# _pg_wait_gone DIR SECS: wait until no process works in DIR.
_pg_wait_gone() {
    local dir=$1 secs=$2 i
    for i in $(seq 1 $((secs * 20))); do
        [ -n "$(_pg_procs_in "$dir")" ] || return 0
        : "$i"
        sleep 0.05
    done
    echo "${_PG_FN:-pg.bash}: postgres processes still work in $dir after ${secs}s: $(_pg_procs_in "$dir" | tr '\n' ' ')" >&2
    return 1
}

# _pg_stop DATA PID SIG: stop the postmaster of DATA by PID, bounded (SIGKILL
# after 10 s), then wait (10 s) until its children are gone too.
_pg_stop() {
    local data=$1 hint=$2 sig=${3:-INT} pid i
    if [ -n "$hint" ]; then _servers_forget "$hint"; fi
    pid=$(_pg_pid "$data" "$hint") || pid=
    if [ -n "$pid" ]; then
        _servers_forget "$pid"
        kill -"$sig" "$pid" 2>/dev/null || true
        for i in $(seq 1 200); do
            _pg_alive "$pid" || break
            : "$i"
            sleep 0.05
        done
        if _pg_alive "$pid"; then
            echo "${_PG_FN:-pg.bash}: postgres $pid ($data) did not stop on SIG$sig; sending SIGKILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
        # Reaps it if it is our child; "|| true" for errexit.
        wait "$pid" 2>/dev/null || true
    fi
    # The same pid as a child of ours that already exited and was not reaped.
    if [ -n "$hint" ] && [ "$hint" != "$pid" ]; then wait "$hint" 2>/dev/null || true; fi
    _pg_wait_gone "$data" 10
}

# _pg_launch DIR: start postgres on DIR/data in the background, log to
# DIR/postgres.log; _PG_LAUNCHED is its PID, _PG_LOG_AT the log's size
# before.
_pg_launch() {
    local dir=$1
    _PG_LOG_AT=$(stat -c %s "$dir/postgres.log" 2>/dev/null) || _PG_LOG_AT=0
    # cd: the server user may not be allowed in our working directory.
    # Stdin from /dev/null, fd 3 (bats) closed, so nobody waits on them.
    (cd "$dir" && exec "${_PG_AS[@]}" "$_PG_BIN/postgres" -D "$dir/data") \
        </dev/null >>"$dir/postgres.log" 2>&1 3>&- &
    _PG_LAUNCHED=$!
    # Not a job of ours: no "Killed" notice when a test kills it (bash still
    # reaps it; wait cannot give its status).
    disown "$_PG_LAUNCHED"
    _servers_track "$_PG_LAUNCHED"
}

# _pg_wait_ready DIR PID PORT SECS [RECOVERY]: wait until the server accepts
# connections (and, with RECOVERY, is in recovery); 2 if it died with its
# port taken, 1 on any other failure.
_pg_wait_ready() {
    local dir=$1 pid=$2 port=$3 secs=$4 recovery=${5:-} i filepid
    for i in $(seq 1 $((secs * 10))); do
        if ! _pg_alive "$pid"; then
            wait "$pid" 2>/dev/null || true
            _servers_forget "$pid"
            # Only this start's lines; grep reads them all (no SIGPIPE).
            if tail -c +$((_PG_LOG_AT + 1)) "$dir/postgres.log" | grep 'Address already in use' >/dev/null; then
                return 2
            fi
            echo "${_PG_FN:-pg.bash}: postgres ($dir) exited at start: $(tail -c +$((_PG_LOG_AT + 1)) "$dir/postgres.log" | grep -E 'FATAL|PANIC' | tail -n 1)" >&2
            return 1
        fi
        # The unix socket is this server's own: a stranger on the TCP port
        # cannot answer for it.
        if "$_PG_BIN/pg_isready" -q -h "$dir/sock" -p "$port" -U postgres -d postgres -t 2 &&
            { [ -z "$recovery" ] ||
                [ "$(_pg_psql_at "$port" postgres 'SELECT pg_is_in_recovery()' 2>/dev/null)" = t ]; }; then
            filepid=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null) || filepid=
            if [ "$filepid" != "$pid" ]; then
                echo "${_PG_FN:-pg.bash}: started PID $pid, but $dir/data/postmaster.pid says ${filepid:-nothing}" >&2
                return 1
            fi
            return 0
        fi
        : "$i"
        sleep 0.1
    done
    echo "${_PG_FN:-pg.bash}: postgres ($dir) not ready${recovery:+ in recovery} after ${secs}s; see $dir/postgres.log" >&2
    return 1
}

# _pg_conf DIR PORT [DELAY]: write DIR/data/kvtest.conf (included by
# postgresql.conf): this server's address, socket and apply delay.
_pg_conf() {
    local dir=$1 port=$2 delay=${3:-}
    {
        echo "# written by tests/lib/pg.bash"
        echo "listen_addresses = '127.0.0.1'"
        echo "port = $port"
        echo "unix_socket_directories = '$dir/sock'"
        if [ -n "$delay" ]; then echo "recovery_min_apply_delay = '$delay'"; fi
    } | _pg_write "$dir/data/kvtest.conf"
}

# _pg_start_new DIR DELAY RECOVERY: start DIR's server on a free port (3
# tried); _PG_LAUNCHED and _PG_STARTED_PORT.
_pg_start_new() {
    local dir=$1 delay=$2 recovery=$3 try port rc
    for try in 1 2 3; do
        port=$(free_port) || return 1
        _pg_conf "$dir" "$port" "$delay" || return 1
        _pg_launch "$dir"
        rc=0
        _pg_wait_ready "$dir" "$_PG_LAUNCHED" "$port" 30 "$recovery" || rc=$?
        if [ "$rc" -eq 0 ]; then
            _PG_STARTED_PORT=$port
            return 0
        fi
        if [ "$rc" -ne 2 ]; then
            _pg_stop "$dir/data" "$_PG_LAUNCHED" KILL 2>/dev/null || true
            return 1
        fi
        : "$try"
    done
    echo "${_PG_FN:-pg.bash}: postgres ($dir) found its port taken 3 times" >&2
    return 1
}

# _pg_psql_at PORT DB SQL: psql as postgres over TCP.
_pg_psql_at() {
    PGCONNECT_TIMEOUT=10 "$_PG_PSQL" -X -q -A -t -v ON_ERROR_STOP=1 \
        -h 127.0.0.1 -p "$1" -U postgres -d "$2" -c "$3"
}

# _pg_need_primary FN: the primary was started (PG_DIR, PG_PORT).
_pg_need_primary() {
    if [ -z "${PG_DIR:-}" ] || [ -z "${PG_PORT:-}" ] || [ ! -d "${PG_DATA:-}" ]; then
        echo "$1: no primary (call start_pg first)" >&2
        return 1
    fi
    if [ -z "${_PG_BIN:-}" ]; then _pg_init || return 1; fi
}

start_pg() {
    local _PG_FN=start_pg
    local dir hba
    if [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR" ]; then
        echo "start_pg: a primary already exists in $PG_DIR (stop_all_pg first)" >&2
        return 1
    fi
    _pg_init || return 1
    PG_DIR=$(mktemp -d /tmp/kvtest-pg.XXXXXX) || { echo "start_pg: mktemp failed" >&2; return 1; }
    PG_DIR=$(cd "$PG_DIR" && pwd -P)
    PG_DATA=$PG_DIR/primary/data
    PG_PORT='' PG_PID='' PG_URL=''
    PG_REPLICA_PORTS=() PG_REPLICA_PIDS=() PG_REPLICA_URLS=() PG_REPLICA_DATAS=()
    PG_REPLICA_INDEX=''
    export PG_DIR PG_DATA PG_PORT PG_PID PG_URL PG_REPLICA_INDEX
    _pg_export_replicas
    dir=$PG_DIR/primary
    mkdir -p "$dir/sock"
    if [ ${#_PG_AS[@]} -gt 0 ]; then chown -R postgres:postgres "$PG_DIR"; fi
    if ! (cd "$dir" && exec "${_PG_AS[@]}" "$_PG_BIN/initdb" -D "$PG_DATA" --auth=trust \
        --no-sync -U postgres --encoding=UTF8 --locale=C) >"$dir/initdb.log" 2>&1 3>&-; then
        echo "start_pg: initdb failed: $(tail -n 1 "$dir/initdb.log")" >&2
        return 1
    fi
    # kvtest_auth must give its password over TCP (tests of a refused
    # authentication); the first matching line wins, so it goes first.
    hba=$(cat "$PG_DATA/pg_hba.conf") || return 1
    printf '%s\n' "# tests/lib/pg.bash: kvtest_auth needs its password" \
        "host all kvtest_auth 127.0.0.1/32 scram-sha-256" "" "$hba" |
        _pg_write "$PG_DATA/pg_hba.conf" || return 1
    printf '\n# tests/lib/pg.bash: address, port, socket\ninclude = '"'kvtest.conf'"'\n' \
        >>"$PG_DATA/postgresql.conf" || return 1
    _pg_start_new "$dir" "" "" || return 1
    PG_PID=$_PG_LAUNCHED
    PG_PORT=$_PG_STARTED_PORT
    PG_URL=postgres://postgres@127.0.0.1:$PG_PORT/kvtest
    export PG_PORT PG_PID PG_URL
    # CREATE DATABASE cannot share a transaction: one statement per -c.
    if ! PGCONNECT_TIMEOUT=10 "$_PG_PSQL" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" \
        -U postgres -d postgres -c 'CREATE DATABASE kvtest' \
        -c "CREATE ROLE kvtest_auth LOGIN PASSWORD 'secret'" >/dev/null; then
        echo "start_pg: cannot create the database kvtest and the role kvtest_auth" >&2
        return 1
    fi
    _pg_psql_at "$PG_PORT" kvtest 'GRANT CREATE ON SCHEMA public TO kvtest_auth' >/dev/null ||
        { echo "start_pg: cannot grant kvtest_auth CREATE on kvtest" >&2; return 1; }
}

pg_sql() {
    local _PG_FN=pg_sql
    _pg_need_primary pg_sql || return 1
    _pg_psql_at "$PG_PORT" "${2:-kvtest}" "$1"
}

pg_new_db() {
    local _PG_FN=pg_new_db
    local name=${1:-}
    _pg_need_primary pg_new_db || return 1
    case $name in
        '' | *[!A-Za-z0-9_]*) echo "pg_new_db: bad database name '$name' (letters, digits, _)" >&2; return 1 ;;
    esac
    # One psql, one statement per -c (neither may run in a transaction
    # block); no NOTICE when there is nothing to drop.
    if ! PGCONNECT_TIMEOUT=10 "$_PG_PSQL" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" \
        -U postgres -d postgres -c 'SET client_min_messages = warning' \
        -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" -c "CREATE DATABASE \"$name\"" >/dev/null; then
        echo "pg_new_db: cannot create the database $name" >&2
        return 1
    fi
    echo "postgres://postgres@127.0.0.1:$PG_PORT/$name"
}

start_pg_replica() {
    local _PG_FN=start_pg_replica
    local delay=${1:-} idx dir
    _pg_need_primary start_pg_replica || return 1
    idx=${#PG_REPLICA_PORTS[@]}
    dir=$PG_DIR/replica$idx
    # A replica started by another process (a bats test) took the name.
    if [ -e "$dir" ]; then
        dir=$(mktemp -d "$PG_DIR/replica$idx.XXXX") || return 1
    fi
    mkdir -p "$dir/sock" || return 1
    if [ ${#_PG_AS[@]} -gt 0 ]; then chown -R postgres:postgres "$dir"; fi
    if ! (cd "$dir" && exec "${_PG_AS[@]}" "$_PG_BIN/pg_basebackup" -D "$dir/data" -R -X stream \
        --checkpoint=fast -h 127.0.0.1 -p "$PG_PORT" -U postgres -w) >"$dir/basebackup.log" 2>&1 3>&-; then
        echo "start_pg_replica: pg_basebackup failed: $(tail -n 1 "$dir/basebackup.log")" >&2
        return 1
    fi
    _pg_start_new "$dir" "$delay" recovery || return 1
    PG_REPLICA_PORTS[idx]=$_PG_STARTED_PORT
    PG_REPLICA_PIDS[idx]=$_PG_LAUNCHED
    PG_REPLICA_URLS[idx]=postgres://postgres@127.0.0.1:$_PG_STARTED_PORT/kvtest
    PG_REPLICA_DATAS[idx]=$dir/data
    PG_REPLICA_INDEX=$idx
    export PG_REPLICA_INDEX
    _pg_export_replicas
}

# _pg_need_replica FN I: replica I exists.
_pg_need_replica() {
    _pg_need_primary "$1" || return 1
    case ${2:-} in
        '' | *[!0-9]*) echo "$1: bad replica index '${2:-}'" >&2; return 1 ;;
    esac
    if [ -z "${PG_REPLICA_DATAS[$2]:-}" ] || [ ! -d "${PG_REPLICA_DATAS[$2]}" ]; then
        echo "$1: no replica $2" >&2
        return 1
    fi
}

pg_wait_replica_caught_up() {
    local _PG_FN=pg_wait_replica_caught_up
    local i=${1:-} secs=${2:-30} lsn n ok
    _pg_need_replica pg_wait_replica_caught_up "$i" || return 1
    lsn=$(_pg_psql_at "$PG_PORT" postgres 'SELECT pg_current_wal_lsn()') ||
        { echo "pg_wait_replica_caught_up: the primary does not answer" >&2; return 1; }
    for n in $(seq 1 $((secs * 20))); do
        ok=$(_pg_psql_at "${PG_REPLICA_PORTS[$i]}" postgres \
            "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn" 2>/dev/null) || ok=
        [ "$ok" != t ] || return 0
        : "$n"
        sleep 0.05
    done
    echo "pg_wait_replica_caught_up: replica $i has not replayed up to $lsn after ${secs}s" >&2
    return 1
}

stop_pg_replica() {
    local _PG_FN=stop_pg_replica
    local i=${1:-} sig=${2:-INT}
    _pg_need_replica stop_pg_replica "$i" || return 1
    _pg_stop "${PG_REPLICA_DATAS[$i]}" "${PG_REPLICA_PIDS[$i]:-}" "$sig" || return 1
    PG_REPLICA_PIDS[i]=
    _pg_export_replicas
}

restart_pg_replica() {
    local _PG_FN=restart_pg_replica
    local i=${1:-} dir rc=0
    _pg_need_replica restart_pg_replica "$i" || return 1
    dir=$(dirname "${PG_REPLICA_DATAS[$i]}")
    if _pg_pid "$dir/data" >/dev/null; then
        echo "restart_pg_replica: replica $i still runs" >&2
        return 1
    fi
    _pg_restart "$dir" "${PG_REPLICA_PORTS[$i]}" recovery || rc=$?
    [ "$rc" -eq 0 ] || { echo "restart_pg_replica: replica $i did not start again" >&2; return 1; }
    PG_REPLICA_PIDS[i]=$_PG_LAUNCHED
    _pg_export_replicas
}

kill_pg() {
    local _PG_FN=kill_pg
    local sig=${1:-INT}
    _pg_need_primary kill_pg || return 1
    _pg_stop "$PG_DATA" "${PG_PID:-}" "$sig" || return 1
    PG_PID=
    export PG_PID
}

# _pg_restart DIR PORT RECOVERY: start DIR's server again on its port. The
# shared memory of a crashed server stays "in use" while a straggling child
# holds it; then try again (bounded).
_pg_restart() {
    local dir=$1 port=$2 recovery=$3 try rc
    _pg_wait_gone "$dir/data" 10 || return 1
    for try in 1 2 3; do
        _pg_launch "$dir"
        rc=0
        _pg_wait_ready "$dir" "$_PG_LAUNCHED" "$port" 30 "$recovery" || rc=$?
        [ "$rc" -ne 0 ] || return 0
        if _pg_alive "$_PG_LAUNCHED"; then
            _pg_stop "$dir/data" "$_PG_LAUNCHED" KILL 2>/dev/null || true
            return 1
        fi
        # Port taken by a stranger, or shared memory still in use: wait.
        : "$try"
        sleep 1
    done
    return 1
}

restart_pg() {
    local _PG_FN=restart_pg
    local rc=0
    _pg_need_primary restart_pg || return 1
    if _pg_pid "$PG_DATA" "${PG_PID:-}" >/dev/null; then
        echo "restart_pg: the primary still runs" >&2
        return 1
    fi
    _pg_restart "$PG_DIR/primary" "$PG_PORT" "" || rc=$?
    [ "$rc" -eq 0 ] || { echo "restart_pg: the primary did not start again on port $PG_PORT" >&2; return 1; }
    PG_PID=$_PG_LAUNCHED
    export PG_PID
}

stop_all_pg() {
    local _PG_FN=stop_all_pg
    local rc=0 data i pid pids=() datas=()
    if [ -z "${PG_DIR:-}" ]; then return 0; fi
    if [ -d "$PG_DIR" ]; then
        # Every data dir on disk, replicas first: some may have been started
        # by another process (bats tests) and be missing from our arrays.
        for data in "$PG_DIR"/replica*/data "$PG_DIR"/primary/data; do
            [ -d "$data" ] || continue
            pid=$(_pg_pid "$data") || pid=
            for i in "${!PG_REPLICA_DATAS[@]}"; do
                if [ "${PG_REPLICA_DATAS[$i]}" = "$data" ] && [ -z "$pid" ]; then
                    pid=$(_pg_pid "$data" "${PG_REPLICA_PIDS[$i]:-}") || pid=
                fi
            done
            if [ "$data" = "${PG_DATA:-}" ] && [ -z "$pid" ]; then
                pid=$(_pg_pid "$data" "${PG_PID:-}") || pid=
            fi
            [ -n "$pid" ] || continue
            kill -INT "$pid" 2>/dev/null || true
            pids+=("$pid")
            datas+=("$data")
        done
        for i in "${!pids[@]}"; do
            _pg_stop "${datas[$i]}" "${pids[$i]}" INT || rc=1
        done
        _pg_wait_gone "$PG_DIR" 10 || rc=1
        rm -rf -- "$PG_DIR" || rc=1
    fi
    for pid in "${PG_PID:-}" "${PG_REPLICA_PIDS[@]}"; do
        if [ -n "$pid" ]; then
            _servers_forget "$pid"
            wait "$pid" 2>/dev/null || true
        fi
    done
    PG_REPLICA_PORTS=() PG_REPLICA_PIDS=() PG_REPLICA_URLS=() PG_REPLICA_DATAS=()
    unset PG_DIR PG_DATA PG_PORT PG_PID PG_URL PG_REPLICA_INDEX \
        _PG_REPLICA_PORTS_S _PG_REPLICA_PIDS_S _PG_REPLICA_URLS_S _PG_REPLICA_DATAS_S
    if [ "$rc" -ne 0 ]; then echo "stop_all_pg: some postgres processes did not stop" >&2; fi
    return "$rc"
}

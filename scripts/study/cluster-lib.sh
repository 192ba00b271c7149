# shellcheck shell=bash
# cluster-lib.sh: start and stop a private Valkey Cluster on loopback: the
# one copy of these helpers, sourced by the cluster study
# (scripts/study/cluster.sh) and by the integration tests
# (tests/lib/cluster.bash). Sourced, never run.
#
# Needs the functions of tests/lib/servers.bash (free_port is not used:
# a cluster node also binds PORT+10000 for its bus; wait_for_port, stop_pid,
# _servers_track), which both callers have loaded already. Every node binds
# 127.0.0.1, keeps no data on disk, is stopped by PID, and every wait has a
# deadline. Functions (non-zero and a reason on stderr on failure):
#
#   start_cluster DIR [PRIMARIES [REPLICAS]]
#                       PRIMARIES primaries (default 3) with REPLICAS
#                       replicas each (default 1), cluster-node-timeout
#                       1000 ms (a failover in ~2 s) and
#                       cluster-require-full-coverage no (while a primary
#                       is down, the others go on serving their slots, as
#                       a deployment that cares for availability runs it);
#                       waits (30 s at most)
#                       for cluster_state:ok and every replica in sync.
#                       Sets CLUSTER_PORTS (array), CLUSTER_PIDS (array,
#                       same order), CLUSTER_URL (valkey-cluster://...:P1).
#                       Logs in DIR/valkey-PORT.log
#   cluster_primaries   print the ports of the primaries that are not failed
#   cluster_pid PORT    print the PID of the node on PORT
#   cluster_kill PORT   SIGKILL the node on PORT (it leaves CLUSTER_PIDS)
#   wait_cluster_ok [S] wait up to S s (default 30) until every live node
#                       says cluster_state:ok and every slot is served
#   stop_cluster        stop every node still running (SIGTERM, then KILL)
#
# CLUSTER_ARGS (an array, may be unset): more valkey-server options for
# every node, such as (--requirepass PW --masterauth PW); valkey-cli then
# needs REDISCLI_AUTH=PW exported.

CLUSTER_PORTS=() CLUSTER_PIDS=()

# A port P with P and P+10000 free, both below the ephemeral range.
_cluster_port() {
    local p i
    for i in $(seq 1 200); do
        p=$((20000 + RANDOM % 2700))
        if ! (exec 9<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null &&
            ! (exec 9<>"/dev/tcp/127.0.0.1/$((p + 10000))") 2>/dev/null &&
            [[ " ${CLUSTER_PORTS[*]} " != *" $p "* ]]; then
            echo "$p"
            return 0
        fi
        : "$i"
    done
    echo "start_cluster: no free port pair found" >&2
    return 1
}

_cluster_node() { # _cluster_node DIR PORT
    local dir=$1/node-$2
    mkdir -p "$dir"
    valkey-server --port "$2" --bind 127.0.0.1 --cluster-enabled yes \
        --cluster-config-file "$dir/nodes.conf" --cluster-node-timeout 1000 \
        --cluster-require-full-coverage no \
        --save '' --appendonly no --dir "$dir" --daemonize no \
        ${CLUSTER_ARGS[@]+"${CLUSTER_ARGS[@]}"} >>"$1/valkey-$2.log" 2>&1 3>&- &
    CLUSTER_PORTS+=("$2")
    CLUSTER_PIDS+=("$!")
    _servers_track "$!"
}

start_cluster() {
    local dir=$1 np=${2:-3} nr=${3:-1} i p addrs=()
    if ! command -v valkey-server >/dev/null || ! command -v valkey-cli >/dev/null; then
        echo "start_cluster: valkey-server and valkey-cli are needed" >&2
        return 1
    fi
    mkdir -p "$dir"
    for ((i = 0; i < np * (nr + 1); i++)); do
        p=$(_cluster_port) || return 1
        _cluster_node "$dir" "$p"
        addrs+=("127.0.0.1:$p")
    done
    for p in "${CLUSTER_PORTS[@]}"; do
        wait_for_port "$p" 10 || { tail -n 5 "$dir/valkey-$p.log" >&2; return 1; }
    done
    timeout 30 valkey-cli --cluster create "${addrs[@]}" --cluster-replicas "$nr" \
        --cluster-yes >"$dir/cluster-create.log" 2>&1 ||
        { echo "start_cluster: valkey-cli --cluster create failed:" >&2
          tail -n 5 "$dir/cluster-create.log" >&2; return 1; }
    CLUSTER_URL="valkey-cluster://127.0.0.1:${CLUSTER_PORTS[0]}"
    export CLUSTER_URL
    wait_cluster_ok 30 || return 1
    _cluster_wait_replicas "$nr" 30
}

# Every primary has its replicas attached and in sync (a failover needs one).
_cluster_wait_replicas() {
    local nr=$1 secs=$2 i p ok
    for i in $(seq 1 $((secs * 10))); do
        ok=1
        for p in $(cluster_primaries); do
            [ "$(valkey-cli -p "$p" info replication | tr -d '\r' |
                grep -c 'state=online')" -ge "$nr" ] || ok=0
        done
        [ "$ok" = 1 ] && return 0
        : "$i"
        sleep 0.1
    done
    echo "start_cluster: replicas not in sync after ${secs}s" >&2
    return 1
}

# Is the node on PORT still running? (A killed one has PID 0 in the list.)
_cluster_alive() {
    local pid
    pid=$(cluster_pid "$1") && [ "$pid" != 0 ] && kill -0 "$pid" 2>/dev/null
}

cluster_primaries() {
    local p
    for p in "${CLUSTER_PORTS[@]}"; do
        _cluster_alive "$p" || continue
        valkey-cli -p "$p" cluster nodes 2>/dev/null | tr -d '\r' |
            awk '$3 ~ /master/ && $3 !~ /fail/ { split($2, a, "@"); sub(/.*:/, "", a[1]); print a[1] }'
        return 0
    done
    return 1
}

cluster_pid() {
    local i
    for i in "${!CLUSTER_PORTS[@]}"; do
        [ "${CLUSTER_PORTS[$i]}" = "$1" ] && { echo "${CLUSTER_PIDS[$i]}"; return 0; }
    done
    return 1
}

cluster_kill() {
    local pid i
    pid=$(cluster_pid "$1") || { echo "cluster_kill: no node on port $1" >&2; return 1; }
    stop_pid "$pid" KILL 5
    for i in "${!CLUSTER_PORTS[@]}"; do
        [ "${CLUSTER_PORTS[$i]}" = "$1" ] && CLUSTER_PIDS[i]=0
    done
    return 0
}

wait_cluster_ok() {
    local secs=${1:-30} i p ok
    for i in $(seq 1 $((secs * 10))); do
        ok=1
        for p in "${CLUSTER_PORTS[@]}"; do
            _cluster_alive "$p" || continue
            valkey-cli -p "$p" cluster info 2>/dev/null | tr -d '\r' |
                grep -q '^cluster_state:ok' || { ok=0; break; }
            valkey-cli -p "$p" cluster info 2>/dev/null | tr -d '\r' |
                grep -q '^cluster_slots_ok:16384' || { ok=0; break; }
        done
        [ "$ok" = 1 ] && return 0
        : "$i"
        sleep 0.1
    done
    echo "wait_cluster_ok: the cluster is not ok after ${secs}s" >&2
    return 1
}

stop_cluster() {
    local pid
    for pid in "${CLUSTER_PIDS[@]}"; do
        [ "$pid" != 0 ] && stop_pid "$pid" TERM 5
    done
    CLUSTER_PORTS=() CLUSTER_PIDS=()
}

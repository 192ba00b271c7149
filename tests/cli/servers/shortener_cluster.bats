#!/usr/bin/env bats
# --cache valkey-cluster:// and valkey-cluster+track://: a real Valkey
# Cluster on loopback (3 primaries, 3 replicas, cluster-node-timeout 1 s;
# tests/lib/cluster.bash), a real store (SQLite; PostgreSQL in the postgres
# run) and the real service and
# bench. One cluster serves the whole file (starting one takes seconds);
# the test that kills a primary runs last.
# stores: sqlite postgres
# In servers/, so make test-servers runs it: a private three-primary Valkey
# Cluster.

load '../../lib/common'
load '../../lib/cluster'

setup_file() {
    # One cluster for every test, which flush, reshard and (the last) kill
    # a primary of it: never two tests at once under bats --jobs.
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
    store_setup_file
    SERVERS_DIR=$BATS_FILE_TMPDIR
    start_cluster "$BATS_FILE_TMPDIR/cluster" 3 1 || return 1
    # The tests run in other processes: they read the cluster from here.
    printf '%s\n' "${CLUSTER_PORTS[*]}" "${CLUSTER_PIDS[*]}" >"$BATS_FILE_TMPDIR/cluster.env"
    KVTEST=${KVTEST:-$BATS_TEST_DIRNAME/../../../kvtest}
    "$KVTEST" shortener init "$BATS_FILE_TMPDIR/links.db" --links 1000 --seed 7 >/dev/null
    "$KVTEST" shortener keys "$BATS_FILE_TMPDIR/links.db" >"$BATS_FILE_TMPDIR/ids"
}

teardown_file() {
    stop_cluster
    store_teardown_file
}

setup() {
    shortener_setup
    local ports pids
    { read -r ports; read -r pids; } <"$BATS_FILE_TMPDIR/cluster.env"
    read -ra CLUSTER_PORTS <<<"$ports"
    read -ra CLUSTER_PIDS <<<"$pids"
    CLUSTER_URL=valkey-cluster://127.0.0.1:${CLUSTER_PORTS[0]}
    # A copy per test: tests that write must not leak into the next one
    # (the same links and ids in PostgreSQL: init --from).
    if store_is_sqlite; then
        cp "$BATS_FILE_TMPDIR/links.db" "$DB"
    else
        "$KVTEST" shortener init "$DB" --from "$BATS_FILE_TMPDIR/links.db" >/dev/null
    fi
    IDS=$BATS_FILE_TMPDIR/ids
    # Every test starts from an empty cache.
    for p in $(cluster_primaries); do valkey-cli -p "$p" flushall >/dev/null; done
}

teardown() {
    shortener_teardown
}

stats() { curl -fsS --max-time 5 "$SERVICE_URL/stats"; }

# look_up_twice N: each of the first N ids asked twice, each answered.
look_up_twice() {
    local id
    for id in $(head -n "$1" "$IDS"); do
        curl -fsS "$SERVICE_URL/link/$id" >/dev/null
        curl -fsS "$SERVICE_URL/link/$id" >/dev/null
    done
}

# load_ids: every id looked up once through the service (--walk 1, over 4
# connections), which must succeed: it fills the cache, or lets the threads
# meet a changed cluster. A walk, not a duration: every key is asked
# whatever the machine's speed.
load_ids() {
    run "$KVTEST" shortener load "$SERVICE_URL" --walk 1 --threads 4 --keys "$IDS"
    assert_success
    assert_output --partial "Requests: $(wc -l <"$IDS") (0 POST, "
}

# lookups: how many lookups the service has answered 200 (its /stats).
lookups() { stats | jq '.routes["GET /link/<id>"]["200"] // 0'; }

# load_through CMD [ARGS]: CMD runs during a 4 s load of the ids (the
# release binary, in the background), once the service has answered some
# of the load's lookups (60 s at most; not a fixed sleep: a loaded machine
# can start the load late); the load must end with status 0, requests,
# and not one failed.
load_through() {
    local before lpid lst=0
    before=$(lookups)
    "${KVTEST_REL:-$KVTEST}" shortener load "$SERVICE_URL" --duration 4 --threads 4 \
        --keys "$IDS" --create-ratio 0 --json >"$D/load.json" 2>"$D/load.err" 3>&- &
    lpid=$!
    for _ in $(seq 600); do
        [ "$(lookups)" -gt "$before" ] && break
        kill -0 "$lpid" 2>/dev/null || break
        sleep 0.1
    done
    [ "$(lookups)" -gt "$before" ] ||
        { stop_pid "$lpid" KILL; echo "the load answered nothing: $(cat "$D/load.err")"; false; }
    "$@"
    wait "$lpid" || lst=$?
    assert_equal "$lst" 0
    [ "$(jq .result.requests_failed "$D/load.json")" -eq 0 ] ||
        { cat "$D/load.json" "$D/load.err"; false; }
    [ "$(jq .result.requests "$D/load.json")" -gt 0 ]
}

# reshard PORT FROM TO: 200 slots moved from node id FROM to node id TO.
reshard() {
    run timeout 30 valkey-cli --cluster reshard "127.0.0.1:$1" --cluster-from "$2" \
        --cluster-to "$3" --cluster-slots 200 --cluster-yes
    assert_success
}

# The primary that owns kvtest:link:ID (the others answer -MOVED).
owner_of() {
    local p
    for p in $(cluster_primaries); do
        valkey-cli -p "$p" exists "kvtest:link:$1" 2>&1 | grep -q MOVED || { echo "$p"; return 0; }
    done
    return 1
}

@test "cluster: bench spreads lookups over every primary; cache-aside fills, counts and hits" {
    run "$KVTEST" shortener bench "$DB" --cache "$CLUSTER_URL" --configs valkey \
        --lookups 2000 --repeat 1 --warmup 1 --cache-timeout 2000 --json
    assert_success
    local row
    row=$(jq -c '.result.configs[0]' <<<"$output")
    # The warm-up filled the cache: the measured run only hits.
    [ "$(jq .cache.hits <<<"$row")" -eq 2000 ]
    [ "$(jq .cache.errors <<<"$row")" -eq 0 ]
    [ "$(jq .wrong_answers <<<"$row")" -eq 0 ]
    [ "$(jq '.cache.moved + .cache.ask' <<<"$row")" -eq 0 ]
    # Three primaries, each asked, and every lookup counted on one of them.
    [ "$(jq '.cache.nodes | length' <<<"$row")" -eq 3 ]
    [ "$(jq '[.cache.nodes[].lookups | select(. > 0)] | length' <<<"$row")" -eq 3 ]
    [ "$(jq '[.cache.nodes[].lookups] | add' <<<"$row")" -eq 2000 ]
    # The fills landed on every primary, each key on the node of its slot.
    local p
    for p in $(cluster_primaries); do
        [ "$(valkey-cli -p "$p" dbsize)" -gt 0 ]
    done
    run "$KVTEST" shortener bench "$DB" --cache "$CLUSTER_URL" --cache-timeout 2000 --configs valkey \
        --lookups 200 --repeat 1 --warmup 0
    assert_success
    assert_output --regexp 'Cluster, valkey: moved 0, ask 0, map refreshes [0-9]+; lookups per primary: 127\.0\.0\.1:[0-9]+ [0-9]+, 127\.0\.0\.1:[0-9]+ [0-9]+, 127\.0\.0\.1:[0-9]+ [0-9]+'
}

@test "cluster: serve fills on a miss with the TTL, hits after, and /stats lists the primaries" {
    # A generous cache timeout: at 50 ms a loaded machine times out a fill
    # or a hit now and then, which is then neither a hit nor a miss.
    start_service "$DB" --threads 2 --cache "$CLUSTER_URL" --cache-ttl 300 --cache-timeout 2000
    local id
    look_up_twice 30
    run stats
    assert_success
    [ "$(jq .cache.misses <<<"$output")" -eq 30 ]
    [ "$(jq .cache.sets <<<"$output")" -eq 30 ]
    [ "$(jq .cache.hits <<<"$output")" -eq 30 ]
    [ "$(jq .cache.errors <<<"$output")" -eq 0 ]
    [ "$(jq '.cache.nodes | length' <<<"$output")" -eq 3 ]
    [ "$(jq '[.cache.nodes[].lookups] | add' <<<"$output")" -eq 60 ]
    id=$(head -n 1 "$IDS")
    run valkey-cli -p "$(owner_of "$id")" ttl "kvtest:link:$id"
    [ "$output" -gt 0 ]
    [ "$output" -le 300 ]
    stop_service TERM
    assert_equal "$SERVICE_STATUS" 0
    run cat "$SERVICE_OUT"
    assert_output --regexp 'Cluster: moved 0, ask 0, map refreshes [0-9]+; lookups per primary: '
}

@test "cluster with --processes 2: \"all\" sums the counters and has no per-node list; each process lists its primaries" {
    # A generous cache timeout: on a loaded 2-core machine a 50 ms one
    # trips now and then, and a timed-out lookup (skipped, then backoff) is
    # neither a hit nor a miss; this test is about the sums.
    start_service "$DB" --threads 2 --processes 2 --cache "$CLUSTER_URL" --cache-timeout 2000
    look_up_twice 20
    run stats
    assert_success
    # 40 lookups over both processes: 20 fills, and hits or (the other
    # process's first look at a key) misses for the rest.
    [ "$(jq '.all.cache.hits + .all.cache.misses' <<<"$output")" -eq 40 ]
    [ "$(jq .all.cache.errors <<<"$output")" -eq 0 ]
    [ "$(jq .all.cache.moved <<<"$output")" -eq 0 ]
    # The sum over processes is made word by word: addresses cannot be
    # added, so it has no per-node list.
    [ "$(jq '.all.cache | has("nodes")' <<<"$output")" = false ]
    # The answering process merged its workers' lists by address.
    [ "$(jq '[.cache.nodes | keys[] | select(test("^127\\.0\\.0\\.1:[0-9]+$"))] | length' <<<"$output")" -eq 3 ]
    [ "$(jq '[.cache.nodes[].lookups] | add' <<<"$output")" -eq "$(jq '.cache.hits + .cache.misses' <<<"$output")" ]
    stop_service TERM
    assert_equal "$SERVICE_STATUS" 0
}

@test "cluster: slots migrated during a load: MOVED/ASK followed, no failed lookup, hits go on" {
    # A generous cache timeout: "no cache error" is about redirects, not
    # about a loaded machine's 50 ms timeouts.
    start_service "$DB" --threads 2 --cache "$CLUSTER_URL" --cache-timeout 2000
    load_ids
    local prim from to
    prim=($(cluster_primaries))
    from=$(valkey-cli -p "${prim[0]}" cluster myid | tr -d '\r')
    to=$(valkey-cli -p "${prim[1]}" cluster myid | tr -d '\r')
    load_through reshard "${prim[0]}" "$from" "$to"
    # After the move: once the threads have met the new owners (a settling
    # load), the slot map is right: (almost) no more redirects, and hits.
    load_ids
    run stats
    echo "$output"
    local redirects hits
    redirects=$(jq '.cache.moved + .cache.ask' <<<"$output")
    hits=$(jq .cache.hits <<<"$output")
    [ "$redirects" -gt 0 ]
    [ "$(jq .cache.errors <<<"$output")" -eq 0 ]
    load_ids
    run stats
    echo "$output"
    # A thread whose settling load missed a moved key may meet it now (once
    # per key); a map that does not learn would redirect every lookup of it.
    [ "$(jq '.cache.moved + .cache.ask' <<<"$output")" -le $((redirects + 5)) ]
    [ "$(jq .cache.hits <<<"$output")" -gt "$hits" ]
    [ "$(jq .sqlite.errors <<<"$output")" -eq 0 ]
    # Put the slots back for the tests that follow.
    reshard "${prim[1]}" "$to" "$from"
}

@test "cluster+track: a key deleted or overwritten on any node stops being served from memory" {
    # Two ids per primary: the invalidation must come from each node's channel.
    local id p picked=() n1=0 n2=0 n3=0 prim
    prim=($(cluster_primaries))
    for id in $(head -n 60 "$IDS"); do
        p=$(owner_of "$id")
        if [ "$p" = "${prim[0]}" ] && [ $n1 -lt 2 ]; then picked+=("$id"); n1=$((n1 + 1)); fi
        if [ "$p" = "${prim[1]}" ] && [ $n2 -lt 2 ]; then picked+=("$id"); n2=$((n2 + 1)); fi
        if [ "$p" = "${prim[2]}" ] && [ $n3 -lt 2 ]; then picked+=("$id"); n3=$((n3 + 1)); fi
    done
    [ "${#picked[@]}" -eq 6 ]
    # A generous cache timeout: at 50 ms a loaded machine times out a fill
    # or a hit now and then, and the probe then sees no stale URL.
    start_service "$DB" --threads 2 --cache "valkey-cluster+track://127.0.0.1:${CLUSTER_PORTS[0]}" \
        --cache-timeout 2000
    local mode
    # Each trial must serve the stale URL from the cache, then see the
    # change (3 s at most) and the expected one; how soon is the machine's
    # speed, not asserted (the benchmarks measure it).
    for mode in del set; do
        run python3 "$BATS_TEST_DIRNAME/../../lib/track_probe.py" "$mode" "${CLUSTER_PORTS[0]}" \
            "$SERVICE_PORT" "$DB" 0 "${picked[@]}"
        echo "$output"
        assert_success
        [ "$(grep -c "^$mode " <<<"$output")" -eq 6 ]
    done
    run stats
    [ "$(jq .cache.invalidations <<<"$output")" -ge 12 ]
    [ "$(jq .cache.local_hits <<<"$output")" -ge 12 ]
}

@test "cluster: bad URLs exit 2 with one line" {
    expect_error 2 "a cluster has no /DB" shortener bench "$DB" --cache "$CLUSTER_URL/1"
    expect_error 2 "missing :PORT" shortener bench "$DB" --cache valkey-cluster://127.0.0.1
    expect_error 2 "empty seed address" shortener serve "$DB" --cache "$CLUSTER_URL,"
    expect_error 2 "port must be 1..65535" shortener serve "$DB" \
        --cache valkey-cluster+track://127.0.0.1:1,127.0.0.1:70000
    expect_error 2 "expected none" shortener bench "$DB" --cache valkey-clusters://127.0.0.1:1
}

@test "cluster: unreachable seeds or a server without cluster mode: bench fails, serve answers from the store" {
    expect_error 1 "Valkey at valkey-cluster://127.0.0.1:1,127.0.0.1:2:" \
        shortener bench "$DB" --cache valkey-cluster://127.0.0.1:1,127.0.0.1:2 --configs valkey
    start_valkey
    expect_error 1 "cluster support disabled" \
        shortener bench "$DB" --cache "valkey-cluster://127.0.0.1:$VALKEY_PORT" --configs valkey
    start_service "$DB" --threads 2 --cache valkey-cluster://127.0.0.1:1
    local id
    for id in $(head -n 10 "$IDS"); do
        run curl -fsS "$SERVICE_URL/link/$id"
        assert_success
    done
    run stats
    [ "$(jq .cache.hits <<<"$output")" -eq 0 ]
    [ "$(jq '.cache.errors + .cache.skipped' <<<"$output")" -ge 10 ]
    run cat "$SERVICE_ERR"
    assert_output --partial "not answering"
}

# Last: it kills a primary of the shared cluster.
@test "cluster: a primary killed: the store answers its keys, the replica takes over, hits resume, no request fails" {
    # A generous cache timeout: a killed node's sockets close at once (no
    # wait for the timeout), and at 50 ms a loaded machine's slow answers
    # from the live nodes would count as errors too.
    start_service "$DB" --threads 2 --cache "$CLUSTER_URL" --cache-timeout 2000
    load_ids
    local victim
    victim=$(cluster_primaries | tail -n 1)
    load_through cluster_kill "$victim"
    wait_cluster_ok 20
    run stats
    echo "before: $output"
    local hits0 err0
    hits0=$(jq .cache.hits <<<"$output")
    err0=$(jq '.cache.errors + .cache.skipped' <<<"$output")
    [ "$err0" -gt 0 ]   # the dead node's keys went to SQLite meanwhile
    # After the failover: the promoted replica is a fourth primary, asked
    # like the other two live ones, and the cache hits again.
    load_ids
    run stats
    echo "after: $output"
    [ "$(jq '.cache.nodes | length' <<<"$output")" -eq 4 ]
    [ "$(jq --arg v "127.0.0.1:$victim" '[.cache.nodes | to_entries[] |
        select(.key != $v and .value.lookups > 0)] | length' <<<"$output")" -eq 3 ]
    local dhits derr
    dhits=$(( $(jq .cache.hits <<<"$output") - hits0 ))
    derr=$(( $(jq '.cache.errors + .cache.skipped' <<<"$output") - err0 ))
    echo "hits $dhits, errors and skips $derr in the load after the failover"
    [ "$dhits" -gt $((10 * derr)) ]
    [ "$(jq .sqlite.errors <<<"$output")" -eq 0 ]
}

#!/usr/bin/env bats
# No password in any output: every command and error path that takes a URL
# with a password (a PostgreSQL store, its replicas, init --from, a Valkey
# cache, its cluster seeds' form) runs against real servers, and standard
# output, standard error, --json, --csv, /stats, serve's start lines and
# the shutdown counters are searched for the password, raw and
# percent-encoded. The role kvtest_auth of tests/lib/pg.bash needs its
# password over TCP (scram-sha-256), so the good URL's password is used,
# not ignored; a wrong one is refused by the server.
# In servers/, so make test-servers runs it: a PostgreSQL server with a
# password role and a password-protected valkey-server.

load '../../lib/common'

PW='Pw-4xQ9@zZ'          # kvtest_auth's, set in setup_file
PW_URL='Pw-4xQ9%40zZ'
BAD_URL='Wr0ng-9%40zZ'   # a wrong one: refused, and no more shown than the good

setup_file() {
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
    start_pg
    pg_sql "ALTER ROLE kvtest_auth PASSWORD '$PW'"
    pg_sql "CREATE DATABASE auth OWNER kvtest_auth"
}

teardown_file() {
    stop_all_pg
}

setup() {
    shortener_setup
    D=$BATS_TEST_TMPDIR
    mkdir -p "$D/out"
    A=postgres://kvtest_auth:$PW_URL@127.0.0.1:$PG_PORT/auth
    WRONG=postgres://kvtest_auth:$BAD_URL@127.0.0.1:$PG_PORT/auth
    # a closed port: libpq's own message names the host, never the password
    CLOSED=postgres://kvtest_auth:$PW_URL@127.0.0.1:$(free_port)/auth
    export REDISCLI_AUTH=$PW
    VALKEY_ARGS=(--requirepass "$PW")
    start_valkey
    V=valkey://:$PW_URL@127.0.0.1:$VALKEY_PORT
}

teardown() {
    shortener_teardown
}

# keep NAME CMD...: run CMD (status kept in $D/out/NAME.status), its
# standard output and error into $D/out/NAME.out and NAME.err.
keep() {
    local name=$1 st=0
    shift
    "$@" >"$D/out/$name.out" 2>"$D/out/$name.err" </dev/null || st=$?
    echo "$st" >"$D/out/$name.status"
}

# no_secret: no file of $D/out holds the password, raw or encoded, nor the
# wrong one.
no_secret() {
    run grep -r -l -F -e "$PW" -e "$PW_URL" -e 'Wr0ng' "$D/out"
    assert_failure 1
}

@test "secrets: PostgreSQL store, replicas and --from, on success and failure: no output holds the password" {
    keep init "$KVTEST" shortener init "$A" --links 50 --seed 2
    keep init-again "$KVTEST" shortener init "$A" --links 50
    keep keys "$KVTEST" shortener keys "$A"
    keep init-from-pg "$KVTEST" shortener init "$D/x.db" --from "$A"
    keep init-onto-self "$KVTEST" shortener init "$A" --from "$A" --force
    keep bench-json "$KVTEST" shortener bench "$A" --configs postgres --replicas "$A" \
        --lookups 100 --json
    keep bench-csv "$KVTEST" shortener bench "$A" --configs postgres --lookups 100 --csv
    keep bench-cache "$KVTEST" shortener bench "$A" --configs postgres,valkey --cache "$V" --cache-timeout 2000 \
        --lookups 100 --json
    keep wrong-keys "$KVTEST" shortener keys "$WRONG"
    keep wrong-bench "$KVTEST" shortener bench "$WRONG" --configs postgres --lookups 10
    keep wrong-replica "$KVTEST" shortener bench "$A" --configs postgres --replicas "$WRONG" \
        --lookups 10
    keep closed-init "$KVTEST" shortener init "$CLOSED" --links 5
    keep closed-serve timeout 30 "$KVTEST" shortener serve "$CLOSED" --port 0
    # what ran: each success succeeded, each failure failed with one line
    local n
    for n in init keys bench-json bench-csv bench-cache; do
        assert_equal "$n $(cat "$D/out/$n.status")" "$n 0"
    done
    for n in init-again init-from-pg init-onto-self wrong-keys wrong-bench wrong-replica \
        closed-init closed-serve; do
        [ "$(cat "$D/out/$n.status")" != 0 ] || { echo "$n succeeded" >&2; return 1; }
        assert_equal "$n $(wc -l <"$D/out/$n.err")" "$n 1"
    done
    # and the URL was shown, masked, where a message names it
    run cat "$D/out/init-from-pg.err"
    assert_output --partial "--from postgres://kvtest_auth:***@127.0.0.1:$PG_PORT/auth"
    run jq -r 'select(.cmdline) | .cmdline' "$D/out/bench-json.out"
    assert_output --partial "--replicas postgres://kvtest_auth:***@"
    no_secret
}

@test "secrets: serve on PostgreSQL with replicas and a Valkey cache: start lines, /stats, counters as JSON and CSV hold no password" {
    "$KVTEST" shortener init "$A" --links 20 --seed 2 --force >/dev/null
    local id fmt
    id=$("$KVTEST" shortener keys "$A" | head -n 1)
    for fmt in --json --csv; do
        valkey-cli -p "$VALKEY_PORT" FLUSHALL >/dev/null   # a miss first: the replica is asked
        start_service "$A" --replicas "$A" --cache "$V" --cache-timeout 2000 "$fmt"
        curl -fsS --max-time 10 "$SERVICE_URL/link/$id" >"$D/out/get$fmt.out"
        curl -fsS --max-time 10 "$SERVICE_URL/link/$id" >>"$D/out/get$fmt.out"
        curl -fsS --max-time 10 "$SERVICE_URL/stats" >"$D/out/stats$fmt.json"
        run jq -e '.cache.hits >= 1 and .store.replica_reads >= 1' "$D/out/stats$fmt.json"
        assert_success
        stop_service
        assert_equal "$SERVICE_STATUS" 0
        cp "$SERVICE_OUT" "$D/out/serve$fmt.out"
        cp "$SERVICE_ERR" "$D/out/serve$fmt.err"
        [ -s "$D/out/serve$fmt.out" ]   # the counters were printed
    done
    run grep -c -F "cache valkey://:***@127.0.0.1:$VALKEY_PORT, " "$D/out/serve--json.err"
    assert_output 1
    no_secret
}

@test "secrets: the load generator's --json and the study scripts' command log hold no password" {
    "$KVTEST" shortener init "$D/l.db" --links 20 >/dev/null
    "$KVTEST" shortener keys "$D/l.db" >"$D/ids"
    start_service "$D/l.db" --cache "$V" --cache-timeout 2000
    keep load "$KVTEST" shortener load "$SERVICE_URL" --walk 1 --keys "$D/ids" --json
    assert_equal "$(cat "$D/out/load.status")" 0
    stop_service
    # the study scripts log every command they run (commands.tsv) through
    # kv_show_cmd: a store or cache URL there is masked too
    run bash -c 'source "$1"; OUT=$2; kv_show_cmd kvtest shortener serve "$3" --cache "$4"' _ \
        "$BATS_TEST_DIRNAME/../../../scripts/study/lib.sh" "$D" "$A" "$V"
    assert_success
    assert_output "kvtest shortener serve postgres://kvtest_auth:***@127.0.0.1:$PG_PORT/auth --cache valkey://:***@127.0.0.1:$VALKEY_PORT"
    printf '%s\n' "$output" >"$D/out/show.txt"
    no_secret
}

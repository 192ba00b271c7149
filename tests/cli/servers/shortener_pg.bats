#!/usr/bin/env bats
# The PostgreSQL link store's own behaviour (the REST and cache suites run
# on it too: "# stores:" in shortener.bats, shortener_track.bats and
# shortener_cluster.bats). One private primary and two streaming replicas
# for the whole file (tests/lib/pg.bash), on free loopback ports: replica 0
# replays at once, replica 1 only after 2 s (recovery_min_apply_delay).
# The database "rep", made in setup_file, is on all three; other tests get
# a fresh database of their own. The tests that kill servers run last.
# In servers/, so make test-servers runs it: a PostgreSQL primary and two
# streaming replicas, killed and restarted.

load '../../lib/common'

setup_file() {
    # One server and its replicas for every test, which kill and restart
    # them: never two tests at once under bats --jobs.
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
    export KVTEST_STORE=postgres
    start_pg
    start_pg_replica
    start_pg_replica 2s
    KVTEST=${KVTEST:-$BATS_TEST_DIRNAME/../../../kvtest}
    pg_sql "CREATE DATABASE rep"
    "$KVTEST" shortener init "${PG_URL%/*}/rep" --links 2000 --seed 3 >/dev/null
    "$KVTEST" shortener keys "${PG_URL%/*}/rep" >"$BATS_FILE_TMPDIR/rep.ids"
    pg_wait_replica_caught_up 0
    # the delayed replica: until it has the table with every link (up to
    # 60 s)
    local i
    for i in $(seq 1 600); do
        [ "$(psql -X -A -t -d "$(rep_url 1)" -c 'SELECT count(*) FROM links' 2>/dev/null)" = 2000 ] &&
            return 0
        sleep 0.1
    done
    echo "the delayed replica never had the links" >&2
    return 1
}

teardown_file() {
    stop_all_pg
}

setup() {
    shortener_setup
    REP=${PG_URL%/*}/rep
    # Nothing may come from a password file or the environment.
    export PGPASSFILE=$BATS_TEST_TMPDIR/no-such-pgpass
    unset PGPASSWORD
}

teardown() {
    # a test that paused the delayed replica's replay and failed before it
    # resumed it: the next tests need it replaying
    if [ -n "${REPLAY_PAUSED:-}" ]; then
        psql -X -q -A -t -d "$(rep_url 1)" -c 'SELECT pg_wal_replay_resume()' >/dev/null 2>&1 || true
    fi
    shortener_teardown
}

rep_url() {   # rep_url I: replica I's URL of the database rep
    echo "${PG_REPLICA_URLS[$1]%/*}/rep"
}

# req METHOD PATH [curl args...]: sets STATUS and BODY.
req() {
    local m=$1 p=$2
    shift 2
    STATUS=$(curl -s --max-time 20 -o "$BATS_TEST_TMPDIR/body" -w '%{http_code}' -X "$m" \
        "$@" "$SERVICE_URL$p")
    BODY=$(cat "$BATS_TEST_TMPDIR/body")
}

stat_field() {   # stat_field JQ_PATH: print a /stats field
    curl -s --max-time 10 "$SERVICE_URL/stats" | jq -r "$1"
}

# wait_stat JQ_PATH MIN PID: wait (bounded, 60 s) until the /stats number
# JQ_PATH (missing: 0) is MIN or more; 1 if it never is or PID (a load in
# the background) ended first.
wait_stat() {
    local i n=0
    for i in $(seq 1 600); do
        n=$(stat_field "$1 // 0") || n=0
        [ "$n" -ge "$2" ] && return 0
        kill -0 "$3" 2>/dev/null || break
        : "$i"
        sleep 0.1
    done
    echo "$1 is $n, wanted $2 or more" >&2
    return 1
}

# load_bg ARGS...: "kvtest shortener load" on the service in the
# background (LOAD: its pid; JSON in $BATS_TEST_TMPDIR/load.json, stderr in
# load.err), for up to 110 s: the test ends it with SIGTERM once it has
# seen what it waits for (the requests in flight are finished, the results
# printed, exit 1). Not under timeout(1), which would pass a SIGTERM on
# twice (to the load and to its process group): a second one kills it.
load_bg() {
    "$KVTEST" shortener load "$SERVICE_URL" --duration 110 --json "$@" \
        >"$BATS_TEST_TMPDIR/load.json" 2>"$BATS_TEST_TMPDIR/load.err" &
    LOAD=$!
}

# load_end: SIGTERM to LOAD and wait; it must say it was interrupted.
load_end() {
    local st=0
    kill -TERM "$LOAD" 2>/dev/null || true
    wait "$LOAD" || st=$?
    if [ "$st" -ne 1 ] || ! grep -q 'interrupted after' "$BATS_TEST_TMPDIR/load.err"; then
        echo "load: exit $st: $(cat "$BATS_TEST_TMPDIR/load.err")" >&2
        return 1
    fi
}

@test "pg: init fills the table in one transaction, keys lists the ids, an existing table needs --force" {
    run "$KVTEST" shortener init --store "$DB" --links 3000 --seed 9
    assert_success
    assert_output "Created $DB with 3000 links"
    [ "$(psql -X -A -t -d "$DB" -c 'SELECT count(DISTINCT link_hash), min(id), max(id) FROM links')" = "3000|1|3000" ]
    run "$KVTEST" shortener keys "$DB"
    assert_success
    [ "${#lines[@]}" -eq 3000 ]
    [ "$(printf '%s\n' "${lines[@]}" | grep -cE '^[A-Za-z0-9]{10}$')" -eq 3000 ]
    # the same URLs as SQLite makes from the same seed, in the same order
    "$KVTEST" shortener init "$BATS_TEST_TMPDIR/same.db" --links 3000 --seed 9 >/dev/null
    python3 -c 'import sqlite3, sys
for (u,) in sqlite3.connect(sys.argv[1]).execute("SELECT link_target FROM links ORDER BY id"):
    print(u)' "$BATS_TEST_TMPDIR/same.db" >"$BATS_TEST_TMPDIR/want"
    store_sql "SELECT link_target FROM links ORDER BY id" >"$BATS_TEST_TMPDIR/got"
    cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
    # refused without --force: the table keeps its links
    run "$KVTEST" shortener init "$DB" --links 5
    assert_failure 1
    [ "${#lines[@]}" -eq 1 ]
    assert_output --partial "table links exists (use --force to replace it)"
    [ "$(store_sql 'SELECT count(*) FROM links')" = 3000 ]
    run "$KVTEST" shortener init "$DB" --links 20 --force
    assert_success
    [ "$(store_sql 'SELECT count(*) FROM links')" = 20 ]
    # a create after init takes the next id, not one of the copied ones
    start_service "$DB" --threads 1
    req POST /link -d '{"url": "https://after.example/"}'
    [ "$STATUS" = 201 ]
    [ "$(store_sql "SELECT id FROM links WHERE link_target = 'https://after.example/'")" = 21 ]
}

@test "pg: a restart of the server between requests costs no request" {
    "$KVTEST" shortener init "$DB" --links 10 >/dev/null
    start_service "$DB" --threads 1
    local id
    id=$("$KVTEST" shortener keys "$DB" --limit 1)
    req GET "/link/$id"
    [ "$STATUS" = 200 ]
    kill_pg INT
    restart_pg
    # the worker's connection died with the server: the lookup reconnects
    req GET "/link/$id"
    [ "$STATUS" = 200 ] || { echo "first GET after the restart: $STATUS $BODY" >&2; return 1; }
    req POST /link -d '{"url": "https://restarted.example/"}'
    [ "$STATUS" = 201 ] || { echo "first POST after the restart: $STATUS $BODY" >&2; return 1; }
    [ "$(stat_field .store.unavailable)" -eq 0 ]
}

@test "pg: init --from an SQLite database copies ids, URLs and order; bench --compare-db agrees on every id" {
    "$KVTEST" shortener init "$BATS_TEST_TMPDIR/src.db" --links 1500 >/dev/null
    run "$KVTEST" shortener init "$DB" --from "$BATS_TEST_TMPDIR/src.db"
    assert_success
    assert_line "Created $DB with 1500 links"
    diff <("$KVTEST" shortener keys "$BATS_TEST_TMPDIR/src.db") <("$KVTEST" shortener keys "$DB")
    run "$KVTEST" shortener bench "sqlite:$BATS_TEST_TMPDIR/src.db" --compare-db "$DB" \
        --lookups 3000 --repeat 2 --miss 0.2 --json
    assert_success
    [ "$(jq -r '[.result.configs[].config] | join(",")' <<<"$output")" = "sqlite,sqlite-nocache,postgres" ]
    [ "$(jq '[.result.configs[] | .wrong_answers + .sqlite_errors] | add' <<<"$output")" -eq 0 ]
    [ "$(jq -r '.result.configs[2].store' <<<"$output")" = postgres ]
    # and from PostgreSQL into PostgreSQL
    other=$(pg_new_db "t${BATS_TEST_NUMBER}b")
    run "$KVTEST" shortener init "$other" --from "$DB"
    assert_success
    diff <("$KVTEST" shortener keys "$DB") <("$KVTEST" shortener keys "$other")
}

@test "pg: started with the standard input closed, a socket of its own may be descriptor 0 and it serves" {
    # With SQLite, the store's open takes descriptor 0 (SQLite fills 0-2
    # with /dev/null); a PostgreSQL connection is closed again before the
    # port is bound, so 0 is free for a listening or reserve socket, and
    # "fd < 0", not "fd <= 0", must be the failure test.
    SERVICE_WRAP=(bash -c 'exec "$@" <&-' _)
    local procs
    for procs in 1 2; do
        start_service "$REP" --threads 2 --processes "$procs"
        run readlink "/proc/$SERVICE_PID/fd/0"
        assert_output --regexp '^socket:'
        req GET "/link/$(head -n1 "$BATS_FILE_TMPDIR/rep.ids")"
        assert_equal "$STATUS" 200
        stop_service TERM
        assert_equal "$SERVICE_STATUS" 0
    done
}

@test "pg: bench on the store: postgres, valkey and valkey-track rows; the break-even names PostgreSQL" {
    "$KVTEST" shortener init "$DB" --links 300 >/dev/null
    start_valkey
    run "$KVTEST" shortener bench --store "$DB" --cache "valkey+track://127.0.0.1:$VALKEY_PORT" --cache-timeout 2000 \
        --lookups 2000 --repeat 2
    assert_success
    assert_line --regexp '^postgres +[0-9]+'
    assert_line --regexp '^valkey +[0-9]+'
    assert_line --regexp '^valkey-track +[0-9]+'
    assert_output --partial 'pays off only when a PostgreSQL lookup costs more than'
    refute_output --partial 'sqlite-nocache'
    run "$KVTEST" shortener bench "$DB" --configs postgres --lookups 500 --repeat 1 --json
    assert_success
    [ "$(jq -r '.result.configs[0].config' <<<"$output")" = postgres ]
    [ "$(jq -r '.options.store' <<<"$output")" = postgres ]
}

@test "pg: bad input is one line with exit 1 or 2, before any work" {
    local port free
    port=$(free_port)
    free=postgres://postgres@127.0.0.1:$port/kvtest
    # unreachable server, for every command
    expect_error 1 "127.0.0.1" shortener serve --store "$free" --port 0
    expect_error 1 "refused" shortener init "$free" --links 1
    expect_error 1 "refused" shortener keys "$free"
    expect_error 1 "refused" shortener bench "$free"
    # refused authentication (a password is required and none is given)
    expect_error 1 "password" shortener serve \
        "postgres://kvtest_auth@127.0.0.1:$PG_PORT/kvtest" --port 0
    # a password in the URL never shows
    run "$KVTEST" shortener keys "postgres://kvtest_auth:wrongpw@127.0.0.1:$PG_PORT/kvtest"
    assert_failure 1
    [ "${#lines[@]}" -eq 1 ]
    assert_output --partial 'kvtest_auth:***@'
    refute_output --partial wrongpw
    # a database without the table
    expect_error 1 "no links table (create it with kvtest shortener init)" \
        shortener serve "$DB" --port 0
    expect_error 1 "no links table" shortener bench "$DB"
    # not a PostgreSQL URL, or not a store at all
    expect_error 2 "'mysql://127.0.0.1/x' is not a links store" shortener serve --store mysql://127.0.0.1/x
    expect_error 2 "is not a postgres:// URL" shortener serve "$DB" --replicas http://127.0.0.1:1/x
    expect_error 2 "is not a postgres:// URL" shortener serve "$DB" --replicas "$PG_URL,"
    expect_error 2 "--replicas needs a PostgreSQL store" \
        shortener serve "$BATS_TEST_TMPDIR/x.db" --replicas "$PG_URL"
    expect_error 2 "name the store once" shortener serve "$BATS_TEST_TMPDIR/x.db" --store "$DB"
    expect_error 2 "missing DBFILE or --store URL" shortener keys
    # what only SQLite has
    expect_error 2 "--schema covering is SQLite's" shortener init "$DB" --schema covering
    expect_error 2 "--cold evicts an SQLite database file" shortener bench "$DB" --cold
    expect_error 2 "--sqlite-cache applies to an SQLite store" \
        shortener serve "$DB" --sqlite-cache off
    expect_error 2 "--store-timeout applies to a PostgreSQL store" \
        shortener serve "$BATS_TEST_TMPDIR/x.db" --store-timeout 100
    expect_error 2 "--configs sqlite-nocache" shortener bench "$REP" --configs sqlite-nocache
    expect_error 2 "an SQLite store copies from an SQLite database" \
        shortener init "$BATS_TEST_TMPDIR/x.db" --from "$REP"
    expect_error 2 "cannot copy a store onto itself" shortener init "$REP" --from "$REP" --force
    # a replica that cannot be reached stops the start, named
    expect_error 1 "127.0.0.1:$port" shortener serve "$REP" --replicas "$free" --port 0
    # nothing was created anywhere
    [ ! -e "$BATS_TEST_TMPDIR/x.db" ]
    [ "$(store_sql "SELECT to_regclass('links') IS NULL")" = t ]
    [ "$(psql -X -A -t -d "$REP" -c 'SELECT count(*) FROM links')" = 2000 ]
}

@test "pg: Ctrl-C during init leaves the database as it was (no table, or the old one whole)" {
    local round
    for round in fresh force; do
        if [ "$round" = force ]; then
            "$KVTEST" shortener init "$DB" --links 100 >/dev/null
        fi
        start shortener init "$DB" --links 2000000 --force
        # until the server is receiving the COPY
        wait_until bash -c "psql -X -A -t -d '$PG_URL' -c \"SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY links%'\" | grep -qx 1"
        stop_with INT
        [ "$status" -eq 130 ]
        [ "$(wc -l <"$D/err")" -eq 1 ]
        if [ "$round" = fresh ]; then
            [ "$(store_sql "SELECT to_regclass('links') IS NULL")" = t ]
        else
            [ "$(store_sql 'SELECT count(*) FROM links')" = 100 ]
        fi
    done
}

@test "pg: GETs go to the replicas, creates to the primary; a link just created resolves through a lagging replica" {
    # the delayed replica alone: every new link is a fallback at first. Its
    # replay is paused meanwhile (once it says so, up to 30 s): lagging
    # however long the creates and GETs take.
    start_service "$REP" --threads 2 --replicas "$(rep_url 1)"
    grep -q 'store postgres, 1 replica)' "$SERVICE_ERR"
    local i id
    REPLAY_PAUSED=1
    psql -X -q -A -t -d "$(rep_url 1)" -c 'SELECT pg_wal_replay_pause()' >/dev/null
    for i in $(seq 1 300); do
        [ "$(psql -X -A -t -d "$(rep_url 1)" -c 'SELECT pg_get_wal_replay_pause_state()')" = paused ] &&
            break
        sleep 0.1
    done
    [ "$(psql -X -A -t -d "$(rep_url 1)" -c 'SELECT pg_get_wal_replay_pause_state()')" = paused ]
    for i in $(seq 1 10); do
        req POST /link -d "{\"url\": \"https://lag.example/$i\"}"
        [ "$STATUS" = 201 ]
        id=$(jq -r .short_link <<<"$BODY")
        req GET "/link/$id"
        [ "$STATUS" = 200 ] || { echo "GET right after create: $STATUS $BODY" >&2; return 1; }
        [ "$(jq -r .link <<<"$BODY")" = "https://lag.example/$i" ]
    done
    [ "$(stat_field .store.fallbacks)" -ge 10 ]
    # once the replica has replayed it (its replay resumed; polled, up to
    # 60 s), the same link comes from the replica
    psql -X -q -A -t -d "$(rep_url 1)" -c 'SELECT pg_wal_replay_resume()' >/dev/null
    REPLAY_PAUSED=
    for i in $(seq 1 600); do
        [ "$(psql -X -A -t -d "$(rep_url 1)" -c "SELECT count(*) FROM links WHERE link_hash = '$id'")" = 1 ] &&
            break
        sleep 0.1
    done
    [ "$(psql -X -A -t -d "$(rep_url 1)" -c "SELECT count(*) FROM links WHERE link_hash = '$id'")" = 1 ]
    local before
    before=$(stat_field .store.replica_reads)
    req GET "/link/$id"
    [ "$STATUS" = 200 ]
    [ "$(stat_field .store.replica_reads)" -eq $((before + 1)) ]
    stop_service
    # both replicas: existing links are all answered by replicas
    start_service "$REP" --threads 2 --replicas "$(rep_url 0),$(rep_url 1)"
    run "$KVTEST" shortener load "$SERVICE_URL" --duration 2 --keys "$BATS_FILE_TMPDIR/rep.ids" \
        --create-ratio 0 --connections 4 --json
    assert_success
    local gets replica primary
    gets=$(jq '.result.requests' <<<"$output")
    replica=$(stat_field .store.replica_reads)
    primary=$(stat_field .store.primary_reads)
    echo "GETs $gets, replica reads $replica, primary reads $primary"
    [ "$replica" -eq "$gets" ]
    [ "$primary" -eq 0 ]
    [ "$(stat_field .store.failovers)" -eq 0 ]
    # and both replicas took their share (the servers' own index scans). A
    # server session reports its counts at most once a second while busy,
    # the rest 10 s after it goes idle, or when it ends: the service is
    # stopped, so its sessions end, and the counts polled (up to 60 s).
    stop_service
    assert_equal "$SERVICE_STATUS" 0
    local k scans
    for k in 0 1; do
        for i in $(seq 1 240); do
            scans=$(psql -X -A -t -d "$(rep_url "$k")" \
                -c "SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes WHERE relname = 'links'")
            [ "$scans" -gt $((gets / 4)) ] && break
            sleep 0.25
        done
        echo "replica $k: $scans index scans"
        [ "$scans" -gt $((gets / 4)) ]
    done
}

@test "pg: a replica killed under load fails no GET; restarted, it takes GETs again" {
    start_service "$REP" --threads 2 --replicas "$(rep_url 0),$(rep_url 1)"
    # The load runs until the replica, killed once GETs flow, has had
    # lookups passed on from it, and 100 more GETs have been answered.
    load_bg --keys "$BATS_FILE_TMPDIR/rep.ids" --create-ratio 0 --connections 4
    local n
    wait_stat .store.replica_reads 100 "$LOAD"
    stop_pg_replica 0 KILL
    wait_stat .store.failovers 1 "$LOAD"
    n=$(stat_field '.routes["GET /link/<id>"]["200"]')
    wait_stat '.routes["GET /link/<id>"]["200"]' $((n + 100)) "$LOAD"
    load_end
    [ "$(jq '.result.requests_failed' "$BATS_TEST_TMPDIR/load.json")" -eq 0 ]
    [ "$(stat_field .store.failovers)" -ge 1 ]
    [ "$(stat_field '.routes["GET /link/<id>"]["503"] // 0')" -eq 0 ]
    restart_pg_replica 0
    local before i ok=0
    before=$(stat_field .store.reconnects)
    for i in $(seq 1 300); do
        curl -fsS -o /dev/null "$SERVICE_URL/link/$(head -n1 "$BATS_FILE_TMPDIR/rep.ids")"
        if [ "$(stat_field .store.reconnects)" -gt "$before" ]; then ok=1; break; fi
        sleep 0.1
    done
    [ "$ok" = 1 ]
}

@test "pg: the primary killed: creates 503 with one clear error, GETs go on through a replica; back, creates succeed" {
    start_service "$REP" --threads 2 --replicas "$(rep_url 0)"
    local id
    id=$(head -n1 "$BATS_FILE_TMPDIR/rep.ids")
    kill_pg KILL
    req POST /link -d '{"url": "https://down.example/"}' -D "$BATS_TEST_TMPDIR/head"
    [ "$STATUS" = 503 ]
    assert_equal "$(head -n1 "$BATS_TEST_TMPDIR/head" | tr -d '\r')" "HTTP/1.1 503 Service Unavailable"
    [ "$(jq -r .error <<<"$BODY")" = "store unavailable: the primary cannot be reached" ]
    local i
    for i in $(seq 1 20); do
        req GET "/link/$id"
        [ "$STATUS" = 200 ] || { echo "GET with the primary down: $STATUS $BODY" >&2; return 1; }
    done
    restart_pg
    local t0 ok=0
    t0=$(date +%s%N)
    for i in $(seq 1 600); do
        req POST /link -d '{"url": "https://back.example/"}'
        if [ "$STATUS" = 201 ]; then ok=1; break; fi
        sleep 0.1
    done
    echo "creates again after $((($(date +%s%N) - t0) / 1000000)) ms"
    [ "$ok" = 1 ]
    req GET "/link/$(jq -r .short_link <<<"$BODY")"
    [ "$STATUS" = 200 ]
    [ "$(stat_field .store.unavailable)" -ge 1 ]
    [ "$(stat_field '.routes["POST /link"]["500"] // 0')" -eq 0 ]
}

@test "pg: the server killed during a load: failures counted and reported, no crash; back, the service recovers" {
    "$KVTEST" shortener init "$DB" --links 500 >/dev/null
    "$KVTEST" shortener keys "$DB" >"$BATS_TEST_TMPDIR/ids"
    start_service "$DB" --threads 2
    # The load runs until the server, killed once GETs flow, has had GETs
    # failed (503), and, restarted, 100 more GETs have been answered.
    load_bg --keys "$BATS_TEST_TMPDIR/ids" --create-ratio 0.1 --connections 4 --allow-failures
    local n
    wait_stat '.routes["GET /link/<id>"]["200"]' 100 "$LOAD"
    kill_pg KILL
    wait_stat '.routes["GET /link/<id>"]["503"]' 1 "$LOAD"
    restart_pg
    n=$(stat_field '.routes["GET /link/<id>"]["200"]')
    wait_stat '.routes["GET /link/<id>"]["200"]' $((n + 100)) "$LOAD"
    load_end
    jq -c '.result.failures' "$BATS_TEST_TMPDIR/load.json"
    [ "$(jq '.result.requests_failed' "$BATS_TEST_TMPDIR/load.json")" -gt 0 ]
    [ "$(jq '.result.failures.http_status' "$BATS_TEST_TMPDIR/load.json")" -gt 0 ]
    kill -0 "$SERVICE_PID"
    [ "$(stat_field '.routes["GET /link/<id>"]["503"]')" -gt 0 ]
    local i ok=0
    for i in $(seq 1 600); do
        req POST /link -d '{"url": "https://recovered.example/"}'
        if [ "$STATUS" = 201 ]; then ok=1; break; fi
        sleep 0.1
    done
    [ "$ok" = 1 ]
    req GET "/link/$(head -n1 "$BATS_TEST_TMPDIR/ids")"
    [ "$STATUS" = 200 ]
}

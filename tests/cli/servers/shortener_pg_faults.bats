#!/usr/bin/env bats
# The PostgreSQL store's failures, placed and timed where
# shortener_pg.bats only kills and restarts: whether "shortener init" is
# atomic when it fails at each of its steps (src/shortener/store/
# links_pg_create.c: BEGIN, DROP with --force, CREATE, COPY, the keys, the
# identity's setval, ANALYZE, COMMIT, all in one transaction), and how a
# reconnect's pause grows while the server is down (links_pg.c and the
# manual: at once, then 100 ms doubling to 2 s, starting over once
# connected). An init step is failed by hooks in the test's own database
# (event triggers and triggers, set off by PGOPTIONS for that one run
# only): at the step, the statement raises an error, the backend is
# terminated, or it sleeps until the test kills the whole server. Each
# failure must leave the database as it was: the same relations (by oid),
# the old store's rows. One private server for the file, on a free
# loopback port; the tests that stop it run last.
# In servers/, so make test-servers runs it: a PostgreSQL server, stopped,
# killed and restarted.

load '../../lib/common'

setup_file() {
    # One server for every test, which stop and restart it: never two
    # tests at once under bats --jobs.
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
    export KVTEST_STORE=postgres
    start_pg
    # fsync off: the tests kill the server, not the machine, so the kernel
    # keeps every write; with it on, a restart's crash recovery (a sync of
    # the whole data directory) and the checkpoints took 10 s and more on a
    # busy machine
    pg_sql "ALTER SYSTEM SET fsync = off" >/dev/null
    pg_sql "SELECT pg_reload_conf()" >/dev/null
}

teardown_file() {
    stop_all_pg
}

setup() {
    shortener_setup
    PROBE=$BATS_TEST_DIRNAME/../../lib/reconnect_probe.py
    INITS=()   # inits a test runs in the background
}

teardown() {
    local p
    for p in "${INITS[@]}"; do stop_leftover "$p"; done
    shortener_teardown
}

# The hooks, in $DB: kvtest.fail_at (set for one init by PGOPTIONS) names
# the step, kvtest.fail_how what happens there: error (the statement
# raises), terminate (the backend ends itself, as pg_terminate_backend
# from another session would: the client sees the connection lost) or
# pause (it sleeps, holding the transaction open, until the test kills the
# server). Steps: drop and create (before the COPY; event triggers at the
# start of the command), copy (a row trigger at id 1000, made with the
# table: 999 rows are in), keys (at the start of the ALTER TABLE),
# setval (the identity's sequence gets MAXVALUE 2 with the keys, so
# setval's value is out of range: error only), analyze (an expression
# index whose function fails inside ANALYZE only), commit (with the keys,
# a row into a table with a deferred constraint trigger, which runs in
# COMMIT).
install_hooks() {
    psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<'EOF'
CREATE FUNCTION kvtest_fail(step text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('kvtest.fail_how', true) = 'terminate' THEN
        PERFORM pg_terminate_backend(pg_backend_pid());
        PERFORM pg_sleep(60);   -- ended by the signal at its first check
    ELSIF current_setting('kvtest.fail_how', true) = 'pause' THEN
        PERFORM pg_sleep(60);   -- ended by the test killing the server
    END IF;
    RAISE EXCEPTION 'kvtest_fail: % failed on purpose', step;
END $$;
CREATE FUNCTION kvtest_fail_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM kvtest_fail(TG_ARGV[0]);
    RETURN NEW;
END $$;
-- "immutable" for the index; it fails in ANALYZE, not in the index build
CREATE FUNCTION kvtest_fail_analyze(x bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF current_query() ILIKE 'ANALYZE%' THEN
        PERFORM kvtest_fail('ANALYZE');
    END IF;
    RETURN x;
END $$;
-- a row in it, put in by init's transaction, fails that transaction's
-- COMMIT (links itself cannot have pending trigger events: the keys' ALTER
-- TABLE would refuse)
CREATE TABLE kvtest_at_commit(x int);
CREATE CONSTRAINT TRIGGER kvtest_fail_commit AFTER INSERT ON kvtest_at_commit
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION kvtest_fail_row('COMMIT');
CREATE FUNCTION kvtest_fail_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE
    at text := coalesce(current_setting('kvtest.fail_at', true), '');
BEGIN
    IF tg_event = 'ddl_command_start' THEN
        IF (at = 'drop' AND tg_tag = 'DROP TABLE') OR (at = 'create' AND tg_tag = 'CREATE TABLE')
           OR (at = 'keys' AND tg_tag = 'ALTER TABLE') THEN
            PERFORM kvtest_fail(tg_tag);
        END IF;
    ELSIF tg_tag = 'CREATE TABLE' AND at = 'copy' THEN
        CREATE TRIGGER kvtest_fail_copy BEFORE INSERT ON links FOR EACH ROW
            WHEN (NEW.id = 1000) EXECUTE FUNCTION kvtest_fail_row('COPY');
    ELSIF tg_tag = 'ALTER TABLE' AND at = 'commit' THEN
        INSERT INTO kvtest_at_commit VALUES (1);
    ELSIF tg_tag = 'ALTER TABLE' AND at = 'setval' THEN
        EXECUTE format('ALTER SEQUENCE %s MAXVALUE 2', pg_get_serial_sequence('links', 'id'));
    ELSIF tg_tag = 'ALTER TABLE' AND at = 'analyze' THEN
        CREATE INDEX kvtest_fail_analyze ON links ((kvtest_fail_analyze(id)));
    END IF;
END $$;
CREATE EVENT TRIGGER kvtest_fail_start ON ddl_command_start EXECUTE FUNCTION kvtest_fail_ddl();
CREATE EVENT TRIGGER kvtest_fail_end ON ddl_command_end EXECUTE FUNCTION kvtest_fail_ddl();
EOF
}

# db_state: what a failed init must not change: every relation outside
# the system schemas with its kind and oid (the old table is the same
# object, not a copy), the schemas, prepared transactions, indexes,
# triggers, and, when there is a links table, its rows and the identity's
# sequence. One psql.
db_state() {
    psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$DB" <<'EOF'
SELECT n.nspname || '.' || c.relname || ' ' || c.relkind::text || ' ' || c.oid
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
      AND n.nspname NOT LIKE 'pg_toast%' ORDER BY 1;
SELECT 'schemas: ' || string_agg(nspname, ' ' ORDER BY nspname) FROM pg_namespace;
SELECT 'prepared: ' || count(*) FROM pg_prepared_xacts;
SELECT 'index: ' || indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname;
SELECT 'trigger: ' || tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1;
SELECT to_regclass('links') IS NOT NULL AS has_links \gset
\if :has_links
SELECT 'rows: ' || count(*) || ' ' || coalesce(md5(string_agg(
    id || ' ' || link_hash || ' ' || link_target || ' ' || created_at, E'\n' ORDER BY id)), '')
    FROM links;
\endif
SELECT to_regclass('links_id_seq') IS NOT NULL AS has_seq \gset
\if :has_seq
SELECT 'sequence: ' || last_value || ' ' || is_called FROM links_id_seq;
\endif
EOF
}

# fail_init STEP HOW ROUND: "shortener init --links 2000 --force" with the
# hook at STEP (HOW: error or terminate) on $DB as ROUND left it (fresh: no
# links table; force: an old store of 300 links): exit 1, one line naming
# the failure, the database's state as before.
fail_init() {
    local step=$1 how=$2 round=$3 want
    db_state >"$D/before"
    run env PGOPTIONS="-c kvtest.fail_at=$step -c kvtest.fail_how=$how" \
        "$KVTEST" shortener init "$DB" --links 2000 --force
    echo "$step, $how, $round: exit $status: $output"
    assert_failure 1
    [ "${#lines[@]}" -eq 1 ] || fail "$step ($how, $round): ${#lines[@]} lines"
    case $step/$how in
        copy/error) want="kvtest_fail: COPY failed on purpose*COPY links, line 1000*" ;;
        setval/error) want="setval: value 2001 is out of bounds for sequence" ;;
        */error) want="kvtest_fail: * failed on purpose" ;;
        # the server's reason, not only libpq's "server closed the connection"
        */terminate) want="terminating connection due to administrator command*" ;;
    esac
    # shellcheck disable=SC2053  # the pattern is a glob on purpose
    [[ "$output" == "kvtest shortener init: $DB: "$want* ]] || fail "$step ($how, $round): $output"
    db_state >"$D/after"
    diff "$D/before" "$D/after" || fail "$step ($how, $round): the database changed"
}

# rounds_of STEP HOW...: fail_init at STEP with the first HOW on a database
# without a links table (but for drop, which needs one), then with each HOW
# on one with an old store, whose 300 links are there at the end.
rounds_of() {
    local step=$1 how
    shift
    store_sql 'SET client_min_messages = warning; DROP TABLE IF EXISTS links' >/dev/null
    [ "$step" = drop ] || fail_init "$step" "$1" fresh
    "$KVTEST" shortener init "$DB" --links 300 --seed 5 >/dev/null
    for how in "$@"; do
        fail_init "$step" "$how" force
    done
    [ "$(store_sql 'SELECT count(*) FROM links')" = 300 ]
}

@test "pg faults: the hooks leave a successful init alone, and init over its own store works" {
    install_hooks
    run "$KVTEST" shortener init "$DB" --links 2000
    assert_success
    assert_output "Created $DB with 2000 links"
    run "$KVTEST" shortener init "$DB" --links 2000 --force
    assert_success
    [ "$(store_sql 'SELECT count(*), count(DISTINCT link_hash), max(id) FROM links')" = "2000|2000|2000" ]
    [ "$(store_sql "SELECT count(*) FROM pg_indexes WHERE tablename = 'links'")" = 2 ]
    [ "$(store_sql "SELECT nextval(pg_get_serial_sequence('links', 'id'))")" = 2001 ]
}

@test "pg faults: init failing before the COPY (DROP, CREATE) leaves the database as it was" {
    install_hooks
    rounds_of drop error terminate
    rounds_of create error terminate
}

@test "pg faults: init failing during the COPY (at row 1000 of 2000) leaves the database as it was" {
    install_hooks
    rounds_of copy error terminate
}

@test "pg faults: init failing after the COPY (keys, setval, ANALYZE, COMMIT) leaves the database as it was" {
    install_hooks
    rounds_of keys error terminate
    rounds_of setval error
    rounds_of analyze error terminate
    rounds_of commit error terminate
}

# The server killed while two inits wait, one in its COPY (999 rows in),
# one in its COMMIT, each over an old store in a database of its own (one
# crash and restart for both): crash recovery must bring back neither.
# The tests that stop the server run last.
@test "pg faults: the server killed while init is in the COPY or in its COMMIT: back, the database is as it was" {
    local dbs=("$DB" "$(pg_new_db "t${BATS_TEST_NUMBER}b")") steps=(copy commit) k
    for k in 0 1; do
        DB=${dbs[k]} install_hooks
        "$KVTEST" shortener init "${dbs[k]}" --links 300 --seed 5 >/dev/null
        DB=${dbs[k]} db_state >"$D/before.$k"
        PGOPTIONS="-c kvtest.fail_at=${steps[k]} -c kvtest.fail_how=pause" \
            "$KVTEST" shortener init "${dbs[k]}" --links 2000 --force 2>"$D/err.$k" &
        INITS[k]=$!
    done
    # until both inits' backends sleep in their hooks (60 s at most)
    local i n=0
    for i in $(seq 1 600); do
        n=$(psql -X -A -t -d "$DB" -c "SELECT count(*) FROM pg_stat_activity
            WHERE application_name = 'kvtest' AND wait_event = 'PgSleep'")
        [ "$n" = 2 ] && break
        : "$i"
        sleep 0.1
    done
    [ "$n" = 2 ] || fail "$n inits waiting in their hooks, wanted 2"
    kill_pg KILL
    for k in 0 1; do
        status=0
        wait "${INITS[k]}" || status=$?
        INITS[k]=
        echo "${steps[k]}: exit $status: $(cat "$D/err.$k")"
        [ "$status" -eq 1 ]
        [ "$(wc -l <"$D/err.$k")" -eq 1 ]
        grep -q "^kvtest shortener init: ${dbs[k]}: .*connection" "$D/err.$k"
    done
    restart_pg
    for k in 0 1; do
        DB=${dbs[k]} db_state >"$D/after.$k"
        diff "$D/before.$k" "$D/after.$k" || fail "${steps[k]}: the database changed"
    done
}

@test "pg faults: a reconnect is tried at once, then after 100 ms doubling to 2 s; back, it recovers and the pauses start over" {
    "$KVTEST" shortener init "$DB" --links 10 >/dev/null
    local id
    id=$("$KVTEST" shortener keys "$DB" --limit 1)
    start_service "$DB" --threads 1
    curl -fsS -o /dev/null "$SERVICE_URL/link/$id"
    # down: attempts 0..6, the last after the first 2 s pause (5.1 s of
    # pauses; 30 s at most)
    kill_pg INT
    run python3 "$PROBE" down "$SERVICE_PORT" "$id" 7 30
    echo "$output"
    [ "$status" -eq 0 ]
    # back: the next attempt connects, within the longest pause
    restart_pg
    run python3 "$PROBE" up "$SERVICE_PORT" "$id" 30
    echo "$output"
    [ "$status" -eq 0 ]
    # down again: the pauses start over at 100 ms, not at 2 s
    kill_pg INT
    run python3 "$PROBE" down "$SERVICE_PORT" "$id" 3 30
    echo "$output"
    [ "$status" -eq 0 ]
    restart_pg
    run python3 "$PROBE" up "$SERVICE_PORT" "$id" 30
    echo "$output"
    [ "$status" -eq 0 ]
}

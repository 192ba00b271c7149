#!/usr/bin/env bats
# shortener init --schema / --from, bench --compare-db, and bench's cache
# break-even line: real SQLite files and a real valkey-server.

load '../../lib/common'

setup() {
    shortener_setup
    COV=$BATS_TEST_TMPDIR/covering.db
}

teardown() {
    shortener_teardown
}

@test "init refuses an unknown --schema with exit 2 and creates nothing" {
    run "$KVTEST" shortener init "$DB" --schema fast --links 10
    [ "$status" -eq 2 ]
    assert_output --partial "--schema must be seed or covering"
    [ ! -e "$DB" ]
}

@test "init --from and --links exclude each other; --from a missing database fails" {
    "$KVTEST" shortener init "$DB" --links 10 >/dev/null
    run "$KVTEST" shortener init "$COV" --from "$DB" --links 5
    [ "$status" -eq 2 ]
    [ ! -e "$COV" ]
    run "$KVTEST" shortener init "$COV" --from "$BATS_TEST_TMPDIR/none.db"
    [ "$status" -eq 1 ]
    assert_output --partial none.db
    [ ! -e "$COV" ]
}

@test "init --schema covering --from: the same links, a WITHOUT ROWID table, served alike" {
    "$KVTEST" shortener init "$DB" --links 200 --seed 4 >/dev/null
    run "$KVTEST" shortener init "$COV" --schema covering --from "$DB"
    assert_success
    assert_output --partial "with 200 links"
    assert_output --partial "Schema: covering"
    run python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("select sql from sqlite_schema where name=?", ("links",)).fetchone()[0])' "$COV"
    assert_output --partial "WITHOUT ROWID"
    [ "$("$KVTEST" shortener keys "$DB" | md5sum)" = "$("$KVTEST" shortener keys "$COV" | md5sum)" ]
    # the service detects the schema: create and resolve work on it
    start_service "$COV" --threads 2
    id=$("$KVTEST" shortener keys "$DB" --limit 1)
    want=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("select link_target from links where link_hash=?", (sys.argv[2],)).fetchone()[0])' "$DB" "$id")
    run curl -fsS "$SERVICE_URL/link/$id"
    assert_output "{\"link\":\"$want\"}"
    run curl -sS -o /dev/null -w '%{http_code}' "$SERVICE_URL/link/${id}x"
    assert_output 404
    run curl -fsS -X POST -d '{"url":"https://example.com/c"}' "$SERVICE_URL/link"
    assert_success
    new=$(jq -r .short_link <<<"$output")
    run curl -fsS "$SERVICE_URL/link/$new"
    assert_output '{"link":"https://example.com/c"}'
}

@test "bench --compare-db adds the covering schema as its own row with its ratio to sqlite" {
    "$KVTEST" shortener init "$DB" --links 300 --seed 4 >/dev/null
    "$KVTEST" shortener init "$COV" --schema covering --from "$DB" >/dev/null
    run "$KVTEST" shortener bench "$DB" --compare-db "$COV" --configs sqlite \
        --lookups 1000 --repeat 2 --miss 0.2 --json
    assert_success
    [ "$(jq -r '.result.configs | map(.config) | join(",")' <<<"$output")" = "sqlite,sqlite-covering" ]
    [ "$(jq -r '.result.configs[1].schema' <<<"$output")" = covering ]
    [ "$(jq -r '.result.configs[0].schema' <<<"$output")" = seed ]
    [ "$(jq '.result.configs[1].ratio_to_sqlite > 0' <<<"$output")" = true ]
    [ "$(jq '[.result.configs[] | .wrong_answers] | add' <<<"$output")" -eq 0 ]
    [ "$(jq -r '.options.compare_db' <<<"$output")" = "$COV" ]
    run "$KVTEST" shortener bench "$DB" --compare-db "$COV" --configs sqlite --lookups 500 --repeat 1
    assert_success
    [ "$(grep -c '^sqlite-covering ' <<<"$output")" -eq 1 ]
}

@test "bench --compare-db with other links reports wrong answers and fails" {
    "$KVTEST" shortener init "$DB" --links 100 --seed 4 >/dev/null
    "$KVTEST" shortener init "$COV" --schema covering --links 100 >/dev/null
    run "$KVTEST" shortener bench "$DB" --compare-db "$COV" --configs sqlite --lookups 200 --repeat 1
    [ "$status" -eq 1 ]
    assert_output --partial "sqlite-covering: "
    assert_output --partial "wrong answers"
}

@test "bench states the cache break-even from its own figures (text and JSON, warm and --cold)" {
    "$KVTEST" shortener init "$DB" --links 300 --seed 4 >/dev/null
    start_valkey
    run "$KVTEST" shortener bench "$DB" --cache "$VALKEY_URL" --cache-timeout 2000 --configs sqlite,valkey \
        --lookups 1000 --repeat 2 --json
    assert_success
    j=$output
    [ "$(jq -r .result.break_even.sqlite_state <<<"$j")" = warm ]
    [ "$(jq .result.break_even.sqlite_cold_us <<<"$j")" = null ]
    # the figures are the rows' medians
    [ "$(jq '(.result.break_even.sqlite_us - .result.configs[0].latency.p50) | fabs < 0.01' <<<"$j")" = true ]
    [ "$(jq '(.result.break_even.cache_hit_us - .result.configs[1].latency.p50) | fabs < 0.01' <<<"$j")" = true ]
    [ "$(jq '.result.break_even | .pays_off == (.sqlite_us > .cache_hit_us)' <<<"$j")" = true ]
    [[ "$(jq -r .result.break_even.statement <<<"$j")" == *"run with --cold for the cost from disk"* ]]
    run "$KVTEST" shortener bench "$DB" --cache "$VALKEY_URL" --cache-timeout 2000 --configs sqlite,valkey \
        --lookups 1000 --repeat 2
    assert_success
    assert_output --regexp "Valkey cache-aside pays off only when an SQLite lookup costs more than [0-9.]+ µs \(the median cost of a cache hit here\); SQLite lookups cost [0-9.]+ µs warm"
    run "$KVTEST" shortener bench "$DB" --cache "$VALKEY_URL" --cache-timeout 2000 --configs sqlite,valkey \
        --lookups 500 --repeat 1 --cold --json
    assert_success
    [ "$(jq -r .result.break_even.sqlite_state <<<"$output")" = cold ]
    [ "$(jq '.result.break_even.sqlite_cold_us > 0' <<<"$output")" = true ]
    [ "$(jq .result.break_even.sqlite_warm_us <<<"$output")" = null ]
    # without a valkey row there is nothing to compare: no line, null in JSON
    run "$KVTEST" shortener bench "$DB" --configs sqlite --lookups 200 --repeat 1 --json
    [ "$(jq .result.break_even <<<"$output")" = null ]
}

#!/usr/bin/env bats
# --csv (issue 21): every command with --json writes the same fields as CSV,
# one header line and one row per measurement. Each test runs a command
# twice, with --json and with --csv, and checks that the CSV header is the
# JSON's keys flattened by the rules in src/base/csv.h (computed here with
# jq from the JSON, so the two outputs cannot drift apart), that the row
# count is the measurement count, and that python3's csv module reads every
# row with as many fields as the header. No timing is asserted.

load '../../lib/common'

setup() {
    common_setup
    shortener_setup
}

teardown() {
    shortener_teardown
}

# json_columns ROWS < JSON-LINES: the header csv.h promises for these
# objects: leaves named by their path with dots (an array of scalars is one
# leaf), the index of the ROWS array (a dotted path, "" for none) dropped,
# the union over all objects in first-seen order.
json_columns() {
    jq -rs --arg rows "$1" '
        def scalar: type != "object" and type != "array";
        def leaf: scalar or (type == "array" and all(.[]; scalar));
        def lp: if leaf then []
                else (if type == "object" then keys_unsorted[] else range(length) end) as $k
                     | (.[$k] | lp) as $p | [$k] + $p end;
        ($rows | if . == "" then [] else split(".") end) as $r
        | ($r | length) as $n
        | [.[] | (if $n > 0 then (getpath($r) | type == "array" and length > 0) else false end) as $has
           | [lp][] | if $has and length > $n and .[:$n] == $r then .[:$n] + .[$n + 1:] else . end
           | map(tostring) | join(".")]
        | reduce .[] as $c ([]; if any(.[]; . == $c) then . else . + [$c] end)
        | join(",")'
}

# json_rows ROWS < JSON-LINES: how many rows: the ROWS array's length per
# object, or 1 where it is missing or empty.
json_rows() {
    jq -s --arg rows "$1" '
        ($rows | if . == "" then [] else split(".") end) as $r
        | map(if $r == [] then 1 else (getpath($r) | if type == "array" and length > 0
              then length else 1 end) end) | add'
}

# csv_rows FILE: data rows as python3's csv module reads them; fails when a
# row has a different number of fields from the header.
csv_rows() {
    python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows, "no header"
bad = [i for i, r in enumerate(rows) if len(r) != len(rows[0])]
assert not bad, "rows %s: %d fields, header %d" % (bad, len(rows[bad[0]]), len(rows[0]))
print(len(rows) - 1)' "$1"
}

# csv_column FILE NAME: that column's cells, one a line.
csv_column() {
    python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    print(r[sys.argv[2]])' "$1" "$2"
}

# same_as_json ROWS JSONFILE CSVFILE: header and row count as promised.
same_as_json() {
    run json_columns "$1" <"$2"
    assert_success
    local want=$output
    run head -1 "$3"
    assert_output "$want"
    run json_rows "$1" <"$2"
    local nrows=$output
    run csv_rows "$3"
    assert_success
    assert_output "$nrows"
}

@test "run --repeat 3 --csv: the JSON's columns, one row per round" {
    "$KVTEST" init "$D/x.db" --count 50 --size 1k >/dev/null
    "$KVTEST" run "$D/x.db" --count 50 --repeat 3 --json >"$D/r.json"
    "$KVTEST" run "$D/x.db" --count 50 --repeat 3 --csv >"$D/r.csv"
    same_as_json result.runs "$D/r.json" "$D/r.csv"
    run csv_rows "$D/r.csv"
    assert_output 3
    run csv_column "$D/r.csv" result.runs.count
    assert_output "$(printf '50\n50\n50')"
    run csv_column "$D/r.csv" options.count
    assert_output "$(printf '50\n50\n50')"
}

@test "a path with a comma and quotes: one field, read back as written" {
    local p="$D/a,\"b\".db"
    "$KVTEST" init "$p" --count 10 --size 100 >/dev/null
    run "$KVTEST" run "$p" --count 10 --csv
    assert_success
    printf '%s\n' "$output" >"$D/q.csv"
    run csv_column "$D/q.csv" path
    assert_output "$p"
    run csv_rows "$D/q.csv"
    assert_output 1
}

@test "init, stat, export and space --csv: the JSON's columns; space one row per layout" {
    "$KVTEST" init "$D/j.db" --count 30 --size 1k --json >"$D/i.json"
    "$KVTEST" init "$D/c.db" --count 30 --size 1k --csv >"$D/i.csv"
    same_as_json "" "$D/i.json" "$D/i.csv"
    "$KVTEST" stat "$D/c.db" --json >"$D/s.json"
    "$KVTEST" stat "$D/c.db" --csv >"$D/s.csv"
    same_as_json "" "$D/s.json" "$D/s.csv"
    "$KVTEST" export "$D/c.db" "$D/ej" --json >"$D/e.json"
    "$KVTEST" export "$D/c.db" "$D/ec" --csv >"$D/e.csv"
    same_as_json "" "$D/e.json" "$D/e.csv"
    "$KVTEST" space "$D/c.db" "$D/ec" --json >"$D/p.json"
    "$KVTEST" space "$D/c.db" "$D/ec" --csv >"$D/p.csv"
    same_as_json layouts "$D/p.json" "$D/p.csv"
    run csv_rows "$D/p.csv"
    assert_output "$(jq '.layouts | length' "$D/p.json")"
}

@test "sweep --csv: one row per blob size" {
    "$KVTEST" sweep "$D/sj" --sizes 1k,4k --total 32k --warmup 0 --json >"$D/w.json"
    "$KVTEST" sweep "$D/sc" --sizes 1k,4k --total 32k --warmup 0 --csv >"$D/w.csv"
    same_as_json rows "$D/w.json" "$D/w.csv"
    run csv_rows "$D/w.csv"
    assert_output 2
}

@test "compare --csv: one row per table row" {
    "$KVTEST" init "$D/x.db" --count 50 --size 1k >/dev/null
    "$KVTEST" run "$D/x.db" --count 50 --repeat 3 --json >"$D/a.json"
    "$KVTEST" run "$D/x.db" --count 50 --repeat 3 --json >"$D/b.json"
    "$KVTEST" compare "$D/a.json" "$D/b.json" --json >"$D/c.json"
    "$KVTEST" compare "$D/a.json" "$D/b.json" --csv >"$D/c.csv"
    same_as_json rows "$D/c.json" "$D/c.csv"
    run csv_rows "$D/c.csv"
    assert_output "$(jq '.rows | length' "$D/c.json")"
}

@test "shortener bench --csv: one row per configuration" {
    "$KVTEST" shortener init "$DB" --links 200 --seed 3 >/dev/null
    "$KVTEST" shortener bench "$DB" --lookups 300 --repeat 2 --warmup 0 --json >"$D/b.json"
    "$KVTEST" shortener bench "$DB" --lookups 300 --repeat 2 --warmup 0 --csv >"$D/b.csv"
    same_as_json result.configs "$D/b.json" "$D/b.csv"
    run csv_rows "$D/b.csv"
    assert_output "$(jq '.result.configs | length' "$D/b.json")"
}

@test "shortener load and serve --csv against the real service: one row each" {
    "$KVTEST" shortener init "$DB" --links 200 --seed 3 >/dev/null
    start_service "$DB" --csv
    "$KVTEST" shortener load "$SERVICE_URL" --tasks 20 --json >"$D/l.json"
    "$KVTEST" shortener load "$SERVICE_URL" --tasks 20 --csv >"$D/l.csv"
    same_as_json "" "$D/l.json" "$D/l.csv"
    run csv_column "$D/l.csv" options.tasks
    assert_output 20
    stop_service TERM
    assert_equal "$SERVICE_STATUS" 0
    cp "$SERVICE_OUT" "$D/serve.csv"
    # serve --csv's counters at shutdown against a --json service's after
    # the same two loads (the routes hit make columns).
    start_service "$DB" --json
    "$KVTEST" shortener load "$SERVICE_URL" --tasks 20 >/dev/null
    "$KVTEST" shortener load "$SERVICE_URL" --tasks 20 >/dev/null
    stop_service TERM
    assert_equal "$SERVICE_STATUS" 0
    same_as_json "" "$SERVICE_OUT" "$D/serve.csv"
    run csv_column "$D/serve.csv" requests
    assert_output "$(jq .requests "$SERVICE_OUT")"
}

@test "--csv and --json together: exit 2, one line, before any work" {
    "$KVTEST" init "$D/x.db" --count 10 --size 100 >/dev/null
    expect_error 2 "--csv and --json cannot be combined" run "$D/x.db" --csv --json
    expect_error 2 "--csv and --json cannot be combined" stat "$D/x.db" --json --csv
    expect_error 2 "--csv and --json cannot be combined" space "$D/x.db" "$D" --csv --json
    expect_error 2 "--csv and --json cannot be combined" init "$D/n.db" --csv --json
    [ ! -e "$D/n.db" ]
    expect_error 2 "--csv and --json cannot be combined" export "$D/x.db" "$D/e" --csv --json
    [ ! -e "$D/e" ]
    expect_error 2 "--csv and --json cannot be combined" sweep "$D/s" --csv --json
    [ ! -e "$D/s" ]
    expect_error 2 "--csv and --json cannot be combined" compare "$D/a" "$D/b" --csv --json
    expect_error 2 "--csv and --json cannot be combined" shortener bench "$D/x.db" --csv --json
    expect_error 2 "--csv and --json cannot be combined" shortener load http://127.0.0.1:9 --csv --json
    expect_error 2 "--csv and --json cannot be combined" shortener serve "$D/x.db" --csv --json
}

@test "every command whose help lists --json lists --csv" {
    for c in run stat space init export sweep compare; do
        run "$KVTEST" help "$c"
        assert_output --partial "  --csv "
    done
    for c in bench load serve; do
        run "$KVTEST" shortener "$c" --help
        assert_output --partial "  --csv "
    done
}

@test "the core build (json_core.c instead of libcjson): the same header as its --json, one row per round" {
    [ -n "${KVTEST_CORE_BIN:-}" ] || skip "KVTEST_CORE_BIN not set (make test sets it)"
    "$KVTEST_CORE_BIN" init "$D/x.db" --count 20 --size 1k >/dev/null
    "$KVTEST_CORE_BIN" run "$D/x.db" --count 20 --repeat 2 --json >"$D/r.json"
    "$KVTEST_CORE_BIN" run "$D/x.db" --count 20 --repeat 2 --csv >"$D/r.csv"
    same_as_json result.runs "$D/r.json" "$D/r.csv"
    run csv_rows "$D/r.csv"
    assert_output 2
}

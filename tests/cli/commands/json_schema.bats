#!/usr/bin/env bats
# The JSON Schemas of docs/json/ against real output: every command that
# prints --json is run for real (small SQLite files, a real service on a
# loopback port for shortener load) and each object is checked with
# scripts/dev/jsonschema.py, which must accept it. The checker must also
# refuse real output altered the ways a reader would be hurt by (a
# required field gone, a number turned into a string, schema_version 2),
# naming FILE:LINE and the JSON path; every schema must be a valid draft
# 2020-12 schema; and every command whose help lists --json must have a
# schema (the list comes from kvtest's own help, not from this file).
# Debian's /usr/bin/python3 runs the checker (python3-jsonschema); without
# that module the tests skip. No timing is asserted.

load '../../lib/common'

setup() {
    shortener_setup
    H=/usr/bin/python3
    "$H" -c 'import jsonschema' 2>/dev/null || skip "$H cannot import jsonschema (apt-get install python3-jsonschema)"
    CHECK="$KVTEST_ROOT/scripts/dev/jsonschema.py"
    SCHEMAS=$(cd "$KVTEST_ROOT/docs/json" && pwd)
}

teardown() {
    shortener_teardown
}

# valid NAME FILE...: every object of the FILEs matches docs/json/NAME.schema.json.
valid() {
    local name=$1
    shift
    run "$H" "$CHECK" "$SCHEMAS/$name.schema.json" "$@"
    assert_success
    assert_output ""
}

# json_commands: "init", ..., "shortener load", one a line: every command
# and shortener subcommand that kvtest's help lists, whose own help has a
# --json option.
json_commands() {
    local c
    "$KVTEST" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' | grep -vx -e help -e shortener |
        while read -r c; do
            if "$KVTEST" help "$c" | grep -qE '^  --json( |$)'; then echo "$c"; fi
        done
    "$KVTEST" shortener --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' |
        while read -r c; do
            if "$KVTEST" shortener "$c" --help | grep -qE '^  --json( |$)'; then echo "shortener $c"; fi
        done
}

@test "every schema is a valid draft 2020-12 schema and each \$ref in it resolves" {
    run "$H" - "$SCHEMAS" <<'EOF'
import json, pathlib, sys
from jsonschema import Draft202012Validator, RefResolver
d = pathlib.Path(sys.argv[1]).resolve()
files = sorted(d.glob("*.schema.json"))
store = {f.as_uri(): json.loads(f.read_text()) for f in files}
def refs(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref":
                yield v
            else:
                yield from refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from refs(v)
n = 0
for f in files:
    s = store[f.as_uri()]
    Draft202012Validator.check_schema(s)
    assert s.get("$schema") == "https://json-schema.org/draft/2020-12/schema", f.name
    r = RefResolver(base_uri=f.as_uri(), referrer=s, store=store)
    for ref in refs(s):
        r.resolve(ref)
        n += 1
print(len(files), "schemas", n > 0)
EOF
    assert_success
    assert_output --regexp '^1[0-9] schemas True$'
}

@test "every command whose help lists --json has a schema, and every schema a command" {
    run json_commands
    assert_success
    local cmds=$output c f
    # The help format is what the list is read from: a change there must
    # not leave an empty list that passes.
    [ "$(wc -l <<<"$cmds")" -ge 12 ] || fail "only these commands found: $cmds"
    while read -r c; do
        f="$SCHEMAS/${c// /-}.schema.json"
        [ -f "$f" ] || fail "no schema for \"kvtest $c --json\": $f"
    done <<<"$cmds"
    for f in "$SCHEMAS"/*.schema.json; do
        c=$(basename "$f" .schema.json)
        case $c in env | common) continue ;; esac
        grep -qx "${c/shortener-/shortener }" <<<"$cmds" || fail "$f: no command \"kvtest ${c/shortener-/shortener }\" lists --json"
    done
}

@test "init, export and stat: every shape against its schema" {
    "$KVTEST" init "$D/x.db" --count 100 --size 1k --variance 200 --json >"$D/init.jsonl"
    "$KVTEST" init "$D/s.db" --sizes-from <("$KVTEST" stat "$D/x.db" --json) --count 20 --json >>"$D/init.jsonl"
    "$KVTEST" export "$D/x.db" "$D/flat" --json >"$D/export.jsonl"
    "$KVTEST" export "$D/x.db" "$D/tree" --tree --json >>"$D/export.jsonl"
    "$KVTEST" export "$D/x.db" "lmdb:$D/l.mdb" --json >>"$D/export.jsonl"
    "$KVTEST" export "$D/x.db" "rocksdb:$D/r.rdb" --json >>"$D/export.jsonl"
    "$KVTEST" init "$D/f.db" --from "$D/flat" --json >>"$D/init.jsonl"
    for p in "$D/x.db" "$D/flat" "$D/tree" "lmdb:$D/l.mdb" "rocksdb:$D/r.rdb"; do
        "$KVTEST" stat "$p" --json >>"$D/stat.jsonl"
    done
    run jq -r '.result.layout' "$D/stat.jsonl"
    assert_output "$(printf 'db\nflat\ntree\nlmdb\nrocksdb')"
    run jq -r '[(.options | has("from")), (.options | has("sizes_from"))] | @tsv' "$D/init.jsonl"
    assert_output "$(printf 'false\tfalse\nfalse\ttrue\ntrue\tfalse')"
    run jq -r '.result.layout' "$D/export.jsonl"
    assert_output "$(printf 'flat\ntree\nlmdb\nrocksdb')"
    valid init "$D/init.jsonl"
    valid export "$D/export.jsonl"
    valid stat "$D/stat.jsonl"
}

@test "run: database (SQL, blob API, writes, --cold --verify --stats), exports and key-value stores against run.schema.json" {
    make_layouts "$D" --count 100 --size 1k
    "$KVTEST" export "$D/x.db" "lmdb:$D/l.mdb" >/dev/null
    "$KVTEST" export "$D/x.db" "rocksdb:$D/r.rdb" >/dev/null
    {
        "$KVTEST" run "$D/x.db" --count 100 --json
        "$KVTEST" run "$D/x.db" --count 100 --random --blob-api --repeat 3 --json
        "$KVTEST" run "$D/x.db" --count 50 --update --integrity-check --jmode wal --json
        "$KVTEST" run "$D/x.db" --count 50 --cold --verify --stats --threads 2 --json
        "$KVTEST" run "$D/flat" --count 100 --zipf 1.1 --json
        "$KVTEST" run "$D/tree" --count 100 --no-latency --fadvise random --json
        "$KVTEST" run "lmdb:$D/l.mdb" --count 100 --json
        "$KVTEST" run "rocksdb:$D/r.rdb" --count 50 --update --json
    } >"$D/run.jsonl"
    run jq -r '[.result.store, .result.api, .result.op] | join(" ")' "$D/run.jsonl"
    assert_output "$(printf '%s\n' 'db sql read' 'db blob read' 'db sql write' 'db sql read' \
        'flat stdio read' 'tree stdio read' 'lmdb lmdb read' 'rocksdb rocksdb write')"
    valid run "$D/run.jsonl"
}

@test "space, sweep, compare and history against their schemas" {
    make_layouts "$D" --count 100 --size 1k
    "$KVTEST" export "$D/x.db" "lmdb:$D/l.mdb" >/dev/null
    "$KVTEST" space "$D/x.db" "$D/flat" "$D/tree" "lmdb:$D/l.mdb" --json >"$D/space.json"
    valid space "$D/space.json"
    # Three rounds: the crossover's bootstrap interval is an object, not null.
    "$KVTEST" sweep "$D/sw" --sizes 1k,8k --total 32k --repeat 3 --warmup 0 --json >"$D/sweep.json"
    "$KVTEST" sweep "$D/sw1" --sizes 1k,4k --total 16k --warmup 0 --json >>"$D/sweep.json"
    "$KVTEST" sweep "$D/sw2" --sizes 1k,4k --total 16k --warmup 0 --stores db,files,lmdb,rocksdb \
        --json >>"$D/sweep.json"
    run jq -c '.crossovers // {} | keys' "$D/sweep.json"
    assert_output "$(printf '%s\n' '[]' '[]' '["files","lmdb","rocksdb"]')"
    valid sweep "$D/sweep.json"
    "$KVTEST" run "$D/x.db" --count 100 --repeat 4 --json >"$D/a.json"
    "$KVTEST" run "$D/x.db" --count 100 --repeat 4 --json >"$D/b.json"
    "$KVTEST" compare "$D/a.json" "$D/b.json" --json >"$D/compare.json"
    "$KVTEST" compare "$D/a.json" "$D/b.json" --paired --json >>"$D/compare.json"
    valid compare "$D/compare.json"
    # A step in a series of 16 commits (a change point), and one run's
    # series too short to analyse ("skipped").
    {
        echo commit,time,metric,value,unit
        for i in $(seq 1 16); do
            for s in 1 2 3; do echo "c$i,$((1700000000 + i)),read_us,$((i > 8 ? 20 : 10)).0$s,us"; done
        done
    } >"$D/h.csv"
    "$KVTEST" history "$D/h.csv" "$D/a.json" --json >"$D/history.json"
    run jq -r '[.summary.change_points, ([.series[].skipped | strings] | length > 0)] | @tsv' "$D/history.json"
    assert_output "$(printf '1\ttrue')"
    valid history "$D/history.json"
}

@test "shortener bench: SQLite configurations, and with a Valkey cache" {
    "$KVTEST" shortener init "$DB" --links 200 --seed 3 >/dev/null
    "$KVTEST" shortener bench "$DB" --lookups 300 --repeat 2 --warmup 0 --json >"$D/bench.jsonl"
    if command -v valkey-server >/dev/null; then
        start_valkey
        "$KVTEST" shortener bench "$DB" --cache "$VALKEY_URL" --lookups 300 --repeat 2 --warmup 0 \
            --json >>"$D/bench.jsonl"
        run jq -r '.result.break_even | type' "$D/bench.jsonl"
        assert_output "$(printf 'null\nobject')"
    fi
    valid shortener-bench "$D/bench.jsonl"
}

@test "shortener load (closed loop, --rate, --slo), load-merge and serve against the real service" {
    "$KVTEST" shortener init "$DB" --links 200 --seed 3 >/dev/null
    start_service "$DB" --json
    "$KVTEST" shortener load "$SERVICE_URL" --tasks 20 --json >"$D/load.jsonl"
    "$KVTEST" shortener load "$SERVICE_URL" --rate 200 --duration 0.5 --json >>"$D/load.jsonl"
    # p50 needs 40 samples a step: two short steps, the second at --rate-max.
    "$KVTEST" shortener load "$SERVICE_URL" --slo p50=500ms --rate-start 100 --rate-max 200 \
        --step-time 100ms --json >>"$D/load.jsonl" 2>"$D/slo.err"
    # A search whose first step breaks the bound: exit 1, its object printed
    # all the same (hi_per_s a number, not null).
    local st=0
    "$KVTEST" shortener load "$SERVICE_URL" --slo p50=1us --rate-start 200 --step-time 100ms \
        --json >>"$D/load.jsonl" 2>"$D/slo.err" || st=$?
    assert_equal "$st" 1
    "$KVTEST" shortener load "$SERVICE_URL" --scenario get --path /heart-beat --duration 0.3 \
        --json >>"$D/load.jsonl"
    run jq -r '[.options.mode, .result.capacity.outcome // .result.scenario] | join(" ")' "$D/load.jsonl"
    assert_output "$(printf '%s\n' 'tasks shortener' 'duration shortener' 'capacity at_rate_max' \
        'capacity below_first_step' 'duration get')"
    valid shortener-load "$D/load.jsonl"
    head -1 "$D/load.jsonl" >"$D/one.json"
    "$KVTEST" shortener load-merge "$D/one.json" --json >"$D/merge.json"
    valid shortener-load-merge "$D/merge.json"
    stop_service TERM
    assert_equal "$SERVICE_STATUS" 0
    valid shortener-serve "$SERVICE_OUT"
}

@test "the core build (json_core.c instead of libcjson): the blob commands' output against the same schemas" {
    [ -n "${KVTEST_CORE_BIN:-}" ] || skip "KVTEST_CORE_BIN not set (make test sets it)"
    local k=$KVTEST_CORE_BIN
    "$k" init "$D/x.db" --count 50 --size 1k --json >"$D/init.json"
    "$k" export "$D/x.db" "$D/flat" --json >"$D/export.json"
    "$k" stat "$D/x.db" --json >"$D/stat.jsonl"
    "$k" stat "$D/flat" --json >>"$D/stat.jsonl"
    "$k" run "$D/x.db" --count 50 --repeat 2 --json >"$D/run.json"
    "$k" space "$D/x.db" "$D/flat" --json >"$D/space.json"
    "$k" sweep "$D/sw" --sizes 1k,4k --total 16k --warmup 0 --json >"$D/sweep.json"
    run jq -r .env.build "$D/run.json"
    assert_output core
    for n in init export stat run space sweep; do
        valid "$n" "$D/$n".json*
    done
}

@test "the checker fails on real output altered: a field gone, renamed, a number as a string, schema_version 2" {
    "$KVTEST" init "$D/x.db" --count 20 --size 100 >/dev/null
    "$KVTEST" run "$D/x.db" --count 20 --json >"$D/r.json"
    valid run "$D/r.json"
    local f="$D/bad.jsonl"
    {
        jq -c 'del(.result.us_per_blob)' "$D/r.json"
        jq -c '.result.count |= tostring' "$D/r.json"
        jq -c '.schema_version = 2' "$D/r.json"
        jq -c '.env.git_commit = .env.commit | del(.env.commit)' "$D/r.json"
        jq -c '.result.runs[0].seconds = null' "$D/r.json"
        cat "$D/r.json"
        echo '{"command": "run", '
        # Two equal keys: a parser keeps one of them, so the schema would
        # judge only that one (load --slo p50 once wrote p50 twice).
        jq -c '.' "$D/r.json" | sed 's/^{/{"schema_version":1,/'
    } >"$f"
    run "$H" "$CHECK" "$SCHEMAS/run.schema.json" "$f"
    assert_failure 1
    assert_line --index 0 "$f:1: \$.result: 'us_per_blob' is a required property"
    assert_line --index 1 "$f:2: \$.result.count: '20' is not of type 'integer'"
    assert_line --index 2 "$f:3: \$.schema_version: 1 was expected"
    assert_line --index 3 "$f:4: \$.env: 'commit' is a required property"
    assert_line --index 4 "$f:5: \$.result.runs[0].seconds: None is not of type 'number'"
    assert_line --index 5 --partial "$f:7: \$: not JSON: "
    assert_line --index 6 "$f:8: \$: not JSON: duplicate key 'schema_version' in one object"
    assert_equal "${#lines[@]}" 7
    # The wrong schema for the output: its command is not that schema's.
    run "$H" "$CHECK" "$SCHEMAS/stat.schema.json" "$D/r.json"
    assert_failure 1
    assert_line "$D/r.json:1: \$.command: 'stat' was expected"
}

@test "the checker: exit 2 on bad usage, an unreadable schema or an invalid one" {
    run "$H" "$CHECK" "$SCHEMAS/run.schema.json"
    assert_failure 2
    assert_output --partial "usage:"
    echo '{}' >"$D/x.json"
    run "$H" "$CHECK" "$D/none.schema.json" "$D/x.json"
    assert_failure 2
    assert_output --partial "cannot read the schema"
    echo '{"type": 5}' >"$D/bad.schema.json"
    run "$H" "$CHECK" "$D/bad.schema.json" "$D/x.json"
    assert_failure 2
    assert_output --partial "not a valid schema"
    run "$H" "$CHECK" "$SCHEMAS/run.schema.json" "$D/missing.json"
    assert_failure 2
    assert_output --partial "cannot read"
}

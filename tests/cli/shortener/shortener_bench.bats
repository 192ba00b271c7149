#!/usr/bin/env bats
# kvtest shortener bench (in-process lookups) and load (HTTP load generator):
# a real SQLite file, a real valkey-server and the real service on free
# loopback ports, and deliberately broken servers for the failure paths.
# Small scale: every test takes seconds. No timing assertions.

load '../../lib/common'

setup() {
    shortener_setup
    OTHER_PID=
}

teardown() {
    stop_leftover "$OTHER_PID"
    shortener_teardown
}

make_db() {   # make_db N
    "$KVTEST" shortener init "$DB" --links "$1" --seed 3 >/dev/null
}

# answered N: the service has answered at least N lookups and creates in
# all (its /stats); a test waits for it instead of sleeping.
answered() {
    local n
    n=$(curl -fsS --max-time 10 "$SERVICE_URL/stats" |
        jq '[.routes["GET /link/<id>"]["200"], .routes["POST /link"]["201"]] | map(. // 0) | add') ||
        return 1
    [ "${n:-0}" -ge "$1" ]
}

# A plain static file server: POST answers 501, GET /link/x 404.
start_wrong_server() {
    WRONG_PORT=$(free_port)
    mkdir -p "$BATS_TEST_TMPDIR/www"
    (cd "$BATS_TEST_TMPDIR/www" && exec python3 -m http.server "$WRONG_PORT" \
        --bind 127.0.0.1 >/dev/null 2>&1 3>&-) &
    OTHER_PID=$!
    wait_for_port "$WRONG_PORT" 10
}

# ---- bench ---------------------------------------------------------------

@test "bench without a cache runs the two sqlite configurations" {
    make_db 300
    run "$KVTEST" shortener bench "$DB" --lookups 2000 --repeat 2
    [ "$status" -eq 0 ]
    [[ "$output" == *"300 links"* ]]
    [ "$(grep -c '^sqlite ' <<<"$output")" -eq 1 ]
    [ "$(grep -c '^sqlite-nocache ' <<<"$output")" -eq 1 ]
    [ "$(grep -c '^valkey' <<<"$output")" -eq 0 ]
    # the sqlite row is the reference: ratio 1.00
    [ "$(awk '$1 == "sqlite" {print $NF}' <<<"$output")" = "1.00" ]
}

@test "bench: each configuration's median lookups/s with its 95% CI (text and JSON)" {
    make_db 300
    run "$KVTEST" shortener bench "$DB" --lookups 500 --repeat 6 --warmup 0 --json
    assert_success
    run jq -e 'all(.result.configs[]; .lookups_per_s_spread as $s
                   | $s.n == 6 and $s.ci_covered == true and $s.median == .lookups_per_s
                   and $s.min <= $s.ci_lo and $s.ci_lo <= $s.median and $s.median <= $s.ci_hi
                   and $s.ci_hi <= $s.max and (.runs | length) == 6)' <<<"$output"
    assert_success
    run "$KVTEST" shortener bench "$DB" --lookups 500 --repeat 2 --warmup 0 --json
    assert_success
    run jq -e 'all(.result.configs[]; .lookups_per_s_spread | .n == 2 and .ci_covered == false
                   and .ci_lo == .min and .ci_hi == .max)' <<<"$output"
    assert_success
    run "$KVTEST" shortener bench "$DB" --lookups 500 --repeat 6 --warmup 0
    assert_success
    local t=$output
    run grep -cE '^Median lookups/s, (sqlite|sqlite-nocache): [0-9]+ \(95% CI [0-9]+-[0-9]+, 6 rounds\)$' <<<"$t"
    assert_output 2
    # the table shows the mean beside the percentiles
    run grep -cE '^config +lookups/s +p50 us .* max us +mean us +hit ratio +vs sqlite$' <<<"$t"
    assert_output 1
    run "$KVTEST" shortener bench "$DB" --lookups 500 --repeat 3 --warmup 0
    assert_success
    run grep -cE '^Median lookups/s, sqlite: [0-9]+ \(min-max [0-9]+-[0-9]+, under 95% coverage with 3 rounds\)$' <<<"$output"
    assert_output 1
}

@test "bench runs all four configurations against a private Valkey (JSON)" {
    make_db 300
    start_valkey
    run "$KVTEST" shortener bench "$DB" --cache "$VALKEY_URL" --cache-timeout 2000 --lookups 1000 \
        --repeat 2 --threads 2 --json
    [ "$status" -eq 0 ]
    [ "$(jq -r '.result.configs | map(.config) | join(",")' <<<"$output")" = \
        "sqlite,sqlite-nocache,valkey,valkey-nocache" ]
    [ "$(jq -r .command <<<"$output")" = "shortener bench" ]
    [[ "$(jq -r .cmdline <<<"$output")" == *"--cache $VALKEY_URL"* ]]
    [ "$(jq -r .env.sqlite_version <<<"$output")" != null ]
    [ "$(jq '[.result.configs[] | select(.lookups_per_s > 0 and .latency.count == 2000)] | length' <<<"$output")" -eq 4 ]
    [ "$(jq '[.result.configs[] | .wrong_answers + .sqlite_errors] | add' <<<"$output")" -eq 0 ]
    # the warm-up run filled Valkey: the measured runs are mostly hits (not
    # all: on a loaded machine a 50 ms command timeout is an error, and the
    # reconnect backoff sends some lookups straight to SQLite)
    for i in 2 3; do
        [ "$(jq ".result.configs[$i] | .cache | .hits + .misses + .errors + .skipped" <<<"$output")" -eq 2000 ]
        [ "$(jq ".result.configs[$i].cache | .hits > .misses and .hits > 0" <<<"$output")" = true ]
    done
    [ "$(jq '.result.configs[0].hit_ratio' <<<"$output")" = null ]
    [ "$(jq '.result.configs[0].ratio_to_sqlite' <<<"$output")" = 1 ]
    # and the cache really holds the links, under the documented prefix
    id=$("$KVTEST" shortener keys "$DB" --limit 1)
    [ -n "$(valkey-cli -p "$VALKEY_PORT" get "kvtest:link:$id")" ]
}

@test "bench --miss asks for ids that do not exist, and checks every answer" {
    make_db 200
    start_valkey
    run "$KVTEST" shortener bench "$DB" --cache "$VALKEY_URL" --cache-timeout 2000 --configs valkey \
        --miss 0.5 --zipf 1.1 --lookups 2000 --repeat 1 --json
    [ "$status" -eq 0 ]
    # about half the lookups asked for ids Valkey cannot hold; every one
    # that reached Valkey was a miss (or, on a loaded machine, an error)
    [ "$(jq '.result.configs[0].cache | .hits + .misses + .errors + .skipped' <<<"$output")" -eq 2000 ]
    [ "$(jq '.result.configs[0].cache | .misses + .errors + .skipped' <<<"$output")" -gt 700 ]
    [ "$(jq '.result.configs[0].cache.misses' <<<"$output")" -lt 1300 ]
    hr=$(jq '.result.configs[0].hit_ratio' <<<"$output")
    awk -v h="$hr" 'BEGIN { exit !(h > 0 && h < 0.7) }'
}

@test "bench --cold reopens and evicts before each run" {
    make_db 200
    run "$KVTEST" shortener bench "$DB" --configs sqlite --cold --lookups 500 --repeat 2 --json
    [ "$status" -eq 0 ]
    [ "$(jq -r '.result.configs[0].cold.method' <<<"$output")" = "posix_fadvise(POSIX_FADV_DONTNEED)" ]
    [ "$(jq '.options.cold' <<<"$output")" = true ]
}

@test "bench: misuse is exit 2, a missing database or Valkey exit 1" {
    make_db 10
    run "$KVTEST" shortener bench "$DB" --configs valkey
    [ "$status" -eq 2 ]
    [[ "$output" == *"--cache"* ]]
    # --cache none is no cache, as serve takes it
    run "$KVTEST" shortener bench "$DB" --cache none --configs valkey
    [ "$status" -eq 2 ]
    [[ "$output" == *"the valkey configurations need --cache valkey://"* ]]
    run "$KVTEST" shortener bench "$DB" --configs sqlite,bogus
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener bench "$DB" --configs sqlite,sqlite
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener bench "$DB" --miss 2
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener bench
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener bench "$BATS_TEST_TMPDIR/nope.db"
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 1 ]
    port=$(free_port)
    run "$KVTEST" shortener bench "$DB" --cache "valkey://127.0.0.1:$port" --lookups 10
    [ "$status" -eq 1 ]
    [[ "$output" == *"Valkey"* ]]
}

# ---- load: against the real service ----------------------------------------

@test "load task mode: every task creates a link and resolves it" {
    make_db 10
    start_service "$DB" --threads 4
    run "$KVTEST" shortener load "$SERVICE_URL" --tasks 20 --threads 5 --gets 10
    [ "$status" -eq 0 ]
    [[ "$output" == *"STRESS TEST RESULTS"* ]]
    [[ "$output" == *"Total tasks: 20"* ]]
    [[ "$output" == *"Successful: 20"* ]]
    [[ "$output" == *"Failed: 0"* ]]
    grep -qE '^Total time: [0-9.]+ seconds$' <<<"$output"
    grep -qE '^Tasks/second: [0-9.]+$' <<<"$output"
    grep -qE '^  Median: [0-9.]+ ms$' <<<"$output"
    [[ "$output" == *"Errors (first 5):"* ]]
    [[ "$output" == *"Requests: 220 (20 POST, 200 GET), 0 failed"* ]]
    grep -qE '^  GET +200 +0 ' <<<"$output"
    # the 20 links are really in the database
    [ "$("$KVTEST" shortener keys "$DB" | wc -l)" -eq 30 ]
}

@test "load --duration with --keys and --zipf: JSON with everything" {
    make_db 100
    "$KVTEST" shortener keys "$DB" >"$BATS_TEST_TMPDIR/keys"
    start_service "$DB" --threads 2
    run "$KVTEST" shortener load "$SERVICE_URL" --duration 1 --keys "$BATS_TEST_TMPDIR/keys" \
        --zipf 1.1 --create-ratio 0.1 --threads 4 --json
    [ "$status" -eq 0 ]
    [ "$(jq -r .options.mode <<<"$output")" = duration ]
    [ "$(jq -r .command <<<"$output")" = "shortener load" ]
    [[ "$(jq -r .cmdline <<<"$output")" == *"--duration 1"* ]]
    [ "$(jq -r .env.kernel <<<"$output")" != null ]
    req=$(jq .result.requests <<<"$output")
    [ "$req" -gt 10 ]
    [ "$(jq .result.requests_failed <<<"$output")" -eq 0 ]
    [ "$(jq .result.by_type.get.latency.count <<<"$output")" -gt 0 ]
    [ "$(jq .result.by_type.post.requests <<<"$output")" -gt 0 ]
    [ "$(jq '.result.by_type.post.requests + .result.by_type.get.requests' <<<"$output")" -eq "$req" ]
    # the run lasted about its duration, not more than duration + timeout
    awk -v s="$(jq .result.seconds <<<"$output")" 'BEGIN { exit !(s >= 1 && s < 7) }'
}

@test "load --duration without --keys resolves the links it created" {
    make_db 1
    start_service "$DB" --threads 2
    run "$KVTEST" shortener load "$SERVICE_URL" --duration 1 --create-ratio 0.2 --threads 3 --json
    [ "$status" -eq 0 ]
    [ "$(jq .result.by_type.get.successful <<<"$output")" -gt 0 ]
    [ "$(jq .result.requests_failed <<<"$output")" -eq 0 ]
}

# ---- load: failures are classified, exit non-zero, never hang ----------------

@test "load against a closed port: connect failures, exit 1; --allow-failures exit 0" {
    port=$(free_port)
    run "$KVTEST" shortener load "http://127.0.0.1:$port" --tasks 4 --threads 2 --gets 3
    [ "$status" -eq 1 ]
    [[ "$output" == *"Failed: 4"* ]]
    [[ "$output" == *"connect 4 "* ]]
    [[ "$output" == *"POST http://127.0.0.1:$port/link: connect:"* ]]
    [[ "$output" == *"4 of 4 requests failed"* ]]
    run "$KVTEST" shortener load "http://127.0.0.1:$port" --tasks 4 --threads 2 --allow-failures --json
    [ "$status" -eq 0 ]
    [ "$(jq .result.failures.connect <<<"${lines[0]}")" -eq 4 ]
    [ "$(jq '.result.errors | length' <<<"${lines[0]}")" -eq 4 ]
}

@test "load against a server with the wrong answers: http_status and bad_body failures" {
    start_wrong_server
    run "$KVTEST" shortener load "http://127.0.0.1:$WRONG_PORT" --tasks 3 --threads 3 --gets 2
    [ "$status" -eq 1 ]
    [[ "$output" == *"Failed: 3"* ]]
    [[ "$output" == *"http_status 3 "* ]]
    [[ "$output" == *"HTTP 501 (expected 201)"* ]]
    # keys that the server does not know: 404 on GET. --walk 2: each id
    # asked twice, a count (how many random picks fit in a duration, and
    # whether both ids are among them, is the machine's speed).
    printf 'abc\ndef\n' >"$BATS_TEST_TMPDIR/keys"
    run "$KVTEST" shortener load "http://127.0.0.1:$WRONG_PORT" --walk 2 \
        --keys "$BATS_TEST_TMPDIR/keys" --threads 2 --json
    [ "$status" -eq 1 ]
    [ "$(jq .result.requests <<<"${lines[0]}")" -eq 4 ]
    [ "$(jq .result.failures.http_status <<<"${lines[0]}")" -eq 4 ]
    [ "$(jq .result.by_type.get.successful <<<"${lines[0]}")" -eq 0 ]
    [[ "$(jq -r '.result.errors[0]' <<<"${lines[0]}")" == *"HTTP 404 (expected 200)"* ]]
    # a 200 whose body is not the promised JSON is a bad_body failure
    mkdir -p "$BATS_TEST_TMPDIR/www/link"
    echo 'not json' >"$BATS_TEST_TMPDIR/www/link/abc"
    echo '{"link": "https://example.com/"}' >"$BATS_TEST_TMPDIR/www/link/def"
    run "$KVTEST" shortener load "http://127.0.0.1:$WRONG_PORT" --walk 2 \
        --keys "$BATS_TEST_TMPDIR/keys" --threads 2 --json
    [ "$status" -eq 1 ]
    [ "$(jq .result.failures.bad_body <<<"${lines[0]}")" -eq 2 ]
    [ "$(jq .result.failures.http_status <<<"${lines[0]}")" -eq 0 ]
    # ... and the well-formed answers for def count as successes
    [ "$(jq .result.by_type.get.successful <<<"${lines[0]}")" -eq 2 ]
}

@test "load against a server that never answers: timeouts, no hang past --timeout" {
    start_silent_listener   # every request to it can only time out
    start=$SECONDS
    run "$KVTEST" shortener load "http://127.0.0.1:$SILENT_PORT" --tasks 4 --threads 4 \
        --timeout 300 --json
    [ "$status" -eq 1 ]
    [ "$(jq .result.failures.timeout <<<"${lines[0]}")" -eq 4 ]
    [ $((SECONDS - start)) -lt 10 ]
    # --duration mode too: it ends at duration + at most one timeout. 2 s,
    # not less: each connection must get its first request out before the
    # end, which a loaded machine can delay.
    start=$SECONDS
    run "$KVTEST" shortener load "http://127.0.0.1:$SILENT_PORT" --duration 2 \
        --threads 2 --timeout 300 --json
    [ "$status" -eq 1 ]
    [ "$(jq .result.failures.timeout <<<"${lines[0]}")" -ge 2 ]
    [ $((SECONDS - start)) -lt 10 ]
}

@test "load while the service is killed mid-run: failures counted, run ends" {
    make_db 50
    "$KVTEST" shortener keys "$DB" >"$BATS_TEST_TMPDIR/keys"
    start_service "$DB" --threads 2
    # 8 s: room for a slow start before the kill; the run then goes on
    # against the dead port until its end.
    "$KVTEST" shortener load "$SERVICE_URL" --duration 8 --keys "$BATS_TEST_TMPDIR/keys" \
        --threads 4 --timeout 500 --json >"$BATS_TEST_TMPDIR/out" \
        2>"$BATS_TEST_TMPDIR/err" 3>&- &
    load_pid=$!
    OTHER_PID=$load_pid PID=$load_pid
    # Not a fixed sleep: the kill comes once the run has had answers. 5
    # answered on 4 connections (one request in flight each): some
    # connection sent a second request, so the load had taken in an answer.
    wait_until answered 5
    # kill -9 by PID (stop_service KILL would trip bats' errexit on the 137)
    kill -KILL "$SERVICE_PID"
    wait "$SERVICE_PID" || true
    SERVICE_PID=
    start=$SECONDS
    wait "$load_pid" && rc=0 || rc=$?
    OTHER_PID='' PID=''
    [ "$rc" -eq 1 ]
    # the rest of the 8 s and one 500 ms timeout; far more is a hang
    [ $((SECONDS - start)) -lt 30 ]
    out=$(cat "$BATS_TEST_TMPDIR/out")
    # successes before the kill, then refused (and perhaps cut) requests
    [ "$(jq .result.by_type.get.successful <<<"$out")" -gt 0 ]
    [ "$(jq '.result.failures.connect + .result.failures.io' <<<"$out")" -gt 0 ]
    grep -q "requests failed" "$BATS_TEST_TMPDIR/err"
}

@test "load: SIGINT ends a long run early with the results so far" {
    make_db 20
    start_service "$DB" --threads 2
    "$KVTEST" shortener load "$SERVICE_URL" --duration 60 --threads 3 --json \
        >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
    load_pid=$!
    OTHER_PID=$load_pid PID=$load_pid
    # Not a fixed sleep: SIGINT once the run has had answers (4 answered on
    # 3 connections: the load had taken in one).
    wait_until answered 4
    kill -INT "$load_pid"
    start=$SECONDS
    wait "$load_pid" && rc=0 || rc=$?
    OTHER_PID='' PID=''
    [ "$rc" -eq 1 ]
    [ $((SECONDS - start)) -lt 10 ]
    grep -q "interrupted after" "$BATS_TEST_TMPDIR/err"
    out=$(cat "$BATS_TEST_TMPDIR/out")
    [ "$(jq .result.requests <<<"$out")" -gt 0 ]
    [ "$(jq .result.requests_failed <<<"$out")" -eq 0 ]
    awk -v s="$(jq .result.seconds <<<"$out")" 'BEGIN { exit !(s < 30) }'
}

@test "load: misuse is exit 2 with one line" {
    run "$KVTEST" shortener load
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    run "$KVTEST" shortener load ftp://127.0.0.1:1
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener load http://
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener load http://127.0.0.1:1 --keys x
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener load http://127.0.0.1:1 --duration soon
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener load http://127.0.0.1:1 --duration 1 --create-ratio 0
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener load http://127.0.0.1:1 --duration 1 --keys "$BATS_TEST_TMPDIR/none"
    [ "$status" -eq 1 ]
    run "$KVTEST" shortener load http://127.0.0.1:1 --threads 0
    [ "$status" -eq 2 ]
}

@test "help: bench and load document their options" {
    run "$KVTEST" shortener bench --help
    [ "$status" -eq 0 ]
    for o in --configs --cache --lookups --threads --zipf --miss --repeat --warmup --cold --json; do
        [[ "$output" == *"$o"* ]]
    done
    run "$KVTEST" shortener load --help
    [ "$status" -eq 0 ]
    for o in --tasks --threads --gets --duration --keys --zipf --create-ratio --timeout \
        --allow-failures --json; do
        [[ "$output" == *"$o"* ]]
    done
}

#!/usr/bin/env bats
# kvtest shortener load's engine: constant-rate mode (--rate), coordinated
# omission against a server that stalls, body checks, keep-alive
# connections the server closes, and the --connections/--threads names.
# Real sockets on free loopback ports: the real service, and
# tests/lib/stall_server.py, a minimal stand-in that stalls or answers
# wrongly on purpose. Every run lasts a few seconds at most. The only time
# figures asserted are lower bounds the stalls or the pacing force (>= 100
# ms at p99 from 200 ms stalls, a paced run's length), which a slow machine
# can only make larger; how many requests a --duration run makes is never
# asserted beyond "some" (a slow machine makes fewer).

load '../../lib/common'

setup() {
    shortener_setup
}

# The stall server too (start_py_server, servers.bash).
teardown() {
    shortener_teardown
}

# start_stall_server [ARGS]: tests/lib/stall_server.py at PY_URL.
start_stall_server() {
    start_py_server stall_server.py --seconds 60 "$@"
}

jqo() { jq -r "$1" <<<"$output"; }

# ---- coordinated omission ------------------------------------------------------

@test "load --rate against a server that stalls 200 ms a second: p99 shows the stalls" {
    start_stall_server --stall-ms 200 --every-ms 1000
    run "$KVTEST" shortener load "$PY_URL" --duration 2.5 --create-ratio 0.2 \
        --connections 2 --rate 400 --json
    assert_success
    [ "$(jqo .result.requests_failed)" -eq 0 ]
    # How many of the 1000 slots were sent is the machine's speed, so only
    # "some"; the p99 below holds at any speed (a slow client only falls
    # further behind the schedule its latency is measured from).
    [ "$(jqo .result.requests)" -gt 0 ]
    [ "$(jqo .options.rate)" = 400 ]
    [ "$(jqo .result.rate.target_per_s)" = 400 ]
    [ "$(jqo .result.latency_from)" = schedule ]
    # A fifth of the requests are due during a stall and wait up to 200 ms:
    # measured from their scheduled time, p99 is well over 100 ms (in us).
    # Timed from their send, only the one request per connection caught in
    # each stall would be slow: 2 of ~400 a second, under 1%.
    p99=$(jqo .result.by_type.all.latency.p99)
    awk -v p="$p99" 'BEGIN { exit !(p >= 100000) }'
    # Beside them, the uncorrected latencies, from each request's actual
    # send: every answer once, each request's at most its corrected one,
    # and on average lower by the waits the stalls forced (a fifth of the
    # requests wait about 100 ms each: some 20 ms; 10 ms asserted).
    assert_equal "$(jqo .result.latency_uncorrected.latency.count)" "$(jqo .result.requests)"
    assert_equal "$(jqo '.result.latency_uncorrected.latency.min <= .result.by_type.all.latency.min')" true
    assert_equal "$(jqo '.result.latency_uncorrected.latency.max <= .result.by_type.all.latency.max')" true
    assert_equal "$(jqo '.result.by_type.all.latency.mean - .result.latency_uncorrected.latency.mean >= 10000')" true
}

@test "closed loop against the stalling server: correct counts, stalls in the max" {
    start_stall_server --stall-ms 200 --every-ms 1000
    run "$KVTEST" shortener load "$PY_URL" --duration 2.5 --create-ratio 0.2 \
        --connections 4 --json
    assert_success
    req=$(jqo .result.requests)
    [ "$req" -gt 0 ]   # how many: the machine's speed; the sums below are exact
    [ "$(jqo .result.requests_failed)" -eq 0 ]
    [ "$(jqo '.result.by_type.post.requests + .result.by_type.get.requests')" -eq "$req" ]
    [ "$(jqo .result.by_type.all.latency.count)" -eq "$req" ]
    [ "$(jqo .result.tasks)" -eq "$req" ]
    [ "$(jqo .result.rate)" = null ]
    [ "$(jqo .options.rate)" = null ]
    [ "$(jqo .result.latency_from)" = send ]
    assert_equal "$(jqo .result.latency_uncorrected)" null
    # the requests caught in a stall waited for it
    awk -v m="$(jqo .result.by_type.all.latency.max)" 'BEGIN { exit !(m >= 50000) }'
    # and the text report of the same run shape is the classic one
    run "$KVTEST" shortener load "$PY_URL" --tasks 8 --gets 5 --connections 4
    assert_success
    assert_output --partial "Total tasks: 8"
    assert_output --partial "Successful: 8"
    assert_output --partial "Requests: 48 (8 POST, 40 GET), 0 failed"
    refute_output --partial "Target rate"
}

# ---- latency by status class -----------------------------------------------------

@test "latency by status class: a 200 path and a 404 path in turn; each class counts what the service answered, the 404s failed; the classes add up to all" {
    "$KVTEST" shortener init "$DB" --links 10 --seed 3 >/dev/null
    start_service "$DB" --threads 2 --cache none
    run --separate-stderr "$KVTEST" shortener load "$SERVICE_URL" --scenario get \
        --path /heart-beat --path /link/nosuchid --tasks 60 --connections 2 --allow-failures --json
    assert_success
    local ok nf
    ok=$(jqo '.result.by_status["2xx"].requests')
    nf=$(jqo '.result.by_status["4xx"].requests')
    assert_equal "$((ok + nf))" 60
    assert_equal "$(jqo '.result.by_status["2xx"].failed')" 0
    assert_equal "$(jqo '.result.by_status["4xx"].failed')" "$nf"
    assert_equal "$(jqo '.result.by_status["3xx"].requests + .result.by_status["5xx"].requests')" 0
    assert_equal "$(jqo .result.failures.http_status)" "$nf"
    # bucket by bucket, the classes' histograms are the whole one
    assert_equal "$(jqo '[.result.by_status[].histogram.buckets | select(length > 0) | [recurse(.[2:]; length > 0)[0:2]] | .[]]
        | group_by(.[0]) | map([.[0][0], (map(.[1]) | add)]) | flatten')" \
        "$(jqo '.result.by_type.all.histogram.buckets')"
    stop_service
    # the service's own counters say which answer was which
    run grep -E '^  GET /heart-beat ' "$SERVICE_OUT"
    assert_output "  GET /heart-beat  200: $ok"
    run grep -cE " 404: $nf\$" "$SERVICE_OUT"
    assert_output 1
    # the text: one row per class that had answers
    start_service "$DB" --threads 2 --cache none
    run --separate-stderr "$KVTEST" shortener load "$SERVICE_URL" --scenario get \
        --path /heart-beat --path /link/nosuchid --tasks 4 --connections 1 --allow-failures
    assert_success
    assert_line "  by status class (answers of every type; failed: judged so by the checks):"
    assert_line --regexp '^  2xx +2 +0 '
    assert_line --regexp '^  4xx +2 +2 '
    refute_line --regexp '^  [35]xx '
}

# ---- --rate: achieved vs target ---------------------------------------------------

@test "load --rate against the real service: never more than scheduled, rate reported" {
    "$KVTEST" shortener init "$DB" --links 100 --seed 3 >/dev/null
    "$KVTEST" shortener keys "$DB" >"$BATS_TEST_TMPDIR/keys"
    start_service "$DB" --threads 2 --cache none
    run "$KVTEST" shortener load "$SERVICE_URL" --duration 1.5 --keys "$BATS_TEST_TMPDIR/keys" \
        --connections 6 --rate 400
    assert_success
    assert_output --partial "Target rate: 400.0 requests/s, achieved "
    assert_output --partial "from each request's scheduled send time"
    n=$(awk '/^Requests: / {print $2}' <<<"$output")
    # 400/s over 1.5 s is 600 slots; a sixth connection's slot at most more
    [ "$n" -gt 0 ]
    [ "$n" -le 606 ]
    # paced: the last slots are due near the end of the 1.5 s, not at once
    secs=$(awk '/^Total time: / {print $3}' <<<"$output")
    awk -v s="$secs" 'BEGIN { exit !(s >= 1.4) }'
    run "$KVTEST" shortener load "$SERVICE_URL" --tasks 5 --gets 3 --connections 2 --rate 50 --json
    assert_success
    [ "$(jqo .result.requests)" -eq 20 ]
    [ "$(jqo .result.requests_failed)" -eq 0 ]
    [ "$(jqo .options.rate)" = 50 ]
    # 20 requests at 50/s cannot take less than 19 intervals of 20 ms
    awk -v s="$(jqo .result.seconds)" 'BEGIN { exit !(s >= 0.38) }'
}

@test "load --rate says so when the target is out of reach" {
    start_stall_server --stall-ms 0
    run "$KVTEST" shortener load "$PY_URL" --duration 1 --create-ratio 0.5 \
        --connections 2 --rate 1000000 --json
    assert_success
    [ "$(jqo .result.rate.reached)" = false ]
    awk -v s="$(jqo .result.rate.achieved_share)" 'BEGIN { exit !(s < 0.98) }'
    run "$KVTEST" shortener load "$PY_URL" --duration 0.5 --create-ratio 0.5 \
        --connections 2 --rate 1000000
    assert_success
    assert_output --partial "Target rate NOT reached"
}

# ---- every answer is checked ------------------------------------------------------

@test "load counts wrong bodies as bad_body failures (GET and POST)" {
    start_stall_server --stall-ms 0 --wrong get
    run "$KVTEST" shortener load "$PY_URL" --tasks 6 --gets 2 --connections 3 --json
    [ "$status" -eq 1 ]
    [ "$(jqo .result.failures.bad_body)" -eq 6 ]
    [ "$(jqo .result.failures.http_status)" -eq 0 ]
    [ "$(jqo .result.by_type.post.successful)" -eq 6 ]
    [ "$(jqo .result.failed)" -eq 6 ]
    [[ "$(jqo '.result.errors[0]')" == "GET $PY_URL/link/s"*": bad_body: 200 with a link other than the one created" ]]
    stop_py_server
    start_stall_server --stall-ms 0 --wrong post
    # A count, not a duration: how many POSTs fit in half a second is the
    # machine's speed (none at all on a stalled one).
    run "$KVTEST" shortener load "$PY_URL" --tasks 10 --gets 0 --connections 2 \
        --rate 100 --json
    [ "$status" -eq 1 ]
    [ "$(jqo .result.requests)" -eq 10 ]
    [ "$(jqo .result.failures.bad_body)" -eq 10 ]
    [ "$(jqo .result.by_type.post.successful)" -eq 0 ]
    [[ "$(jqo '.result.errors[0]')" == *"201 with an invalid short_link"* ]]
}

@test "load reconnects when the server closes keep-alive connections" {
    start_stall_server --stall-ms 0 --close-every 3
    run "$KVTEST" shortener load "$PY_URL" --tasks 10 --gets 9 --connections 3 --json
    assert_success
    [ "$(jqo .result.requests)" -eq 100 ]
    [ "$(jqo .result.requests_failed)" -eq 0 ]
}

# ---- names ---------------------------------------------------------------------

@test "load --reconnect: every request on its own connection, each checked; without it, one connection per virtual user" {
    start_stall_server --stall-ms 0 --log-connections
    # the server's own count, after the start's readiness probe
    local n0
    n0=$(grep -c '^connection ' "$PY_OUT")
    run --separate-stderr "$KVTEST" shortener load "$PY_URL" --tasks 3 --gets 2 --connections 2 \
        --workers 1 --reconnect --json
    assert_success
    assert_equal "$(jqo .result.requests)" 9
    assert_equal "$(jqo .result.requests_failed)" 0
    run grep -c '^connection ' "$PY_OUT"
    assert_output $((n0 + 9))
    run --separate-stderr "$KVTEST" shortener load "$PY_URL" --tasks 3 --gets 2 --connections 2 \
        --workers 1 --json
    assert_success
    run grep -c '^connection ' "$PY_OUT"
    assert_output $((n0 + 11))
}

@test "load: --connections names the virtual users, --threads is its alias" {
    start_stall_server --stall-ms 0
    run "$KVTEST" shortener load "$PY_URL" --tasks 4 --gets 1 --connections 3 --json
    assert_success
    [ "$(jqo .options.connections)" -eq 3 ]
    [ "$(jqo .options.threads)" -eq 3 ]
    run "$KVTEST" shortener load "$PY_URL" --tasks 4 --gets 1 --threads 3 --json
    assert_success
    [ "$(jqo .options.connections)" -eq 3 ]
    [ "$(jqo .options.threads)" -eq 3 ]
    run "$KVTEST" shortener load "$PY_URL" --tasks 4 --threads 2 --connections 3
    [ "$status" -eq 2 ]
    assert_output --partial "another name for --connections"
    run "$KVTEST" shortener load "$PY_URL" --rate 0
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener load "ftp://127.0.0.1:$PY_PORT"
    [ "$status" -eq 2 ]
    assert_output --partial "URL must start with http:// or https://"
    run "$KVTEST" shortener load "http://127.0.0.1:99999"
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener load --help
    assert_success
    for o in --connections --threads --workers --rate; do
        assert_output --partial -- "$o"
    done
}

# ---- --scenario get: any HTTP server -------------------------------------------

@test "load --scenario get: GETs of given paths against the real service" {
    "$KVTEST" shortener init "$DB" --links 10 --seed 3 >/dev/null
    start_service "$DB" --threads 2 --cache none
    run "$KVTEST" shortener load "$SERVICE_URL" --scenario get --path /heart-beat --tasks 40 \
        --connections 3 --json
    assert_success
    [ "$(jqo .result.requests)" -eq 40 ]
    [ "$(jqo .result.requests_failed)" -eq 0 ]
    [ "$(jqo .result.tasks)" -eq 40 ]
    [ "$(jqo .result.by_type.get.successful)" -eq 40 ]
    [ "$(jqo '.result.by_type | keys | join(",")')" = all,get ]
    [ "$(jqo .result.by_type.all.latency.count)" -eq 40 ]
    [ "$(jqo .options.scenario)" = get ]
    [ "$(jqo '.options.paths | join(",")')" = /heart-beat ]
    [ "$(jqo '.options | has("gets")')" = false ]
    # 20 requests at 100/s: a count, so the figures are exact whatever the
    # machine's speed.
    run "$KVTEST" shortener load "$SERVICE_URL/" --scenario get --path /heart-beat \
        --tasks 20 --connections 2 --rate 100
    assert_success
    assert_output --regexp $'\nRequests: 20 \\(20 GET\\), 0 failed\n'
    assert_output --partial "Failures by kind: connect 0 timeout 0 io 0 http_status 0 bad_body 0"
    assert_output --regexp $'\n  GET +20 +0 '
    refute_output --partial "POST"
}

@test "load --scenario get counts a 404 as an http_status failure, exit 1" {
    "$KVTEST" shortener init "$DB" --links 10 --seed 3 >/dev/null
    start_service "$DB" --threads 2 --cache none
    run "$KVTEST" shortener load "$SERVICE_URL" --scenario get --path /heart-beat \
        --path /no-such-page --tasks 10 --connections 2 --json
    [ "$status" -eq 1 ]
    [ "$(jqo .result.requests)" -eq 10 ]
    [ "$(jqo .result.failures.http_status)" -eq 5 ]
    [ "$(jqo .result.by_type.get.successful)" -eq 5 ]
    [ "$(jqo .result.failed)" -eq 5 ]
    [[ "$(jqo '.result.errors[0]')" == "GET $SERVICE_URL/no-such-page: http_status: HTTP 404 (expected 2xx or 3xx)" ]]
    run "$KVTEST" shortener load "$SERVICE_URL" --scenario get --path /no-such-page --tasks 2 \
        --connections 1 --allow-failures
    assert_success
    assert_output --partial "Requests: 2 (2 GET), 2 failed"
}

@test "load: --scenario and --path misuse is a one-line usage error" {
    local u=http://127.0.0.1:1
    for args in "--path /x" "--scenario shortener --path /x" "--scenario get" \
        "--scenario get --path /x --gets 3" "--scenario get --path /x --keys k" \
        "--scenario get --path /x --create-ratio 0.5" "--scenario get --path /x --zipf 1" \
        "--scenario wrk" "--scenario get --path x" "--scenario get --path"; do
        # shellcheck disable=SC2086
        run "$KVTEST" shortener load "$u" $args
        [ "$status" -eq 2 ] || { echo "args: $args: status $status"; return 1; }
        [ "${#lines[@]}" -eq 1 ] || { echo "args: $args: $output"; return 1; }
        assert_output --regexp '^kvtest shortener load: '
    done
    run "$KVTEST" shortener load "$u" --scenario get --path /x --gets 3
    assert_output "kvtest shortener load: --gets is for the shortener scenario, not --scenario get"
    run "$KVTEST" shortener load "$u" --path /x
    assert_output "kvtest shortener load: --path needs --scenario get"
    run "$KVTEST" shortener load "$u" --scenario get --path "/a b"
    [ "$status" -eq 2 ]
    assert_output --partial "path '/a b' must start with '/' and hold no spaces"
    run "$KVTEST" shortener load --help
    assert_success
    assert_output --partial "--scenario get"
    assert_output --partial "--path P"
}

# ---- --walk: every id of a key file, N times, once in all ---------------------------

# Valkey cache-aside counts what the walk did: an id's first GET misses and
# fills Valkey, every later GET hits. With one connection the passes cannot
# overlap, so --walk 2 over K ids is exactly K misses and K hits, and only
# if every id was asked twice (an id asked three times and another once
# gives K-1 misses).
@test "load --walk: every --keys id GET N times, shared out over the connections" {
    "$KVTEST" shortener init "$DB" --links 60 --seed 3 >/dev/null
    "$KVTEST" shortener keys "$DB" >"$BATS_TEST_TMPDIR/keys"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/keys")" -eq 60 ]
    start_valkey
    # A generous cache timeout: on a loaded machine a 50 ms one trips now
    # and then, and a timed-out lookup is neither a hit nor a miss.
    start_service "$DB" --threads 2 --cache "$VALKEY_URL" --cache-timeout 2000
    run "$KVTEST" shortener load "$SERVICE_URL" --keys "$BATS_TEST_TMPDIR/keys" --walk 2 \
        --connections 1 --json
    assert_success
    [ "$(jqo .result.requests)" -eq 120 ]
    [ "$(jqo .result.requests_failed)" -eq 0 ]
    [ "$(jqo .result.by_type.get.successful)" -eq 120 ]
    [ "$(jqo .result.by_type.post.requests)" -eq 0 ]
    [ "$(jqo .result.tasks)" -eq 120 ]
    [ "$(jqo .options.walk)" -eq 2 ]
    run curl -s --max-time 10 "$SERVICE_URL/stats"
    [ "$(jqo '.routes["GET /link/<id>"]["200"]')" -eq 120 ]
    [ "$(jqo '.routes["GET /link/<id>"] | length')" -eq 1 ]
    [ "$(jqo .cache.misses)" -eq 60 ]
    [ "$(jqo .cache.hits)" -eq 60 ]
    [ "$(jqo .cache.errors)" -eq 0 ]
    [ "$(valkey-cli -p "$VALKEY_PORT" dbsize)" -eq 60 ]
    # Six connections on two workers walk it once in all, not once each.
    run "$KVTEST" shortener load "$SERVICE_URL" --keys "$BATS_TEST_TMPDIR/keys" --walk 3 \
        --connections 6 --create-ratio 0
    assert_success
    assert_output --partial "Requests: 180 (0 POST, 180 GET), 0 failed"
    assert_output --partial "Total tasks: 180"
    run curl -s --max-time 10 "$SERVICE_URL/stats"
    [ "$(jqo '.routes["GET /link/<id>"]["200"]')" -eq 300 ]
    [ "$(jqo .cache.misses)" -eq 60 ]
    [ "$(jqo .cache.hits)" -eq 240 ]
}

@test "load --walk: misuse is a one-line usage error" {
    local u=http://127.0.0.1:1 k="$BATS_TEST_TMPDIR/keys"
    echo abc >"$k"
    for args in "--walk 2" "--walk 0" "--walk 101" "--walk x" "--walk 2 --keys $k --duration 1" \
        "--walk 2 --keys $k --tasks 5" "--walk 2 --keys $k --zipf 1" \
        "--walk 2 --keys $k --rate 10" "--walk 2 --keys $k --create-ratio 0.5" \
        "--scenario get --path /x --walk 2"; do
        # shellcheck disable=SC2086
        run "$KVTEST" shortener load "$u" $args
        [ "$status" -eq 2 ] || { echo "args: $args: status $status"; return 1; }
        [ "${#lines[@]}" -eq 1 ] || { echo "args: $args: $output"; return 1; }
        assert_output --regexp '^kvtest shortener load: '
    done
    run "$KVTEST" shortener load "$u" --walk 2
    assert_output "kvtest shortener load: --walk needs --keys FILE (the ids to walk)"
    run "$KVTEST" shortener load "$u" --walk 2 --keys "$k" --tasks 5
    assert_output --partial "--walk does not take --tasks"
    run "$KVTEST" shortener load "$u" --walk 2 --keys "$k" --create-ratio 0.5
    assert_output --partial "--walk does not take --create-ratio other than 0"
    run "$KVTEST" shortener load --help
    assert_output --partial "--walk N"
}

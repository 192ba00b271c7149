#!/usr/bin/env bats
# HTTP/1.1 pipelining: kvtest shortener serve answers pipelined requests in
# order (tests/lib/pipeline_probe.py, a raw socket client), and kvtest
# shortener load --pipeline N keeps N requests in flight per connection
# with every answer checked: counts that add up, no failure, against the
# real service and against tests/lib/stall_server.py closing connections
# with requests still in flight. Every run is bounded in requests, lasts
# about a second, or is ended by SIGTERM once the service has answered a
# count of requests ("finish what is in flight", then the results); each is
# killed after 60 s or 120 s (timeout -k): a connection stuck with requests
# nobody sends again fails the test instead of hanging it. No verdict
# depends on how fast the machine is: the time figures asserted are upper
# bounds (on what --rate sends), which a slow machine can only make lower.

load '../../lib/common'

setup() {
    shortener_setup
}

# The stall server too (start_py_server, servers.bash).
teardown() {
    shortener_teardown
}

jqo() { jq -r "$1" <<<"$output"; }

@test "the service answers 16 pipelined POSTs, then 24 pipelined GETs, in order" {
    "$KVTEST" shortener init "$DB" --links 10 --seed 3 >/dev/null
    start_service "$DB" --threads 2 --cache none
    run python3 "$BATS_TEST_DIRNAME/../../lib/pipeline_probe.py" "$SERVICE_PORT" 16
    assert_success
    assert_output "ok 24"
}

@test "load --pipeline 4, duration mode: every GET checked against the URL it created" {
    # Without --keys, each GET must return the URL this run created for its
    # id: an answer matched to the wrong request in flight fails bad_body.
    "$KVTEST" shortener init "$DB" --links 10 --seed 3 >/dev/null
    start_service "$DB" --threads 2 --cache none
    # The run goes on until the service has answered 100 GETs (its /stats,
    # polled up to 60 s), however long that takes, then SIGTERM ends it:
    # what is in flight is finished and checked, the results printed, exit 1.
    timeout -k 5 120 "$KVTEST" shortener load "$SERVICE_URL" --duration 100 --create-ratio 0.3 \
        --connections 3 --pipeline 4 --json >"$BATS_TEST_TMPDIR/load.json" \
        2>"$BATS_TEST_TMPDIR/load.err" &
    local load=$! i n=0 st=0
    for i in $(seq 1 600); do
        n=$(curl -s --max-time 10 "$SERVICE_URL/stats" | jq '.routes["GET /link/<id>"]["200"] // 0')
        [ "$n" -ge 100 ] && break
        kill -0 "$load" 2>/dev/null || break
        : "$i"
        sleep 0.1
    done
    # to kvtest itself: timeout would pass the signal on twice (to its child
    # and to its process group), and a second SIGTERM kills the load
    kill -TERM "$(pgrep -P "$load")" 2>/dev/null || true
    wait "$load" || st=$?
    [ "$n" -ge 100 ] || fail "the service answered $n GETs; load: $(cat "$BATS_TEST_TMPDIR/load.err")"
    assert_equal "$st" 1
    run cat "$BATS_TEST_TMPDIR/load.err"
    assert_output --partial "interrupted after"
    run cat "$BATS_TEST_TMPDIR/load.json"
    [ "$(jqo .options.pipeline)" = 4 ]
    [ "$(jqo .result.requests_failed)" -eq 0 ]
    [ "$(jqo .result.by_type.get.requests)" -ge 100 ]
    [ "$(jqo '.result.by_type.post.requests + .result.by_type.get.requests')" \
        -eq "$(jqo .result.requests)" ]
}

@test "load --pipeline 8, task mode: GETs wait for their POST, all tasks complete" {
    "$KVTEST" shortener init "$DB" --links 10 --seed 3 >/dev/null
    start_service "$DB" --threads 2 --cache none
    run timeout -k 5 60 "$KVTEST" shortener load "$SERVICE_URL" --tasks 40 --gets 9 --connections 3 \
        --pipeline 8 --json
    assert_success
    [ "$(jqo .result.tasks)" -eq 40 ]
    [ "$(jqo .result.failed)" -eq 0 ]
    [ "$(jqo .result.requests)" -eq 400 ]
    [ "$(jqo .result.by_type.post.requests)" -eq 40 ]
    [ "$(jqo .result.requests_failed)" -eq 0 ]
}

@test "load --scenario get --pipeline 16: exactly --tasks requests, all answered" {
    "$KVTEST" shortener init "$DB" --links 10 --seed 3 >/dev/null
    start_service "$DB" --threads 2 --cache none
    run timeout -k 5 60 "$KVTEST" shortener load "$SERVICE_URL" --scenario get --path /heart-beat \
        --tasks 777 --connections 2 --pipeline 16 --json
    assert_success
    [ "$(jqo .result.requests)" -eq 777 ]
    [ "$(jqo .result.requests_failed)" -eq 0 ]
}

@test "load --pipeline 4 with --rate: each request timed from its schedule" {
    "$KVTEST" shortener init "$DB" --links 10 --seed 3 >/dev/null
    "$KVTEST" shortener keys "$DB" >"$BATS_TEST_TMPDIR/keys"
    start_service "$DB" --threads 2 --cache none
    run timeout -k 5 60 "$KVTEST" shortener load "$SERVICE_URL" --duration 1 \
        --keys "$BATS_TEST_TMPDIR/keys" --connections 2 --pipeline 4 --rate 300 --json
    assert_success
    [ "$(jqo .result.latency_from)" = schedule ]
    [ "$(jqo .result.requests_failed)" -eq 0 ]
    # 300/s for 1 s: the schedule allows 300 requests, none is sent early.
    # How many of them are sent within the second is the machine's speed
    # (one not sent by the end is not sent at all): only that some were.
    [ "$(jqo .result.requests)" -le 300 ]
    [ "$(jqo .result.requests)" -gt 0 ]
    # Sent on schedule, not as fast as the server answers: a slower machine
    # can only make the achieved rate lower.
    awk -v r="$(jqo .result.rate.achieved_per_s)" 'BEGIN { exit !(r <= 315) }'
}

@test "a server that closes after every 3rd answer: requests in flight behind go again" {
    start_py_server stall_server.py --seconds 60 --stall-ms 0 --close-every 3
    run timeout -k 5 60 "$KVTEST" shortener load "$PY_URL" --tasks 30 --gets 5 \
        --connections 2 --pipeline 4 --json
    assert_success
    [ "$(jqo .result.requests)" -eq 180 ]
    [ "$(jqo .result.requests_failed)" -eq 0 ]
    [ "$(jqo .result.failed)" -eq 0 ]
}

@test "load --pipeline out of range or not a number: one line, exit 2" {
    for bad in 0 129 -1 x; do
        run "$KVTEST" shortener load http://127.0.0.1:9 --pipeline "$bad"
        assert_failure 2
        [ "${#lines[@]}" -eq 1 ]
        assert_output --partial "--pipeline"
    done
}

@test "load against a host that does not resolve: every request fails, exit 1, no hang" {
    # The connect fails inside the pending list's flush, before any socket:
    # the VU must go on to its next request (and fail it) rather than wait
    # for ever, at --pipeline 1 as at 4.
    for p in 1 4; do
        run timeout -k 5 60 "$KVTEST" shortener load http://no-such-host.invalid:80 --tasks 3 \
            --gets 1 --connections 2 --pipeline "$p" --json
        assert_failure 1
        [ "$(jqo .result.requests)" -eq 3 ]
        [ "$(jqo .result.failures.connect)" -eq 3 ]
    done
}

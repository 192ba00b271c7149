#!/usr/bin/env bats
# kvtest shortener load --slo: the capacity search, checked against a real
# HTTP server whose capacity is known. build/fixedcap (scripts/tools/
# fixedcap.c) holds each request in one of W slots for exactly D, first
# come first served, so the highest rate any bound of a few D survives is
# W/D; the search must land within 5% of it, with the truth inside its
# interval. That is a correctness check of the search, not a timing of
# kvtest: the capacity is the server's, set by its arguments, and only
# loopback traffic at a few hundred requests a second is sent.
# serial: fixedcap's slots hold requests for a set time, but a loaded CPU
# delays when they are sent and answered, and the search finds less than
# W/D (tests/run.sh runs this one alone).

load '../lib/common'

FIXEDCAP="$BATS_TEST_DIRNAME/../../build/fixedcap"

setup() {
    common_setup
    [ -x "$FIXEDCAP" ] || skip "build/fixedcap is not built (make build/fixedcap)"
    FC_PID=
}

teardown() {
    [ -z "$FC_PID" ] || stop_pid "$FC_PID" TERM
}

jqo() { jq -r "$1" <<<"$output"; }

# search_known W D_US: the search against fixedcap W D; asserts the answer.
search_known() {
    local w=$1 d=$2 truth
    truth=$((w * 1000000 / d))
    start_fixedcap "$D" "$w" "$d"
    run "$KVTEST" shortener load "$FC_URL" --scenario get --path / --slo p90=25ms \
        --rate-start 100 --step-time 1s --json
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    local json
    json=$(grep '^{' <<<"$output")
    echo "truth $truth: $(jq -c '.result.capacity' <<<"$json")"
    jq -e --argjson t "$truth" '.result.capacity
        | .outcome == "found"
          and (.rate_per_s / $t - 1 | fabs) <= 0.05
          and .lo_per_s <= $t and $t <= .hi_per_s' <<<"$json"
    # one progress line per step, and every step in the JSON
    local steps
    steps=$(jq '.result.steps | length' <<<"$json")
    [ "$steps" -eq "$(grep -c '^kvtest shortener load: step ' <<<"$output")" ]
    [ "$steps" -eq "$(jq '.result.capacity.steps' <<<"$json")" ]
    # the ramp doubles from the first step; every step ran long enough for
    # its 200 samples (p90: 20 / 0.1) and at least --step-time
    jq -e '.result.steps[0].target_per_s == 100 and .result.steps[1].target_per_s == 200
           and all(.result.steps[]; .requests >= 190 and .seconds >= 0.95)' <<<"$json"
}

@test "capacity: 2 slots x 5 ms is 400/s, found within 5%, inside the interval" {
    search_known 2 5000
}

@test "capacity: 4 slots x 4 ms is 1000/s, found within 5%, inside the interval" {
    search_known 4 4000
}

@test "capacity: --rate-max that passes answers 'at least', exit 0" {
    start_fixedcap "$D" 2 5000
    run "$KVTEST" shortener load "$FC_URL" --scenario get --path / --slo p90=25ms \
        --rate-start 100 --rate-max 150 --step-time 1s --json
    [ "$status" -eq 0 ]
    json=$(grep '^{' <<<"$output")
    jq -e '.result.capacity.outcome == "at_rate_max" and .result.capacity.rate_per_s == 150
           and ([.result.steps[].target_per_s] == [100, 150])' <<<"$json"
    run "$KVTEST" shortener load "$FC_URL" --scenario get --path / --slo p90=25ms \
        --rate-start 100 --rate-max 150 --step-time 1s
    [ "$status" -eq 0 ]
    [[ "$output" == *"Capacity at p90 <= 25 ms: at least 150.0 requests/s"* ]]
}

@test "capacity: a first step above the capacity ends the search, exit 1" {
    start_fixedcap "$D" 2 5000
    run "$KVTEST" shortener load "$FC_URL" --scenario get --path / --slo p90=25ms \
        --rate-start 800 --step-time 1s
    [ "$status" -eq 1 ]
    [[ "${lines[-1]}" == *"the first step (800.0 requests/s) already broke the objective"* ]]
}

@test "capacity: too few connections is the generator's limit, said, exit 1" {
    start_fixedcap "$D" 64 1000
    # 3 connections, one request in flight each, over 1 ms a request: under
    # 3000/s, where the server takes 64000/s
    run "$KVTEST" shortener load "$FC_URL" --scenario get --path / --slo p90=50ms \
        --rate-start 500 --step-time 1s --connections 3 --workers 1 --json
    [ "$status" -eq 1 ]
    [[ "${lines[-1]}" == *"the load generator could not send "*"generator's limit"* ]]
    json=$(grep '^{' <<<"$output")
    jq -e '.result.capacity.outcome == "generator_limit"
           and .result.steps[-1].generator_limit
           and (.result.steps[-1].from_send_us.p90 < 50000)' <<<"$json"
}

@test "capacity: bad --slo and conflicting options, exit 2, one line, no step run" {
    start_fixedcap "$D" 2 5000
    local u=$FC_URL
    expect_error 2 "unknown percentile 'p98'" shortener load "$u" --scenario get --path / --slo p98=5ms
    expect_error 2 "carry a unit" shortener load "$u" --scenario get --path / --slo p99=5
    expect_error 2 "above zero" shortener load "$u" --scenario get --path / --slo p99=0ms
    expect_error 2 "empty item" shortener load "$u" --scenario get --path / --slo p99=5ms,
    expect_error 2 "not with --rate" shortener load "$u" --scenario get --path / --slo p99=5ms --rate 10
    expect_error 2 "not with --walk" shortener load "$u" --slo p99=5ms --walk 1
    expect_error 2 "not with --duration" shortener load "$u" --slo p99=5ms --duration 2
    expect_error 2 "not with --tasks" shortener load "$u" --slo p99=5ms --tasks 10
    expect_error 2 "--rate-max 50 is below the first step" shortener load "$u" --scenario get \
        --path / --slo p99=5ms --rate-max 50
    expect_error 2 "--rate-max needs --slo" shortener load "$u" --rate-max 50
    # nothing reached the server: a search would have sent hundreds
    run "$KVTEST" shortener load "$u" --scenario get --path / --tasks 1 --json
    [ "$status" -eq 0 ]
}

@test "capacity: kvtest compare reads the capacities of two searches" {
    start_fixedcap "$D" 2 5000
    for side in old new; do
        run "$KVTEST" shortener load "$FC_URL" --scenario get --path / --slo p90=25ms \
            --rate-start 100 --rate-max 150 --step-time 1s --json
        [ "$status" -eq 0 ]
        grep '^{' <<<"$output" >"$D/$side.json"
    done
    run "$KVTEST" compare "$D/old.json" "$D/new.json" --json
    [ "$status" -eq 0 ]
    jq -e '[.rows[] | select(.measurement == "load capacity p90<=25000us c=30")
            | {metric, o: .old.median, n: .new.median}]
           == [{"metric": "capacity", "o": 150, "n": 150},
               {"metric": "capacity low end", "o": (.rows[1].old.median), "n": (.rows[1].new.median)}]
           and .rows[1].old.median > 140 and .rows[1].old.median < 150' <<<"$output"
}

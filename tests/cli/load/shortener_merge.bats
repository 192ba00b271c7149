#!/usr/bin/env bats
# kvtest shortener load-merge: load runs made at the same time against one
# service, added up. Real service, real HTTP: two concurrent load runs
# (bounded: a fixed number of tasks at a fixed --rate, 1.5-2 s each) whose
# --json results are merged. The merged percentiles are checked against
# tests/lib/loadhist.py, which adds the two runs' histograms and reads
# percentiles by itself from the format's description; the counts against
# the runs' fixed sizes; the spectrum file as HdrHistogram's plotter would
# read it. No timing is asserted.

load '../../lib/common'

setup() {
    shortener_setup
    common_setup
    LOADHIST="$BATS_TEST_DIRNAME/../../lib/loadhist.py"
}

teardown() {
    shortener_teardown
}

# two_runs: a.json (40 tasks of 1 POST + 9 GETs at 200/s: 2 s) and, started
# while it runs, b.json (30 tasks: 1.5 s), against one service.
two_runs() {
    "$KVTEST" shortener init "$DB" --links 100 >/dev/null
    start_service "$DB" --threads 2 --cache none
    "$KVTEST" shortener load "$SERVICE_URL" --tasks 40 --gets 9 --rate 200 --connections 2 \
        --json >"$D/a.json" 2>"$D/a.err" &
    local pa=$!
    "$KVTEST" shortener load "$SERVICE_URL" --tasks 30 --gets 9 --rate 200 \
        --connections 2 --json --latency-spectrum "$D/b.hgrm" >"$D/b.json"
    wait "$pa"   # its exit status, so a failed run fails the test
}

@test "two concurrent runs merged: counts add up, percentiles are those of both runs' samples" {
    two_runs
    "$KVTEST" shortener load-merge "$D/a.json" "$D/b.json" --json \
        --latency-spectrum "$D/m.hgrm" >"$D/m.json"
    jqm() { jq -r "$1" "$D/m.json"; }
    [ "$(jqm .command)" = "shortener load-merge" ]
    [ "$(jqm .result.tasks)" -eq 70 ]
    [ "$(jqm .result.requests)" -eq 700 ]
    [ "$(jqm .result.requests_failed)" -eq 0 ]
    [ "$(jqm .result.by_type.post.requests)" -eq 70 ]
    [ "$(jqm .result.by_type.get.requests)" -eq 630 ]
    [ "$(jqm .result.by_type.all.latency.count)" -eq 700 ]
    [ "$(jqm .result.by_type.all.histogram.count)" -eq 700 ]
    # every answer a 2xx, in both runs; and both --rate runs' uncorrected
    # latencies, added
    assert_equal "$(jqm '.result.by_status["2xx"].requests')" 700
    assert_equal "$(jqm '.result.by_status["2xx"].histogram.count')" 700
    assert_equal "$(jqm '.result.latency_uncorrected.latency.count')" 700
    [ "$(jqm .merge.runs)" -eq 2 ]
    [ "$(jqm .options.connections)" -eq 4 ]
    [ "$(jqm .options.rate)" -eq 400 ]
    # The shared interval: the later start to the earlier end.
    want=$(jq -rs '[(map(.result.started_at) | max), (map(.result.ended_at) | min)] | @tsv' \
        "$D/a.json" "$D/b.json")
    [ "$(jqm '[.merge.shared_from, .merge.shared_to] | @tsv')" = "$want" ]
    # (to the last bits: the subtraction is redone from printed doubles)
    [ "$(jqm '(.result.seconds - (.merge.shared_to - .merge.shared_from) | fabs) < 1e-6')" = true ]
    # Requests/s: each run's own rate, summed.
    jq -es --argjson m "$(jqm .result.requests_per_s)" \
        '(map(.result.requests / .result.seconds) | add) as $w | ($m - $w | fabs) < 1e-6 * $w' \
        "$D/a.json" "$D/b.json"
    # Percentiles: the reference adds the two histograms on its own.
    for kind in all get post; do
        run python3 "$LOADHIST" percentiles "$kind" "$D/a.json" "$D/b.json"
        assert_success
        assert_output "$(jqm ".result.by_type.$kind.latency | [.min, .p50, .p90, .p99, .p999, .max] | map(tostring) | join(\" \")")"
    done
    # The reference reads one run as load itself does.
    run python3 "$LOADHIST" percentiles all "$D/a.json"
    assert_output "$(jq -r '.result.by_type.all.latency | [.min, .p50, .p90, .p99, .p999, .max] | map(tostring) | join(" ")' "$D/a.json")"
    # The spectra, of one run and of the merged runs, parse; all requests counted.
    run python3 "$LOADHIST" spectrum "$D/m.hgrm"
    assert_success
    assert_output 700
    run python3 "$LOADHIST" spectrum "$D/b.hgrm"
    assert_success
    assert_output 300
}

@test "the merged text is load's result block, after the runs and the shared interval" {
    two_runs
    run "$KVTEST" shortener load-merge "$D/a.json" "$D/b.json"
    assert_success
    assert_line --index 0 "Merged 2 runs: $D/a.json $D/b.json"
    assert_line --index 1 --regexp '^Shared interval: 20[0-9-]+T[0-9:.]+Z to 20[0-9-]+T[0-9:.]+Z \([0-9.]+ s\), the latest start to the earliest end;$'
    assert_line "STRESS TEST RESULTS"
    assert_line "Total tasks: 70"
    assert_line "Requests: 700 (70 POST, 630 GET), 0 failed"
    assert_line --regexp '^  all +700 +0 '
    run "$KVTEST" shortener load-merge "$D/a.json" "$D/b.json" --csv
    assert_success
    assert_line --index 0 --partial "merge.shared_seconds"
    # One file is the run itself, back from its histogram.
    run "$KVTEST" shortener load-merge "$D/b.json" --json
    assert_success
    [ "$(jq -r .result.by_type.all.latency.p99 <<<"$output")" = \
      "$(jq -r .result.by_type.all.latency.p99 "$D/b.json")" ]
    [ "$(jq -r .result.requests <<<"$output")" -eq 300 ]
}

@test "runs that did not overlap in time are refused" {
    "$KVTEST" shortener init "$DB" --links 100 >/dev/null
    start_service "$DB" --threads 2 --cache none
    for r in a b; do
        "$KVTEST" shortener load "$SERVICE_URL" --tasks 5 --gets 2 --connections 1 --json \
            >"$D/$r.json"
    done
    expect_error 2 "the runs did not overlap in time" shortener load-merge "$D/a.json" "$D/b.json"
}

@test "runs against other services or another scenario are refused" {
    "$KVTEST" shortener init "$DB" --links 100 >/dev/null
    start_service "$DB" --threads 2 --cache none
    "$KVTEST" shortener load "$SERVICE_URL" --tasks 5 --gets 2 --connections 1 --json \
        >"$D/a.json"
    "$KVTEST" shortener load "$SERVICE_URL" --scenario get --path /heart-beat --tasks 10 \
        --connections 1 --json >"$D/g.json"
    expect_error 2 "g.json: ran another scenario: get, not shortener" \
        shortener load-merge "$D/a.json" "$D/g.json"
    jq -c '.options.url = "http://127.0.0.1:1"' "$D/a.json" >"$D/other.json"
    expect_error 2 "other.json: targeted another service: http://127.0.0.1:1, not $SERVICE_URL" \
        shortener load-merge "$D/a.json" "$D/other.json"
}

@test "corrupted, foreign, older and missing files are refused with one line" {
    "$KVTEST" shortener init "$DB" --links 100 >/dev/null
    start_service "$DB" --threads 2 --cache none
    "$KVTEST" shortener load "$SERVICE_URL" --tasks 5 --gets 2 --connections 1 --json \
        >"$D/a.json"
    head -c 900 "$D/a.json" >"$D/cut.json"
    expect_error 2 "cut.json: is not valid JSON" shortener load-merge "$D/a.json" "$D/cut.json"
    jq -c 'del(.result.by_type[].histogram, .result.started_at, .result.ended_at,
               .result.scenario)' "$D/a.json" >"$D/old.json"
    expect_error 2 "old.json: has no latency histograms" \
        shortener load-merge "$D/old.json" "$D/a.json"
    jq -c '.result.by_type.get.histogram.buckets[1] += 1' "$D/a.json" >"$D/count.json"
    expect_error 2 "count.json: histogram buckets hold" \
        shortener load-merge "$D/a.json" "$D/count.json"
    jq -c '.result.by_type.get.histogram.sub_bits = 8' "$D/a.json" >"$D/layout.json"
    expect_error 2 "layout.json: histogram layout differs" \
        shortener load-merge "$D/a.json" "$D/layout.json"
    echo "Requests: 5 (1 POST, 4 GET), 0 failed" >"$D/text.json"
    expect_error 2 "text.json: is not valid JSON" shortener load-merge "$D/a.json" "$D/text.json"
    echo '{"command": "run", "result": {}}' >"$D/run.json"
    expect_error 2 "run.json: is not the --json of kvtest shortener load" \
        shortener load-merge "$D/run.json"
    expect_error 2 "nosuch.json: cannot read" shortener load-merge "$D/a.json" "$D/nosuch.json"
    expect_error 2 "no FILE" shortener load-merge --json
    expect_error 2 "--csv and --json cannot be combined" \
        shortener load-merge "$D/a.json" --json --csv
}

@test "an unwritable --latency-spectrum is refused before anything runs" {
    # Port 1 has no server: a run would fail with exit 1; 2 means none ran.
    expect_error 2 "cannot write --latency-spectrum $D/no/x" \
        shortener load http://127.0.0.1:1 --tasks 1 --latency-spectrum "$D/no/x"
    echo '{}' >"$D/e.json"
    expect_error 2 "cannot write --latency-spectrum $D/no/x" \
        shortener load-merge "$D/e.json" --latency-spectrum "$D/no/x"
}

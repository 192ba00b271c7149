#!/usr/bin/env bats
# kvtest shortener load --timeline FILE: one CSV row per --interval of the
# run. Against tests/lib/stall_server.py, which stops answering for 800 ms
# every second, 200 ms intervals lie wholly inside a stall (three at least,
# the last starting 400 ms or more into it: an answer sent before the stall
# and read that late by a busy client is all that could fill them): one
# must be a row with no requests, and the first row with requests after it
# must hold a request that waited through it (max >= 200 ms: a stall can
# only make that longer on a slow machine). The rows' requests and failures
# add up to the run's totals; the row count follows from the run's own
# seconds. Unwritable file or bad --interval: exit 2 before any request
# (delay_server.py counts what it was sent).

load '../../lib/common'

setup() {
    shortener_setup
}

# The stand-in server too (start_py_server, servers.bash).
teardown() {
    shortener_teardown
}

HEADER=t_s,requests,failures,p50_us,p99_us,max_us

@test "load --timeline: one row per interval, a stall is an empty interval then a high max" {
    start_py_server stall_server.py --stall-ms 800 --every-ms 1000 --seconds 60
    run "$KVTEST" shortener load "$PY_URL" --duration 2 --connections 4 --json \
        --timeline "$D/t.csv" --interval 200ms
    assert_success
    total=$(jq .result.requests <<<"$output")
    [ "$total" -gt 0 ]
    # the run's seconds: the 2 s, then the answers in flight at the end
    want=$(jq -r '.result.seconds / 0.2 | ceil' <<<"$output")
    run head -n1 "$D/t.csv"
    assert_output "$HEADER"
    # 2 s in 200 ms rows at least; at most one per 200 ms of the run's own
    # seconds (rounded up), plus one for the rounding of the seconds printed
    rows=$(($(wc -l <"$D/t.csv") - 1))
    [ "$rows" -ge 10 ] && [ "$rows" -le $((want + 1)) ] || { echo "rows $rows, run's seconds give $want"; false; }
    # each row starts one interval after the last
    run awk -F, 'NR > 1 && $1 != sprintf("%.3f", (NR - 2) * 0.2) { print "row", NR, $0 }' "$D/t.csv"
    assert_output ""
    run awk -F, 'NR > 1 { s += $2 } END { print s }' "$D/t.csv"
    assert_output "$total"
    # an empty row, and the next row with requests has one that waited
    # through it
    run awk -F, 'NR > 1 && $2 == 0 { gap = 1; next }
                 NR > 1 && gap { if ($6 >= 200000) { print "stall seen at", $1; exit } gap = 0 }' \
        "$D/t.csv"
    assert_output --partial "stall seen at"
}

@test "load --timeline: failures per interval add up to the run's failures" {
    start_py_server stall_server.py --stall-ms 0 --wrong get --seconds 60
    run "$KVTEST" shortener load "$PY_URL" --tasks 20 --gets 4 --connections 2 --json \
        --allow-failures --timeline "$D/t.csv"
    assert_success
    want="$(jq -r '.result | "\(.requests) \(.requests_failed)"' <<<"$output")"
    [ "${want#* }" -gt 0 ]
    run awk -F, 'NR > 1 { r += $2; f += $3 } END { print r, f }' "$D/t.csv"
    assert_output "$want"
}

@test "load --timeline into an unwritable path: exit 2 before any request" {
    start_py_server delay_server.py --plan 1x0 --seconds 60
    touch "$D/file"
    expect_error 2 "cannot write --timeline $D/file/t.csv: Not a directory" shortener load \
        "$PY_URL" --tasks 5 --timeline "$D/file/t.csv"
    expect_error 2 "cannot write --timeline" shortener load "$PY_URL" --tasks 5 \
        --timeline "$D/nodir/t.csv"
    stop_py_server
    run cat "$PY_OUT"
    assert_output "delayed 0 extra 0"
}

@test "load --interval: bad values and --interval without --timeline are usage errors" {
    for bad in 0 abc 5x -1s 2h 0.5ms; do
        expect_error 2 "invalid --interval '$bad'" shortener load http://127.0.0.1:9 \
            --timeline "$D/t.csv" --interval "$bad"
    done
    expect_error 2 "--interval needs --timeline" shortener load http://127.0.0.1:9 \
        --interval 1s
    expect_error 2 "over 3600 intervals" shortener load http://127.0.0.1:9 --duration 2h \
        --timeline "$D/t.csv" --interval 1s
}

# ---- kvtest run --timeline -------------------------------------------------------

@test "run --timeline: one row per interval of the run, accesses add up to --count" {
    "$KVTEST" init "$D/x.db" --count 2000 --size 1000 >/dev/null
    run "$KVTEST" run "$D/x.db" --count 30000 --random --threads 2 --repeat 2 --warmup 1 \
        --json --timeline "$D/r.csv" --interval 5ms
    assert_success
    # the last measured run's seconds: ceil(seconds / 5 ms) rows
    want=$(jq -r '.result.runs[-1].seconds | . / 0.005 | ceil' <<<"$output")
    [ "$want" -ge 2 ]
    run head -n1 "$D/r.csv"
    assert_output "$HEADER"
    rows=$(($(wc -l <"$D/r.csv") - 1))
    [ "$rows" -eq "$want" ] || { echo "rows $rows, want $want"; false; }
    run awk -F, 'NR > 1 { r += $2; f += $3; if ($2 > 0 && $6 == "") bad++ }
                 END { print r, f, bad + 0 }' "$D/r.csv"
    assert_output "30000 0 0"
}

@test "run --timeline: rows run to the end of the timed run, past the last access" {
    # With WAL the timer includes the checkpoint at close, after the last
    # access: the intervals it spans are rows with no accesses, so the row
    # count comes from the run's time, not from the last interval that saw
    # an access.
    "$KVTEST" init "$D/x.db" --count 2000 --size 1000 >/dev/null
    run "$KVTEST" run "$D/x.db" --count 2000 --update --jmode wal --json \
        --timeline "$D/w.csv" --interval 1ms
    assert_success
    want=$(jq -r '.result.runs[-1].seconds | . / 0.001 | ceil' <<<"$output")
    rows=$(($(wc -l <"$D/w.csv") - 1))
    [ "$rows" -eq "$want" ] || { echo "rows $rows, want $want"; false; }
    run awk -F, 'NR > 1 { r += $2 } END { print r }' "$D/w.csv"
    assert_output "2000"
}

@test "run --timeline: usage errors before anything is measured" {
    "$KVTEST" init "$D/x.db" --count 10 >/dev/null
    touch "$D/file"
    expect_error 2 "cannot write --timeline $D/file/r.csv" run "$D/x.db" --timeline "$D/file/r.csv"
    expect_error 2 "invalid --interval '0'" run "$D/x.db" --timeline "$D/r.csv" --interval 0
    expect_error 2 "--interval needs --timeline" run "$D/x.db" --interval 1s
    expect_error 2 "drop --no-latency" run "$D/x.db" --timeline "$D/r.csv" --no-latency
}

#!/usr/bin/env bats
# Every latency label kvtest prints (min, p50, mean, p90, p99, p99.9, max)
# reports that statistic, in text and in --json.
#
# load and bench are driven against tests/lib/delay_server.py, which
# answers each request (bench: each Valkey GET) after a delay drawn without
# replacement from a plan of plateaus: 2000 requests, of which
#   900 at once, 800 after A, 270 after B, 20 after C, 9 after E, 1 after F
# so that, by nearest rank, p50 (rank 1000) lies among the A's, p90 (1800)
# among the B's, p99 (1980) among the C's, p99.9 (1998) among the E's and
# max is F. A delay is a minimum: noise (a busy machine) only adds to it.
# So each label is checked against its own plateau from below (less the
# histogram's 0.4%), the labels must rise strictly in the order
# min < p50 < p90 < p99 < p99.9 < max (each pair sits on two different
# plateaus, whole buckets apart), and from above only where hundreds of
# requests would have to be slowed by far more than the gap to the next
# plateau. A label that reads another percentile, or a column swap, lands
# on another plateau and fails; no figure depends on the machine's speed.
#
# run has no server to delay: its labels come from report.c, tested with a
# histogram of known content in tests/unit/measure/test_hist.c; here the text line
# and the JSON object are checked for labels, order and counts.

load '../../lib/common'

setup() {
    shortener_setup
}

# The delay server too (start_py_server, servers.bash).
teardown() {
    shortener_teardown
}

# Load: ms. Mean of the plan: (800*2 + 270*20 + 20*60 + 9*600 + 1500)/2000.
# p50 (A, 2 ms) sits 5.5 ms under the mean, the bound above it: E's 600 ms
# lift the mean (with E at 250 and A at 3, 3.4 ms of noise sufficed).
LOAD_PLAN=900x0,800x2,270x20,20x60,9x600,1x1500
LOAD_MEAN=7.55
# Bench: ms, plateaus four times apart (the first plan's, two apart and a
# few ms long, put p90 on the next plateau when a CPU-heavy job ran
# beside: a loaded flake round), all under the --cache-timeout given.
# Mean: (800*10 + 270*40 + 20*120 + 9*300 + 600)/2000 = 12.25.
BENCH_PLAN=900x0,800x10,270x40,20x120,9x300,1x600

# start_delay_server PROTOCOL PLAN: tests/lib/delay_server.py on PY_PORT.
start_delay_server() {
    start_py_server delay_server.py --protocol "$1" --plan "$2" --seconds 60
}

# stop_delay_server: every delay of the plan was handed out, none beyond it.
stop_delay_server() {
    stop_py_server
    run cat "$PY_OUT"
    assert_output "delayed 2000 extra 0"
}

# table_row HEADER_FIRST ROW_FIRST: from a text table in $output, print
# "label value" for each column of the row that starts with ROW_FIRST, the
# labels taken from the header line that starts with HEADER_FIRST (unit
# words "us" dropped, so "p50 us" is p50). The columns are matched by
# position: a label printed over another's value is caught.
table_row() {
    awk -v h="$1" -v r="$2" '
        $1 == h && !n { for (i = 1; i <= NF; i++) if ($i != "us") name[++n] = $i; next }
        n && $1 == r { for (i = 2; i <= NF && i <= n; i++) print name[i], $i; exit }
    ' <<<"$output"
}

# check NAME VALUE LOW [HIGH]: LOW <= VALUE (< HIGH when given).
check() {
    awk -v v="$2" -v lo="$3" -v hi="${4:-}" 'BEGIN { exit !(v >= lo && (hi == "" || v < hi)) }' ||
        { echo "$1 = $2, expected >= $3${4:+ and < $4}"; return 1; }
}

# rising NAME=VALUE...: each value strictly above the one before.
rising() {
    local prev="" pname="" a
    for a in "$@"; do
        if [ -n "$prev" ]; then
            awk -v a="$prev" -v b="${a#*=}" 'BEGIN { exit !(a < b) }' ||
                { echo "${pname} = $prev is not below ${a%%=*} = ${a#*=}"; return 1; }
        fi
        prev=${a#*=}
        pname=${a%%=*}
    done
}

# check_load_plateaus MIN P50 MEAN P90 P99 P999 MAX (ms)
check_load_plateaus() {
    check min "$1" 0 1.98
    check p50 "$2" 1.98 "$LOAD_MEAN"
    check mean "$3" "$LOAD_MEAN" 19.8
    check p90 "$4" 19.8 59.4
    check p99 "$5" 59.4 594
    check p99.9 "$6" 594 1485
    check max "$7" 1485 5000
    rising min="$1" p50="$2" mean="$3" p90="$4" p99="$5" p99.9="$6" max="$7"
}

# check_bench_plateaus P50 P90 P99 P999 MAX (ms)
check_bench_plateaus() {
    check p50 "$1" 9.9 39.6
    check p90 "$2" 39.6 118.8
    check p99 "$3" 118.8
    check p99.9 "$4" 297
    check max "$5" 594
    rising p50="$1" p90="$2" p99="$3" p99.9="$4" max="$5"
}

@test "load text: each column of the latency table and the classic lines read their own plateau" {
    start_delay_server http "$LOAD_PLAN"
    run "$KVTEST" shortener load "$PY_URL" --tasks 1000 --gets 1 \
        --connections 8
    assert_success
    assert_output --partial "Requests: 2000 (1000 POST, 1000 GET), 0 failed"
    declare -A v
    while read -r k x; do v[$k]=$x; done < <(table_row type all)
    [ "${v[requests]}" = 2000 ]
    check_load_plateaus "${v[min]}" "${v[p50]}" "${v[mean]}" "${v[p90]}" "${v[p99]}" \
        "${v[p99.9]}" "${v[max]}"
    # the classic stress test's lines, same histogram
    check Min "$(field '  Min' <<<"$output")" 0 1.98
    check Median "$(field '  Median' <<<"$output")" 1.98 "$LOAD_MEAN"
    check Mean "$(field '  Mean' <<<"$output")" 7.5 19.8
    check Max "$(field '  Max' <<<"$output")" 1485 5000
    stop_delay_server
}

@test "load --json: each latency field reads its own plateau" {
    start_delay_server http "$LOAD_PLAN"
    run "$KVTEST" shortener load "$PY_URL" --tasks 1000 --gets 1 \
        --connections 8 --json
    assert_success
    [ "$(jq .result.requests_failed <<<"$output")" -eq 0 ]
    [ "$(jq .result.by_type.all.latency.count <<<"$output")" -eq 2000 ]
    # us in JSON, ms here
    read -r mn p50 mean p90 p99 p999 mx < <(jq -r '.result.by_type.all.latency |
        [.min, .p50, .mean, .p90, .p99, .p999, .max] | map(. / 1000) | @tsv' <<<"$output")
    check_load_plateaus "$mn" "$p50" "$mean" "$p90" "$p99" "$p999" "$mx"
    # and the two kinds together are the whole
    [ "$(jq '.result.by_type | .post.latency.count + .get.latency.count' <<<"$output")" -eq 2000 ]
    stop_delay_server
}

@test "bench text and --json: each latency column of a valkey row reads its own plateau" {
    "$KVTEST" shortener init "$DB" --links 300 --seed 3 >/dev/null
    # --warmup 0: every timed lookup is one delayed GET (plus a SET on a miss)
    local args=(--cache "valkey://127.0.0.1:PORT" --configs valkey --lookups 2000
                --threads 8 --warmup 0 --repeat 1 --cache-timeout 2000)
    start_delay_server resp "$BENCH_PLAN"
    run "$KVTEST" shortener bench "$DB" "${args[@]/PORT/$PY_PORT}"
    assert_success
    declare -A v
    while read -r k x; do v[$k]=$x; done < <(table_row config valkey)
    # us in the table, ms here
    for k in p50 p90 p99 p99.9 max; do v[$k]=$(awk -v x="${v[$k]}" 'BEGIN { print x / 1000 }'); done
    check_bench_plateaus "${v[p50]}" "${v[p90]}" "${v[p99]}" "${v[p99.9]}" "${v[max]}"
    stop_delay_server

    start_delay_server resp "$BENCH_PLAN"
    run "$KVTEST" shortener bench "$DB" "${args[@]/PORT/$PY_PORT}" --json
    assert_success
    [ "$(jq '.result.configs[0].latency.count' <<<"$output")" -eq 2000 ]
    read -r mn p50 mean p90 p99 p999 mx < <(jq -r '.result.configs[0].latency |
        [.min, .p50, .mean, .p90, .p99, .p999, .max] | map(. / 1000) | @tsv' <<<"$output")
    check_bench_plateaus "$p50" "$p90" "$p99" "$p999" "$mx"
    # the plan's mean is 12.25 ms
    check mean "$mean" 12.2 39.6
    check min "$mn" 0 9.9
    stop_delay_server
}

@test "run: the latency line and the JSON object carry every label, in order, over all runs" {
    "$KVTEST" init "$D/x.db" --count 500 --size 2k >/dev/null
    run "$KVTEST" run "$D/x.db" --count 1000 --random --repeat 2
    assert_success
    local num='([0-9]+\.[0-9])'
    line=$(grep '^Latency per BLOB read (us): ' <<<"$output")
    [[ "$line" =~ ^"Latency per BLOB read (us): min "$num" p50 "$num" p90 "$num" p99 "$num" p99.9 "$num" max "$num" mean "$num$ ]] ||
        { echo "line: $line"; false; }
    r=("${BASH_REMATCH[@]:1}")
    # a percentile never exceeds the next one; the mean lies within min..max
    awk -v a="${r[0]}" -v b="${r[1]}" -v c="${r[2]}" -v d="${r[3]}" -v e="${r[4]}" \
        -v f="${r[5]}" -v m="${r[6]}" \
        'BEGIN { exit !(a <= b && b <= c && c <= d && d <= e && e <= f && a <= m && m <= f) }'

    run "$KVTEST" run "$D/x.db" --count 1000 --random --repeat 2 --json
    assert_success
    # the documented keys in the documented order, from both measured runs
    [ "$(jq -c '.result.latency | keys_unsorted' <<<"$output")" = \
        '["count","min","p50","p90","p99","p999","max","mean"]' ]
    [ "$(jq .result.latency.count <<<"$output")" -eq 2000 ]
    [ "$(jq '.result.latency | .min <= .p50 and .p50 <= .p90 and .p90 <= .p99 and
        .p99 <= .p999 and .p999 <= .max and .min <= .mean and .mean <= .max' <<<"$output")" = true ]
}

#!/usr/bin/env bats
# scripts/study/capacity.sh and report-capacity.sh, make bench's capacity
# part: the report's table from real "kvtest shortener load" output, and
# the rule that picks the bound X. The runs are recorded once, by the real
# tool against build/fixedcap (scripts/tools/fixedcap.c: 2 slots x 5 ms, a
# server of known capacity 400/s, as tests/cli/load/capacity.bats uses it), in
# fixtures/capacity_study/ beside it (remake.sh there remakes them and
# says how): an unloaded --rate run, one --slo search that found the
# capacity, a closed-loop run over one connection (capacity.sh's own, after
# the search: about 200/s) and two over four (shortener.sh's rounds: about
# 400/s); each test tags them as capacity.sh and shortener.sh tag theirs.
# These tests are of the report, not of the search (tests/cli/load/capacity.bats
# and tests/unit/load/test_load_search.c are): recorded runs make them
# independent of how fast this machine runs a search today. Every
# assertion compares the report with the data it was made from, never one
# timing with another.
# In study/, so make test-repo runs it: the study's scripts (make bench),
# not kvtest.

load '../../lib/common'

STUDY="$BATS_TEST_DIRNAME/../../../scripts/study"
FIXTURES="$BATS_TEST_DIRNAME/fixtures/capacity_study"

# tag JSON_FILE BENCH_JSON: each JSON line of the file with {"bench": ...}
tag() { jq -c --argjson b "$2" '. + {bench: $b}' "$1"; }

setup() {
    common_setup
    local f=$FIXTURES o
    # the recorded search is one that found the capacity
    jq -e '.result.capacity.outcome == "found"' "$f/search.json" >/dev/null
    # The fixture directory, as capacity.sh and shortener.sh leave it.
    O=$D/out
    mkdir -p "$O/raw" "$O/csv" "$O/logs"
    o='"experiment":"capacity","store":"sqlite","warmup":false,"wall_s":9.5'
    {
        tag "$f/unloaded.json" "{$o,\"phase\":\"unloaded\",\"keys\":\"uniform\",\"config\":\"sqlite\",\"round\":1}"
        tag "$f/unloaded.json" "{$o,\"phase\":\"unloaded\",\"keys\":\"zipf\",\"config\":\"valkey\",\"round\":1}"
        tag "$f/search.json" "{$o,\"phase\":\"search\",\"keys\":\"uniform\",\"config\":\"sqlite\",\"round\":1}"
        tag "$f/own.json" "{$o,\"phase\":\"closed\",\"keys\":\"uniform\",\"config\":\"sqlite\",\"round\":1}"
        tag "$f/search.json" "{$o,\"phase\":\"search\",\"keys\":\"zipf\",\"config\":\"valkey\",\"round\":1}"
        tag "$f/search.json" "{$o,\"phase\":\"search\",\"keys\":\"uniform\",\"config\":\"sqlite\",\"round\":2}"
    } >"$O/raw/capacity.jsonl"
    {
        tag "$f/closed1.json" '{"experiment":"http","config":"sqlite","round":1,"warmup":false}'
        tag "$f/closed2.json" '{"experiment":"http","config":"sqlite","round":2,"warmup":false}'
        # a warm-up run must not count: its rate made absurd
        tag "$f/closed1.json" '{"experiment":"http","config":"sqlite","round":1,"warmup":true}' |
            jq -c '.result.by_type.get.requests_per_s = 1'
    } >"$O/raw/shortener.jsonl"
    printf 'links\t2k\nthreads\t30\nzipf\t1.0\nunloaded_rate\t100\nunloaded_time\t1s\nclosed_time\t500ms\n' >"$O/raw/capacity-params.tsv"
    printf 'bound_us\t50000\nbound_rule\t5 x the median unloaded p99, rounded up to 1, 2 or 5 x 10^k us\n' >>"$O/raw/capacity-params.tsv"
    printf 'bound_factor\t5\nbound_median_p99_us\t%s\nbound_max_p99_us\t%s\nbound_max_config\tuniform/sqlite\n' \
        "$(jq '.result.by_type.get.latency.p99' "$f/unloaded.json")" \
        "$(jq '.result.by_type.get.latency.p99' "$f/unloaded.json")" >>"$O/raw/capacity-params.tsv"
    printf 'links\t2k\n' >"$O/raw/shortener-params.tsv"
    printf 'capacity-setup\t1.5\ncapacity-unloaded\t4\ncapacity-search\t30.25\ncapacity-total\t35.75\n' >"$O/logs/timings.tsv"
}

# csvf ROUND KEYS CONFIG FIELD: one field of csv/capacity.csv.
csvf() {
    awk -F, -v r="$1" -v k="$2" -v c="$3" -v f="$4" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $5 == r && $3 == k && $1 == c { print $col[f] }' "$O/csv/capacity.csv"
}
# n0 N: N rounded, with thousands separators (the report's format).
n0() {
    awk -v n="$1" 'BEGIN { s = sprintf("%.0f", n); o = ""
        while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) }
        print s o }'
}

@test "report-capacity.sh: one row per search, its own closed-loop rate and their ratio, the study's beside" {
    run bash "$STUDY/report-capacity.sh" "$O"
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    local section=$output f=$FIXTURES cap lo hi own st want
    run csvf 1 uniform sqlite outcome
    assert_output found
    cap=$(csvf 1 uniform sqlite capacity_per_s)
    # closed-loop: capacity.sh's own run after the search
    own=$(jq '.result.by_type.get.requests_per_s' "$f/own.json")
    run csvf 1 uniform sqlite closed_loop_from
    assert_output capacity.sh
    # (round 2 had no closed-loop run of its own: the study's)
    run csvf 2 uniform sqlite closed_loop_from
    assert_output shortener.sh
    run csvf 1 uniform sqlite closed_loop_per_s
    run awk -v a="$output" -v b="$own" 'BEGIN { d = a - b; exit !(d < 0.01 && d > -0.01) }'
    [ "$status" -eq 0 ] || { echo "closed-loop $(csvf 1 uniform sqlite closed_loop_per_s), wanted $own"; return 1; }
    run csvf 1 uniform sqlite capacity_over_closed_loop
    run awk -v r="$output" -v a="$cap" -v b="$own" 'BEGIN { d = r - a / b; exit !(d < 0.001 && d > -0.001) }'
    [ "$status" -eq 0 ] || { echo "ratio $(csvf 1 uniform sqlite capacity_over_closed_loop), wanted $cap / $own"; return 1; }
    # the study's: the median (of two: their mean) of shortener.sh's measured rounds, the warm-up left out
    st=$(jq -s 'map(.result.by_type.get.requests_per_s) | add / 2' "$f/closed1.json" "$f/closed2.json")
    run csvf 1 uniform sqlite study_closed_loop_per_s
    run awk -v a="$output" -v b="$st" 'BEGIN { d = a - b; exit !(d < 0.01 && d > -0.01) }'
    [ "$status" -eq 0 ] || { echo "study $(csvf 1 uniform sqlite study_closed_loop_per_s), wanted $st"; return 1; }
    # the table row: the rate, its interval, the closed-loop rate and p99, the ratio, the study's, the steps
    lo=$(csvf 1 uniform sqlite lo_per_s)
    hi=$(csvf 1 uniform sqlite hi_per_s)
    want="| uniform | sqlite | $(jq -r '.result.by_type.get.latency.p99 | round / 1000 | tostring' "$f/unloaded.json") ms"
    want+=" | $(n0 "$cap") | $(n0 "$lo")–$(n0 "$hi") | $(n0 "$own") | $(jq -r '.result.by_type.get.latency.p99 | round / 1000 | tostring' "$f/own.json") ms"
    want+=" | $(awk -v a="$cap" -v b="$own" 'BEGIN { printf "%.2fx", a / b }') | $(n0 "$st") | $(csvf 1 uniform sqlite steps) | 9.5 |"
    run grep -c -F -- "$want" <<<"$section"
    [ "$output" = 1 ] || { echo "no row: $want"; echo "$section"; return 1; }
    # the bound's heading and the sentence on how it was chosen
    run grep -c -F '### Capacity at p90 <= 50 ms' <<<"$section"
    assert_output 1
    run grep -F '5 x that is' <<<"$section"
    assert_output --partial 'rounded up to 1, 2 or 5 x 10^k µs: **X = 50 ms**'
    assert_output --partial "The median of the configurations' unloaded p99s was"
    # a configuration without any closed-loop figure: no ratio
    run grep -F '| Zipf 1.0 | valkey |' <<<"$section"
    assert_output --partial "| $(n0 "$cap") | $(n0 "$lo")–$(n0 "$hi") | n/a | – | – | n/a |"
    # the second search of uniform/sqlite, and the part's time
    run grep -F '**Searched twice**' <<<"$section"
    assert_output --partial "uniform keys, sqlite: $(n0 "$cap")/s, then $(n0 "$cap")/s (1.00x)"
    run grep -F '**How long a search takes**' <<<"$section"
    assert_output --partial 'The part took 35.8 s in all: setup 1.5 s, unloaded runs 4 s, searches 30.3 s (3 searches'
    # round 2 is in the CSV, not in the table
    run grep -c '^| uniform | sqlite |' <<<"$section"
    assert_output 1
    run awk 'END { print NR }' "$O/csv/capacity.csv"
    assert_output 4
}

@test "report-capacity.sh: without its own closed-loop run, the study's: shortener.jsonl's median, else csv/shortener-http.csv" {
    local f=$FIXTURES cap st
    jq -c 'select(.bench.phase != "closed")' "$O/raw/capacity.jsonl" >"$D/c.jsonl"
    mv "$D/c.jsonl" "$O/raw/capacity.jsonl"
    run bash "$STUDY/report-capacity.sh" "$O"
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    cap=$(csvf 1 uniform sqlite capacity_per_s)
    st=$(jq -s 'map(.result.by_type.get.requests_per_s) | add / 2' "$f/closed1.json" "$f/closed2.json")
    run grep -F '| uniform | sqlite |' <<<"$output"
    assert_output --partial "| $(n0 "$st") (shortener.sh) |"
    assert_output --partial "| $(awk -v a="$cap" -v b="$st" 'BEGIN { printf "%.2fx", a / b }') |"
    run csvf 1 uniform sqlite closed_loop_from
    assert_output shortener.sh
    # no shortener.jsonl: csv/shortener-http.csv, uniform keys only
    rm "$O/raw/shortener.jsonl"
    printf 'config,rps,rps_min,rps_max,p99_ms\nsqlite,800,700,900,2.5\nvalkey,1000,900,1100,1.5\n' >"$O/csv/shortener-http.csv"
    run bash "$STUDY/report-capacity.sh" "$O"
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    run csvf 1 uniform sqlite closed_loop_per_s
    assert_output 800
    run csvf 1 uniform sqlite closed_loop_p99_us
    assert_output 2500
    run csvf 1 uniform sqlite capacity_over_closed_loop
    assert_output "$(jq -n --argjson c "$cap" '$c / 800 * 1000 | round / 1000')"
    run csvf 1 zipf valkey closed_loop_per_s
    assert_output ""
}

@test "report-capacity.sh: the same data gives the same text and CSV; headline and findings" {
    run bash "$STUDY/report-capacity.sh" "$O"
    [ "$status" -eq 0 ]
    local first=$output csv1
    csv1=$(cat "$O/csv/capacity.csv")
    run bash "$STUDY/report-capacity.sh" "$O"
    [ "$output" = "$first" ]
    [ "$(cat "$O/csv/capacity.csv")" = "$csv1" ]
    run bash "$STUDY/report-capacity.sh" --headline "$O"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 1 ]
    assert_output --regexp '^- \*\*Capacity at p90 <= 50 ms\*\* .*uniform keys: sqlite [0-9,]+/s \([0-9.]+x its closed-loop rate\)'
    run bash "$STUDY/report-capacity.sh" --findings "$O"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 2 ]
    # id, label, estimate, lo, hi, kind: the CSV's figures
    run awk -F'\t' '$1 == "capacity-uniform-sqlite" { print NF, $6 }' <<<"$output"
    assert_output "6 per_s"
    # no capacity data: one line, exit 1
    rm "$O/raw/capacity.jsonl"
    run bash "$STUDY/report-capacity.sh" "$O"
    [ "$status" -eq 1 ]
    assert_output --partial 'no '
}

@test "capacity.sh --bound-of: 5 x the median unloaded p99, rounded up to 1, 2 or 5 x 10^k us" {
    local in want
    while read -r want in; do
        # shellcheck disable=SC2086  # several values in one word
        run bash "$STUDY/capacity.sh" --bound-of $in
        [ "$status" -eq 0 ] || { echo "--bound-of $in: status $status: $output"; return 1; }
        [ "$output" = "$want" ] || { echo "--bound-of $in: $output, wanted $want"; return 1; }
    done <<'EOF'
1000 200
2000 200.1
10000 1216
1000 100 399 120
500 100 80 9000
1000 100 300
5000 1000
1 0.1
2 0.4
5 1
10 1.01
5000000 1000000
10000 2e3
EOF
    for in in abc 0 -5 ""; do
        run bash "$STUDY/capacity.sh" --bound-of $in
        [ "$status" -eq 2 ] || { echo "--bound-of '$in': status $status"; return 1; }
    done
}

@test "capacity.sh: misuse is one line and exit 2, before anything starts" {
    local s=$STUDY/capacity.sh
    run bash "$s"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    local args want
    while IFS='|' read -r args want; do
        # shellcheck disable=SC2086  # the options, split on spaces
        # --kvtest names no binary: were the misuse not caught, the
        # script would stop there (exit 1), before starting a server
        run bash "$s" "$D/x" $args --kvtest "$D/none"
        [ "$status" -eq 2 ] || { echo "$args: status $status: $output"; return 1; }
        [ "${#lines[@]}" -eq 1 ] || { echo "$args: not one line: $output"; return 1; }
        assert_output --partial "$want"
    done <<'EOF'
--scale huge|full or small
--again uniform/nosuch|no configuration uniform/nosuch
--step-time 1.5s|--step-time must be
--bound 10ms|--bound must be
--zipf 0|--zipf must be
EOF
    [ ! -e "$D/x" ]
}

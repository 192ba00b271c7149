#!/usr/bin/env bats
# kvtest compare OLD NEW: rows per measurement and metric from real
# "run --json" outputs; the verdicts are checked on controlled inputs
# (identical sides, a side made slower with jq), never on timing.

load '../../lib/common'

setup_file() {
    : "${KVTEST:?KVTEST must name the binary under test}"
    export S="$BATS_FILE_TMPDIR"
    "$KVTEST" init "$S/x.db" --count 2000 --size 1k >/dev/null
    "$KVTEST" run "$S/x.db" --count 2000 --random --repeat 5 --json >"$S/a.jsonl"
    "$KVTEST" run "$S/x.db" --count 2000 --random --repeat 5 --json >"$S/b.jsonl"
}

setup() {
    common_setup
}

# NEW from a real output: every run at least 1.5x slower than OLD's slowest
# (distinct values, so the U test is exact), the rates to match.
slower_copy() {
    jq -c '(.result.runs | map(.us_per_blob) | max) as $t
           | (.result.runs | map(.mb_per_s) | min) as $r
           | .result.runs |= [to_entries[] | .key as $i | .value
               | .us_per_blob = $t * 1.5 * (1 + 0.01 * $i)
               | .mb_per_s = $r / 1.5 / (1 + 0.01 * $i)]' "$1"
}

@test "two real run outputs: a header, one row per metric, each with a verdict" {
    run "$KVTEST" compare "$S/a.jsonl" "$S/b.jsonl"
    assert_success
    assert_line --index 0 "OLD $S/a.jsonl (1 results) vs NEW $S/b.jsonl (1 results)"
    assert_line --index 1 --regexp '^measurement +metric +n +OLD median \[95% CI\] +NEW median'
    for m in 'us/blob' 'MB/s' 'p50 us' 'p99 us' 'p99.9 us'; do
        assert_line --regexp "^run read db/sql random warm +$m +[0-9]+/[0-9]+ .*\[.*, .*\].*  (~|faster|slower|too few samples)\$"
    done
    assert_line --regexp '^run read db/sql random warm +us/blob +5/5 '
    assert_line --regexp '^5 rows: [0-9]+ faster, [0-9]+ slower, [0-9]+ ~, 3 too few samples'
}

@test "a run compared with itself: no difference, p = 1, ratio 1" {
    run "$KVTEST" compare "$S/a.jsonl" "$S/a.jsonl" --json
    assert_success
    out=$output
    run jq -r '.command, (.rows | length), (.rows[] | select(.old.n >= 4) | .verdict)' <<<"$out"
    assert_output "$(printf 'compare\n5\n~\n~')"
    run jq -r '[.rows[] | .p == 1 and .ratio.est == 1 and .old.median == .new.median] | all' <<<"$out"
    assert_output true
    run jq -r '.rows[] | select(.metric == "p50") | [.verdict, .unit, .new.n] | @tsv' <<<"$out"
    assert_output "$(printf 'too few samples\tus\t1')"
    run "$KVTEST" compare "$S/a.jsonl" "$S/a.jsonl"
    assert_line --regexp '^run read db/sql random warm +us/blob .* 1\.000 \[[0-9.]+, [0-9.]+\] +1  ~$'
    assert_line --regexp '^5 rows: 0 faster, 0 slower, 2 ~, 3 too few samples'
}

@test "a run with a different --count: exit 2 naming count and both values" {
    "$KVTEST" run "$S/x.db" --count 1000 --random --repeat 5 --json >"$D/c.jsonl"
    expect_error 2 "differ in count" compare "$S/a.jsonl" "$D/c.jsonl"
    assert_output --regexp 'count for "run read db/sql random warm": 2000 \(.*a\.jsonl:1\) vs 1000 \(.*c\.jsonl:1\)'
    expect_error 2 "1000 (" compare "$D/c.jsonl" "$S/a.jsonl"
    assert_output --partial "vs 2000 ("
}

@test "a results directory: raw/*.jsonl read, warm-up rounds and other tools' records skipped" {
    mkdir -p "$D/res/raw"
    jq -c '. + {bench: {experiment: "read", variant: "db-sql", cache: "warm", round: 1, warmup: false}}' \
        "$S/a.jsonl" >"$D/res/raw/blobs.jsonl"
    # A warm-up round far slower than the rest: were it counted, the
    # directory would hold 10 us/blob samples, not 5.
    slower_copy "$S/a.jsonl" |
        jq -c '. + {bench: {experiment: "read", variant: "db-sql", cache: "warm", round: 0, warmup: true}}' \
        >>"$D/res/raw/blobs.jsonl"
    echo '{"tool":"wrk","requests_per_s":1000}' >"$D/res/raw/other.jsonl"
    run "$KVTEST" compare "$D/res" "$D/res"
    assert_success
    assert_line --index 0 "OLD $D/res (1 results, 1 warm-up skipped) vs NEW $D/res (1 results, 1 warm-up skipped)"
    assert_line --regexp '^run read db/sql random warm \[read/db-sql\] +us/blob +5/5 .* ~$'
    # Without raw/, DIR/*.jsonl.
    mkdir "$D/flat"
    cp "$S/b.jsonl" "$D/flat/"
    run "$KVTEST" compare "$D/flat" "$S/a.jsonl"
    assert_success
    assert_line --regexp '^run read db/sql random warm +us/blob +5/5 '
    mkdir "$D/empty"
    expect_error 2 "$D/empty: no .jsonl files" compare "$D/res" "$D/empty"
}

@test "--fail-above: a 1.5x slower NEW is slower; exit 1 above x1.2, 0 below x2" {
    slower_copy "$S/a.jsonl" >"$D/slow.jsonl"
    run --separate-stderr "$KVTEST" compare "$S/a.jsonl" "$D/slow.jsonl" --fail-above 1.2
    [ "$status" -eq 1 ] || fail "status $status: $output $stderr"
    assert_line --regexp '^run read db/sql random warm +us/blob +5/5 .* slower$'
    assert_line --regexp '^run read db/sql random warm +MB/s +5/5 .* slower$'
    re='slower than x1.2: run read db/sql random warm (us/blob|MB/s): x[0-9.]+ \(at least x[0-9.]+\)'
    [[ "${stderr_lines[0]}" =~ $re && "${stderr_lines[1]}" =~ $re ]] || fail "$stderr"
    [ "${#stderr_lines[@]}" -eq 2 ] || fail "$stderr"
    run --separate-stderr "$KVTEST" compare "$S/a.jsonl" "$D/slow.jsonl" --fail-above 2
    assert_success
    assert_line --regexp 'us/blob .* slower$'
    [ -z "$stderr" ] || fail "$stderr"
    # The other way round NEW is faster: never a failure.
    run "$KVTEST" compare "$D/slow.jsonl" "$S/a.jsonl" --fail-above 1.01
    assert_success
    assert_line --regexp 'us/blob .* faster$'
    run "$KVTEST" compare "$S/a.jsonl" "$D/slow.jsonl" --json
    assert_success
    run jq -r '.rows[] | select(.metric == "us/blob") | [.verdict, .ratio.lo >= 1.5, .p_adj < 0.05] | @tsv' <<<"$output"
    assert_output "$(printf 'slower\ttrue\ttrue')"
}

# OLD and NEW as an A/B run would give them: 8 rounds whose speed drifts
# over 2.75x, NEW 5-5.7% slower than OLD within every round (FACTOR 1.05;
# 1 leaves OLD as is; rates to match).
drift_copy() {   # drift_copy FILE FACTOR ROUNDS
    jq -c --argjson f "$2" --argjson n "$3" '.result.runs[0] as $r
        | .result.runs = [range($n) as $i | $r
            | (if $f == 1 then 1 else $f * (1 + 0.001 * $i) end) as $g
            | .us_per_blob = 10 * (1 + 0.25 * $i) * $g
            | .mb_per_s = 100 / (1 + 0.25 * $i) / $g]' "$1"
}

@test "--paired: a 5% slowdown in every round of a drifting machine is slower paired, ~ unpaired" {
    head -n 1 "$S/a.jsonl" >"$D/one.jsonl"
    drift_copy "$D/one.jsonl" 1 8 >"$D/old.jsonl"
    drift_copy "$D/one.jsonl" 1.05 8 >"$D/new.jsonl"
    run "$KVTEST" compare "$D/old.jsonl" "$D/new.jsonl" --paired --json
    assert_success
    run jq -r '[.paired, (.rows[] | select(.metric == "us/blob")
        | .verdict, (.ratio.est > 1.05 and .ratio.est < 1.057), (.ratio.lo >= 1.05), .p)] | @tsv' <<<"$output"
    # 8 pairs all up, no two alike: exact p = 2/2^8
    assert_output "$(printf 'true\tslower\ttrue\ttrue\t0.0078125')"
    run "$KVTEST" compare "$D/old.jsonl" "$D/new.jsonl" --paired --fail-above 1.04
    assert_failure 1
    assert_line --partial 'Wilcoxon signed-rank of the pairs'
    # the same samples as two independent sets: the drift hides the 5%
    run "$KVTEST" compare "$D/old.jsonl" "$D/new.jsonl" --json
    assert_success
    run jq -r '[.paired, (.rows[] | select(.metric == "us/blob") | .verdict)] | @tsv' <<<"$output"
    assert_output "$(printf 'false\t~')"
    # pairs need equal counts: one line, exit 2
    drift_copy "$D/one.jsonl" 1.05 7 >"$D/short.jsonl"
    run --separate-stderr "$KVTEST" compare "$D/old.jsonl" "$D/short.jsonl" --paired
    assert_failure 2
    [ -z "$output" ] || fail "stdout: $output"
    [ "${#stderr_lines[@]}" -eq 1 ] || fail "$stderr"
    assert_regex "$stderr" "^kvtest compare: --paired: run read db/sql random warm (us/blob|MB/s) has 8 samples in $D/old.jsonl and 7 in $D/short.jsonl"
}

@test "3 rounds a side: too few samples, whatever the data" {
    "$KVTEST" run "$S/x.db" --count 2000 --random --repeat 3 --json >"$D/r3.jsonl"
    slower_copy "$D/r3.jsonl" >"$D/r3slow.jsonl"
    run "$KVTEST" compare "$D/r3.jsonl" "$D/r3slow.jsonl" --fail-above 1.2
    assert_success
    assert_line --regexp '^run read db/sql random warm +us/blob +3/3 .* too few samples$'
    assert_line --regexp '^5 rows: 0 faster, 0 slower, 0 ~, 5 too few samples'
}

@test "bad input: one line, exit 2, naming FILE:LINE or the file" {
    { cat "$S/a.jsonl"; echo 'Total elapsed time: 1.0'; } >"$D/bad.jsonl"
    expect_error 2 "$D/bad.jsonl:2: not a JSON object" compare "$D/bad.jsonl" "$S/a.jsonl"
    echo '{"count": 3}' >"$D/foreign.jsonl"
    expect_error 2 "$D/foreign.jsonl:1: not kvtest JSON" compare "$S/a.jsonl" "$D/foreign.jsonl"
    echo '{"command": "run"}' >"$D/hollow.jsonl"
    expect_error 2 "hollow.jsonl:1: not kvtest JSON (run without options or result)" \
        compare "$S/a.jsonl" "$D/hollow.jsonl"
    expect_error 2 "$D/missing.jsonl: No such file or directory" compare "$S/a.jsonl" "$D/missing.jsonl"
    "$KVTEST" stat "$S/x.db" --json >"$D/stat.jsonl"
    expect_error 2 "no measurement in common" compare "$S/a.jsonl" "$D/stat.jsonl"
    expect_error 2 "two inputs" compare "$S/a.jsonl"
    expect_error 2 "one side only" compare - -
}

@test "stdin on one side; --json rows carry both sides, the ratio and p values" {
    run --separate-stderr "$KVTEST" compare - "$S/b.jsonl" --json <"$S/a.jsonl"
    assert_success
    out=$output
    run jq -r '[.old, .new, (.rows | length)] | @tsv' <<<"$out"
    assert_output "$(printf -- '-\t%s\t5' "$S/b.jsonl")"
    run jq -r '.rows[0] | [.measurement, .metric, .unit, .old.n, .new.n,
        (.old.lo <= .old.median and .old.median <= .old.hi),
        (.ratio.lo <= .ratio.est and .ratio.est <= .ratio.hi),
        (.p_adj >= .p)] | @tsv' <<<"$out"
    assert_output "$(printf 'run read db/sql random warm\tus/blob\tus\t5\t5\ttrue\ttrue\ttrue')"
}

@test "help compare states the methods; the core build refuses compare in one line" {
    run "$KVTEST" help compare
    assert_success
    for w in Hettmansperger Hodges-Lehmann Moses Mann-Whitney Holm-Bonferroni \
        'too few samples' '--fail-above' 'Exit status: 0'; do
        assert_output --partial "$w"
    done
    [ -n "${KVTEST_CORE_BIN:-}" ] || skip "KVTEST_CORE_BIN not set (make test sets it)"
    core=$(cd "$(dirname "$KVTEST_CORE_BIN")" && pwd)/$(basename "$KVTEST_CORE_BIN")
    KVTEST=$core expect_error 2 "compare: this build has no compare" compare a b
}

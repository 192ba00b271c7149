#!/usr/bin/env bats
# kvtest history SERIES...: change points found where a series was made to
# step (seeded series written by awk, real run --json outputs), nowhere in
# a flat one; the state file; every kind of bad input one line and exit 2.

load '../../lib/common'

setup() {
    common_setup
    S="$BATS_TEST_TMPDIR"
}

# series FILE N STEP_AT FACTOR [METRIC] [UNIT]: a CSV of N commits, noise
# about 1% (seeded), the value times FACTOR from commit STEP_AT on.
series() {
    awk -v n="$2" -v at="$3" -v f="$4" -v m="${5:-sql-read}" -v u="${6:-us/op}" 'BEGIN {
        srand(42); print "commit,time,metric,value,unit"
        for (i = 0; i < n; i++) {
            v = 100 * (1 + 0.02 * (rand() + rand() - 1)); if (i >= at) v *= f
            printf "c%03d,2026-12-01T%02d:%02d:00Z,%s,%.6f,%s\n", i, int(i / 60), i % 60, m, v, u
        }
    }' >"$1"
}

# merge A B: one CSV of both, rows in commit order (A's first within one).
merge() {
    head -n 1 "$1"
    { tail -n +2 "$1"; tail -n +2 "$2"; } | sort -t, -k1,1 -s
}

@test "a step of x1.10 at commit 31: that commit, both medians, the ratio, p, slower" {
    series "$S/s.csv" 60 31 1.10
    run "$KVTEST" history "$S/s.csv"
    assert_success
    assert_line --regexp '^sql-read: c031 \(point 32 of 60\): [0-9.]+ \[[0-9.]+, [0-9.]+\] us/op \(31\) -> [0-9.]+ \[[0-9.]+, [0-9.]+\] us/op \(29\)  x1\.[01][0-9]+ \[[0-9.]+, [0-9.]+\]  p [0-9.e-]+  slower$'
    assert_line --regexp '^60 commits, 1 series analysed, 1 change points \(1 slower, 0 faster\), latest segment slower in 1 '
    run "$KVTEST" history "$S/s.csv" --json
    assert_success
    run jq -e '.change_points | length == 1 and (.[0] | .commit == "c031" and .point == 32
               and .before.n == 31 and .after.n == 29 and .ratio.lo > 1.05 and .ratio.hi < 1.15
               and .ratio.lo <= .ratio.est and .ratio.est <= .ratio.hi and .p < 0.001
               and .direction == "slower")' <<<"$output"
    assert_success
}

@test "a rate that drops is slower, one that rises faster; --fail-on-regression" {
    series "$S/r.csv" 40 20 0.8 lookups lookups/s
    run "$KVTEST" history "$S/r.csv" --fail-on-regression
    assert_failure 1
    assert_line --regexp '^lookups: c020 .* x0\.[78][0-9]+ .*  slower$'
    assert_line --regexp '^kvtest history: regression: lookups lookups: x0\.[78][0-9]+ \[.*\] since c020$'
    series "$S/f.csv" 40 20 1.25 lookups lookups/s
    run "$KVTEST" history "$S/f.csv" --fail-on-regression
    assert_success
    assert_line --regexp '^lookups: c020 .*  faster$'
}

@test "a flat series: no change, and --fail-on-regression passes" {
    series "$S/flat.csv" 60 999 1
    run "$KVTEST" history "$S/flat.csv" --fail-on-regression
    assert_success
    assert_line 'sql-read: no change in 60 points'
}

@test "--min-change drops a significant step smaller than it; --test welch finds it too" {
    series "$S/s.csv" 60 30 1.03
    run "$KVTEST" history "$S/s.csv" --test welch --json
    assert_success
    run jq -e '.change_points | length == 1 and .[0].commit == "c030"' <<<"$output"
    assert_success
    run "$KVTEST" history "$S/s.csv" --min-change 0.05
    assert_success
    assert_line 'sql-read: no change in 60 points'
}

@test "CSV: other columns are ignored, however long, and the columns may come in any order" {
    series "$S/s.csv" 40 20 1.5
    long=$(printf 'x%.0s' $(seq 1 3000))
    awk -F, -v OFS=, -v l="$long" 'NR == 1 { print "subject", $4, $2, $3, $1, $5, "more"; next }
        { print "\"a, " l "\"", $4, $2, $3, $1, $5, l }' "$S/s.csv" >"$S/wide.csv"
    run "$KVTEST" history "$S/wide.csv" --json
    assert_success
    run jq -e '[.change_points[].commit] == ["c020"]' <<<"$output"
    assert_success
    # a column that is read, too long, is refused in one line
    { head -n 3 "$S/s.csv"; echo "c099,t,sql-read,1,$long"; } >"$S/longunit.csv"
    run "$KVTEST" history "$S/longunit.csv"
    assert_failure 2
    assert_output "kvtest history: $S/longunit.csv:4: a commit, time, metric, value, unit or measurement longer than 255 bytes"
}

@test "--csv: one row per change point under one header" {
    series "$S/a.csv" 40 20 1.2 m1
    series "$S/b.csv" 40 10 0.8 m2
    merge "$S/a.csv" "$S/b.csv" >"$S/both.csv"
    run "$KVTEST" history "$S/both.csv" --csv
    assert_success
    assert_equal "${#lines[@]}" 3
    assert_line --index 0 --regexp '^command,.*,change_points\.measurement,change_points\.metric,'
    assert_line --index 1 --regexp ',m1,m1,us/op,c020,.*,slower,'
    assert_line --index 2 --regexp ',m2,m2,us/op,c010,.*,faster,'
}

@test "real run --json outputs, one file per commit in name order: the slowed one found" {
    "$KVTEST" init "$S/x.db" --count 500 --size 1k >/dev/null
    "$KVTEST" run "$S/x.db" --count 500 --json >"$S/real.json"
    # Made by a build with changes (or from outside a checkout): its env's
    # commit is not the code measured, so each file is its own commit.
    mkdir "$S/dir" "$S/clean"
    for i in $(seq -w 1 24); do
        f=1; [ "$i" -gt 12 ] && f=1.5
        jq -c --argjson f "$f" --argjson i "$i" '.result.runs |= map(.us_per_blob *= ($f * (1 + 0.001 * $i)))
            | .env.time_utc = "2026-12-01T00:00:\($i)Z" | .env.dirty = true' "$S/real.json" >"$S/dir/$i.jsonl"
        # The same from clean builds of commits c01..c24, filed under other names.
        jq -c --arg i "$i" '.env.dirty = false | .env.commit = "c\($i)"' "$S/dir/$i.jsonl" >"$S/clean/x$i.jsonl"
    done
    run "$KVTEST" history "$S/dir" --json
    assert_success
    run jq -e '[.change_points[] | select(.metric == "us/blob")] | length == 1 and .[0].commit == "13"
               and .[0].direction == "slower"' <<<"$output"
    assert_success
    run jq -r '.commits' <<<"$("$KVTEST" history "$S/dir" --json)"
    assert_output 24
    # A clean build's env names its commit, whatever the file is called.
    run "$KVTEST" history "$S/clean" --json
    assert_success
    run jq -e '.commits == 24 and ([.change_points[] | select(.metric == "us/blob")] | length == 1
               and .[0].commit == "c13")' <<<"$output"
    assert_success
    # ... and two files of one clean commit pool into one point.
    jq -c '.env.commit = "c01"' "$S/clean/x02.jsonl" >"$S/clean/x01b.jsonl"
    run jq -r '.commits' <<<"$("$KVTEST" history "$S/clean" --json)"
    assert_output 24
}

@test "a commit named in the objects wins over the file's name; its samples pool" {
    : >"$S/all.jsonl"
    "$KVTEST" init "$S/x.db" --count 200 --size 1k >/dev/null
    "$KVTEST" run "$S/x.db" --count 200 --json >"$S/one.json"
    for i in $(seq 1 20); do
        # three results per commit, one point: their median. The first is
        # always 50: only a median sees the step at k11.
        for r in 1 2 3; do
            jq -c --arg c "k$i" --argjson f "$([ "$i" -gt 10 ] && echo 2 || echo 1)" --argjson r "$r" \
                '.commit = $c | .result.runs |= map(.us_per_blob = (if $r == 1 then 50
                                                    else 10 * $f + $r * 0.01 end))' \
                "$S/one.json" >>"$S/all.jsonl"
        done
    done
    run "$KVTEST" history "$S/all.jsonl" --json
    assert_success
    run jq -e '.commits == 20 and ([.change_points[] | select(.metric == "us/blob")] | length == 1
               and .[0].commit == "k11" and (.[0].before.median * 1000 | round) == 10030)' <<<"$output"
    assert_success
}

@test "--state: the second run searches only the tail and finds what a fresh run finds" {
    series "$S/s.csv" 200 999 1
    # two steps: x1.2 at 60, x0.8 at 120, then a point appended
    awk -F, -v OFS=, 'NR > 1 { i = substr($1, 2) + 0; if (i >= 60) $4 *= 1.2; if (i >= 120) $4 *= 0.8 } 1' \
        "$S/s.csv" >"$S/t.csv"
    head -n 200 "$S/t.csv" >"$S/t199.csv"
    run "$KVTEST" history "$S/t199.csv" --state "$S/st.json" --json
    assert_success
    run jq -e '.work.points_searched == 199 and .work.series_from_state == 0' <<<"$output"
    assert_success
    run "$KVTEST" history "$S/t.csv" --state "$S/st.json" --json
    assert_success
    inc=$output
    run jq -e '.work.series_from_state == 1 and .work.points_searched == 200 - 60
               and ([.change_points[].commit] == ["c060", "c120"])' <<<"$inc"
    assert_success
    fresh=$("$KVTEST" history "$S/t.csv" --json)
    run jq -e --argjson f "$fresh" '.change_points == $f.change_points' <<<"$inc"
    assert_success
    # --window 50: only the last 50 points are searched; the changes
    # before them are kept; the answer is the fresh one
    head -n 200 "$S/t.csv" >"$S/t199.csv"
    rm "$S/st.json"
    "$KVTEST" history "$S/t199.csv" --state "$S/st.json" --window 50 >/dev/null
    run "$KVTEST" history "$S/t.csv" --state "$S/st.json" --window 50 --json
    assert_success
    run jq -e --argjson f "$fresh" '.work.points_searched == 50 and .series[0].searched_from == 150
               and .change_points == $f.change_points' <<<"$output"
    assert_success
    # a state written with another window is another analysis: searched whole
    run "$KVTEST" history "$S/t.csv" --state "$S/st.json" --json
    assert_success
    run jq -e '.work.series_from_state == 0 and .work.points_searched == 200' <<<"$output"
    assert_success
    # an edited past: analysed whole again
    sed 's/^c005,\(.*\),sql-read,[0-9.]*,/c005,\1,sql-read,99.5,/' "$S/t.csv" >"$S/edited.csv"
    run "$KVTEST" history "$S/edited.csv" --state "$S/st.json" --json
    assert_success
    run jq -e '.work.series_from_state == 0 and .work.points_searched == 200' <<<"$output"
    assert_success
}

@test "--state refuses a file that is not its own, and leaves it as it was" {
    series "$S/s.csv" 30 15 2
    echo '{"not": "a state"}' >"$S/other.json"
    run "$KVTEST" history "$S/s.csv" --state "$S/other.json"
    assert_failure 2
    assert_output "kvtest history: --state $S/other.json: not a state file of kvtest history (left as it is; name a new file)"
    run cat "$S/other.json"
    assert_output '{"not": "a state"}'
}

@test "--by-time orders CI artifacts by their time" {
    series "$S/s.csv" 40 20 1.5
    # one file per commit, named so that name order is not commit order
    tail -n +2 "$S/s.csv" | while IFS= read -r l; do
        c=${l%%,*}
        printf 'commit,time,metric,value,unit\n%s\n' "$l" >"$S/z$(printf '%s' "$c" | rev).csv"
    done
    run "$KVTEST" history "$S"/z*.csv --by-time --json
    assert_success
    run jq -e '[.change_points[].commit] == ["c020"]' <<<"$output"
    assert_success
}

@test "bad input: one line, exit 2, never a hang" {
    series "$S/ok.csv" 30 15 2
    run "$KVTEST" history
    assert_failure 2
    assert_output 'kvtest history: no SERIES given (see kvtest help history)'
    printf 'commit,time,metric,value\n' >"$S/empty.csv"
    run "$KVTEST" history "$S/empty.csv"
    assert_failure 2
    assert_output "kvtest history: no measurement in $S/empty.csv"
    : >"$S/zero.csv"
    run "$KVTEST" history "$S/zero.csv"
    assert_failure 2
    assert_output "kvtest history: $S/zero.csv: empty (a CSV series has a header and a row per sample)"
    head -n 2 "$S/ok.csv" >"$S/one.csv"
    run "$KVTEST" history "$S/one.csv"
    assert_failure 2
    assert_output 'kvtest history: no series has the 10 points of two segments of --min-segment 5 (the longest has 1, over 1 commits)'
    for bad in nan -3 0 abc '' inf 1e999; do
        { head -n 5 "$S/ok.csv"; echo "c099,2026-12-01T09:00:00Z,sql-read,$bad,us/op"; } >"$S/bad.csv"
        run "$KVTEST" history "$S/bad.csv"
        assert_failure 2
        assert_output "kvtest history: $S/bad.csv:6: value '$bad' of sql-read is not a positive number"
    done
    { head -n 5 "$S/ok.csv"; echo "c001,2026-12-01T09:00:00Z,sql-read,100,us/op"; } >"$S/dup.csv"
    run "$KVTEST" history "$S/dup.csv"
    assert_failure 2
    assert_output "kvtest history: $S/dup.csv:6: commit c001 again, not next to its points at $S/dup.csv:3 (a series is in commit order: one run of points per commit)"
    { head -n 5 "$S/ok.csv"; echo "c099,2026-12-01T09:00:00Z,sql-read,100,ms/op"; } >"$S/unit.csv"
    run "$KVTEST" history "$S/unit.csv"
    assert_failure 2
    assert_output "kvtest history: $S/unit.csv:6: sql-read in ms/op, but in us/op at $S/unit.csv:2 (one series has one unit)"
    printf 'commit,when,metric,value\n' >"$S/hdr.csv"
    run "$KVTEST" history "$S/hdr.csv"
    assert_failure 2
    assert_output "kvtest history: $S/hdr.csv:1: no column 'time' (a CSV series starts with a header naming commit, time, metric, value, and unit if it has one)"
    printf 'commit,time,metric,value\n"c1,2026,m,1\n' >"$S/quote.csv"
    run "$KVTEST" history "$S/quote.csv"
    assert_failure 2
    assert_output --regexp "^kvtest history: $S/quote.csv:2: not CSV \("
    echo 'not json' >"$S/x.jsonl"
    run "$KVTEST" history "$S/x.jsonl"
    assert_failure 2
    assert_output "kvtest history: $S/x.jsonl:1: not a JSON object (a line of kvtest --json output was expected)"
    run "$KVTEST" history "$S/missing.csv"
    assert_failure 2
    assert_output "kvtest history: $S/missing.csv: No such file or directory"
    run "$KVTEST" history "$S/ok.csv" --min-segment 1
    assert_failure 2
    run "$KVTEST" history "$S/ok.csv" --test ttest
    assert_failure 2
    assert_output --partial 'kvtest history: --test must be'
    run "$KVTEST" history - - </dev/null
    assert_failure 2
    assert_output 'kvtest history: stdin (-) can be given once'
    run "$KVTEST" history "$S/ok.csv" --json --csv
    assert_failure 2
}

@test "a gap: a series without a point at some commits is analysed over the rest" {
    series "$S/s.csv" 40 20 1.5
    awk -F, 'NR == 1 || (substr($1, 2) + 0) % 7 != 3' "$S/s.csv" >"$S/gaps.csv"
    series "$S/o.csv" 40 999 1 other
    merge "$S/gaps.csv" "$S/o.csv" >"$S/mix.csv"
    run "$KVTEST" history "$S/mix.csv" --json
    assert_success
    run jq -e '.commits == 40 and (.series[] | select(.metric == "sql-read") | .points == 34
               and .commits_without == 6) and ([.change_points[].commit] == ["c020"])' <<<"$output"
    assert_success
}

@test "help history states the method and the inputs; the core build refuses history in one line" {
    run "$KVTEST" help history
    assert_success
    for w in E-Divisive Matteson Mann-Whitney Welch 'default 0.001' 'commit, time, metric' \
        '--state FILE' 'Exit status: 0'; do
        assert_output --partial "$w"
    done
    [ -n "${KVTEST_CORE_BIN:-}" ] || skip "KVTEST_CORE_BIN not set (make test sets it)"
    core=$(cd "$(dirname "$KVTEST_CORE_BIN")" && pwd)/$(basename "$KVTEST_CORE_BIN")
    KVTEST=$core expect_error 2 "history: this build has no history" history a.csv
}

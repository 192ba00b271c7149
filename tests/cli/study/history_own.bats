#!/usr/bin/env bats
# scripts/study/history/own.sh, the project's own history: one commit (the
# checkout's HEAD) built from git archive and measured, in the form kvtest
# history reads; its refusals. merge.py's order and report.py's naming of
# the commit that made a change, on series written here over this
# checkout's real commits.
# In study/, so make test-repo runs it: the study's own script, not kvtest.

load '../../lib/common'

setup() {
    common_setup
    OWN="$BATS_TEST_DIRNAME/../../../scripts/study/history/own.sh"
    MERGE="$BATS_TEST_DIRNAME/../../../scripts/study/history/merge.py"
    REPORT="$BATS_TEST_DIRNAME/../../../scripts/study/history/report.py"
    ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
}

@test "own.sh: HEAD built and measured: seven instruction rows, six paths' wall runs, all tagged with the commit" {
    command -v valgrind >/dev/null || skip "valgrind is not installed"
    git -C "$ROOT" rev-parse HEAD >/dev/null 2>&1 || skip "not a git checkout"
    head=$(git -C "$ROOT" rev-parse HEAD)
    run bash "$OWN" --commits 1 --wall-runs 1 --kvtest "$KVTEST_REL" --out "$BATS_TEST_TMPDIR/o"
    assert_success
    run awk -F'\t' 'NR > 1 { print $1, $3 }' "$BATS_TEST_TMPDIR/o/builds.tsv"
    assert_output "$head ok"
    # one row per path, each a positive count of instructions per operation
    run awk -F, -v c="$head" 'NR > 1 && $1 == c && $3 == "ci-perf instr" && $5 > 100 && $6 == "instr/op" { print $4 }' \
        "$BATS_TEST_TMPDIR/o/series.csv"
    assert_output "$(printf '%s\n' blob-read db-write files-read files-write http lookup sql-read)"
    # the wall runs: one a path (the discarded one left out), each the commit's
    run jq -r --arg c "$head" 'select(.commit == $c) | .command' "$BATS_TEST_TMPDIR/o/wall.jsonl"
    assert_equal "${#lines[@]}" 6
    # kvtest history reads both (one commit: too short to analyse, said so)
    run "$KVTEST_REL" history "$BATS_TEST_TMPDIR/o/series.csv"
    assert_failure 2
    assert_output --partial 'no series has the 10 points of two segments'
    run "$KVTEST_REL" history "$BATS_TEST_TMPDIR/o/wall.jsonl"
    assert_failure 2
    assert_output --partial 'no series has the 10 points of two segments'
}

@test "own.sh: bad options are one line and exit 2; an output directory in use is refused" {
    run bash "$OWN" --commits 0
    assert_failure 2
    assert_output "own: --commits and --every must be positive whole numbers, not '0'"
    run bash "$OWN" --wall-runs x
    assert_failure 2
    assert_output "own: --wall-runs must be a whole number, not 'x'"
    run bash "$OWN" --range HEAD
    assert_failure 2
    assert_output "own: --range needs A..B (two revisions), not 'HEAD'"
    git -C "$ROOT" rev-parse HEAD >/dev/null 2>&1 || skip "not a git checkout"
    run bash "$OWN" --range nosuchrev..HEAD --kvtest "$KVTEST_REL"
    assert_failure 2
    assert_output "own: --range nosuchrev..HEAD: 'nosuchrev' names no commit"
    run bash "$OWN" --range HEAD..HEAD --kvtest "$KVTEST_REL" --out "$BATS_TEST_TMPDIR/empty"
    assert_failure 2
    assert_output "own: no commits to measure (--range HEAD..HEAD is empty)"
    run bash "$OWN" --bogus
    assert_failure 2
    assert_output 'own: unknown option --bogus (try --help)'
    mkdir -p "$BATS_TEST_TMPDIR/used" && touch "$BATS_TEST_TMPDIR/used/x"
    run bash "$OWN" --out "$BATS_TEST_TMPDIR/used" --kvtest "$KVTEST_REL"
    assert_failure 2
    assert_output --partial 'is not empty (--out needs a new or empty directory)'
    run cat "$BATS_TEST_TMPDIR/used/x"
    assert_success
}

# series ROWS: a series.csv of "commit value" lines, one path (lookup)
series() {
    echo "commit,time,measurement,metric,value,unit,subject"
    while read -r c v; do
        printf '%s,2026-12-01T00:00:00+00:00,ci-perf instr,lookup,%s,instr/op,"s"\n' "$c" "$v"
    done
}

@test "merge.py: runs merged in main's commit order, each commit once (the first run's), a commit off main refused" {
    n=$(git -C "$ROOT" rev-list --first-parent --count HEAD 2>/dev/null) || skip "not a git checkout"
    [ "$n" -ge 6 ] || skip "fewer than 6 commits"
    mapfile -t fp < <(git -C "$ROOT" rev-list --first-parent -n 6 HEAD | tac)  # oldest first
    # run a: commits 4, 0, 2 in that order; run b: 1, 2 (again, other value), 5
    mkdir "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
    printf '%s 4\n%s 0\n%s 2\n' "${fp[4]}" "${fp[0]}" "${fp[2]}" | series >"$BATS_TEST_TMPDIR/a/series.csv"
    printf '%s 1\n%s 99\n%s 5\n' "${fp[1]}" "${fp[2]}" "${fp[5]}" | series >"$BATS_TEST_TMPDIR/b/series.csv"
    printf '{"commit":"%s","n":1}\n{"commit":"%s","n":2}\n' "${fp[5]}" "${fp[1]}" >"$BATS_TEST_TMPDIR/b/wall.jsonl"
    run python3 "$MERGE" --out "$BATS_TEST_TMPDIR/m" "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
    assert_success
    run awk -F, 'NR > 1 { print $5 }' "$BATS_TEST_TMPDIR/m/series.csv"
    assert_output "$(printf '%s\n' 0 1 2 4 5)"
    run awk -F, 'NR > 1 { print $1 }' "$BATS_TEST_TMPDIR/m/series.csv"
    assert_output "$(printf '%s\n' "${fp[0]}" "${fp[1]}" "${fp[2]}" "${fp[4]}" "${fp[5]}")"
    run bash -c "zcat '$BATS_TEST_TMPDIR/m/wall.jsonl.gz' | jq -r .n"
    assert_output "$(printf '%s\n' 2 1)"
    # a commit main's first-parent history does not have
    mkdir "$BATS_TEST_TMPDIR/c"
    printf '%s 1\n' 0123456789abcdef0123456789abcdef01234567 | series >"$BATS_TEST_TMPDIR/c/series.csv"
    run python3 "$MERGE" --out "$BATS_TEST_TMPDIR/m2" "$BATS_TEST_TMPDIR/c"
    assert_failure 2
    assert_output "merge: $BATS_TEST_TMPDIR/c: commit 0123456789ab is not on main's first-parent history"
    run python3 "$MERGE" --out "$BATS_TEST_TMPDIR/m" "$BATS_TEST_TMPDIR/a"
    assert_failure 2
    assert_output --partial "is not empty (--out needs a new or empty directory)"
}

@test "report.py: a step named at its own commit when its neighbour was measured, else the commits between listed" {
    n=$(git -C "$ROOT" rev-list --first-parent --count HEAD 2>/dev/null) || skip "not a git checkout"
    [ "$n" -ge 40 ] || skip "fewer than 40 commits"
    mapfile -t fp < <(git -C "$ROOT" rev-list --first-parent -n 40 HEAD | tac)
    # 40 measured commits, lookup 1000 (+ a little) up to commit 19, 1100 from 20
    mkdir "$BATS_TEST_TMPDIR/all"
    for i in $(seq 0 39); do echo "${fp[$i]} $(( i < 20 ? 1000 + i % 3 : 1100 + i % 3 ))"; done |
        series >"$BATS_TEST_TMPDIR/all/series.csv"
    run python3 "$REPORT" --kvtest "$KVTEST_REL" "$BATS_TEST_TMPDIR/all"
    assert_success
    subj=$(git -C "$ROOT" log -1 --format=%s "${fp[20]}")
    run grep -F "| lookup |" "$BATS_TEST_TMPDIR/all/change-points.md"
    assert_output --partial "| slower | \`${fp[20]:0:7}\` ${subj//|//} |"
    assert_output --partial "1,001.0 → 1,101.0"
    # plot.csv: each point's level is its segment's median
    run awk -F, 'NR > 1 { print $4 }' "$BATS_TEST_TMPDIR/all/plot.csv"
    assert_output "$( (for i in $(seq 20); do echo 1001.0; done; for i in $(seq 20); do echo 1101.0; done))"
    # every other commit measured: 17 and 19 hold 1000, 21 1100; the step is
    # one of commits 20 and 21 (after 19, up to 21), both listed
    mkdir "$BATS_TEST_TMPDIR/odd"
    for i in $(seq 1 2 39); do echo "${fp[$i]} $(( i < 20 ? 1000 + i % 3 : 1100 + i % 3 ))"; done |
        series >"$BATS_TEST_TMPDIR/odd/series.csv"
    run python3 "$REPORT" --kvtest "$KVTEST_REL" "$BATS_TEST_TMPDIR/odd"
    assert_success
    run grep -F "| lookup |" "$BATS_TEST_TMPDIR/odd/change-points.md"
    assert_output --partial "one of 2 commits after \`${fp[19]:0:7}\` up to \`${fp[21]:0:7}\`"
    assert_output --partial "own.sh --range ${fp[19]:0:7}..${fp[21]:0:7}"
    assert_output --partial "\`${fp[20]:0:7}\`"
}

@test "results/history/own: change-points.md and plot.csv are what report.py makes of the committed series" {
    d="$ROOT/results/history/own"
    [ -f "$d/series.csv" ] || skip "no committed history"
    first=$(awk -F, 'NR == 2 { print $1 }' "$d/series.csv")
    git -C "$ROOT" cat-file -e "$first^{commit}" 2>/dev/null || skip "the checkout lacks the history's commits (shallow)"
    mkdir "$BATS_TEST_TMPDIR/r"
    cp "$d/series.csv" "$BATS_TEST_TMPDIR/r/"
    run python3 "$REPORT" --kvtest "$KVTEST_REL" "$BATS_TEST_TMPDIR/r"
    assert_success
    run diff "$d/change-points.md" "$BATS_TEST_TMPDIR/r/change-points.md"
    assert_success
    run diff "$d/plot.csv" "$BATS_TEST_TMPDIR/r/plot.csv"
    assert_success
}

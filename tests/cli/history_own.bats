#!/usr/bin/env bats
# scripts/study/history/own.sh, the project's own history: one commit (the
# checkout's HEAD) built from git archive and measured, in the form kvtest
# history reads; its refusals.
# repo: the study's own script, not kvtest (make test-repo)

load '../lib/common'

setup() {
    common_setup
    OWN="$BATS_TEST_DIRNAME/../../scripts/study/history/own.sh"
    ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
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
    assert_output "own: --commits, --every and --wall-runs must be positive whole numbers, not '0'"
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

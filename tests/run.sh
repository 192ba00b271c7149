#!/usr/bin/env bash
# Run every test suite and end with one line "N passed, N failed, N skipped".
#   tests/run.sh [UNIT_TEST_BINARY ...]
# Environment: KVTEST = binary under test for command-line suites
# (make test passes the AddressSanitizer + UBSan build).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
export KVTEST="${KVTEST:-./kvtest}"
KVTEST="$(cd "$(dirname "$KVTEST")" && pwd)/$(basename "$KVTEST")"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

passed=0
failed=0
skipped=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# count NAME RC PLAN P F S [SECS]: add one suite's figures to the totals
# (SECS, its wall time, is printed after them). A suite
# that exits non-zero, prints no plan, or reports fewer tests than it
# planned fails, whatever its own pass/fail lines say: the tests it never
# ran count as failed (at least one).
count() {
    local name=$1 rc=$2 plan=$3 p=$4 f=$5 s=$6 secs=${7:-} why=""
    if [ -z "$plan" ]; then
        why="no plan (the suite died before it started)"
        [ "$f" -gt 0 ] || f=1
    elif [ $((p + f + s)) -lt "$plan" ]; then
        why="ran $((p + f + s)) of $plan planned tests"
        f=$((plan - p - s))
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        why="exited with status $rc"   # e.g. a sanitizer report at exit
        f=1
    fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    echo "$name: $p passed, $f failed, $s skipped${why:+ ($why)}${secs:+, ${secs} s}"
    [ "$f" -eq 0 ]
}

# cmocka unit tests: "[==========] Running N test(s)." is the plan, then
# "[  PASSED  ] N test(s)." / "[  FAILED  ] N test(s)..." / "[  SKIPPED ] N test(s)...".
# A binary is named by its path below tests/ (build/asan/tests/measure/
# test_stats is "measure/test_stats", as tests/unit/ and mutants.txt name it).
for t in "$@"; do
    name=${t##*/tests/}
    out="$log/${name//\//_}.out"
    "$t" >"$out" 2>&1
    rc=$?
    plan=$(sed -n 's/^\[==========\] Running \([0-9][0-9]*\) test.*/\1/p' "$out" | head -n1)
    p=$(sed -n 's/.*\[  PASSED  \] \([0-9][0-9]*\) test.*/\1/p' "$out" | tail -n1)
    f=$(sed -n 's/.*\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' "$out" | tail -n1)
    s=$(sed -n 's/.*\[  SKIPPED \] \([0-9][0-9]*\) test.*/\1/p' "$out" | tail -n1)
    count "unit $name" "$rc" "$plan" "${p:-0}" "${f:-0}" "${s:-0}" || cat "$out"
    # a skipped unit test prints its reason as "skip: ..." before skip()
    sed -n "s|^skip: |  $name skipped: |p" "$out"
done

# Command-line and integration suites (bats, TAP output: "1..N" is the plan).
# run_bats LABEL FILE [VAR=VALUE...]: one suite, counted under LABEL.
run_bats() {
    local label=$1 b=$2 tap="$log/${1//[^A-Za-z0-9_]/_}.tap" rc plan p s f t0=$SECONDS
    shift 2
    env "$@" bats --tap "$b" >"$tap" 2>&1
    rc=$?
    echo "$((SECONDS - t0))" >"$tap.secs"
    plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$tap" | head -n1)
    p=$(grep '^ok ' "$tap" | grep -vc '# skip')
    s=$(grep '^ok ' "$tap" | grep -c '# skip')
    f=$(grep -c '^not ok ' "$tap")
    count "cli $label" "$rc" "$plan" "$p" "$f" "$s" "$(cat "$tap.secs")" || grep -v '^ok ' "$tap"
}
for b in tests/cli/*.bats; do
    [ -e "$b" ] && run_bats "$(basename "$b" .bats)" "$b"
done

# The store suites again on PostgreSQL: a suite that names both stores in a
# line "# stores: sqlite postgres" runs its tests on a private PostgreSQL
# server too (KVTEST_STORE=postgres; tests/lib/common.bash), the same tests
# and assertions, counted as "cli NAME (postgres)".
for b in tests/cli/*.bats; do
    if grep -q '^# stores: .*postgres' "$b"; then
        run_bats "$(basename "$b" .bats) (postgres)" "$b" KVTEST_STORE=postgres
    fi
done

# Every shell script passes shellcheck; the bats helpers in tests/lib are
# sourced, not run, so their dialect is given (-s bash).
# lint_one FILE [OPTIONS]: check one file, counted as one test.
lint_one() {
    local s=$1
    shift
    if shellcheck -x "$@" "$s" >"$log/sc.out" 2>&1; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "shellcheck $s:"; cat "$log/sc.out"
    fi
}
for s in $(find scripts -name '*.sh' | sort) tests/*.sh .ci/run; do
    [ -e "$s" ] && lint_one "$s"
done
for s in tests/lib/*.bash tests/lib/*.sh; do
    [ -e "$s" ] && lint_one "$s" -s bash
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

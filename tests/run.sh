#!/usr/bin/env bash
# Run every test suite and end with one line "N passed, N failed".
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

# cmocka unit tests: "[  PASSED  ] N test(s)." / "[  FAILED  ] N test(s)".
for t in "$@"; do
    name=$(basename "$t")
    "$t" >"$log/$name.out" 2>&1
    rc=$?
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log/$name.out" | tail -n1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log/$name.out" | tail -n1)
    p=${p:-0}; f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1   # crashed or sanitizer abort: count the binary as one failure
    fi
    passed=$((passed + p)); failed=$((failed + f))
    echo "unit $name: $p passed, $f failed"
    [ "$f" -eq 0 ] || cat "$log/$name.out"
done

# Command-line and integration suites (bats, TAP output).
for b in tests/cli/*.bats; do
    [ -e "$b" ] || continue
    name=$(basename "$b" .bats)
    bats --tap "$b" >"$log/$name.tap" 2>&1
    p=$(grep '^ok ' "$log/$name.tap" | grep -vc '# skip')
    s=$(grep '^ok ' "$log/$name.tap" | grep -c '# skip')
    f=$(grep -c '^not ok ' "$log/$name.tap")
    plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log/$name.tap" | head -n1)
    if [ -n "$plan" ] && [ $((p + s + f)) -lt "$plan" ]; then
        f=$((plan - p - s))   # suite aborted part-way: the rest count as failed
    fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    echo "cli $name: $p passed, $f failed, $s skipped"
    [ "$f" -eq 0 ] || grep -v '^ok ' "$log/$name.tap"
done

# Every shell script passes shellcheck.
for s in scripts/*.sh tests/*.sh .ci/run; do
    [ -e "$s" ] || continue
    if shellcheck -x "$s" >"$log/sc.out" 2>&1; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "shellcheck $s:"; cat "$log/sc.out"
    fi
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

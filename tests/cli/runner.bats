#!/usr/bin/env bats
# tests/run.sh, the runner behind make test: suites side by side, yet every
# count exact and the lines in a fixed order; a suite that dies, stops
# early or exits non-zero fails whatever its own lines say; a "# serial:"
# suite runs alone. Each test runs a copy of run.sh in a scratch tree of
# small suites of its own (bats files and shell stand-ins for unit binaries
# printing cmocka's lines), so its figures are known in advance.
# repo: the test runner, not kvtest (make test-repo)

load '../lib/common'

setup() {
    common_setup
    # the runner this suite runs in sets its own (make test-repo: repo);
    # each run below starts from the default, or names its set
    unset KVTEST_TEST_SET
    T=$D/tree
    mkdir -p "$T/tests/cli" "$T/tests/lib" "$T/scripts" "$T/.ci" "$T/units"
    cp "$BATS_TEST_DIRNAME/../run.sh" "$T/tests/"
    printf '#!/usr/bin/env bash\ntrue\n' >"$T/.ci/run"
}

# suite NAME BODY: tests/cli/NAME.bats holding BODY, where a line's
# leading "TEST " is "@test " (bats would take a line of this file that
# starts so for one of its own tests, even inside a string).
suite() {
    printf '#!/usr/bin/env bats\n%s\n' "$2" | sed 's/^TEST /@test /' >"$T/tests/cli/$1.bats"
}

# unit NAME LINES...: an executable standing in for a cmocka binary that
# prints LINES and exits with the status in $UNIT_RC (default 0).
unit() {
    local f=$T/units/tests/$1
    mkdir -p "$(dirname "$f")"
    { echo '#!/usr/bin/env bash'; printf 'echo %q\n' "${@:2}"; echo "exit ${UNIT_RC:-0}"; } >"$f"
    chmod +x "$f"
}

@test "runner: every count exact and the lines in a fixed order, whatever order the suites end in" {
    # b ends first, a last: the output still lists a, b, then the units.
    suite a 'TEST "a1" { sleep 1; }
TEST "a2" { skip "not here"; }'
    suite b 'TEST "b1" { true; }
TEST "b2" { false; }'
    unit x/test_one '[==========] Running 2 test(s).' '[  PASSED  ] 2 test(s).'
    UNIT_RC=1 unit x/test_two '[==========] Running 3 test(s).' '[  PASSED  ] 1 test(s).' \
        '[  FAILED  ] 2 test(s), listed below:' 'skip: no server here'
    run bash "$T/tests/run.sh" "$T/units/tests/x/test_one" "$T/units/tests/x/test_two"
    assert_failure 1
    assert_equal "$(grep -E '^(unit|cli) ' <<<"$output" | sed 's/, [0-9]* s$//')" \
"unit x/test_one: 2 passed, 0 failed, 0 skipped
unit x/test_two: 1 passed, 2 failed, 0 skipped
cli a: 1 passed, 0 failed, 1 skipped
cli b: 1 passed, 1 failed, 0 skipped"
    assert_line "  x/test_two skipped: no server here"
    assert_line "  a skipped: a2: not here"
    assert_line --regexp '^not ok 2 b2$'
    # 5 passed tests (shellcheck is the repository set's)
    assert_equal "${lines[-1]}" "5 passed, 3 failed, 1 skipped"
}

@test "runner: a suite that dies before its plan, stops early or exits non-zero fails" {
    suite dies 'exit 3
TEST "d1" { true; }'
    suite short 'setup_file() { return 1; }
TEST "s1" { true; }
TEST "s2" { true; }'
    UNIT_RC=134 unit y/test_abort '[==========] Running 1 test(s).' '[  PASSED  ] 1 test(s).'
    UNIT_RC=139 unit y/test_dead 'a crash before cmocka started'
    run bash "$T/tests/run.sh" "$T/units/tests/y/test_abort" "$T/units/tests/y/test_dead"
    assert_failure 1
    assert_line --regexp '^cli dies: 0 passed, 1 failed, 0 skipped, [0-9]+ s$'
    assert_line 'unit y/test_dead: 0 passed, 1 failed, 0 skipped (no plan (the suite died before it started))'
    assert_line --regexp '^cli short: 0 passed, 2 failed, 0 skipped \(ran 1 of 2 planned tests\)'
    assert_line 'unit y/test_abort: 1 passed, 1 failed, 0 skipped (exited with status 134)'
}

@test "runner: suites run side by side, a '# serial:' suite alone after the rest" {
    # No clock is read: each of the four parallel tests marks that it
    # started, then waits at a barrier until all four have (so the four
    # overlapped if all pass: each started before any of them ended), then
    # marks that it ended. Run one after another, the first waits out the
    # barrier's 30 s (a cap no loaded machine comes near: four bats
    # processes starting) and the rest give up at once, so a broken runner
    # fails in about 30 s. The serial one, "alone", comes first in the
    # suites' order (and the schedule's, with no times yet), so were it not
    # held back it would start with the others: it checks on starting that
    # all four have ended.
    local i
    for i in 1 2 3 4; do
        suite "p$i" "barrier() {
    local end=\$((SECONDS + 30)) n
    touch $D/started.p$i
    while [ \$SECONDS -lt \$end ]; do
        [ ! -e $D/broken ] || return 1
        n=\$(find $D -maxdepth 1 -name 'started.p*' | wc -l)
        [ \"\$n\" -lt 4 ] || return 0
        sleep 0.1
    done
    touch $D/broken
    return 1
}
TEST \"p$i\" { barrier || return 1; touch $D/ended.p$i; }"
    done
    suite alone "# serial: measures time
TEST \"alone\" {
    echo alone >>$D/alone
    for i in 1 2 3 4; do [ -e $D/ended.p\$i ] || return 1; done
}"
    run env KVTEST_TEST_JOBS=4 bash "$T/tests/run.sh"
    assert_success
    assert_equal "${lines[-1]}" "5 passed, 0 failed, 0 skipped"
    # each passed: the four met at the barrier, and the serial one ran once,
    # after every other had ended
    [ ! -e "$D/broken" ]
    assert_equal "$(cat "$D/alone")" alone
}

@test "runner: KVTEST_TEST_JOBS must be a positive number" {
    run env KVTEST_TEST_JOBS=0 bash "$T/tests/run.sh"
    assert_failure 2
    assert_output "run.sh: KVTEST_TEST_JOBS must be a positive number"
}

@test "runner: make test runs the main set, make test-servers the server suites and every PostgreSQL run, make test-repo the repository's checks; a suite with a step of its own runs in none" {
    suite plain 'TEST "plain" { true; }'
    suite srv '# servers: starts a cluster
TEST "srv" { true; }'
    suite docs '# repo: checks the pages
TEST "docs" { true; }'
    suite own '# step: make own (minutes)
TEST "own" { false; }'
    suite both '# stores: sqlite postgres
TEST "both" { echo "store ${KVTEST_STORE:-sqlite}" >>'"$D"'/stores; }'
    run bash "$T/tests/run.sh"
    assert_success
    assert_equal "$(grep -E '^cli ' <<<"$output" | sed 's/, [0-9]* s$//')" \
"cli both: 1 passed, 0 failed, 0 skipped
cli plain: 1 passed, 0 failed, 0 skipped"
    assert_equal "${lines[-1]}" "2 passed, 0 failed, 0 skipped"
    run env KVTEST_TEST_SET=servers bash "$T/tests/run.sh"
    assert_success
    assert_equal "$(grep -E '^cli ' <<<"$output" | sed 's/, [0-9]* s$//')" \
"cli srv: 1 passed, 0 failed, 0 skipped
cli both (postgres): 1 passed, 0 failed, 0 skipped"
    assert_equal "${lines[-1]}" "2 passed, 0 failed, 0 skipped"
    assert_equal "$(sort "$D/stores")" "store postgres
store sqlite"
    run env KVTEST_TEST_SET=repo bash "$T/tests/run.sh"
    assert_success
    assert_equal "$(grep -E '^cli ' <<<"$output" | sed 's/, [0-9]* s$//')" "cli docs: 1 passed, 0 failed, 0 skipped"
    assert_equal "${lines[-1]}" "3 passed, 0 failed, 0 skipped"   # 1 test, 2 scripts shellchecked
    run env KVTEST_TEST_SET=all bash "$T/tests/run.sh"
    assert_failure 2
    assert_output "run.sh: KVTEST_TEST_SET must be main, servers or repo"
}

@test "runner: a script that passed shellcheck is not linted again until a shell file changes; a failure always is" {
    mkdir -p "$T/build" "$D/bin"
    printf '#!/usr/bin/env bash\necho "$1"\n' >"$T/scripts/good.sh"
    # shellcheck is counted through a wrapper first in PATH
    printf '#!/usr/bin/env bash\necho "$*" >>%q\nexec %q "$@"\n' "$D/calls" "$(command -v shellcheck)" \
        >"$D/bin/shellcheck"
    chmod +x "$D/bin/shellcheck"
    : >"$D/calls"
    lints() { grep -c -- '-x' "$D/calls" || true; }
    PATH="$D/bin:$PATH" KVTEST_TEST_SET=repo run bash "$T/tests/run.sh"
    assert_success
    assert_equal "$(lints)" 3          # good.sh, run.sh, .ci/run
    : >"$D/calls"
    PATH="$D/bin:$PATH" KVTEST_TEST_SET=repo run bash "$T/tests/run.sh"
    assert_success
    assert_equal "${lines[-1]}" "3 passed, 0 failed, 0 skipped"
    assert_equal "$(lints)" 0          # nothing changed: nothing linted
    # a fault: every file is linted again, and the failing one on every
    # run after (a failure is never kept)
    printf '#!/usr/bin/env bash\necho $1\n' >"$T/scripts/good.sh"
    for want in 3 1; do
        : >"$D/calls"
        PATH="$D/bin:$PATH" KVTEST_TEST_SET=repo run bash "$T/tests/run.sh"
        assert_failure
        assert_line "shellcheck scripts/good.sh"
        assert_equal "${lines[-1]}" "2 passed, 1 failed, 0 skipped"
        assert_equal "$(lints)" "$want"
        assert_equal "$(grep -c good.sh "$D/calls")" 1
    done
}

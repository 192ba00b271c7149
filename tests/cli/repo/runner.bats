#!/usr/bin/env bats
# tests/run.sh, the runner behind make test: suites side by side, yet every
# count exact and the lines in a fixed order; a suite that dies, stops
# early or exits non-zero fails whatever its own lines say; a "# serial:"
# suite runs alone; the folder of tests/cli/ a suite sits in decides its
# set, and a suite in no set fails in every set. Each test but the last
# runs a copy of run.sh in a scratch tree of small suites of its own (bats
# files and shell stand-ins for unit binaries printing cmocka's lines), so
# its figures are known in advance; the last lists this checkout's sets.
# In repo/, so make test-repo runs it: the test runner, not kvtest.

load '../../lib/common'

setup() {
    common_setup
    # the runner this suite runs in sets its own (make test-repo: repo);
    # each run below starts from the default, or names its set
    unset KVTEST_TEST_SET
    T=$D/tree
    mkdir -p "$T/tests/cli" "$T/tests/lib" "$T/scripts" "$T/.ci" "$T/units"
    cp "$BATS_TEST_DIRNAME/../../run.sh" "$T/tests/"
    printf '#!/usr/bin/env bash\ntrue\n' >"$T/.ci/run"
}

# suite PATH BODY: tests/cli/PATH.bats (PATH: FOLDER/NAME) holding BODY,
# where a line's leading "TEST " is "@test " (bats would take a line of
# this file that starts so for one of its own tests, even inside a string).
suite() {
    mkdir -p "$(dirname "$T/tests/cli/$1")"
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
    suite blobs/a 'TEST "a1" { sleep 1; }
TEST "a2" { skip "not here"; }'
    suite blobs/b 'TEST "b1" { true; }
TEST "b2" { false; }'
    unit x/test_one '[==========] Running 2 test(s).' '[  PASSED  ] 2 test(s).'
    UNIT_RC=1 unit x/test_two '[==========] Running 3 test(s).' '[  PASSED  ] 1 test(s).' \
        '[  FAILED  ] 2 test(s), listed below:' 'skip: no server here'
    run bash "$T/tests/run.sh" "$T/units/tests/x/test_one" "$T/units/tests/x/test_two"
    assert_failure 1
    assert_equal "$(grep -E '^(unit|cli) ' <<<"$output" | sed 's/, [0-9]* s$//')" \
"unit x/test_one: 2 passed, 0 failed, 0 skipped
unit x/test_two: 1 passed, 2 failed, 0 skipped
cli blobs/a: 1 passed, 0 failed, 1 skipped
cli blobs/b: 1 passed, 1 failed, 0 skipped"
    assert_line "  x/test_two skipped: no server here"
    assert_line "  blobs/a skipped: a2: not here"
    assert_line --regexp '^not ok 2 b2$'
    # 5 passed tests (shellcheck is the repository set's)
    assert_equal "${lines[-1]}" "5 passed, 3 failed, 1 skipped"
}

@test "runner: a suite that dies before its plan, stops early or exits non-zero fails" {
    suite load/dies 'exit 3
TEST "d1" { true; }'
    suite load/short 'setup_file() { return 1; }
TEST "s1" { true; }
TEST "s2" { true; }'
    UNIT_RC=134 unit y/test_abort '[==========] Running 1 test(s).' '[  PASSED  ] 1 test(s).'
    UNIT_RC=139 unit y/test_dead 'a crash before cmocka started'
    run bash "$T/tests/run.sh" "$T/units/tests/y/test_abort" "$T/units/tests/y/test_dead"
    assert_failure 1
    assert_line --regexp '^cli load/dies: 0 passed, 1 failed, 0 skipped, [0-9]+ s$'
    assert_line 'unit y/test_dead: 0 passed, 1 failed, 0 skipped (no plan (the suite died before it started))'
    assert_line --regexp '^cli load/short: 0 passed, 2 failed, 0 skipped \(ran 1 of 2 planned tests\)'
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
        suite "shortener/p$i" "barrier() {
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
    suite shortener/alone "# serial: measures time
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

@test "runner: the folder decides the set: make test runs blobs/, shortener/, load/, commands/ and source/, make test-servers servers/ and every PostgreSQL run, make test-repo repo/ and study/; failnth/ runs in none" {
    local f
    for f in blobs shortener load commands source; do
        suite "$f/m_$f" 'TEST "m" { true; }'
    done
    # a tag line of the old kind moves nothing: the folder decides
    suite blobs/tagged '# servers: starts a cluster
TEST "tagged" { true; }'
    suite servers/srv 'TEST "srv" { true; }'
    suite repo/docs 'TEST "docs" { true; }'
    suite study/script 'TEST "script" { true; }'
    suite failnth/own 'TEST "own" { false; }'
    suite shortener/both '# stores: sqlite postgres
TEST "both" { echo "store ${KVTEST_STORE:-sqlite}" >>'"$D"'/stores; }'
    run bash "$T/tests/run.sh"
    assert_success
    assert_equal "$(grep -E '^cli ' <<<"$output" | sed 's/, [0-9]* s$//')" \
"cli blobs/m_blobs: 1 passed, 0 failed, 0 skipped
cli blobs/tagged: 1 passed, 0 failed, 0 skipped
cli commands/m_commands: 1 passed, 0 failed, 0 skipped
cli load/m_load: 1 passed, 0 failed, 0 skipped
cli shortener/both: 1 passed, 0 failed, 0 skipped
cli shortener/m_shortener: 1 passed, 0 failed, 0 skipped
cli source/m_source: 1 passed, 0 failed, 0 skipped"
    assert_equal "${lines[-1]}" "7 passed, 0 failed, 0 skipped"
    run env KVTEST_TEST_SET=servers bash "$T/tests/run.sh"
    assert_success
    assert_equal "$(grep -E '^cli ' <<<"$output" | sed 's/, [0-9]* s$//')" \
"cli servers/srv: 1 passed, 0 failed, 0 skipped
cli shortener/both (postgres): 1 passed, 0 failed, 0 skipped"
    assert_equal "${lines[-1]}" "2 passed, 0 failed, 0 skipped"
    assert_equal "$(sort "$D/stores")" "store postgres
store sqlite"
    run env KVTEST_TEST_SET=repo bash "$T/tests/run.sh"
    assert_success
    assert_equal "$(grep -E '^cli ' <<<"$output" | sed 's/, [0-9]* s$//')" \
"cli repo/docs: 1 passed, 0 failed, 0 skipped
cli study/script: 1 passed, 0 failed, 0 skipped"
    assert_equal "${lines[-1]}" "4 passed, 0 failed, 0 skipped"   # 2 tests, 2 scripts shellchecked
    # KVTEST_TEST_LIST=1: the same jobs, in the same order, and nothing run
    rm "$D/stores"
    run env KVTEST_TEST_SET=servers KVTEST_TEST_LIST=1 bash "$T/tests/run.sh"
    assert_success
    assert_output "cli servers/srv
cli shortener/both (postgres)"
    [ ! -e "$D/stores" ]
    run env KVTEST_TEST_SET=all bash "$T/tests/run.sh"
    assert_failure 2
    assert_output "run.sh: KVTEST_TEST_SET must be main, servers or repo"
}

@test "runner: a suite in tests/cli/ itself, in a folder run.sh gives no set or one folder too deep fails in every set, and the listing names it" {
    suite blobs/fine 'TEST "fine" { true; }'
    suite loose 'TEST "loose" { true; }'
    suite newthing/x 'TEST "x" { true; }'
    suite blobs/deeper/y 'TEST "y" { true; }'
    local set want
    want="cli blobs/deeper/y: 0 passed, 1 failed, 0 skipped (in no set: a suite sits one folder below tests/cli/, not deeper)
cli loose: 0 passed, 1 failed, 0 skipped (in no set: a suite sits in a folder of tests/cli/, not in tests/cli/ itself)
cli newthing/x: 0 passed, 1 failed, 0 skipped (in no set: tests/run.sh gives the folder tests/cli/newthing/ no set)"
    for set in main servers repo; do
        run env KVTEST_TEST_SET=$set bash "$T/tests/run.sh"
        assert_failure 1
        assert_equal "$(grep -E '^cli .*in no set' <<<"$output")" "$want"
        [ "$set" != main ] || assert_line --regexp '^cli blobs/fine: 1 passed, 0 failed, 0 skipped, [0-9]+ s$'
    done
    run env KVTEST_TEST_LIST=1 bash "$T/tests/run.sh"
    assert_failure 1
    assert_output "cli blobs/deeper/y (in no set: a suite sits one folder below tests/cli/, not deeper)
cli blobs/fine
cli loose (in no set: a suite sits in a folder of tests/cli/, not in tests/cli/ itself)
cli newthing/x (in no set: tests/run.sh gives the folder tests/cli/newthing/ no set)"
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

@test "runner: every suite of this checkout is in one set or is make failnth's, no two share a file name, none carries a set tag of the old kind" {
    local root set f
    root=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
    # each set's suites, as run.sh chooses them (it exits 1 naming any
    # suite in no set: in tests/cli/ itself, or in a folder it does not know)
    : >"$D/sets"
    for set in main servers repo; do
        run env KVTEST_TEST_SET=$set KVTEST_TEST_LIST=1 bash "$root/tests/run.sh"
        assert_success
        grep '^cli ' <<<"$output" | grep -v ' (postgres)$' | sed "s/^cli //; s/\$/ $set/" >>"$D/sets"
    done
    [ "$(wc -l <"$D/sets")" -gt 40 ]   # the listing sees suites at all
    # in one set at most
    run bash -c "cut -d' ' -f1 '$D/sets' | sort | uniq -d"
    assert_output ""
    # every suite of the checkout in one, but make failnth's own
    cd "$root"
    : >"$D/none"
    while IFS= read -r f; do
        f=${f#tests/cli/}
        grep -q "^${f%.bats} " "$D/sets" || echo "$f" >>"$D/none"
    done < <(find tests/cli -name '*.bats' | sort)
    run cat "$D/none"
    assert_output "failnth/failnth.bats"
    run grep -c '^failnth: ' Makefile
    assert_output 1
    run grep -c 'bats .*tests/cli/failnth/failnth\.bats$' Makefile
    assert_output 1
    # one suite a file name: mutants.txt names suites by it (cli:NAME)
    run bash -c "find tests/cli -name '*.bats' -printf '%f\n' | sort | uniq -d"
    assert_output ""
    # the set is the folder's: a tag line of the old kind would mislead
    run grep -l -E '^# (servers|repo|step): ' -r tests/cli --include='*.bats'
    assert_failure 1
}

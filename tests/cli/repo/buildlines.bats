#!/usr/bin/env bats
# Build lines: every tool (scripts/tools/NAME.c) and fuzz target
# (tests/fuzz/fuzz_NAME.c) names what it is built from on its first line,
# /* build: WORDS [; run: FLAGS] */, and the Makefile builds it from that
# line and from no list of its own (the Makefile's "Build lines"). Checked
# on the checkout's own files and on a scratch tree run through the
# checkout's Makefile with make -n (nothing is compiled): a target is built
# from exactly its line, and one without a line, or with a word the line
# cannot hold, is refused in one line naming its file.
# In repo/, so make test-repo runs it: the build rules, not kvtest.
load ../../lib/common

ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)

setup() {
    D=$BATS_TEST_TMPDIR
}

# mk TREE ARGS...: the checkout's Makefile run in TREE (make -n ARGS).
mk() {
    local tree=$1
    shift
    make --no-print-directory -C "$tree" CC=cc -f "$ROOT/Makefile" "$@"
}

# A tree of the shape the Makefile reads: no sources but those the
# targets below name, SQLite's object already built.
scratch_tree() {
    T=$D/tree
    mkdir -p "$T/src/base" "$T/src/d" "$T/tests/unit" "$T/tests/fuzz" "$T/scripts/tools" "$T/build"
    : >"$T/kvtest.c"
    : >"$T/sqlite3.c"
    : >"$T/sqlite3.h"
    : >"$T/build/sqlite3.o"
    printf 'int a;\n' >"$T/src/a.c"
    printf 'int x;\n' >"$T/src/d/x.c"
    printf 'int y;\n' >"$T/src/d/y.c"
    printf 'int j;\n' >"$T/src/base/json_core.c"
    printf 'int o;\n' >"$T/src/base/os.c"
}

@test "buildlines: every tool and fuzz target has a build line as its first line, and the Makefile lists none of them" {
    cd "$ROOT"
    local f n=0 bad=""
    for f in scripts/tools/*.c tests/fuzz/fuzz_*.c; do
        n=$((n + 1))
        head -n1 "$f" | grep -Eq '^/\* build: .*\*/$' || bad="$bad $f"
    done
    [ "$n" -ge 10 ]
    [ -z "$bad" ] || fail "no build line on the first line of:$bad"
    # Every target's rule comes from its file: make -n names no refusal.
    local targets
    # shellcheck disable=SC2016  # make variables, expanded by make
    targets=$(make --no-print-directory -s -f Makefile -f - print-targets <<<'print-targets: ; @echo $(foreach t,$(TOOLS),$(call tool_binary,$(t))) $(addprefix build/fuzz/fuzz_,$(FUZZ_ALL))')
    [ "$(wc -w <<<"$targets")" -eq "$n" ]
    # shellcheck disable=SC2086  # one target a word
    run make --no-print-directory -n $targets
    assert_success
    # The Makefile holds no list of a tool's or a fuzz target's own: it
    # names none of their files.
    run grep -nE 'scripts/tools/[a-z]+\.c|fuzz_[a-z]+\.c|FUZZ_(SRCS|LIBS|OBJS)_[a-z]+ *=' Makefile
    assert_failure
}

@test "buildlines: a tool and a fuzz target are built from exactly their line: sources, folders, SQLite, flags, libraries, run flags" {
    scratch_tree
    printf '/* build: src/a.c src/d/ build/sqlite3.o -lm */\nint main(void) { return 0; }\n' >"$T/scripts/tools/t1.c"
    printf '/* build: -shared -fPIC -ldl */\n' >"$T/scripts/tools/t2.c"
    printf '/* build: src/d/ src/base/ build/sqlite3.o -lfoo; run: -max_len=9 */\n' >"$T/tests/fuzz/fuzz_f1.c"
    touch "$T/build/sqlite3.o"
    run mk "$T" -n build/t1 build/t2.so build/fuzz/fuzz_f1
    assert_success
    # the tool: its sources' release objects and SQLite, then -lm
    assert_line --regexp '^cc .* -c src/a\.c -o build/rel/src/a\.o$'
    assert_line --regexp '^cc .* -O2 -g -o build/t1 scripts/tools/t1\.c build/rel/src/a\.o build/rel/src/d/x\.o build/rel/src/d/y\.o build/sqlite3\.o -lm$'
    # -shared: a library, its flags before -o
    assert_line --regexp '^cc .* -O2 -g -shared -fPIC -o build/t2\.so scripts/tools/t2\.c -ldl$'
    # the fuzz target: its sources as they are, a folder without
    # base/json_core.c (the core's stand-in for libcjson)
    assert_line --regexp '^clang .* -o build/fuzz/fuzz_f1 tests/fuzz/fuzz_f1\.c src/d/x\.c src/d/y\.c src/base/os\.c build/sqlite3\.o -lfoo$'
    refute_output --partial json_core
    # shellcheck disable=SC2016  # a make variable, expanded by make
    run mk "$T" -s -f - print-run <<<'print-run: ; @echo "[$(FUZZ_RUN_f1)]"'
    assert_output '[-max_len=9]'
}

@test "buildlines: a fuzz target or a tool without a build line, or with a word it cannot hold, is refused in one line naming its file" {
    scratch_tree
    printf '/* a fuzz target that forgot its build line */\n' >"$T/tests/fuzz/fuzz_nol.c"
    printf '/* build: src/a.c src/a.h -lm */\n' >"$T/tests/fuzz/fuzz_odd.c"
    printf '#include <stdio.h>\n/* build: src/a.c */\n' >"$T/scripts/tools/late.c"
    printf '/* build: src/a.c -lm */\n' >"$T/tests/fuzz/fuzz_ok.c"
    # The others do not stop a target that has its line.
    run mk "$T" -n build/fuzz/fuzz_ok
    assert_success
    # refused even where a binary of it was built before
    mkdir -p "$T/build/fuzz"
    : >"$T/build/fuzz/fuzz_nol"
    run mk "$T" -n build/fuzz/fuzz_nol
    assert_failure
    assert_output --regexp '^.*Makefile:[0-9]+: \*\*\* tests/fuzz/fuzz_nol\.c: its first line is not its build line /\* build: .*\*/ .*Stop\.$'
    run mk "$T" -n build/fuzz/fuzz_odd
    assert_failure
    assert_output --regexp '\*\*\* tests/fuzz/fuzz_odd\.c: its build line names src/a\.h: neither a source nor an object nor a flag'
    [ "${#lines[@]}" -eq 1 ]
    run mk "$T" -n build/late
    assert_failure
    assert_output --regexp '\*\*\* scripts/tools/late\.c: its first line is not its build line'
    [ "${#lines[@]}" -eq 1 ]
}

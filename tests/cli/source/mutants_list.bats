#!/usr/bin/env bats
# scripts/dev/mutants.txt, the hand-written faults of make mutants, still
# applies to the tree: a fault whose original text no longer occurs exactly
# once in its file (a line moved to another file, a rename) is neither
# killed nor survived when make mutants runs hours later, so a refactor
# that leaves one behind is caught here, at make test. Each suite a fault
# names must exist too (a unit binary built from tests/unit/NAME.c or named
# in the Makefile's list of test binaries; a bats suite cli:NAME the one
# tests/cli/FOLDER/NAME.bats).
load ../../lib/common

ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)

# check LIST: one line per fault that does not apply, naming its line.
check() {
    python3 - "$1" <<'EOF'
import glob, os, sys
make = open("Makefile").read()
for n, line in enumerate(open(sys.argv[1]), 1):
    if not line.strip() or line.startswith("#"):
        continue
    f = line.rstrip("\n").split(" | ")
    if len(f) < 3:
        print(f"line {n}: not FILE | ORIGINAL | FAULTY [| SUITES]")
        continue
    if not os.path.isfile(f[0]):
        print(f"line {n}: no file {f[0]}")
        continue
    k = open(f[0], errors="replace").read().count(f[1])
    if k != 1:
        print(f"line {n}: {f[0]} holds the original {k} times, not once")
    for s in (f[3].split() if len(f) > 3 else []):
        kind, _, name = s.partition(":")
        name = name.split(":")[0]
        # a unit binary is built from tests/unit/NAME.c, or named in the
        # Makefile's list (test_os_fallback, test_csv_core)
        ok = (kind == "unit" and (os.path.isfile(f"tests/unit/{name}.c")
                                  or f"$(OBJ)/asan/tests/{name}\n" in make
                                  or f"$(OBJ)/asan/tests/{name} " in make)) or \
             (kind == "cli" and len(glob.glob(f"tests/cli/*/{name}.bats")) == 1)
        if not ok:
            print(f"line {n}: no suite {s}")
EOF
}

@test "mutants.txt: every fault's original occurs once in its file, every suite it names exists" {
    cd "$ROOT"
    run check scripts/dev/mutants.txt
    assert_success
    assert_output ""
}

@test "mutants.txt check: a moved original, a second copy, a missing file or suite is named" {
    cd "$ROOT"
    local l=$BATS_TEST_TMPDIR/list
    printf '%s\n' '# a comment' \
        'src/base/units.c | {"KiB", 1024LL} | {"KiB", 1000LL} | unit:base/test_units' \
        'src/base/units.c | no such text anywhere | x | unit:base/test_units' \
        'src/base/units.c | 1024 | 1000' \
        'src/base/gone.c | a | b' \
        'src/base/units.c | {"KiB", 1024LL} | {"KiB", 1000LL} | unit:base/test_gone cli:nothere:x' >"$l"
    run check "$l"
    assert_success
    assert_equal "$output" "line 3: src/base/units.c holds the original 0 times, not once
line 4: src/base/units.c holds the original $(grep -o 1024 src/base/units.c | wc -l) times, not once
line 5: no file src/base/gone.c
line 6: no suite unit:base/test_gone
line 6: no suite cli:nothere:x"
}

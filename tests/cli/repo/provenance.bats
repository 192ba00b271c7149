#!/usr/bin/env bats
# Provenance: a binary says which commit it was built from and whether the
# tree then had changes (kvtest --version, every --json's env: the
# generated header of scripts/dev/provenance.sh), and make bench refuses a
# reference run that is not of one commit. Checked on a clone of this
# checkout, built for real: the release objects are copied in, so make
# recompiles only the provenance and links.
# In repo/, so make test-repo runs it: it needs git and a build.
load ../../lib/common

ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)

setup() {
    D=$BATS_TEST_TMPDIR
}

# clone: $C, a clone of HEAD with the release objects, SQLite's and the
# report's ratioci copied in (newer than the clone's sources, so that only
# what the clone's provenance changes is rebuilt); committed as "t".
clone() {
    C=$D/c
    git clone -q "$ROOT" "$C"
    git -C "$C" config user.email t@example.org
    git -C "$C" config user.name t
    mkdir -p "$C/build"
    cp -a "$ROOT/build/rel" "$ROOT/build/sqlite3.o" "$ROOT/build/ratioci" "$C/build/"
    find "$C/build" -type f -exec touch {} +
}

build() {
    run make -C "$C" --no-print-directory kvtest
    assert_success
}

# field K: env.K of the clone's binary's --json.
field() {
    "$C/kvtest" init "$D/p.db" --count 5 --size 100 --json | jq -c ".env.$1"
}

@test "provenance.sh: commit and tree state; the header rewritten only when they change" {
    R=$D/r
    git init -q "$R"
    printf 'x\n' >"$R/a"
    printf 'ign\n' >"$R/.gitignore"
    git -C "$R" add a .gitignore
    git -C "$R" -c user.email=t@example.org -c user.name=t commit -qm one
    head=$(git -C "$R" rev-parse HEAD)
    cd "$R"
    run bash "$ROOT/scripts/dev/provenance.sh" "$D/h.h" rel "-O2 -g"
    assert_success
    run grep -c -e "KVTEST_GIT_COMMIT \"$head\"" -e 'KVTEST_GIT_DIRTY (0)' -e 'KVTEST_BUILD_VARIANT "rel"' \
        -e 'KVTEST_BUILD_FLAGS "-O2 -g"' "$D/h.h"
    assert_output 4
    touch -d '2020-01-01' "$D/h.h"
    # An ignored file is no change: the header is left alone.
    printf 'y\n' >"$R/ign"
    bash "$ROOT/scripts/dev/provenance.sh" "$D/h.h" rel "-O2 -g"
    run stat -c %Y "$D/h.h"
    assert_output "$(date -d 2020-01-01 +%s)"
    # A new file, then a changed tracked one: changes.
    printf 'n\n' >"$R/new"
    bash "$ROOT/scripts/dev/provenance.sh" "$D/h.h" rel "-O2 -g"
    run grep -c 'KVTEST_GIT_DIRTY (1)' "$D/h.h"
    assert_output 1
    rm "$R/new"
    printf 'z\n' >>"$R/a"
    bash "$ROOT/scripts/dev/provenance.sh" "$D/h.h" rel "-O2 -g"
    run grep -c 'KVTEST_GIT_DIRTY (1)' "$D/h.h"
    assert_output 1
    # Outside a checkout: unknown.
    mkdir "$D/plain"
    cd "$D/plain"
    GIT_CEILING_DIRECTORIES=$D bash "$ROOT/scripts/dev/provenance.sh" "$D/h.h" rel "-O2"
    run grep -c -e 'KVTEST_GIT_COMMIT "unknown"' -e 'KVTEST_GIT_DIRTY (-1)' "$D/h.h"
    assert_output 2
    run bash "$ROOT/scripts/dev/provenance.sh" "$D/h.h"
    assert_failure 2
}

@test "a binary names its commit and tree state, in --version and every --json env" {
    clone
    build
    head=$(git -C "$C" rev-parse HEAD)
    run "$C/kvtest" --version
    assert_success
    assert_line "Commit: $head"
    assert_line --regexp '^Compiler: (gcc|clang) [0-9].*, rel: .*-O2'
    run field commit
    assert_output "\"$head\""
    run field dirty
    assert_output false
    run field build
    assert_output '"rel"'
    run "$C/kvtest" init "$D/q.db" --count 5 --size 100 --json
    assert_success
    run jq -e '.schema_version == 1 and (.env.kvtest_version | test("^[0-9]+\\.[0-9]+\\.[0-9]+$"))
               and (.env.compiler | length > 0) and (.env.build_flags | test("-O2"))' <<<"$output"
    assert_success
    # A change to a tracked file: make relinks, the binary says so.
    printf '\n' >>"$C/README.md"
    build
    run "$C/kvtest" --version
    assert_line "Commit: $head with changes"
    run field dirty
    assert_output true
    # Committed: the new commit, clean; and make run again rebuilds nothing.
    git -C "$C" commit -qam t
    build
    run field commit
    assert_output "\"$(git -C "$C" rev-parse HEAD)\""
    run field dirty
    assert_output false
    before=$(stat -c %y "$C/kvtest")
    build
    run stat -c %y "$C/kvtest"
    assert_output "$before"
}

@test "make bench: a full run is refused unless of one commit; --allow-dirty and small scale go on" {
    clone
    build
    mkdir -p "$D/out"
    printf 'x\n' >"$D/out/taken"
    # Clean tree, binary of its commit: past the check, stopped by the
    # taken output directory (exit 1, not the check's 2).
    cd "$C"
    export KVTEST=$C/kvtest
    run bash scripts/study/bench.sh full --out "$D/out"
    assert_failure 1
    assert_output --partial "exists and is not empty"
    # A changed tracked file.
    printf '\n' >>README.md
    run bash scripts/study/bench.sh full --out "$D/out"
    assert_failure 2
    assert_output "bench: a reference run must be of one commit, and the tree has uncommitted changes (1 paths): commit and rebuild, or pass --allow-dirty (make bench ALLOW_DIRTY=1)"
    run bash scripts/study/bench.sh full --allow-dirty --out "$D/out"
    assert_failure 1
    assert_output --partial "exists and is not empty"
    run bash scripts/study/bench.sh small --out "$D/out"
    assert_failure 1
    assert_output --partial "exists and is not empty"
    # The binary built from the changed tree, the change then undone.
    build
    git checkout -q README.md
    run bash scripts/study/bench.sh full --out "$D/out"
    assert_failure 2
    assert_output --partial "was built from a tree with changes"
    # A binary of another commit than the tree's.
    build
    git commit -q --allow-empty -m later
    run bash scripts/study/bench.sh full --out "$D/out"
    assert_failure 2
    assert_output --partial "was built from $(git rev-parse HEAD~1 | cut -c1-12), the tree is at $(git rev-parse HEAD | cut -c1-12) (run make)"
    run make -n ALLOW_DIRTY=1 bench
    assert_output --partial "bench.sh full --allow-dirty"
}

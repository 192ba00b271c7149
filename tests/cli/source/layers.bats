#!/usr/bin/env bats
# The map of src/ (src/README.md: what each folder owns, who may include
# whom) against the code: every #include "..." must be one the map allows,
# every folder of code must have a row, every row a folder. The checker
# itself is tested on small made-up trees, so a broken checker cannot pass
# the real tree by accident.

load '../../lib/common'
load '../../lib/layers'

setup() {
    ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
    T=$(mktemp -d)
}

teardown() {
    rm -rf "$T"
}

# A made-up tree with the real map.
fake_tree() {
    mkdir -p "$T/src/load" "$T/src/base"
    cp "$ROOT/src/README.md" "$T/src/"
    for d in $(layers_rules "$ROOT" | cut -f1); do mkdir -p "$T/src/$d"; done
}

@test "layers: every include in src/ is one the map in src/README.md allows" {
    run layers_check "$ROOT"
    assert_success
    assert_output ""
}

@test "layers: an include the map does not allow is named with the rule it breaks" {
    fake_tree
    printf '#include "shortener/mix/mix.h"\n#include "measure/clock.h"\n' >"$T/src/load/x.c"
    printf '#include "base/os.h"\n#include <stdio.h>\n' >"$T/src/base/y.c"
    run layers_check "$T"
    assert_failure
    assert_output 'src/load/x.c: includes "shortener/mix/mix.h" (load/ may include: base/ measure/)'
}

@test "layers: a folder below an allowed one is allowed; a file-level entry allows that file only" {
    fake_tree
    printf '#include "commands/init/init.h"\n#include "stores/store.h"\n' \
        >"$T/src/commands/sweep/b.c"
    printf '#include "commands/init/other.h"\n' >"$T/src/commands/sweep/c.c"
    run layers_check "$T"
    assert_failure
    assert_output --regexp '^src/commands/sweep/c.c: includes "commands/init/other.h" '
    assert_equal "${#lines[@]}" 1
}

@test "layers: a folder of code with no row, and a row with no folder, are errors" {
    fake_tree
    mkdir -p "$T/src/newlayer"
    touch "$T/src/newlayer/z.c"
    rmdir "$T/src/shortener/http"
    run layers_check "$T"
    assert_failure
    assert_line "src/newlayer/: no row in src/README.md"
    assert_line "src/README.md: row shortener/http/ names no folder"
}

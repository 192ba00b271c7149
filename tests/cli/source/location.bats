#!/usr/bin/env bats
# Where a user clones kvtest must not decide whether its tests pass. The
# places that broke them: a checkout below a directory only its owner may
# enter (root's home directory on Debian, anything made by mktemp -d) and
# a path with spaces. What such a place breaks is a test that runs
# something as another user, who cannot reach the checkout: those tests
# carry the tag other-user, and here run again from a copy of the tree
# in such a place, with the binary under test copied beside it.
load '../../lib/common'

setup() {
    common_setup
    ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
}

# tagged_suites: the suites holding a test tagged other-user, one a line
tagged_suites() {
    grep -l '^# bats test_tags=.*other-user' "$ROOT"/tests/cli/*/*.bats
}

# untagged FILE...: "FILE: @test ..." for each test whose body changes uid
# (setpriv --reuid) without the tag other-user among the "# bats
# test_tags=" lines just above its @test line
untagged() {
    awk '
        FNR == 1 { tagged = 0; name = "" }
        /^# bats test_tags=.*other-user/ { tagged = 1; next }
        /^@test / { name = $0; t = tagged; tagged = 0; next }
        /^}/ { name = ""; next }
        /--reuid/ && name != "" && !t { print FILENAME ": " name; name = "" }
    ' "$@"
}

@test "every test that runs something as another user (setpriv --reuid) is tagged other-user" {
    run untagged "$ROOT"/tests/cli/*/*.bats
    assert_success
    assert_output ""
    # the check sees a test that is not tagged (the option is spelt in two
    # pieces here, or this test would be one)
    local reuid=--re
    reuid+=uid=1
    printf '# bats test_tags=other-user\n@test "a" {\n    setpriv %s true\n}\n' "$reuid" >"$D/t.bats"
    printf '@test "b" {\n    setpriv %s true\n}\n' "$reuid" >>"$D/t.bats"
    run untagged "$D/t.bats"
    assert_output "$D/t.bats: @test \"b\" {"
}

@test "the other-user tests pass from a checkout in a 0700 directory, in a path with spaces" {
    need_root "the other-user tests run things as other users"
    local closed=$D/closed copy n
    mkdir -m 700 "$closed"
    # What those tests reach of the checkout: the suites, their helpers
    # and the scripts they run; and the binary under test.
    copy="$closed/a dir with spaces/kvtest"
    mkdir -p "$copy/bin"
    cp -r "$ROOT/tests" "$ROOT/scripts" "$copy/"
    cp "$KVTEST" "$copy/bin/kvtest"
    mapfile -t suites < <(tagged_suites)
    [ "${#suites[@]}" -gt 0 ] || fail "no suite holds an other-user test"
    n=$(grep -h -c '^# bats test_tags=.*other-user' "${suites[@]}" | awk '{ s += $1 } END { print s }')
    run env KVTEST="$copy/bin/kvtest" KVTEST_REL="$copy/bin/kvtest" \
        bats --tap --filter-tags other-user "${suites[@]/#$ROOT/$copy}"
    assert_success
    assert_line "1..$n"
    # every one ran (as root none skips)
    refute_output --partial '# skip'
    run grep -c '^ok ' <<<"$output"
    assert_output "$n"
}

#!/usr/bin/env bats
# kvtest run over an export with holes: it says how many keys are missing
# on stderr before measuring, and --json records it (result.missing_keys),
# so an incomplete export is never measured silently.

load '../../lib/common'

setup_file() {
    : "${KVTEST:?KVTEST must name the binary under test}"
    export S="$BATS_FILE_TMPDIR"
    make_layouts "$S" --count 300 --size 1000
}

setup() {
    common_setup
}

@test "a complete export: no warning, missing_keys 0" {
    for l in flat tree; do
        run --separate-stderr "$KVTEST" run "$S/$l" --count 50
        assert_success
        [ -z "$stderr" ]
        run --separate-stderr "$KVTEST" run "$S/$l" --count 50 --json
        assert_success
        [ -z "$stderr" ]
        [ "$(jq -r .result.missing_keys <<<"$output")" = 0 ]
    done
}

@test "flat export with holes: the exact count on stderr and in the JSON" {
    copy_layouts flat
    rm "$D/flat/000007" "$D/flat/000100" "$D/flat/000299"
    run --separate-stderr "$KVTEST" run "$D/flat" --count 50
    assert_success
    [ "$stderr" = "kvtest run: warning: $D/flat is missing 3 of the 300 keys 1..300 (an incomplete export?)" ]
    run --separate-stderr "$KVTEST" run "$D/flat" --count 50 --json
    assert_success
    [ "$(jq -r .result.missing_keys <<<"$output")" = 3 ]
    [[ "$stderr" == *"is missing 3 of the 300 keys"* ]]
}

@test "tree export with holes, a whole leaf directory among them" {
    copy_layouts tree
    rm -r "$D/tree/00/01"            # keys 100..199
    rm "$D/tree/00/02/50"            # key 250
    run --separate-stderr "$KVTEST" run "$D/tree" --count 20 --json
    assert_success
    [ "$(jq -r .result.missing_keys <<<"$output")" = 101 ]
    [ "$stderr" = "kvtest run: warning: $D/tree is missing 101 of the 300 keys 1..300 (an incomplete export?)" ]
}

@test "the warning comes before the measurement, on stderr only" {
    copy_layouts flat
    rm "$D/flat/000001"
    run --separate-stderr "$KVTEST" run "$D/flat" --count 10
    assert_success
    [[ "$stderr" == *"missing 1 of the 300 keys"* ]]
    [[ "$output" != *"missing 1 of"* ]]
    # the run still measures (the holes are misses, as upstream counts them)
    assert_output --partial "Microseconds per BLOB read:"
    # a measurement that fails (corrupt content under --verify) fails after it
    printf 'X' | dd of="$D/flat/000010" bs=1 seek=20 conv=notrunc status=none
    run --separate-stderr "$KVTEST" run "$D/flat" --count 20 --verify
    [ "$status" -eq 1 ]
    [ "${#stderr_lines[@]}" -eq 2 ]
    [[ "${stderr_lines[0]}" == *"is missing 1 of the 300 keys 1..300"* ]]
    [[ "${stderr_lines[1]}" == *"content mismatch at key 10"* ]]
}

@test "holes are counted within --max-id; keys above the data are misses, not holes" {
    copy_layouts flat
    rm "$D/flat/000005" "$D/flat/000250"
    run --separate-stderr "$KVTEST" run "$D/flat" --count 10 --max-id 100 --json
    assert_success
    [ "$(jq -r .result.missing_keys <<<"$output")" = 1 ]
    [ "$stderr" = "kvtest run: warning: $D/flat is missing 1 of the 100 keys 1..100 (an incomplete export?)" ]
    run --separate-stderr "$KVTEST" run "$S/flat" --count 10 --max-id 400 --json
    assert_success
    [ "$(jq -r .result.missing_keys <<<"$output")" = 0 ]
    [ -z "$stderr" ]
}

@test "a database records no missing_keys (not counted)" {
    run --separate-stderr "$KVTEST" run "$S/x.db" --count 10 --json
    assert_success
    [ "$(jq -r '.result | has("missing_keys")' <<<"$output")" = false ]
}

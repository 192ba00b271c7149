#!/usr/bin/env bats
# build/lookuploop (scripts/tools/lookuploop.c), the yardstick of shortener
# bench's sqlite row: the ids it asks for are the database's, uniformly
# spread and seeded as the bench seeds its stream; every lookup finds its
# link; bad arguments are exit 2, a file without links exit 1. No timing
# is asserted: its rates are read by scripts/study/getpath.sh.

load '../../lib/common'

LOOP="$BATS_TEST_DIRNAME/../../../build/lookuploop"

setup() {
    common_setup
    [ -x "$LOOP" ] || skip "build/lookuploop is not built (make build/lookuploop)"
    DB=$D/links.db
    "$KVTEST" shortener init "$DB" --links 500 >/dev/null
    "$KVTEST" shortener keys "$DB" | sort >"$D/keys.txt"
}

@test "lookuploop: asks for the database's ids, spread over all of them, seeded" {
    run "$LOOP" "$DB" --ids 5000
    assert_success
    printf '%s\n' "$output" >"$D/ids.txt"
    run awk 'END { print NR }' "$D/ids.txt"
    assert_output 5000
    # every id asked for is one of the database's
    run bash -c "sort -u '$D/ids.txt' | comm -23 - '$D/keys.txt' | wc -l"
    assert_output 0
    # 5000 uniform draws over 500 ids would miss about 500 e^-10 (the
    # stream is fixed by the seed, so this is no matter of chance): none
    run bash -c "sort -u '$D/ids.txt' | wc -l"
    assert_output 500
    # and no id is asked for far more than its share (10): at most 30
    run bash -c "sort '$D/ids.txt' | uniq -c | sort -rn | awk 'NR == 1 { print (\$1 <= 30) }'"
    assert_output 1
    # the same seed gives the same stream; another seed another
    run "$LOOP" "$DB" --ids 5000
    [ "$output" = "$(cat "$D/ids.txt")" ]
    run "$LOOP" "$DB" --ids 5000 --seed 2
    [ "$output" != "$(cat "$D/ids.txt")" ]
}

@test "lookuploop: every run finds every link; one line per run and the median" {
    run "$LOOP" "$DB" --lookups 2000 --repeat 3 --warmup 1
    assert_success
    [ "${#lines[@]}" -eq 4 ]
    assert_line --index 0 --regexp '^lookups_per_s [0-9]+\.[0-9]$'
    assert_line --index 3 --regexp '^median [0-9]+\.[0-9]$'
}

@test "lookuploop: bad arguments exit 2, a database without links exit 1, one line each" {
    local bad
    for bad in "--lookups 0" "--repeat x" "--bogus" "" "$DB extra"; do
        # shellcheck disable=SC2086  # each case is several words
        run "$LOOP" $bad
        [ "$status" -eq 2 ] || { echo "'$bad': status $status"; return 1; }
        [[ ${lines[0]} == lookuploop:* ]]
    done
    run "$LOOP" "$D/missing.db"
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 1 ]
    python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("DELETE FROM links").connection.commit()' "$DB"
    run "$LOOP" "$DB" --lookups 10
    [ "$status" -eq 1 ]
    assert_output --partial 'no links'
}

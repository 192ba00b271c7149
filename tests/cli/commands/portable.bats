#!/usr/bin/env bats
# The core build (make core: no library but libc and SQLite) and its OS
# layer's portable fallbacks (KVTEST_OS_FALLBACK, what macOS/BSD-less
# platforms get): same results and JSON bytes as the full build, no
# shortener, and every facility a platform lacks refused in one line.
#   KVTEST             full build (make test: the ASan build)
#   KVTEST_CORE_BIN    build/core/kvtest
#   KVTEST_FALLBACK_BIN build/fallback/kvtest

load '../../lib/common'

setup() {
    : "${KVTEST:?KVTEST must name the full binary}"
    [ -n "${KVTEST_CORE_BIN:-}" ] && [ -n "${KVTEST_FALLBACK_BIN:-}" ] ||
        skip "KVTEST_CORE_BIN and KVTEST_FALLBACK_BIN not set (make test sets them)"
    KVTEST=$(cd "$(dirname "$KVTEST")" && pwd)/$(basename "$KVTEST")
    CORE=$(cd "$(dirname "$KVTEST_CORE_BIN")" && pwd)/$(basename "$KVTEST_CORE_BIN")
    FB=$(cd "$(dirname "$KVTEST_FALLBACK_BIN")" && pwd)/$(basename "$KVTEST_FALLBACK_BIN")
    D="$BATS_TEST_TMPDIR"
    cd "$D"
}

# JSON with what differs between two runs and two builds blanked: the
# time, and the build's variant and flags (core -O2, full ASan -O1).
no_time() {
    sed 's/"time_utc":"[^"]*"/"time_utc":""/; s/"build":"[^"]*"/"build":""/; s/"build_flags":"[^"]*"/"build_flags":""/'
}

@test "core: says in one line that it has no shortener, exit 2, for every spelling" {
    for args in "shortener" "shortener serve x.db" "shortener --help" "help shortener"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$CORE" $args
        [ "$status" -eq 2 ] || { echo "$args: status $status"; return 1; }
        [ -z "$output" ]
        [ "$stderr" = "kvtest shortener: this build has no shortener (core build: build the full kvtest with make)" ]
    done
    run "$CORE" --version
    assert_success
    assert_output --partial "Build: core, linux OS layer"
    run "$CORE" help
    assert_output --partial "shortener                      not in this build"
    run "$KVTEST" --version
    assert_output --partial "Build: full, linux OS layer"
}

@test "core: links nothing but libc (no hiredis, h2o, microhttpd, http_parser, cjson)" {
    command -v ldd >/dev/null || skip "no ldd"
    run ldd "$CORE"
    assert_success
    refute_output --partial hiredis
    refute_output --partial microhttpd
    refute_output --partial h2o
    refute_output --partial http_parser
    refute_output --partial cjson
    run ldd "$KVTEST"
    assert_output --partial cjson
}

@test "core: --json bytes equal the full build's (numbers, escapes, member order)" {
    # A name that needs every kind of escape, and non-integral averages.
    name=$'q"b\\s\tt\001c-\xc3\xa9.db'
    "$KVTEST" init "$name" --count 300 --size 3000 --variance 1001 --seed 7 >/dev/null
    run "$KVTEST" stat "$name" --json
    assert_success
    full=$(no_time <<<"$output")
    run "$CORE" stat "$name" --json
    assert_success
    core=$(no_time <<<"$output")
    [ "$full" = "$core" ] || { diff <(echo "$full") <(echo "$core"); return 1; }
    [[ "$core" == *'"path":"q\"b\\s\tt\u0001c-'$'\xc3\xa9''.db"'* ]]
    [[ "$core" == *'"avg_size":'*'.'* ]]
    "$CORE" export "$name" flat >/dev/null
    for b in "$KVTEST" "$CORE"; do
        "$b" space "$name" flat --json | no_time >"$(basename "$(dirname "$b")").space"
    done
    cmp ./*.space
}

@test "core: the walk-through works and agrees with the full build" {
    run "$CORE" init x.db --count 500 --size 2k --variance 500 --seed 3
    assert_success
    run "$CORE" export x.db flat
    assert_success
    run "$CORE" export x.db tree --tree
    assert_success
    "$KVTEST" export x.db flat2 >/dev/null
    diff -r flat flat2
    for p in x.db flat tree; do
        run "$CORE" run "$p" --count 500 --random --verify --json
        assert_success
        [ "$(jq -r '.result.verify.status' <<<"$output")" = ok ]
        [ "$(jq -r '.result.bytes' <<<"$output")" = \
          "$("$KVTEST" run "$p" --count 500 --random --verify --json | jq -r '.result.bytes')" ]
    done
    run "$CORE" run x.db --count 200 --random --blob-api --cold
    assert_success
    assert_output --partial "Cold cache, run 1:"
}

@test "fallback: --cold is refused in one line before anything is built or run" {
    "$FB" init x.db --count 50 --size 1k >/dev/null
    run --separate-stderr "$FB" run x.db --count 10 --cold
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [ "$stderr" = "kvtest run: --cold is not available here: this build has no posix_fadvise DONTNEED and mincore() to evict pages and verify it" ]
    # Refused before DIR is even looked at (sweep would build databases first).
    run --separate-stderr "$FB" sweep no/such/dir --sizes 1k --total 100k --cold
    [ "$status" -eq 2 ]
    [ "${#stderr_lines[@]}" -eq 1 ]
    [[ "$stderr" == "kvtest sweep: --cold is not available here:"* ]]
    run --separate-stderr "$FB" --version
    [[ "$output" == *"Build: core, posix OS layer"* ]]
}

@test "fallback: the rest works (fstat-found descriptors for --fadvise); --stats says what it lacks" {
    run "$FB" init x.db --count 300 --size 1k --variance 200
    assert_success
    run "$FB" export x.db flat
    assert_success
    run --separate-stderr "$FB" run x.db --count 300 --random --verify --fadvise random --json
    assert_success
    [ "$(jq -r '.result.verify.status' <<<"$output")" = ok ]
    [ "$(jq -r '.env.fs_type' <<<"$output")" = unknown ]
    [ "$(jq -r '.env.cpu_model' <<<"$output")" = unknown ]
    run --separate-stderr "$FB" run flat --count 100 --stats
    assert_success
    [[ "$output" == *"Microseconds per BLOB read:"* ]]
    [[ "$output" != *"Bytes read from storage:"* ]]
    [ "$stderr" = "kvtest run: warning: --stats: no storage I/O counters (this platform has no /proc/self/io); SQLite counters only" ]
    run --separate-stderr "$KVTEST" run flat --count 100 --stats
    [[ "$output" == *"Bytes read from storage:"* ]]
}

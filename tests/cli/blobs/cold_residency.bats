#!/usr/bin/env bats
# The word "cold": a run whose pages could not be evicted is reported as
# not cold, at every residency above the threshold (10%, coldcache.h), in
# text and in --json, by run and by bench; below it, where eviction works,
# the run is cold.
#
# tests/lib/pin_pages.py holds a chosen fraction of a file's pages resident
# (mapped and mlock()ed, as another process using the data would) while
# kvtest evicts and measures. The data lives on a disk-backed filesystem
# (tmpfs keeps every page whatever one asks): the test's scratch directory,
# else /var/tmp, else the build tree. Where no filesystem honours the
# eviction, everything reads 100% resident: the above-threshold checks
# still hold (and the threshold itself is pinned in test_coldcache), the
# below-threshold ones skip, saying why.

load '../../lib/common'

setup() {
    common_setup
    PIN_PID=
    PID=
    COLD_DIR=
    local c
    for c in "$BATS_TEST_TMPDIR" /var/tmp "$BATS_TEST_DIRNAME/../../../build"; do
        case $(stat -f -c %T "$c" 2>/dev/null) in
            tmpfs | ramfs | "") continue ;;
        esac
        COLD_DIR=$(mktemp -d "$c/kvtest-cold.XXXXXX") && break
    done
    [ -n "$COLD_DIR" ] || COLD_DIR=$(mktemp -d "$BATS_TEST_TMPDIR/kvtest-cold.XXXXXX")
}

teardown() {
    stop_leftover "$PIN_PID"
    rm -rf "$COLD_DIR"
}

# pin FILE FRACTION: hold FRACTION of FILE's pages resident until unpin.
pin() {
    rm -f "$COLD_DIR/pinned"
    python3 "$BATS_TEST_DIRNAME/../../lib/pin_pages.py" "$1" "$2" "$COLD_DIR/pinned" \
        --seconds 120 3>&- &
    PIN_PID=$!
    PID=$PIN_PID
    wait_until test -e "$COLD_DIR/pinned" || { echo "pin_pages.py $2 did not start"; return 1; }
}

unpin() {
    stop_pid "$PIN_PID" TERM
    PIN_PID=
}

# evicts: COLD_DIR's filesystem drops pages when asked (kvtest's own run
# of a small database, with nothing pinned, measured at most 10% resident).
evicts() {
    local f
    "$KVTEST" init "$COLD_DIR/probe.db" --count 50 --size 4k >/dev/null
    f=$("$KVTEST" run "$COLD_DIR/probe.db" --count 10 --cold --json | jq .result.cold.resident_fraction)
    awk -v f="$f" 'BEGIN { exit !(f <= 0.10) }'
}

@test "run --cold: pages held resident above the threshold make the run not cold (text and JSON)" {
    "$KVTEST" init "$COLD_DIR/x.db" --count 300 --size 4k >/dev/null
    local top=1
    if evicts; then top=0.01; fi   # else every page stays, pinned or not
    for f in 0.11 0.25 0.5 0.9 1.0; do
        pin "$COLD_DIR/x.db" "$f"
        run "$KVTEST" run "$COLD_DIR/x.db" --count 100 --random --cold --json
        assert_success
        [ "$(jq .result.cold.effective <<<"$output")" = false ] ||
            { echo "$f pinned: $(jq -c .result.cold <<<"$output")"; false; }
        # the residency reported is what was held (a stray page or two
        # besides, or all of it where eviction is ignored)
        awk -v r="$(jq .result.cold.resident_fraction <<<"$output")" -v f="$f" -v top="$top" \
            'BEGIN { exit !(r >= f - 0.005 && r <= f + top) }'
        run "$KVTEST" run "$COLD_DIR/x.db" --count 100 --random --cold --repeat 2
        assert_success
        assert_output --partial "Cold cache, run 1: eviction did not take hold; this run is NOT cold"
        assert_output --partial "Cold cache, run 2: eviction did not take hold; this run is NOT cold"
        assert_output --partial "(not a cold run: eviction did not take hold)"
        unpin
    done
}

@test "run --cold: below the threshold, where eviction works, the run is cold (text and JSON)" {
    "$KVTEST" init "$COLD_DIR/x.db" --count 300 --size 4k >/dev/null
    evicts ||
        skip "$COLD_DIR keeps cached pages on POSIX_FADV_DONTNEED: nothing can be cold here"
    for f in 0 0.08; do
        pin "$COLD_DIR/x.db" "$f"
        run "$KVTEST" run "$COLD_DIR/x.db" --count 100 --random --cold --json
        assert_success
        [ "$(jq .result.cold.effective <<<"$output")" = true ] ||
            { echo "$f pinned: $(jq -c .result.cold <<<"$output")"; false; }
        # the residency reported is what was held, a stray page or two besides
        awk -v r="$(jq .result.cold.resident_fraction <<<"$output")" -v f="$f" \
            'BEGIN { exit !(r >= f - 0.005 && r <= f + 0.01) }'
        run "$KVTEST" run "$COLD_DIR/x.db" --count 100 --random --cold
        assert_success
        assert_output --partial "Cold cache, run 1: "
        refute_output --partial "NOT cold"
        refute_output --partial "not a cold run"
        unpin
    done
}

@test "bench --cold: pages held resident make the runs not cold; none held, cold where eviction works" {
    "$KVTEST" shortener init "$COLD_DIR/links.db" --links 2000 --seed 3 >/dev/null
    local args=(--configs sqlite --cold --lookups 200 --repeat 1 --warmup 0)
    pin "$COLD_DIR/links.db" 0.5
    run "$KVTEST" shortener bench "$COLD_DIR/links.db" "${args[@]}" --json
    assert_success
    [ "$(jq '.result.configs[0].cold.effective' <<<"$output")" = false ]
    awk -v r="$(jq '.result.configs[0].cold.resident_fraction' <<<"$output")" \
        'BEGIN { exit !(r >= 0.3) }'
    run --separate-stderr "$KVTEST" shortener bench "$COLD_DIR/links.db" "${args[@]}"
    assert_success
    [[ "$stderr" == *"sqlite: "*" pages stayed resident after eviction; these runs were not cold"* ]] ||
        { echo "stderr: $stderr"; false; }
    unpin
    evicts ||
        skip "$COLD_DIR keeps cached pages on POSIX_FADV_DONTNEED: nothing can be cold here"
    pin "$COLD_DIR/links.db" 0.05
    run "$KVTEST" shortener bench "$COLD_DIR/links.db" "${args[@]}" --json
    assert_success
    [ "$(jq '.result.configs[0].cold.effective' <<<"$output")" = true ]
    run --separate-stderr "$KVTEST" shortener bench "$COLD_DIR/links.db" "${args[@]}"
    assert_success
    [[ "$stderr" != *"not cold"* ]] || { echo "stderr: $stderr"; false; }
    unpin
}

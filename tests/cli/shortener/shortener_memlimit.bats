#!/usr/bin/env bats
# --mem-limit on shortener bench and serve: the process in a memory cgroup
# of its own, so the page cache it may use is bounded and a database
# several times the limit is read from storage. A real SQLite file and the
# real cgroup filesystem; the group is found from /proc/PID/cgroup, as the
# kernel sees it, not from what kvtest prints. Needs root and a memory
# controller (v1 or v2), else skipped. No timing assertions.

load '../../lib/common'

setup() {
    shortener_setup
}

teardown() {
    stop_leftover "${PID:-}"
    shortener_teardown
}

# memcg_dir PID: the directory of PID's memory cgroup (v1 memory
# hierarchy, else the v2 unified one), from /proc/PID/cgroup and our
# mountinfo.
memcg_dir() {
    local line mnt
    line=$(grep -E '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' "/proc/$1/cgroup") || true
    if [ -n "$line" ]; then
        mnt=$(awk '/ - cgroup / && $NF ~ /(^|,)memory(,|$)/ {print $5; exit}' /proc/self/mountinfo)
    else
        line=$(grep '^0::' "/proc/$1/cgroup")
        mnt=$(awk '/ - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
    fi
    echo "$mnt${line#*:*:}"
}

memcg_limit() {   # memcg_limit DIR
    cat "$1/memory.limit_in_bytes" 2>/dev/null || cat "$1/memory.max"
}

# The process is in a group of its own: kvtest-memlimit-PID.
in_own_group() {
    [[ "$(memcg_dir "$PID")" == */kvtest-memlimit-"$PID" ]]
}

# bats test_tags=other-user
@test "memlimit: nonsense, too small or not root is refused in one line, exit 2" {
    "$KVTEST" shortener init "$DB" --links 10 >/dev/null
    expect_error 2 "--mem-limit" shortener bench "$DB" --mem-limit lots
    expect_error 2 "--mem-limit must be between 4194304" shortener bench "$DB" --mem-limit 4000000
    expect_error 2 "--mem-limit" shortener serve "$DB" --port 0 --mem-limit -1
    if [ "$(id -u)" -ne 0 ]; then
        run "$KVTEST" shortener bench "$DB" --mem-limit 16MiB
    else
        command -v setpriv >/dev/null || skip "no setpriv"
        # uid 65534 must reach the binary and the database: copies it can read
        for_others "$D/o"
        cp "$KVTEST" "$DB" "$D/o/"
        chmod a+r "$D/o/$(basename "$DB")"
        run setpriv --reuid=65534 --regid=65534 --clear-groups "$D/o/$(basename "$KVTEST")" \
            shortener bench "$D/o/$(basename "$DB")" --mem-limit 16MiB
    fi
    assert_failure 2
    assert_output "kvtest shortener bench: --mem-limit needs root (it creates a memory cgroup)"
}

@test "memlimit: bench on a db 4x the limit answers right, in a group of that limit, gone after" {
    need_memcg
    # The release binary builds the 35 MB file in a second; the bench is
    # the binary under test (8 MiB leave the sanitizer's own memory room).
    "${KVTEST_REL:-$KVTEST}" shortener init "$DB" --links 300000 --seed 3 >/dev/null
    local size
    size=$(stat -c %s "$DB")
    assert [ "$size" -gt $((4 * 8388608)) ]
    start shortener bench "$DB" --configs sqlite --mem-limit 8MiB --lookups 10000 \
        --repeat 2 --warmup 0 --json
    wait_until in_own_group
    local dir
    dir=$(memcg_dir "$PID")
    assert_equal "$(memcg_limit "$dir")" 8388608
    local st=0
    wait "$PID" || st=$?
    PID=
    cat "$D/err"
    assert_equal "$st" 0
    assert [ ! -e "$dir" ]
    run jq -r '[.result.configs[0].wrong_answers, .result.configs[0].sqlite_errors,
                .result.mem_limit.limit_bytes, .result.mem_limit.cgroup,
                .result.mem_limit.peak_bytes <= .result.mem_limit.limit_bytes] | @tsv' "$D/out"
    assert_output "$(printf '0\t0\t8388608\t%s\ttrue' "$dir")"
    # The measurement the limit is for: 20000 uniform lookups over 4x more
    # pages than fit read more from storage than the whole file (without a
    # limit each page would be read once at most).
    run jq -r ".result.mem_limit.read_bytes > $size" "$D/out"
    assert_output true
}

@test "memlimit: bench stopped by SIGTERM mid-run removes its group, exit 143" {
    need_memcg
    "${KVTEST_REL:-$KVTEST}" shortener init "$DB" --links 1000 --seed 3 >/dev/null
    start shortener bench "$DB" --configs sqlite --mem-limit 8MiB --lookups 100000000
    wait_until in_own_group
    local dir
    dir=$(memcg_dir "$PID")
    stop_with TERM >"$D/stopped"   # not under run: wait needs this shell
    run cat "$D/stopped"
    assert_output --regexp '^exit 143; '
    assert_output --partial "interrupted by signal 15; memory cgroup removed"
    assert [ ! -e "$dir" ]
}

@test "memlimit: serve answers in its limited group and removes it on SIGTERM" {
    need_memcg
    "$KVTEST" shortener init "$DB" --links 1000 --seed 3 >/dev/null
    start_service "$DB" --threads 2 --mem-limit 8MiB
    PID=$SERVICE_PID
    wait_until in_own_group
    local dir id
    dir=$(memcg_dir "$SERVICE_PID")
    assert_equal "$(memcg_limit "$dir")" 8388608
    id=$(curl -s --max-time 10 -d '{"url": "https://example.org/a"}' "$SERVICE_URL/link" |
         jq -r .short_link)
    run curl -s --max-time 10 "$SERVICE_URL/link/$id"
    assert_output '{"link":"https://example.org/a"}'
    PID=
    stop_service TERM
    assert_equal "$SERVICE_STATUS" 0
    assert [ ! -e "$dir" ]
}

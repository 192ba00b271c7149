#!/usr/bin/env bats
# --mem-limit on shortener bench and serve: the process in a memory cgroup
# of its own, so the page cache it may use is bounded and a database
# several times the limit is read from storage. A real SQLite file and the
# real cgroup filesystem; the group is found from /proc/PID/cgroup, as the
# kernel sees it, not from what kvtest prints. Needs root and a memory
# controller (v1 or v2), else skipped. No timing assertions.

load '../lib/common'

setup() {
    shortener_setup
}

teardown() {
    stop_leftover "${PID:-}"
    shortener_teardown
}

need_memcg() {
    need_root "to create a memory cgroup"
    grep -qE '^[0-9]+:([^:]*,)?memory(,[^:]*)?:|^0::' /proc/self/cgroup || skip "no cgroups"
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

# ------------------------------------------------- scripts/study/memlimit.sh
MLSH=$BATS_TEST_DIRNAME/../../scripts/study/memlimit.sh

# bats test_tags=other-user
@test "memlimit.sh: bad arguments, one line each, exit 2 before anything runs" {
    local o=$BATS_TEST_TMPDIR/ml
    run bash "$MLSH" --out "$o" --rounds 0
    assert_failure 2
    assert_output "memlimit: --rounds must be a positive whole number, not 0"
    run bash "$MLSH" --out "$o" --limits 24MiB,lots
    assert_failure 2
    assert_output "memlimit: --limits: not a size: 'lots' (such as 24MiB, 48MiB)"
    run bash "$MLSH" --out "$o" --duration 2h
    assert_failure 2
    assert_output "memlimit: --duration must be seconds (2, 500ms), not 2h"
    run bash "$MLSH" --out "$o" --zipf 0
    assert_failure 2
    assert_output "memlimit: --zipf must be a number above 0, not 0"
    run bash "$MLSH" --out "$o" --links 1k --lookups 2k
    assert_failure 2
    assert_output "memlimit: --lookups (2k) is more than --links (1k)"
    run bash "$MLSH" --out "$o" --links
    assert_failure 2
    assert_output "memlimit: --links needs a value"
    run bash "$MLSH" --out "$o" --fast
    assert_failure 2
    assert_output "memlimit: unknown option --fast (try --help)"
    assert [ ! -e "$o" ]
    if [ "$(id -u)" -ne 0 ]; then
        run bash "$MLSH" --out "$o"
    else
        command -v setpriv >/dev/null || skip "no setpriv"
        # uid 65534 must reach the script and what it sources: copies it can read
        local c=$D/others
        for_others "$c"
        mkdir -p "$c/scripts/study" "$c/tests/lib"
        cp "$(dirname "$MLSH")"/{memlimit,lib,mask}.sh "$c/scripts/study/"
        cp "$BATS_TEST_DIRNAME/../lib/servers.bash" "$c/tests/lib/"
        chmod -R a+rX "$c"
        run setpriv --reuid=65534 --regid=65534 --clear-groups bash "$c/scripts/study/memlimit.sh" --out "$o"
    fi
    assert_failure 2
    assert_output "memlimit: needs root (--mem-limit creates a memory cgroup)"
}

@test "memlimit.sh --out at a tiny size: both legs, every configuration, the report's section" {
    need_memcg
    local o=$BATS_TEST_TMPDIR/ml
    # The release binary: the sanitizer's shadow memory does not fit a
    # 24 MiB limit. 2 rounds of 500 ms: a pipeline check, not a measurement.
    run bash "$MLSH" --out "$o" --links 20k --lookups 1k --limits 24MiB --rounds 2 \
        --duration 500ms --warmup 500ms --kvtest "${KVTEST_REL:-$KVTEST}"
    assert_success
    # Runs per (leg, memory, keys, config): 2 rounds each; HTTP only limited.
    run awk -F, 'NR > 1 { n[$1 " " $2 " " $4 " " $5]++ } END { for (k in n) print k, n[k] }' "$o/csv/memlimit.csv"
    assert_equal "$(sort <<<"$output" | tr '\n' '|')" \
        "http 24MiB uniform sqlite 2|http 24MiB uniform valkey 2|http 24MiB uniform valkey-track 2|http 24MiB zipf sqlite 2|http 24MiB zipf valkey 2|http 24MiB zipf valkey-track 2|inproc 24MiB uniform sqlite 2|inproc 24MiB uniform valkey 2|inproc 24MiB uniform valkey-track 2|inproc 24MiB zipf sqlite 2|inproc 24MiB zipf valkey 2|inproc 24MiB zipf valkey-track 2|inproc unlimited uniform sqlite 2|inproc unlimited uniform valkey 2|inproc unlimited uniform valkey-track 2|inproc unlimited zipf sqlite 2|inproc unlimited zipf valkey 2|inproc unlimited zipf valkey-track 2|"
    # The benches ran under the limits asked for; every answer was right.
    run jq -r 'select(.bench.leg == "inproc") | [.bench.mem, .result.mem_limit.limit_bytes,
               ([.result.configs[].wrong_answers] | add), (.result.break_even.pays_off | type)] | @tsv' \
        "$o/raw/memlimit.jsonl"
    assert_output "$(printf '%s\t%s\t0\tboolean\n' 24MiB 25165824 24MiB 25165824 unlimited 1099511627776 unlimited 1099511627776)"
    run grep -c -- '--mem-limit 24MiB' "$o/commands.tsv"
    assert_output 14   # 2 benches (uniform, Zipf) and 12 services (2 keys x 2 rounds x 3)
    # Each service's cache counters: 12 services; the caches answered.
    run awk -F, 'NR > 1 { n++; if ($2 != "sqlite" && $4 + $6 > 0) hit++ } END { print n, hit }' \
        "$o/csv/memlimit-http-hits.csv"
    assert_output "12 8"
    run grep -F "### A database larger than memory" "$o/REPORT.md"
    assert_success
    run grep -c '^| 24MiB \|^| unlimited ' "$o/REPORT.md"
    assert_output 4
}

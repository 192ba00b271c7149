#!/usr/bin/env bats
# Interrupted or failed runs leave nothing half-done (issue 9, section 3):
# a real SIGINT/SIGTERM sent to a running init, shortener init, export or
# sweep, and a real full filesystem (a small tmpfs, root only). Each must
# exit 130/143 or 1 with exactly one line on stderr, leave no *.kvtest-tmp-*
# behind, and leave the target either absent or as it was before.

load '../../lib/common'

setup() {
    common_setup
}

# A command still running because a test failed part-way (ours, by PID),
# a tmpfs still mounted.
teardown() {
    common_teardown
}

# Is there a file or directory matching glob $1 of at least $2 KiB or $2 entries?
grown() {
    local p
    for p in $1; do
        [ -e "$p" ] || continue
        if [ -d "$p" ]; then
            [ "$(find "$p" -type f | head -n "$2" | wc -l)" -ge "$2" ] && return 0
        else
            [ "$(du -k "$p" | cut -f1)" -ge "$2" ] && return 0
        fi
    done
    return 1
}

# stopped_midway SIG STATUS GLOB MIN ARGS...: kvtest ARGS started; once
# GLOB has grown to MIN (KiB or entries), SIG; it must exit STATUS.
stopped_midway() {
    local sig=$1 want=$2 glob=$3 min=$4
    shift 4
    start "$@"
    wait_until grown "$glob" "$min" || fail "kvtest $1 never started writing: $(cat "$D/err")"
    stop_with "$sig"
    assert_equal "$status" "$want"
}

# ---- real signals ------------------------------------------------------------

@test "init: SIGINT mid-way removes the temporary database, exit 130, one line" {
    stopped_midway INT 130 "$D/x.db.kvtest-tmp-*" 1024 init "$D/x.db" --count 1M --size 1000
    assert_one_err_line "kvtest init: interrupted by signal 2; temporary files removed"
    assert_no_tmp "$D"
    [ ! -e "$D/x.db" ] || fail "x.db exists"
}

@test "shortener init: SIGINT mid-way removes the temporary database and its -wal/-shm, exit 130" {
    # The links go to the WAL first: wait for a sibling to grow.
    stopped_midway INT 130 "$D/l.db.kvtest-tmp-*" 1024 shortener init "$D/l.db" --links 3M
    assert_one_err_line "kvtest shortener init: interrupted by signal 2; temporary files removed"
    assert_no_tmp "$D"
    run ls -A "$D"
    refute_output --partial "l.db"
}

@test "init: SIGTERM over an existing database leaves the old one intact, exit 143" {
    "$KVTEST" init "$D/x.db" --count 20 --size 100 >/dev/null
    cp "$D/x.db" "$D/before.db"
    stopped_midway TERM 143 "$D/x.db.kvtest-tmp-*" 1024 init "$D/x.db" --count 1M --size 1000
    assert_one_err_line "kvtest init: interrupted by signal 15; temporary files removed"
    assert_no_tmp "$D"
    run cmp "$D/x.db" "$D/before.db"
    assert_success
}

@test "export: SIGINT mid-way removes the partial export, exit 130, one line" {
    "$KVTEST" init "$D/x.db" --count 50k --size 1000 >/dev/null
    stopped_midway INT 130 "$D/e.kvtest-tmp-*" 200 export "$D/x.db" "$D/e"
    assert_one_err_line "kvtest export: interrupted by signal 2; temporary files removed"
    assert_no_tmp "$D"
    [ ! -e "$D/e" ] || fail "e exists with $(find "$D/e" -type f | wc -l) files"
}

@test "export --tree --jobs 3: SIGTERM stops every writer, nothing left, exit 143" {
    "$KVTEST" init "$D/x.db" --count 50k --size 1000 >/dev/null
    stopped_midway TERM 143 "$D/t.kvtest-tmp-*" 200 export "$D/x.db" "$D/t" --tree --jobs 3
    assert_one_err_line "kvtest export: interrupted by signal 15; temporary files removed"
    assert_no_tmp "$D"
    [ ! -e "$D/t" ] || fail "t exists"
}

@test "export over an earlier export: SIGINT leaves the earlier export whole" {
    "$KVTEST" init "$D/old.db" --count 30 --size 100 --seed 5 >/dev/null
    "$KVTEST" export "$D/old.db" "$D/e" >/dev/null
    cp -a "$D/e" "$D/e.before"
    "$KVTEST" init "$D/x.db" --count 50k --size 1000 >/dev/null
    stopped_midway INT 130 "$D/e.kvtest-tmp-*" 200 export "$D/x.db" "$D/e" --jobs 2
    assert_one_err_line "kvtest export: interrupted by signal 2; *"
    assert_no_tmp "$D"
    run diff -r "$D/e" "$D/e.before"
    assert_success
}

@test "export into an existing empty directory: SIGINT leaves it empty" {
    "$KVTEST" init "$D/x.db" --count 50k --size 1000 >/dev/null
    mkdir "$D/e"
    stopped_midway INT 130 "$D/e.kvtest-tmp-*" 200 export "$D/x.db" "$D/e"
    assert_no_tmp "$D"
    [ -d "$D/e" ] || fail "e is gone"
    run ls -A "$D/e"
    assert_output ""
}

@test "sweep: SIGTERM mid-size removes the size and the DIR it made, exit 143" {
    # During the export: the database already has its final name, which
    # only sweep knows to remove.
    stopped_midway TERM 143 "$D/sw/sweep-1000.kvtest-tmp-*" 200 \
        sweep "$D/sw" --sizes 1k,2k --total 50M --warmup 0
    assert_one_err_line "kvtest sweep: interrupted by signal 15; *"
    [ ! -e "$D/sw" ] || fail "sw left: $(ls -A "$D/sw")"
}

@test "export completes normally: DIR holds the whole export and nothing else" {
    "$KVTEST" init "$D/x.db" --count 200 --size 100 >/dev/null
    "$KVTEST" init "$D/y.db" --count 120 --size 100 --seed 9 >/dev/null
    "$KVTEST" export "$D/x.db" "$D/e" --tree >/dev/null
    run "$KVTEST" export "$D/y.db" "$D/e" --tree --force
    assert_success
    assert_output --partial "Removed 80 files of an earlier export beyond key 120"
    assert_equal "$(find "$D/e" -type f | wc -l)" 120
    assert_no_tmp "$D"
    run "$KVTEST" run "$D/e" --count 120 --verify
    assert_success
}

# ---- a real full filesystem -------------------------------------------------

@test "full disk: init fails with one line, exit 1, nothing left on the filesystem" {
    mount_tmpfs 2m
    # 600 blobs of 3000 bytes pass the up-front estimate (1.9 MB) but take
    # one 4 KiB page each: the disk fills half-way.
    run --separate-stderr "$KVTEST" init "$MNT/x.db" --count 600 --size 3000
    assert_equal "$status" 1
    assert_equal "${#stderr_lines[@]}" 1
    [[ "$stderr" == "kvtest init: $MNT/x.db: "*"No space left on device" ]] || fail "$stderr"
    run ls -A "$MNT"
    assert_output ""
}

@test "full disk: export fails with one line, exit 1, DIR absent, nothing left" {
    mount_tmpfs 2m
    "$KVTEST" init "$D/x.db" --count 300 --size 10k >/dev/null
    for args in "" "--tree --jobs 2"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$KVTEST" export "$D/x.db" "$MNT/e" $args
        assert_equal "$status" 1
        assert_equal "${#stderr_lines[@]}" 1
        [[ "$stderr" == "kvtest export: $MNT/e/"*": No space left on device" ]] || fail "$stderr"
        run ls -A "$MNT"
        assert_output ""
    done
}

@test "full disk: export over an earlier export keeps the earlier one whole" {
    mount_tmpfs 2m
    "$KVTEST" init "$D/old.db" --count 20 --size 1000 >/dev/null
    "$KVTEST" export "$D/old.db" "$MNT/e" >/dev/null
    cp -a "$MNT/e" "$D/e.before"
    "$KVTEST" init "$D/x.db" --count 300 --size 10k >/dev/null
    run --separate-stderr "$KVTEST" export "$D/x.db" "$MNT/e"
    assert_equal "$status" 1
    assert_equal "${#stderr_lines[@]}" 1
    run diff -r "$MNT/e" "$D/e.before"
    assert_success
    run ls -A "$MNT"
    assert_output "e"
}

@test "full disk: export into the mount point itself leaves it empty" {
    mount_tmpfs 2m
    "$KVTEST" init "$D/x.db" --count 300 --size 10k >/dev/null
    run --separate-stderr "$KVTEST" export "$D/x.db" "$MNT"
    assert_equal "$status" 1
    assert_equal "${#stderr_lines[@]}" 1
    [[ "$stderr" == *"No space left on device" ]] || fail "$stderr"
    run ls -A "$MNT"
    assert_output ""
}

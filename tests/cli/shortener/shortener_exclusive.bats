#!/usr/bin/env bats
# kvtest shortener serve --sqlite-exclusive: the service's process alone
# opens the database (SQLite's unix-excl VFS) and keeps a frame in its WAL.
# What it must keep: every GET and POST, read-your-writes, the data and the
# header after it stops. What it trades: any other process is refused while
# it runs. What it is for: no file lock and no fstat per GET, counted with
# strace -f -c (system calls, not time). A real service, real HTTP, a real
# SQLite file; servers stopped by PID in teardown.

load '../../lib/common'

setup() {
    common_setup
    shortener_setup
    "$KVTEST" shortener init "$DB" --links 200 >/dev/null
    "$KVTEST" shortener keys "$DB" >"$D/keys.txt"
}

teardown() {
    shortener_teardown
}

# py_sql SQL: run SQL on DB from another process (python3's sqlite3, one
# second's busy timeout); prints the first column of each row.
py_sql() {
    python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=1)
for row in c.execute(sys.argv[2]):
    print(row[0])' "$DB" "$1"
}

@test "sqlite-exclusive: GET, POST and read-your-writes; other processes refused meanwhile; data and header intact after" {
    py_sql "PRAGMA user_version=7"
    local id url
    id=$(head -n1 "$D/keys.txt")
    url=$(py_sql "SELECT link_target FROM links WHERE link_hash='$id'")
    start_service "$DB" --cache none --sqlite-exclusive
    run grep -c 'sqlite-exclusive' "$SERVICE_ERR"
    assert_output 1
    run curl -fsS --max-time 5 "$SERVICE_URL/link/$id"
    assert_success
    assert_output "{\"link\":\"$url\"}"
    run curl -fsS --max-time 5 -d '{"url":"https://example.com/exclusive"}' "$SERVICE_URL/link"
    assert_success
    local new
    new=$(jq -r .short_link <<<"$output")
    run curl -fsS --max-time 5 "$SERVICE_URL/link/$new"
    assert_success
    assert_output '{"link":"https://example.com/exclusive"}'
    # the WAL holds a frame (its header alone is 32 bytes)
    run stat -c %s "$DB-wal"
    assert_success
    [ "$output" -gt 32 ] || { echo "WAL of $output bytes"; return 1; }
    # another process cannot read it while the service runs
    run py_sql "SELECT count(*) FROM links"
    assert_failure
    assert_output --partial 'database is locked'
    stop_service TERM
    [ "$SERVICE_STATUS" -eq 0 ]
    run py_sql "SELECT count(*) FROM links"
    assert_output 201
    run py_sql "PRAGMA user_version"
    assert_output 7
    run py_sql "PRAGMA integrity_check"
    assert_output ok
}

@test "sqlite-exclusive: without it, another process reads while the service runs" {
    start_service "$DB" --cache none
    run py_sql "SELECT count(*) FROM links"
    assert_success
    assert_output 200
}

# syscalls WALKS ARGS...: serve DB ARGS under strace -f -c, WALKS walks
# over the 200 ids (200 x WALKS GETs; none for 0), then "newfstatat N" and
# "fcntl N", the calls of the whole run. The service is stopped by its own
# PID (strace's child): strace, told to stop, would detach and leave it.
syscalls() {
    local walks=$1 child
    shift
    SERVICE_WRAP=(strace -f -c -o "$D/strace.txt")
    start_service "$DB" --cache none "$@"
    SERVICE_WRAP=()
    if [ "$walks" -gt 0 ]; then
        "$KVTEST" shortener load "$SERVICE_URL" --keys "$D/keys.txt" --walk "$walks" \
            --connections 4 >"$D/load.txt" || { cat "$D/load.txt"; return 1; }
    fi
    child=$(pgrep -P "$SERVICE_PID")
    [ -n "$child" ] && kill -TERM "$child"
    stop_service TERM
    awk '$NF == "newfstatat" || $NF == "fcntl" { n[$NF] = $4 }
         END { printf "newfstatat %d\nfcntl %d\n", n["newfstatat"], n["fcntl"] }' "$D/strace.txt"
}

# per_get BASE FULL NAME: (FULL's NAME calls - BASE's) / 2000, 3 decimals.
per_get() {
    awk -v n="$3" 'FILENAME == ARGV[1] && $1 == n { b = $2 } FILENAME == ARGV[2] && $1 == n { f = $2 }
        END { printf "%.3f\n", (f - b) / 2000 }' "$1" "$2"
}

@test "sqlite-exclusive: no fstat and no file lock per GET (strace counts)" {
    command -v strace >/dev/null || skip "strace not installed"
    # (not under run: its subshell would hide SERVICE_PID from teardown)
    # The start's own calls, then 2000 GETs: without the option SQLite
    # sizes the file on every read transaction of an empty WAL, the count
    # that shows the test sees fstat at all; with it, neither that nor a
    # file lock per GET.
    syscalls 0 >"$D/shared0.txt"
    syscalls 10 >"$D/shared.txt"
    run per_get "$D/shared0.txt" "$D/shared.txt" newfstatat
    [[ $output =~ ^(0\.9[5-9][0-9]|1\.[0-9]+)$ ]] || { echo "newfstatat per GET: $output"; return 1; }
    syscalls 0 --sqlite-exclusive >"$D/excl0.txt"
    syscalls 10 --sqlite-exclusive >"$D/excl.txt"
    run per_get "$D/excl0.txt" "$D/excl.txt" newfstatat
    [[ $output =~ ^0\.0[0-4][0-9]$ ]] || { echo "newfstatat per GET: $output"; return 1; }
    run per_get "$D/excl0.txt" "$D/excl.txt" fcntl
    [[ $output =~ ^0\.0[0-4][0-9]$ ]] || { echo "fcntl per GET: $output"; return 1; }
}

@test "sqlite-exclusive: with --processes N or a PostgreSQL store, exit 2, one line, nothing started" {
    run "$KVTEST" shortener serve "$DB" --sqlite-exclusive --processes 2 --port 0
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    assert_output --partial 'not with --processes 2'
    run "$KVTEST" shortener serve --store postgres://u@127.0.0.1:1/db --sqlite-exclusive --port 0
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    assert_output --partial '--sqlite-exclusive applies to an SQLite store'
}

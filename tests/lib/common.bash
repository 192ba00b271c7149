# shellcheck shell=bash
# The variables set here are read by the suites (SC2034), and status,
# output and lines are set by bats' run (SC2154).
# shellcheck disable=SC2034,SC2154
# common.bash: what every command-line suite shares, loaded first by each
# tests/cli/FOLDER/*.bats (load '../../lib/common'). It loads bats-support,
# bats-assert and the server helpers (servers.bash), and defines:
#
#   common_setup              KVTEST must name the binary under test;
#                             D = this test's scratch directory; PID and
#                             MNT empty (start, mount_tmpfs set them)
#   common_teardown           what a failed test left: the command start
#                             ran (by PID), the tmpfs mount_tmpfs mounted
#   field LABEL               (stdin) the first word after "LABEL:" in text
#                             output
#   expect_error ST PATTERN ARGS...
#                             run kvtest ARGS: exit status ST and exactly one
#                             line "kvtest ...PATTERN..."
#   make_layouts DIR ARGS...  DIR/x.db from "kvtest init" with ARGS, and its
#                             flat and tree exports DIR/flat, DIR/tree
#   copy_layouts [NAME...]    private copies in $D of $S/NAME (default: x.db
#                             flat tree), for tests that write
#   start ARGS...             run kvtest ARGS in the background (PID; stdout
#                             in $D/out, stderr in $D/err)
#   wait_until TEST...        wait (bounded, 60 s) until the command TEST
#                             holds; 1 if it never does or PID ended first
#   wait_every STEP TEST...   the same, polling every STEP seconds instead of
#                             0.1 (a command that lasts under a second)
#   have_glob GLOB            some path matches GLOB
#   stop_with SIG             send SIG to PID; its exit status in $status
#   stop_leftover PID         teardown: a command a failed test left running
#                             in the background (ours) is killed by PID
#   assert_no_tmp DIR         nothing temporary (*.kvtest-tmp-*,
#                             *.kvtest-old-*) left anywhere under DIR
#   assert_one_err_line GLOB  $D/err (start's stderr) is one line matching
#                             GLOB
#   mount_tmpfs SIZE          a tmpfs of SIZE at $D/mnt (MNT) for the
#                             full-disk tests, or skip saying why (root
#                             only); common_teardown unmounts it
#   need_root WHY             skip unless root, with one line saying why
#                             the test needs it (make test as another user)
#   for_others DIR            DIR (new, below this run's scratch space) is a
#                             place another user can read: it and this run's
#                             directories above it are opened (a+rx; no
#                             others), so a test that drops privileges does
#                             not depend on where the checkout or TMPDIR is;
#                             skip, naming it, if a directory above is not
#                             this run's and is closed to other users
#   post_in_flight FD BODY HEADERS
#                             on the connection FD to the service, a POST
#                             /link of BODY (with HEADERS, CRLF-ended lines)
#                             whose first 10 bytes only are sent, once the
#                             service has said it read the head (its "100
#                             Continue" to "Expect: 100-continue"): from
#                             then on the request is in flight
#   wait_refused              wait (bounded, 10 s) until nothing accepts
#                             connections on SERVICE_PORT; 1 if something
#                             still does
#   own_uid                   a user id no other running test uses (100000 +
#                             this test's PID), for a test that runs kvtest
#                             under RLIMIT_NPROC: the limit counts every
#                             process of the user, the machine over
#   study_setup NAME          a suite of scripts/study/NAME.sh: SCRIPT (its
#                             path), BIN (the release binary it times,
#                             KVTEST_REL, else KVTEST); skip without
#                             build/ratioci
#   shortener_setup           common_setup with KVTEST (default ./kvtest),
#                             and SERVERS_DIR, DB and
#                             ASAN_OPTIONS for the shortener suites; DB is
#                             a fresh SQLite path, or with
#                             KVTEST_STORE=postgres a fresh database on the
#                             suite's server (a postgres:// URL)
#
# The store suites (a line "# stores: sqlite postgres" near the top; make
# test runs them once per store, tests/run.sh) use:
#   store_setup_file          from setup_file: with KVTEST_STORE=postgres,
#                             one private PostgreSQL server for the suite
#   store_teardown_file       from teardown_file: stop it
#   store_is_sqlite           true when the suite runs on SQLite
#   sqlite_only WHY           skip this test on another store, saying why
#   store_sql SQL             run SQL on $DB's links (python3's sqlite3 or
#                             psql) and print the first column of its rows
#   shortener_teardown        stop every server; a service still running
#                             must exit 0 on SIGTERM (under AddressSanitizer
#                             a leak or memory error at shutdown makes that
#                             fail)

bats_require_minimum_version 1.5.0
# bats-support and bats-assert, their sources read directly: bats reads
# this file again for every test, and their load.bash files find each
# source with a $(dirname ...) of its own, 14 processes a test that took
# more CPU than a short test itself.
for _kvtest_lib in /usr/lib/bats/bats-support/src/*.bash /usr/lib/bats/bats-assert/src/*.bash; do
    # shellcheck source=/dev/null
    source "$_kvtest_lib"
done
unset _kvtest_lib
# The helpers beside this file, and the checkout above it, found from this
# file's path (bats' load takes a relative path from the suite's folder,
# which is one folder deeper for some suites than for others).
KVTEST_TESTS_LIB=${BASH_SOURCE[0]%/*}
KVTEST_ROOT=$KVTEST_TESTS_LIB/../..
load "$KVTEST_TESTS_LIB/servers"
load "$KVTEST_TESTS_LIB/pg"

common_setup() {
    : "${KVTEST:?KVTEST must name the binary under test}"
    D="$BATS_TEST_TMPDIR"
    PID=""
    MNT=""
}

common_teardown() {
    stop_leftover "${PID:-}"
    if [ -n "${MNT:-}" ] && mountpoint -q "$MNT"; then
        umount "$MNT"
    fi
}

field() {
    sed -n "s/^$1: *//p" | head -n1 | awk '{print $1}'
}

expect_error() {
    local want="$1" pattern="$2"
    shift 2
    run "$KVTEST" "$@"
    [ "$status" -eq "$want" ] || { echo "status $status, wanted $want: $output"; return 1; }
    [ "${#lines[@]}" -eq 1 ] || { echo "not one line: $output"; return 1; }
    [[ "$output" == "kvtest "*"$pattern"* ]] || { echo "message: $output"; return 1; }
}

make_layouts() {
    local dir=$1
    shift
    "$KVTEST" init "$dir/x.db" "$@" >/dev/null
    "$KVTEST" export "$dir/x.db" "$dir/flat" >/dev/null
    "$KVTEST" export "$dir/x.db" "$dir/tree" --tree >/dev/null
}

copy_layouts() {
    local n
    [ $# -gt 0 ] || set -- x.db flat tree
    for n in "$@"; do
        cp -r "$S/$n" "$D/$n"
    done
}

start() {
    "$KVTEST" "$@" >"$D/out" 2>"$D/err" &
    PID=$!
}

wait_until() {
    wait_every 0.1 "$@"
}

wait_every() {
    local step=$1 i
    shift
    # 60 s whatever the step.
    for i in $(seq "$(awk -v s="$step" 'BEGIN { printf "%d", 60 / s }')"); do
        if "$@"; then return 0; fi
        kill -0 "$PID" 2>/dev/null || return 1
        sleep "$step"
    done
    return 1
}

have_glob() {
    compgen -G "$1" >/dev/null
}

stop_with() {
    kill "-$1" "$PID"
    status=0
    wait "$PID" || status=$?
    PID=""
    echo "exit $status; stderr: $(cat "$D/err")"
}

stop_leftover() {
    [ -z "${1:-}" ] || stop_pid "$1" KILL
}

assert_no_tmp() {
    run find "$1" -name '*.kvtest-tmp-*' -o -name '*.kvtest-old-*'
    assert_success
    assert_output ""
}

assert_one_err_line() {
    run cat "$D/err"
    assert_equal "${#lines[@]}" 1
    # shellcheck disable=SC2053  # the pattern is a glob on purpose
    [[ "$output" == $1 ]] || fail "stderr: $output"
}

mount_tmpfs() {
    need_root "to mount a tmpfs"
    mkdir "$D/mnt"
    mount -t tmpfs -o "size=$1" tmpfs "$D/mnt" 2>"$D/mount.err" ||
        skip "cannot mount a tmpfs: $(cat "$D/mount.err")"
    MNT="$D/mnt"
}

need_root() {
    [ "$(id -u)" -eq 0 ] || skip "needs root: $1"
}

# need_memcg: --mem-limit creates a memory cgroup (v1 or v2): root, and a
# memory controller this process is under.
need_memcg() {
    need_root "to create a memory cgroup"
    grep -qE '^[0-9]+:([^:]*,)?memory(,[^:]*)?:|^0::' /proc/self/cgroup || skip "no cgroups"
}

# Tests that run kvtest or a script as another user copy what that user
# must reach into DIR: a checkout under a 0700 home directory (root's, on
# Debian) or TMPDIR is closed to every other user.
for_others() {
    local p
    mkdir -p "$1"
    chmod a+rx "$1"
    p=$(dirname "$1")
    while [ "$p" != / ]; do
        if [ -z "$(find "$p" -maxdepth 0 -perm -o+x)" ]; then
            [[ "$p/" == "$BATS_RUN_TMPDIR/"* ]] || skip "$p is closed to other users"
            chmod o+x "$p"
        fi
        p=$(dirname "$p")
    done
}

post_in_flight() {
    local fd=$1 body=$2 line
    printf 'POST /link HTTP/1.1\r\nHost: a\r\n%sExpect: 100-continue\r\nContent-Length: %d\r\n\r\n%s' \
        "$3" "${#body}" "${body:0:10}" >&"$fd"
    read -r -t 10 line <&"$fd" || true
    assert_equal "${line%$'\r'}" "HTTP/1.1 100 Continue"
    read -r -t 10 line <&"$fd" || true
    assert_equal "${line%$'\r'}" ""
}

wait_refused() {
    local i
    for i in $(seq 1 200); do
        (exec 9<>"/dev/tcp/127.0.0.1/$SERVICE_PORT") 2>/dev/null || return 0
        : "$i"
        sleep 0.05
    done
    return 1
}

own_uid() {
    echo $((100000 + $$))
}

study_setup() {
    common_setup
    SCRIPT=$KVTEST_ROOT/scripts/study/$1.sh
    BIN=${KVTEST_REL:-$KVTEST}
    [ -x "$KVTEST_ROOT/build/ratioci" ] || skip "no build/ratioci (make build/ratioci)"
}

shortener_setup() {
    KVTEST=${KVTEST:-$KVTEST_ROOT/kvtest}
    # D too: without it "$D/x.db" is /x.db, which only root can write (a
    # run as another user found the suites that wrote to / as root)
    common_setup
    SERVERS_DIR=$BATS_TEST_TMPDIR
    DB=$BATS_TEST_TMPDIR/links.db
    if ! store_is_sqlite; then
        DB=$(pg_new_db "t$BATS_TEST_NUMBER")
    fi
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
}

store_is_sqlite() {
    [ "${KVTEST_STORE:-sqlite}" = sqlite ]
}

store_setup_file() {
    if ! store_is_sqlite; then
        start_pg
    fi
}

store_teardown_file() {
    if ! store_is_sqlite; then
        stop_all_pg
    fi
}

sqlite_only() {
    if ! store_is_sqlite; then
        skip "SQLite only: $1"
    fi
}

store_sql() {
    if store_is_sqlite; then
        python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=10)
for row in c.execute(sys.argv[2]):
    print(row[0])
c.commit()' "$DB" "$1"
    else
        psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$DB" -c "$1"
    fi
}

shortener_teardown() {
    local had=${SERVICE_PID:-}
    stop_all_servers
    if [ -n "$had" ] && [ "${SERVICE_STATUS:-0}" -ne 0 ]; then
        echo "service exited with status $SERVICE_STATUS:" >&2
        cat "$SERVICE_ERR" >&2
        return 1
    fi
}

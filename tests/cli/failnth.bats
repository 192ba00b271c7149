#!/usr/bin/env bats
# Resources that fail on demand (build/failnth.so, scripts/tools/failnth.c):
# each malloc, write, fsync and open a command makes is failed in turn, one
# per run, and every run must end in a clear answer: exit 1 with one line
# and nothing left behind, or exit 0 with a complete result (the failure
# was one the command or a library could take). Never a crash, never a
# half-written database or export. The release build takes the malloc
# family too; the sanitizer build (whose allocator is its own) the write,
# fsync and open ones, so a leak on a failure path is seen.
#
# Every call is failed in turn with KVTEST_FAILNTH_FULL=1 (make failnth, a
# step of its own in CI: minutes); make test tries about 20 calls of each
# kind per command, spread evenly (stride), and a few under the
# sanitizers. The full sweep found the WAL left uncheckpointed behind an
# exit 0 (links_sqlite_create.c); a stride need not land on such a call.

load '../lib/common'

setup() {
    common_setup
    SHIM=$BATS_TEST_DIRNAME/../../build/failnth.so
    [ -f "$SHIM" ] || skip "build/failnth.so is not built (make build/failnth.so)"
    # absolute: each run starts in a directory of its own
    REL=$(realpath "${KVTEST_REL:-$KVTEST}")
    KVTEST=$(realpath "$KVTEST")
    D=$BATS_TEST_TMPDIR
}

# counts BIN CMD...: run CMD once with the shim counting; sets CALLS
# (FUNC -> how many calls the run made).
declare -A CALLS
counts() {
    local bin=$1 f n pid
    shift
    rm -rf "$D/w" "$D/count"
    mkdir "$D/w"
    (cd "$D/w" && KVTEST_FAIL_COUNT=$D/count LD_PRELOAD=$SHIM "$bin" "$@" >/dev/null 2>&1)
    CALLS=()
    while read -r f n pid; do
        : "$pid"
        CALLS[$f]=$((${CALLS[$f]:-0} + n))
    done <"$D/count"
}

# sweep BIN CHECK FUNC STEP CMD...: for N = 1, 1 + STEP, ... up to the
# count of FUNC, run CMD in an empty directory with the Nth FUNC failing.
# Exit 1: one line on stderr, and the directory as empty as before; exit
# 0: nothing on stderr and CHECK (a function run in that directory) holds;
# anything else fails the test, naming N. Sets TRIED and FAILED (runs that
# ended in exit 1).
sweep() {
    local bin=$1 check=$2 f=$3 step=$4 n st left
    shift 4
    TRIED=0 FAILED=0
    for ((n = 1; n <= ${CALLS[$f]}; n += step)); do
        rm -rf "$D/w"
        mkdir "$D/w"
        st=0
        (cd "$D/w" && KVTEST_FAIL=$f:$n LD_PRELOAD=$SHIM "$bin" "$@" >"$D/out" 2>"$D/err") || st=$?
        TRIED=$((TRIED + 1))
        left=$(ls -A "$D/w")
        case $st in
        0)
            [ ! -s "$D/err" ] || { echo "$f:$n: exit 0 with: $(cat "$D/err")"; return 1; }
            (cd "$D/w" && "$check") || { echo "$f:$n: exit 0, but the result is not whole"; return 1; }
            ;;
        1)
            FAILED=$((FAILED + 1))
            [ "$(wc -l <"$D/err")" -eq 1 ] || { echo "$f:$n: exit 1 with: $(cat "$D/err")"; return 1; }
            [ -z "$left" ] || { echo "$f:$n: exit 1, left behind: $left ($(cat "$D/err"))"; return 1; }
            ;;
        *)
            echo "$f:$n: exit $st: $(head -c 2000 "$D/err")"
            return 1
            ;;
        esac
    done
}

# stride FUNC PARTS: 1 for the full sweep, else a step giving about PARTS
# runs over FUNC's calls.
stride() {
    if [ "${KVTEST_FAILNTH_FULL:-0}" = 1 ]; then echo 1; else echo $((CALLS[$1] / $2 + 1)); fi
}

# The checks of a whole result, run in the sweep's directory.
blobs_whole() {
    local s
    s=$("$REL" stat t.db) && grep -q '^Number of entries: *200$' <<<"$s" &&
        grep -q '^Integrity-check: *ok$' <<<"$s"
}
export_whole() { [ "$(find ex -type f | wc -l)" -eq 100 ] && cmp -s <(cat ex/* | md5sum) <(cat "$D/ref"/* | md5sum); }
links_whole() { [ "$("$REL" shortener keys l.db | wc -l)" -eq 300 ]; }

@test "failnth: init with each malloc, write, fsync and open failing in turn: one line and no file, or a whole database" {
    local f total=0 failed=0
    counts "$REL" init t.db --count 200 --size 1000
    [ "${CALLS[malloc]}" -gt 100 ]   # the shim counts what the run does
    [ "${CALLS[write]}" -gt 0 ]
    for f in malloc write fsync open; do
        sweep "$REL" blobs_whole "$f" "$(stride "$f" 20)" init t.db --count 200 --size 1000
        total=$((total + TRIED)) failed=$((failed + FAILED))
    done
    # the sweep reached the failure paths: most failures are exit 1
    echo "init: $total runs, $failed exit 1"
    [ "$failed" -gt 10 ]
}

@test "failnth: export with each call failing in turn: one line and no directory, or every file whole" {
    "$REL" init "$D/src.db" --count 100 --size 500 >/dev/null
    "$REL" export "$D/src.db" "$D/ref" >/dev/null
    local f total=0 failed=0
    counts "$REL" export "$D/src.db" ex
    for f in malloc write open; do
        sweep "$REL" export_whole "$f" "$(stride "$f" 20)" export "$D/src.db" ex
        total=$((total + TRIED)) failed=$((failed + FAILED))
    done
    echo "export: $total runs, $failed exit 1"
    [ "$failed" -gt 10 ]
}

@test "failnth: shortener init with each call failing in turn: one line and no file, or every link" {
    local f total=0 failed=0
    counts "$REL" shortener init l.db --links 300
    for f in malloc write fsync open; do
        sweep "$REL" links_whole "$f" "$(stride "$f" 20)" shortener init l.db --links 300
        total=$((total + TRIED)) failed=$((failed + FAILED))
    done
    echo "shortener init: $total runs, $failed exit 1"
    [ "$failed" -gt 10 ]
}

@test "failnth: under the sanitizers, a sample of the write, fsync and open failures of each command leaks nothing" {
    [ "$KVTEST" != "$REL" ] || skip "KVTEST is the release build: no sanitizer to ask"
    "$REL" init "$D/src.db" --count 100 --size 500 >/dev/null
    "$REL" export "$D/src.db" "$D/ref" >/dev/null
    local f
    counts "$KVTEST" export "$D/src.db" ex
    for f in write open; do
        sweep "$KVTEST" export_whole "$f" "$(stride "$f" 3)" export "$D/src.db" ex
    done
    counts "$KVTEST" shortener init l.db --links 300
    for f in write fsync open; do
        sweep "$KVTEST" links_whole "$f" "$(stride "$f" 3)" shortener init l.db --links 300
    done
}

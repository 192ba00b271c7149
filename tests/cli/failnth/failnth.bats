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
# step of its own in CI: minutes); without it, about 10 calls of each kind
# per command, spread evenly (stride), and a few under the sanitizers. Not
# part of make test: a sweep is hundreds of runs of kvtest (a minute and a
# half of make test's five even when spread). The full sweep found the WAL left uncheckpointed behind an
# exit 0 (links_sqlite_create.c); a stride need not land on such a call.
#
# The service is swept under load too: each allocation it makes (outside
# h2o, which ends the process on a failed one by design: KVTEST_FAIL_SPARE)
# failed in turn while a client creates, reads and counts links; every
# answer must be one the API documents, a failure a 5xx with an error, and
# every link acknowledged must be in the store after the stop. This sweep
# found a failed allocation inside the URL and JSON parsers answered as the
# client's fault (400 "not a valid URI"); it is a 503 now.

# In failnth/, run by make failnth alone: every call failed in turn,
# minutes.
load '../../lib/common'

CLIENT=$BATS_TEST_DIRNAME/../../lib/failnth_client.py

setup() {
    common_setup
    SHIM=$BATS_TEST_DIRNAME/../../../build/failnth.so
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
# runs over FUNC's calls; stride_of COUNT PARTS the same over COUNT calls.
stride() {
    stride_of "${CALLS[$1]}" "$2"
}
stride_of() {
    if [ "${KVTEST_FAILNTH_FULL:-0}" = 1 ]; then echo 1; else echo $(($1 / $2 + 1)); fi
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
        sweep "$REL" blobs_whole "$f" "$(stride "$f" 10)" init t.db --count 200 --size 1000
        total=$((total + TRIED)) failed=$((failed + FAILED))
    done
    # the sweep reached the failure paths: some runs end in exit 1 (in the
    # full sweep most failed allocations are ones SQLite takes: 144 of 768)
    echo "init: $total runs, $failed exit 1"
    [ "$failed" -ge 5 ]
}

@test "failnth: export with each call failing in turn: one line and no directory, or every file whole" {
    "$REL" init "$D/src.db" --count 100 --size 500 >/dev/null
    "$REL" export "$D/src.db" "$D/ref" >/dev/null
    local f total=0 failed=0
    counts "$REL" export "$D/src.db" ex
    for f in malloc write open; do
        sweep "$REL" export_whole "$f" "$(stride "$f" 10)" export "$D/src.db" ex
        total=$((total + TRIED)) failed=$((failed + FAILED))
    done
    echo "export: $total runs, $failed exit 1"
    [ "$failed" -ge 5 ]
}

@test "failnth: shortener init with each call failing in turn: one line and no file, or every link" {
    local f total=0 failed=0
    counts "$REL" shortener init l.db --links 300
    for f in malloc write fsync open; do
        sweep "$REL" links_whole "$f" "$(stride "$f" 10)" shortener init l.db --links 300
        total=$((total + TRIED)) failed=$((failed + FAILED))
    done
    echo "shortener init: $total runs, $failed exit 1"
    [ "$failed" -ge 5 ]
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

# compare_swept CMD ARGS...: kvtest CMD ARGS (compare, history) with each
# allocation failing in turn: exit 1 with one line, or exit 0 with the very
# table of a run without failures. Every allocation, also without
# KVTEST_FAILNTH_FULL: a compare is milliseconds, and the statistics'
# allocations are a handful among a thousand (a stride passed over the one
# whose failure widened an interval). Sets TRIED and FAILED.
compare_swept() {
    local n st
    # --json's env is where and when it ran, not the table: its time
    # differs between runs, and a fact it could not read under a failed
    # allocation (the CPU model through fopen) reads "unknown".
    "$REL" "$@" | sed 's/"env":{[^}]*}/"env":{}/' >"$D/ref.txt"
    counts "$REL" "$@"
    TRIED=0 FAILED=0
    for ((n = 1; n <= CALLS[malloc]; n++)); do
        st=0
        KVTEST_FAIL=malloc:$n LD_PRELOAD=$SHIM "$REL" "$@" >"$D/raw" 2>"$D/err" || st=$?
        sed 's/"env":{[^}]*}/"env":{}/' "$D/raw" >"$D/out"
        TRIED=$((TRIED + 1))
        case $st in
        0)
            if ! cmp -s "$D/out" "$D/ref.txt"; then
                echo "malloc:$n: exit 0 with another table"
                diff "$D/ref.txt" "$D/out"
                return 1
            fi
            ;;
        1)
            FAILED=$((FAILED + 1))
            [ "$(wc -l <"$D/err")" -eq 1 ] || { echo "malloc:$n: exit $st with: $(cat "$D/err")"; return 1; }
            ;;
        *) echo "malloc:$n: exit $st: $(head -c 2000 "$D/err")"; return 1 ;;
        esac
    done
}

@test "failnth: compare (and --paired) with each allocation failing in turn: one line and exit 1, or its very table" {
    "$REL" init "$D/x.db" --count 300 --size 1k >/dev/null
    "$REL" run "$D/x.db" --count 300 --random --repeat 6 --json >"$D/a.jsonl"
    "$REL" run "$D/x.db" --count 300 --random --repeat 6 --json >"$D/b.jsonl"
    compare_swept compare "$D/a.jsonl" "$D/b.jsonl"
    echo "compare: $TRIED runs, $FAILED exit 1"
    [ "$FAILED" -gt 3 ]
    # paired: the signed-rank test's own allocations (6 pairs: an interval)
    compare_swept compare "$D/a.jsonl" "$D/b.jsonl" --paired
    echo "compare --paired: $TRIED runs, $FAILED exit 1"
    [ "$FAILED" -gt 3 ]
    # --json: an object short of a member it could not add is never printed
    compare_swept compare "$D/a.jsonl" "$D/b.jsonl" --json
    echo "compare --json: $TRIED runs, $FAILED exit 1"
    [ "$FAILED" -gt 3 ]
}

@test "failnth: history (CSV and --json lines) with each allocation failing in turn: one line and exit 1, or its very table" {
    awk 'BEGIN { print "commit,time,metric,value,unit"
        for (i = 0; i < 40; i++) printf "c%02d,t%02d,m,%d,us/op\n", i, i, (i < 20 ? 100 : 130) + i % 4 }' >"$D/s.csv"
    compare_swept history "$D/s.csv"
    echo "history: $TRIED runs, $FAILED exit 1"
    [ "$FAILED" -gt 3 ]
    "$REL" init "$D/x.db" --count 100 --size 1k >/dev/null
    "$REL" run "$D/x.db" --count 100 --random --json >"$D/one.json"
    local i
    for i in $(seq 10 29); do
        jq -c --arg c "k$i" --argjson u "$((i < 20 ? 10 : 20)).$i" '.commit = $c | .result.runs |= map(.us_per_blob = $u)' "$D/one.json"
    done >"$D/h.jsonl"
    compare_swept history "$D/h.jsonl" --json --min-segment 3
    echo "history --json: $TRIED runs, $FAILED exit 1"
    [ "$FAILED" -gt 3 ]
}

# serve_swept N ROUNDS: serve a copy of the links store with the Nth
# allocation (outside h2o) failing (none when N is empty), drive it with
# ROUNDS rounds of the client and stop it. Sets OUTCOME: "refused" (exit
# 1, one line, before listening) or "served" (every answer documented,
# every link acknowledged still in the store; FIVES counts the runs with a
# 5xx), or fails the test naming N. With COUNT_TO set, the shim counts
# the run's calls into that file.
serve_swept() {
    local n=$1 rounds=$2 port pid st=0 cst=0 i
    local envs=(KVTEST_FAIL_SPARE=libh2o LD_PRELOAD="$SHIM")
    [ -z "$n" ] || envs+=(KVTEST_FAIL="malloc:$n")
    [ -z "${COUNT_TO:-}" ] || envs+=(KVTEST_FAIL_COUNT="$COUNT_TO")
    cp "$D/tmpl.db" "$D/w.db"
    rm -f "$D/w.db-wal" "$D/w.db-shm"
    port=$(free_port)
    env "${envs[@]}" "$REL" shortener serve "$D/w.db" --port "$port" --threads 2 \
        >"$D/sout" 2>"$D/serr" 3>&- &
    pid=$!
    for i in $(seq 600); do
        (exec 9<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid" || st=$?
        if [ "$st" -ne 1 ] || [ "$(wc -l <"$D/serr")" -ne 1 ]; then
            echo "malloc:$n: serve ended at start with $st: $(cat "$D/serr")"
            return 1
        fi
        OUTCOME=refused
        return 0
    fi
    python3 "$CLIENT" "$port" "$rounds" "$D/acked" >"$D/cout" || cst=$?
    # The service may have ended itself by now (an allocation that fails
    # after the start ends it with one line and exit 1, an outcome judged
    # below): a kill that finds no process is not the test's failure.
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" || st=$?
    if [ "$cst" -ne 0 ]; then
        # An allocation of the HTTP server's start that fails after the
        # socket is bound: the probe saw the port open, the client found
        # it closed. That is a refusal at start (exit 1, one line).
        if [ "$st" -eq 1 ] && [ "$(wc -l <"$D/serr")" -eq 1 ] &&
            grep -q 'cannot start the HTTP server' "$D/serr"; then
            OUTCOME=refused
            return 0
        fi
        echo "malloc:$n: client $cst: $(cat "$D/cout"); serve $st: $(cat "$D/serr")"
        return 1
    fi
    case $st in
    0) ;;
    1)
        if [ "$(grep -vc 'listening on\|limits:' "$D/serr")" -ne 1 ]; then
            echo "malloc:$n: exit 1 after serving with: $(cat "$D/serr")"
            return 1
        fi
        ;;
    *) echo "malloc:$n: serve exit $st: $(head -c 2000 "$D/serr")"; return 1 ;;
    esac
    if ! "$REL" shortener keys "$D/w.db" >"$D/keys"; then
        echo "malloc:$n: the store cannot be read after the stop"
        return 1
    fi
    local id url
    while read -r id url; do
        grep -qx "$id" "$D/keys" || { echo "malloc:$n: acknowledged $id ($url) is not in the store"; return 1; }
    done <"$D/acked"
    if grep -q '^[A-Z]* 5[0-9][0-9] ' "$D/cout"; then FIVES=$((FIVES + 1)); fi
    OUTCOME=served
}

@test "failnth: serve under load with each allocation outside h2o failing in turn: refused at start, or every answer documented and every link kept" {
    "$REL" shortener init "$D/tmpl.db" --links 300 >/dev/null
    local start busy n step refused=0 served=0
    FIVES=0
    # The allocations of a start and a stop, then of a run with the load:
    # with two threads they come in the same order every time, the load's
    # (about 25 a round, then /stats's) right after the start's.
    COUNT_TO=$D/count serve_swept "" 0
    start=$(awk '$1 == "malloc" {s += $2} END {print s}' "$D/count")
    rm -f "$D/count"
    COUNT_TO=$D/count serve_swept "" 2
    busy=$(awk '$1 == "malloc" {s += $2} END {print s}' "$D/count")
    COUNT_TO=
    [ "$busy" -gt $((start + 40)) ]
    # every third allocation of the load (every one in the full sweep),
    # and a few of the start's
    step=$(stride_of $((busy - start)) 18)
    for ((n = start - 2; n <= busy; n += step)); do
        serve_swept "$n" 2
        case $OUTCOME in refused) refused=$((refused + 1)) ;; served) served=$((served + 1)) ;; esac
    done
    step=$(stride_of "$start" 6)
    for ((n = 1; n < start - 2; n += step)); do
        serve_swept "$n" 2
        case $OUTCOME in refused) refused=$((refused + 1)) ;; served) served=$((served + 1)) ;; esac
    done
    echo "serve: $((refused + served)) runs, $refused refused at start, $served served ($FIVES with a 5xx)"
    [ "$refused" -gt 2 ]
    [ "$FIVES" -gt 5 ]   # failures met requests, and were answered
}

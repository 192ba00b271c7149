#!/usr/bin/env bats
# kvtest shortener serve --processes N: N real service processes on one
# port and one SQLite WAL database, real HTTP through curl (a new
# connection per request, so the kernel picks a process each time) and
# tests/lib/procs_probe.py (keep-alive connections pinned to processes).
# Servers are stopped by PID in teardown; every loop is bounded.
# In servers/, so make test-servers runs it: trees of service processes,
# killed and restarted.

load '../../lib/common'

setup() {
    common_setup
    shortener_setup
    "$KVTEST" shortener init "$DB" --links 10 >/dev/null
}

teardown() {
    shortener_teardown
}

stats() {
    curl -s --max-time 10 "$SERVICE_URL/stats"
}

# pids_of N: ask /stats (a new connection each, at most 200) until every
# process 0..N-1 has answered; PIDS[k] = its pid. 1 if some never did.
pids_of() {
    local n=$1 i j k
    PIDS=()
    for i in $(seq 200); do
        j=$(stats) || continue
        k=$(jq -r .process <<<"$j")
        PIDS[k]=$(jq -r .pid <<<"$j")
        [ "${#PIDS[@]}" -lt "$n" ] || return 0
        : "$i"
    done
    echo "processes that answered: ${!PIDS[*]}" >&2
    return 1
}

# heartbeats N: N GET /heart-beat, each on a new connection, all 200.
heartbeats() {
    local i
    for i in $(seq "$1"); do
        curl -sf --max-time 10 -o /dev/null "$SERVICE_URL/heart-beat" || return 1
        : "$i"
    done
}

# post_links N FILE: N POSTs, new connections; "id url" of each 201 to FILE.
post_links() {
    local i out url
    for i in $(seq "$1"); do
        url="https://procs.example/$RANDOM/$i"
        out=$(curl -s --max-time 10 -w ' %{http_code}' -X POST \
              -d "{\"url\": \"$url\"}" "$SERVICE_URL/link") || continue
        [[ $out == *' 201' ]] || continue
        echo "$(jq -r .short_link <<<"${out% 201}") $url" >>"$2"
    done
}

# resolve_all FILE: every "id url" of FILE answers 200 with that url.
resolve_all() {
    local id url got
    while read -r id url; do
        got=$(curl -s --max-time 10 "$SERVICE_URL/link/$id")
        [ "$(jq -r .link <<<"$got")" = "$url" ] || {
            echo "link $id: '$got', wanted '$url'" >&2
            return 1
        }
    done <"$1"
}

# serve_capped N: serve --processes 2 --threads 1 as a user of its own
# (uid 0 is exempt) with RLIMIT_NPROC N, under tests/lib/subreaper.py,
# which adopts whatever the parent leaves behind and says "exit S, left
# K" last. LeakSanitizer cannot start its thread under such a limit.
serve_capped() {
    env ASAN_OPTIONS=detect_leaks=0 timeout 60 python3 "$BATS_TEST_DIRNAME/../../lib/subreaper.py" \
        setpriv --reuid="$(own_uid)" --regid="$(own_uid)" --clear-groups --inh-caps=+dac_override \
        --ambient-caps=+dac_override prlimit --nproc="$1" \
        "$KVTEST" shortener serve "$DB" --port 0 --processes 2 --threads 1
}

# parent_exits: wait (up to 30 s) for the service's parent to end by
# itself; PARENT_STATUS is its exit status. 1 if it still runs (teardown
# stops it then).
parent_exits() {
    PARENT_STATUS=0
    wait_gone "$SERVICE_PID" 30 || {
        echo "the parent still runs after 30 s" >&2
        return 1
    }
    wait "$SERVICE_PID" || PARENT_STATUS=$?
    SERVICE_PID=
}

@test "--processes refuses 0, negative, non-numbers and more than 256 (exit 2, one line)" {
    DB=$D/none.db   # were a value taken, the service would stop at once
    expect_error 2 "--processes must be between 1 and 256, got 0" shortener serve "$DB" --processes 0
    expect_error 2 "invalid number for --processes: '-2'" shortener serve "$DB" --processes -2
    expect_error 2 "invalid number for --processes: 'two'" shortener serve "$DB" --processes two
    expect_error 2 "--processes must be between 1 and 256, got 257" shortener serve "$DB" --processes 257
    expect_error 2 "--processes must be between 1 and 256, got 100k" shortener serve "$DB" --processes 100k
}

@test "--processes 1 is the one-process service: no child, /stats without process fields" {
    start_service "$DB" --processes 1 --threads 2
    run pgrep -P "$SERVICE_PID"
    assert_failure   # no child process
    run bash -c 'curl -s --max-time 10 "$1/stats" | jq -c "[has(\"process\"), has(\"all\"), has(\"requests\")]"' _ "$SERVICE_URL"
    assert_output '[false,false,true]'
    run grep -c 'listening on .*(threads 2, cache none' "$SERVICE_ERR"
    assert_output 1
}

@test "--processes 2: every process answers, and a link made through one resolves through the other at once" {
    start_service "$DB" --processes 2 --threads 2
    pids_of 2
    [ "${PIDS[0]}" != "${PIDS[1]}" ]
    run grep -c 'listening on .*(processes 2, threads 2, cache none' "$SERVICE_ERR"
    assert_output 1
    # 2 rounds x 2 ordered pairs: POST on one process, GET on the other.
    run python3 "$BATS_TEST_DIRNAME/../../lib/procs_probe.py" "$SERVICE_PORT" 2 2
    assert_success
    assert_output "pairs 4"
    # and through new connections (any process), links made either way
    post_links 20 "$D/links"
    run wc -l <"$D/links"
    assert_output 20
    run resolve_all "$D/links"
    assert_success
}

@test "--processes 2: \"all\" is the sum over the processes, and --json at shutdown prints it" {
    start_service "$DB" --processes 2 --threads 2 --json
    heartbeats 30
    local -a hb=()
    local i j k all
    for i in $(seq 200); do
        j=$(stats)
        k=$(jq -r .process <<<"$j")
        hb[k]=$(jq -r '.routes["GET /heart-beat"]["200"] // 0' <<<"$j")
        all=$(jq -r '.all.routes["GET /heart-beat"]["200"]' <<<"$j")
        [ "${#hb[@]}" -lt 2 ] || break
        : "$i"
    done
    [ "${#hb[@]}" -eq 2 ]
    assert_equal "$all" 30
    assert_equal "$((hb[0] + hb[1]))" 30   # each process's own fields are its own
    run jq -r '[.processes, .restarts, (.all | has("processes"))] | @tsv' <<<"$j"
    assert_output "$(printf '2\t0\tfalse')"
    stop_service TERM
    assert_equal "$SERVICE_STATUS" 0
    run jq -r '[.processes, .restarts, .routes["GET /heart-beat"]["200"], .cache.enabled] | @tsv' "$SERVICE_OUT"
    assert_output "$(printf '2\t0\t30\tfalse')"
}

@test "--processes 2: a process killed with SIGKILL is restarted; acknowledged links and counts survive; SIGTERM stops all" {
    start_service "$DB" --processes 2 --threads 2
    heartbeats 10
    post_links 10 "$D/links"
    pids_of 2
    local p0=${PIDS[0]} p1=${PIDS[1]} bg
    # POSTs on while process 0 is killed: every 201 must be in the database.
    post_links 60 "$D/during" &
    bg=$!
    PID=$SERVICE_PID
    wait_until test -s "$D/during"
    kill -KILL "$p0"
    wait "$bg"
    PID=$SERVICE_PID
    wait_until grep -q "process 0 (pid $p0) killed by signal 9; restarted as pid" "$SERVICE_ERR"
    local new
    new=$(sed -n "s/.*(pid $p0) killed by signal 9; restarted as pid \([0-9]*\)$/\1/p" "$SERVICE_ERR")
    [ -n "$new" ]
    run kill -0 "$p0"
    assert_failure
    # the service keeps answering, process 0 now from the new pid
    pids_of 2
    assert_equal "${PIDS[0]}" "$new"
    assert_equal "${PIDS[1]}" "$p1"
    run resolve_all "$D/links"
    assert_success
    run resolve_all "$D/during"
    assert_success
    # the killed process's counts carry over into "all"
    run bash -c 'curl -s --max-time 10 "$1/stats" | jq -r "[.restarts, .all.routes[\"GET /heart-beat\"][\"200\"]] | @tsv"' _ "$SERVICE_URL"
    assert_output "$(printf '1\t10')"
    stop_service TERM
    assert_equal "$SERVICE_STATUS" 0
    for p in "$p1" "$new"; do
        run kill -0 "$p"
        assert_failure
    done
    run grep -A1 '^  GET /heart-beat' "$SERVICE_OUT"
    assert_output --partial "GET /heart-beat  200: 10"
    run grep -c '^Processes: 2 (restarts 1)$' "$SERVICE_OUT"
    assert_output 1
}

@test "--processes 2: a process that dies at once in a loop makes the parent give up (exit 1, one line)" {
    start_service "$DB" --processes 2 --threads 2
    pids_of 2
    local p0=${PIDS[0]} p1=${PIDS[1]}
    mv "$DB" "$DB.away"   # a restarted process cannot open it and exits 1
    kill -KILL "$p1"
    parent_exits
    assert_equal "$PARENT_STATUS" 1
    run grep -c 'restarted as pid' "$SERVICE_ERR"
    assert_output 5
    run grep -c 'process 1 (pid [0-9]*) exited with status 1 after 5 restarts within 10 s; giving up$' "$SERVICE_ERR"
    assert_output 1
    run kill -0 "$p0"   # the survivor was stopped too
    assert_failure
    run cat "$SERVICE_OUT"
    assert_output ""
}

@test "--processes 2: a parent killed with SIGKILL leaves no process behind" {
    start_service "$DB" --processes 2 --threads 2
    pids_of 2
    stop_pid "$SERVICE_PID" KILL
    SERVICE_PID=
    local p i st
    for p in "${PIDS[@]}"; do
        # gone, or a zombie waiting for whoever adopted it
        for i in $(seq 100); do
            st=$(ps -o stat= -p "$p" | tr -d ' ')
            [[ -z $st || $st == Z* ]] && break
            : "$i"
            sleep 0.1
        done
        if ! [[ -z $st || $st == Z* ]]; then
            echo "process $p still runs ($st)" >&2
            kill -KILL "${PIDS[@]}" 2>/dev/null   # ours: leave nothing behind
            return 1
        fi
    done
}

@test "--processes 2 refuses a port another service listens on (exit 1, one line)" {
    start_service "$DB" --processes 2 --threads 2
    # bounded: a second service that joined the port would run on
    run timeout 20 "$KVTEST" shortener serve "$DB" --processes 2 --port "$SERVICE_PORT"
    assert_failure 1
    assert_output "kvtest shortener serve: 127.0.0.1 port $SERVICE_PORT: Address already in use"
}

@test "--processes 2 with a --bind that is not an address: exit 2, one line, nothing started" {
    expect_error 2 "--bind: 'nonsense' is not a numeric IPv4 or IPv6 address" \
        shortener serve "$DB" --processes 2 --port 0 --bind nonsense
}

# fd_targets PID: the pipes and sockets PID holds, "pipe:[INODE]" and
# "socket:[INODE]", sorted, one a line.
fd_targets() {
    local f
    for f in /proc/"$1"/fd/*; do
        readlink "$f"
    done 2>/dev/null | grep -E '^(pipe|socket):' | sort -u
}

@test "--processes 2: no child holds the parent's reserve socket or the ready pipe, and every loop thread blocks SIGINT, SIGTERM and SIGCHLD" {
    start_service "$DB" --processes 2 --threads 2
    pids_of 2
    local c t n=0
    fd_targets "$SERVICE_PID" >"$D/parent"
    fd_targets "${PIDS[0]}" >"$D/c0"
    fd_targets "${PIDS[1]}" >"$D/c1"
    # The parent's own (what it inherited, its children inherited too): the
    # port's reserve socket alone; the ready pipe's ends are closed.
    run comm -23 "$D/parent" "$D/c0"
    assert_output --regexp '^socket:\[[0-9]+\]$'
    run grep -cxF "$output" "$D/c1"
    assert_output 0
    # What the two children hold in common they inherited from the parent's
    # own parent: neither kept an end of the ready pipe.
    comm -12 "$D/c0" "$D/c1" >"$D/common"
    run comm -23 "$D/common" "$D/parent"
    assert_output ""
    # and no socket: each listens on its own, and the parent's probe of the
    # port is closed before the fork
    run grep -c '^socket:' "$D/common"
    assert_output 0
    # The mask set before the fork, which the HTTP threads inherit: only
    # the main thread's sigwait takes a stop signal (it shows the mask
    # sigwait lowered, so it is left out).
    for c in "${PIDS[@]}"; do
        for t in /proc/"$c"/task/*; do
            [ "${t##*/}" != "$c" ] || continue
            run grep '^SigBlk:' "$t/status"
            assert_output "$(printf 'SigBlk:\t0000000000014002')"
            n=$((n + 1))
        done
    done
    assert_equal "$n" 4   # 2 loop threads each
}

@test "--processes 2 started with SIGCHLD ignored: a killed process is still restarted" {
    local ign='import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execvp(sys.argv[1], sys.argv[1:])'
    # the wrapper does what it says (an ignored signal stays so across exec)
    run python3 -c "$ign" grep ^SigIgn: /proc/self/status
    assert_output --regexp 'SigIgn:.*[13579bdf][0-9a-f]{4}$'   # bit 16: SIGCHLD
    SERVICE_WRAP=(python3 -c "$ign")
    start_service "$DB" --processes 2 --threads 1
    pids_of 2
    local p0=${PIDS[0]} i
    kill -KILL "$p0"
    for i in $(seq 200); do
        grep -q "process 0 (pid $p0) killed by signal 9; restarted as pid" "$SERVICE_ERR" && break
        kill -0 "$SERVICE_PID" || break
        : "$i"
        sleep 0.1
    done
    run grep -c "process 0 (pid $p0) killed by signal 9; restarted as pid" "$SERVICE_ERR"
    assert_output 1
    pids_of 2
    stop_service TERM
    assert_equal "$SERVICE_STATUS" 0
}

@test "--processes 2: SIGINT stops every process as SIGTERM does (exit 0, the counters printed)" {
    start_service "$DB" --processes 2 --threads 1
    pids_of 2
    stop_service INT
    assert_equal "$SERVICE_STATUS" 0
    local p
    for p in "${PIDS[@]}"; do
        run kill -0 "$p"
        assert_failure
    done
    run grep -c '^Processes: 2 (restarts 0)$' "$SERVICE_OUT"
    assert_output 1
}

# gone PID: PID no longer exists (reaped, not a zombie), within 60 s.
gone() {
    local i
    for i in $(seq 600); do
        [ -e "/proc/$1" ] || return 0
        : "$i"
        sleep 0.1
    done
    return 1
}

@test "--processes 2: a process that does not stop on SIGTERM is killed after the 10 s grace (one line, exit 1, no counters)" {
    start_service "$DB" --processes 2 --threads 1
    pids_of 2
    local p0=${PIDS[0]} p1=${PIDS[1]} st=0 t0=$SECONDS
    kill -STOP "$p0"   # its SIGTERM stays pending
    kill -TERM "$SERVICE_PID"
    wait_gone "$SERVICE_PID" 40 || {   # bounded: the grace is 10 s
        echo "the parent still waits after 40 s" >&2
        kill -KILL "$p0"
        return 1   # teardown stops the parent
    }
    wait "$SERVICE_PID" || st=$?
    SERVICE_PID=
    assert_equal "$st" 1
    [ $((SECONDS - t0)) -ge 9 ]   # not before the grace
    run grep -c "process 0 (pid $p0) killed by signal 9 while stopping$" "$SERVICE_ERR"
    assert_output 1
    run grep -c 'kvtest shortener serve: ' "$SERVICE_ERR"
    assert_output 3   # listening, limits, that line
    run cat "$SERVICE_OUT"
    assert_output ""
    gone "$p0"
    gone "$p1"
}

@test "--processes 2: a second SIGTERM, or SIGINT, while the processes stop is dropped: the counters are printed, exit 0" {
    second_signal_dropped TERM
    second_signal_dropped INT
}

# second_signal_dropped SIG: a stop begun by SIG, and SIG again while a
# child holds the parent in its wait.
second_signal_dropped() {
    local sig=$1
    # As at a terminal: a script's background job starts with SIGINT
    # ignored, under which a second SIGINT left pending would do nothing.
    local SERVICE_WRAP=(env "--default-signal=$sig")
    start_service "$DB" --processes 2 --threads 1
    pids_of 2
    local p0=${PIDS[0]} p1=${PIDS[1]}
    kill -STOP "$p0"   # holds the parent in its wait for the children
    kill -"$sig" "$SERVICE_PID"
    gone "$p1"         # reaped: the parent is stopping
    kill -"$sig" "$SERVICE_PID"   # the stop has begun: dropped (it once ended the parent, 143)
    kill -CONT "$p0"   # takes its pending SIGTERM: exits 0
    stop_pid "$SERVICE_PID" CONT 20
    SERVICE_PID=
    assert_equal "$STOP_STATUS" 0
    run grep -c '^Processes: 2 (restarts 0)$' "$SERVICE_OUT"
    assert_output 1
    run grep -c 'while stopping' "$SERVICE_ERR"
    assert_output 0
    gone "$p0"
}

# bats test_tags=other-user
@test "--processes 2 when no process can be forked: one line, exit 1" {
    need_root "to run serve as a user of its own (RLIMIT_NPROC counts every process of a user; uid 0 is exempt)"
    command -v setpriv >/dev/null || skip "no setpriv"
    # RLIMIT_NPROC 1 for a user of its own: the parent is its one process,
    # so its first fork fails (uid 0 is exempt from the limit; the database
    # is reached with CAP_DAC_OVERRIDE). LeakSanitizer cannot start its
    # thread under that limit either.
    run env ASAN_OPTIONS=detect_leaks=0 timeout 30 setpriv --reuid="$(own_uid)" --regid="$(own_uid)" \
        --clear-groups --inh-caps=+dac_override --ambient-caps=+dac_override \
        prlimit --nproc=1 "$KVTEST" shortener serve "$DB" --port 0 --processes 2
    assert_failure 1
    assert_output "kvtest shortener serve: fork: Resource temporarily unavailable"
}

@test "--processes 2 whose processes run out of open files at each step of their start in turn: their own lines only, exit 1" {
    # squeeze FREE LIMIT CMD...: CMD with LIMIT open files, FREE of them free
    local squeeze='import os, resource, sys
free, limit = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
while True:
    fd = os.open("/dev/null", os.O_RDONLY)
    if fd >= limit - free:
        os.close(fd)
        break
    os.set_inheritable(fd, True)
os.execvp(sys.argv[3], sys.argv[3:])'
    local free pid i st seen="" started=
    for free in $(seq 3 40); do
        python3 -c "$squeeze" "$free" 200 "$KVTEST" shortener serve "$DB" --port 0 \
            --processes 2 --threads 2 >"$D/out" 2>"$D/err" 3>&- &
        pid=$!
        for i in $(seq 300); do
            kill -0 "$pid" 2>/dev/null || break
            grep -q 'listening on' "$D/err" && break
            : "$i"
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then   # enough to start: the scan is over
            stop_pid "$pid" TERM 20
            assert_equal "$STOP_STATUS" 0
            started=$free
            break
        fi
        st=0
        wait "$pid" || st=$?
        run cat "$D/err"
        echo "free $free: status $st: $output" >&2
        [ "$st" -eq 1 ]
        [ ! -s "$D/out" ]
        # each process says why, once; the parent adds nothing (no "while
        # stopping", no "fork:"), or h2o aborts it with its own line
        if [[ ${lines[0]} == 'kvtest shortener serve: socket: Too many open files' ]]; then
            seen+=" socket"
            assert_output "$(printf '%s\n%s' "${lines[0]}" "${lines[0]}")"
        elif [[ ${lines[0]} == 'kvtest shortener serve: process '[01]': cannot start the HTTP server' ]]; then
            seen+=" http"
            run sort "$D/err"
            assert_output "$(printf 'kvtest shortener serve: process %d: cannot start the HTTP server\n' 0 1)"
        elif [[ ${lines[0]} == "kvtest shortener serve: process "[01]": $DB: "* ]]; then
            seen+=" open"
            run sort "$D/err"
            assert_output "$(printf "kvtest shortener serve: process %d: $DB: unable to open database file\n" 0 1)"
        elif [[ ${lines[0]} == "kvtest shortener serve: "* ]]; then   # the parent itself
            assert_equal "${#lines[@]}" 1
            refute_output --partial 'process'
        else
            assert_equal "${#lines[@]}" 2
            refute_output --regexp 'kvtest|Sanitizer|runtime error'
        fi
    done
    [ -n "$started" ]
    assert_equal "$(tr ' ' '\n' <<<"$seen" | sort -u | xargs)" "http open socket"
}

@test "--processes 2 with a cache that does not answer: the parent warns once, the processes serve from the store" {
    local port
    port=$(free_port)   # nobody listens there
    start_service "$DB" --processes 2 --threads 1 --cache "valkey://127.0.0.1:$port" \
        --cache-timeout 100
    pids_of 2
    run grep -c "cache valkey://127.0.0.1:$port not answering" "$SERVICE_ERR"
    assert_output 1
    stop_service TERM
    assert_equal "$SERVICE_STATUS" 0
    # the parent's sum knows there is a cache: its counters, not "none"
    run grep -c '^Cache: hits 0, misses 0, errors [0-9]*, skipped ' "$SERVICE_OUT"
    assert_output 1
}

@test "--processes 2: every process, a restarted one too, keeps the standard input it was given" {
    : >"$D/stdin"
    SERVICE_WRAP=(bash -c 'exec "$@" 0<>"$0"' "$D/stdin")   # read-write: a write would land
    start_service "$DB" --processes 2 --threads 1
    pids_of 2
    local p0=${PIDS[0]} p new
    kill -KILL "$p0"
    PID=$SERVICE_PID
    wait_until grep -q "process 0 (pid $p0) killed by signal 9; restarted as pid" "$SERVICE_ERR"
    new=$(sed -n "s/.*(pid $p0) killed by signal 9; restarted as pid \([0-9]*\)$/\1/p" "$SERVICE_ERR")
    pids_of 2
    assert_equal "${PIDS[0]}" "$new"
    for p in "$SERVICE_PID" "${PIDS[@]}"; do
        run readlink "/proc/$p/fd/0"
        assert_output "$D/stdin"
    done
    run cat "$D/stdin"
    assert_output ""
    stop_service TERM
    assert_equal "$SERVICE_STATUS" 0
}

# bats test_tags=other-user
@test "--processes 2: a process that cannot be restarted (fork fails) makes the parent give up (exit 1, one line)" {
    need_root "to run serve as a user of its own (RLIMIT_NPROC counts every process of a user; uid 0 is exempt)"
    command -v setpriv >/dev/null || skip "no setpriv"
    # A user of its own (uid 0 is exempt from RLIMIT_NPROC), the database
    # reached with CAP_DAC_OVERRIDE; once running, the parent's limit is
    # lowered to 1, below what its user already runs (by that user: others
    # would need CAP_SYS_RESOURCE). LeakSanitizer cannot start its thread
    # under that limit.
    SERVICE_WRAP=(env ASAN_OPTIONS=detect_leaks=0 setpriv --reuid="$(own_uid)" --regid="$(own_uid)"
                  --clear-groups --inh-caps=+dac_override --ambient-caps=+dac_override)
    start_service "$DB" --processes 2 --threads 1
    pids_of 2
    local p0=${PIDS[0]} p1=${PIDS[1]}
    setpriv --reuid="$(own_uid)" --regid="$(own_uid)" --clear-groups prlimit --pid "$SERVICE_PID" --nproc=1
    kill -KILL "$p0"
    parent_exits
    assert_equal "$PARENT_STATUS" 1
    run grep -c "process 0 (pid $p0) killed by signal 9; cannot restart it: fork: Resource temporarily unavailable$" "$SERVICE_ERR"
    assert_output 1
    run grep -c 'kvtest shortener serve: ' "$SERVICE_ERR"
    assert_output 3   # listening, limits, that line
    run cat "$SERVICE_OUT"
    assert_output ""
    gone "$p1"
}

@test "--processes 2: a create in flight when SIGTERM comes is answered and stored; exit 0" {
    start_service "$DB" --processes 2 --threads 1
    local b='{"url":"https://inflight.example/"}' out line st=0 i
    trap '' PIPE
    # a create whose body is half sent when the stop comes (whichever
    # process the kernel gave the connection to); its "Expect:
    # 100-continue" makes that process say when it has read the head: from
    # then on the request is in flight
    exec 5<>"/dev/tcp/127.0.0.1/$SERVICE_PORT"
    post_in_flight 5 "$b" $'Connection: close\r\n'
    kill -TERM "$SERVICE_PID"
    # The stop has reached both processes once neither listens (polled, up
    # to 10 s; the parent's socket is bound, never listening): the rest of
    # the body comes after it. It must come within the processes' grace for
    # requests in flight (5 s, the service's own, not settable).
    if ! wait_refused; then
        fail "127.0.0.1:$SERVICE_PORT still accepts connections 10 s after SIGTERM"
    fi
    printf '%s' "${b:10}" >&5
    out=$(timeout 10 cat <&5) || true
    exec 5<&-
    assert_equal "$(head -n1 <<<"$out" | tr -d '\r')" "HTTP/1.1 201 Created"
    wait_gone "$SERVICE_PID" 60 || fail "the service still runs 60 s after SIGTERM"
    wait "$SERVICE_PID" || st=$?
    SERVICE_PID=
    assert_equal "$st" 0
    run python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM links WHERE link_target = ?",
      ("https://inflight.example/",)).fetchone()[0])' "$DB"
    assert_output 1
}

# bats test_tags=other-user
@test "--processes 2 when the second process cannot be forked: the first is stopped and waited for, none left behind (exit 1)" {
    need_root "to run serve as a user of its own (RLIMIT_NPROC counts every process of a user; uid 0 is exempt)"
    command -v setpriv >/dev/null || skip "no setpriv"
    # RLIMIT_NPROC 2 for a user of its own: the parent and its first
    # process, so the second fork fails (and the first process's HTTP
    # thread cannot start either: it says so and exits).
    run serve_capped 2
    assert_success
    assert_line "kvtest shortener serve: fork: Resource temporarily unavailable"
    assert_line "kvtest shortener serve: process 0: cannot start the HTTP server"
    assert_line "exit 1, left 0"
}

@test "--processes 2: the port taken while no process listens: every restart fails with its reason, the parent gives up with status 1" {
    start_service "$DB" --processes 2 --threads 1
    pids_of 2
    local i st=0
    # The parent stopped and both processes killed: only the parent's
    # reserve socket (bound, never listening) holds the port, and another
    # program's listening socket may take it (SO_REUSEADDR on both).
    kill -STOP "$SERVICE_PID"
    kill -KILL "${PIDS[0]}" "${PIDS[1]}"
    for i in $(seq 100); do
        (exec 9<>"/dev/tcp/127.0.0.1/$SERVICE_PORT") 2>/dev/null || break
        : "$i"
        sleep 0.05
    done
    start_silent_listener "$SERVICE_PORT"
    kill -CONT "$SERVICE_PID"
    parent_exits || st=$?
    stop_pid "$SILENT_PID" KILL
    [ "$st" -eq 0 ]
    assert_equal "$PARENT_STATUS" 1
    # each of the 5 restarted processes says why (the last may be stopped first)
    run grep -c "^kvtest shortener serve: 127.0.0.1 port $SERVICE_PORT: Address already in use$" "$SERVICE_ERR"
    [ "$output" -ge 4 ]
    run grep -c 'process [01] (pid [0-9]*) exited with status 1 after 5 restarts within 10 s; giving up$' "$SERVICE_ERR"
    assert_output 1
}

@test "--processes 2 giving up signals only its own processes: pid 1 (of a PID namespace of its own) gets nothing" {
    unshare --pid --fork --mount-proc true 2>/dev/null || skip "no PID namespace here"
    # --kill-child: should the test fail, teardown's SIGKILL of unshare
    # ends the namespace and all in it.
    SERVICE_WRAP=(unshare --pid --fork --mount-proc --kill-child python3 "$BATS_TEST_DIRNAME/../../lib/as_pid1.py")
    start_service "$DB" --processes 2 --threads 1
    # (start_service has waited for the start lines: both are forked)
    # The namespace's pids are not ours: find the processes by descent
    # (unshare, then pid 1, then the parent, then its two).
    local py parent kids
    # (each children file is one line without a newline: read says EOF)
    read -r py <"/proc/$SERVICE_PID/task/$SERVICE_PID/children" || true
    read -r parent <"/proc/$py/task/$py/children" || true
    read -ra kids <"/proc/$parent/task/$parent/children" || true
    assert_equal "${#kids[@]}" 2
    mv "$DB" "$DB.away"   # a restarted process cannot open it and exits 1
    kill -KILL "${kids[1]}"
    parent_exits
    assert_equal "$PARENT_STATUS" 1
    run grep -c 'after 5 restarts within 10 s; giving up$' "$SERVICE_ERR"
    assert_output 1
    run tail -n 1 "$SERVICE_ERR"
    assert_output "pid 1 got: none"
}

# bats test_tags=other-user
@test "--processes 2 of which one cannot start: the other is stopped, no listening line, none left behind (exit 1)" {
    need_root "to run serve as a user of its own (RLIMIT_NPROC counts every process of a user; uid 0 is exempt)"
    command -v setpriv >/dev/null || skip "no setpriv"
    # RLIMIT_NPROC 4 for a user of its own: the parent and two processes
    # are 3, so one HTTP thread fits and the other process's does not.
    run serve_capped 4
    assert_success
    assert_output --regexp '^kvtest shortener serve: process [01]: cannot start the HTTP server
exit 1, left 0$'
}

#!/usr/bin/env bats
# kvtest shortener serve --processes N: N real service processes on one
# port and one SQLite WAL database, real HTTP through curl (a new
# connection per request, so the kernel picks a process each time) and
# tests/lib/procs_probe.py (keep-alive connections pinned to processes).
# Servers are stopped by PID in teardown; every loop is bounded.

load '../lib/common'

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
    run python3 "$BATS_TEST_DIRNAME/../lib/procs_probe.py" "$SERVICE_PORT" 2 2
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
    run jq -r '[.processes, .restarts, .routes["GET /heart-beat"]["200"]] | @tsv' "$SERVICE_OUT"
    assert_output "$(printf '2\t0\t30')"
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
    local p0=${PIDS[0]} p1=${PIDS[1]} i st=0
    mv "$DB" "$DB.away"   # a restarted process cannot open it and exits 1
    kill -KILL "$p1"
    for i in $(seq 300); do
        kill -0 "$SERVICE_PID" 2>/dev/null || break
        : "$i"
        sleep 0.1
    done
    if kill -0 "$SERVICE_PID" 2>/dev/null; then
        echo "the parent still restarts after 30 s" >&2
        return 1   # teardown stops it
    fi
    wait "$SERVICE_PID" || st=$?
    SERVICE_PID=
    assert_equal "$st" 1
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

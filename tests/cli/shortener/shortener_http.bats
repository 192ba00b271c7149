#!/usr/bin/env bats
# The HTTP layer of "kvtest shortener serve" read byte by byte: each status
# line's reason phrase, exact bodies and headers, the request-head and body
# limits at their edges, h2o's own refusals, a full disk, and the orderly
# stop. Raw requests over /dev/tcp, so nothing between us and the server
# rewrites what it sent.

load '../../lib/common'

setup() {
    shortener_setup
    D=$BATS_TEST_TMPDIR
    "$KVTEST" shortener init "$DB" --links 20 >/dev/null
}

teardown() {
    shortener_teardown
}

# exchange NAME: send stdin's bytes on a new connection and keep every byte
# of the answer in $D/NAME until the server closes (at most 10 s). The
# requests say "Connection: close", so the close marks the answer's end.
# It fails only when the server has not closed after 10 s. An error of the
# write or the read is not the test's: when the service answers and closes
# before it has read all that was sent (a 431), writing the rest fails, and
# the close may come as a reset after the answer, which the read then
# reports. What was answered is in NAME, where the test checks it.
exchange() (
    trap '' PIPE
    exec 5<>"/dev/tcp/127.0.0.1/$SERVICE_PORT"
    cat >&5 2>/dev/null || true
    local st=0
    timeout 10 cat <&5 >"$D/$1" 2>/dev/null || st=$?
    [ "$st" -ne 124 ]
)
status_line() { head -n1 "$D/$1" | tr -d '\r'; }
header() { sed '/^\r$/q' "$D/$1" | tr -d '\r' | sed -n "s/^$2: //Ip"; }
body() { sed '1,/^\r$/d' "$D/$1"; }

# req NAME METHOD PATH [BODY]: one request with Content-Length, answer in NAME.
req() {
    local name=$1 m=$2 p=$3
    if [ $# -ge 4 ]; then
        printf '%s %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s' \
            "$m" "$p" "${#4}" "$4" | exchange "$name"
    else
        printf '%s %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n' "$m" "$p" |
            exchange "$name"
    fi
}

# A JSON create body of exactly N bytes: a valid URL, then spaces.
create_body() {
    local head='{"url":"https://pad.example/"}'
    printf '%s%*s' "$head" $(($1 - ${#head})) ''
}

@test "each status carries its reason phrase; bodies and Content-Length are exact" {
    start_service "$DB" --threads 2
    req ok GET /heart-beat
    assert_equal "$(status_line ok)" "HTTP/1.1 200 OK"
    assert_equal "$(body ok)" '{"OK":true}'
    req made POST /link '{"url":"https://reason.example/"}'
    assert_equal "$(status_line made)" "HTTP/1.1 201 Created"
    run body made
    assert_output --regexp '^\{"short_link":"[A-Za-z0-9]{10}"\}$'
    req bad POST /link '{"url":1}'
    assert_equal "$(status_line bad)" "HTTP/1.1 400 Bad Request"
    req none GET /link/zzzzzzzzzz
    assert_equal "$(status_line none)" "HTTP/1.1 404 Not Found"
    assert_equal "$(body none)" '{"error":"no such link"}'
    req put PUT /link
    assert_equal "$(status_line put)" "HTTP/1.1 405 Method Not Allowed"
    assert_equal "$(header put Allow)" "POST"
    # 65537 bytes: h2o reads it (its limit is one more than ours), the
    # service refuses it in its own words.
    req big POST /link "$(create_body 65537)"
    assert_equal "$(status_line big)" "HTTP/1.1 413 Payload Too Large"
    assert_equal "$(body big)" '{"error":"body larger than 65536 bytes"}'
    local f
    for f in ok made bad none put big; do
        assert_equal "$(header $f Content-Type)" "application/json"
        assert_equal "$(header $f Content-Length)" "$(body $f | wc -c)"
    done
}

@test "the body limit at its edge: 65536 bytes are read and stored, 65537 are refused" {
    start_service "$DB" --threads 2
    req edge POST /link "$(create_body 65536)"
    assert_equal "$(status_line edge)" "HTTP/1.1 201 Created"
    local id
    id=$(body edge | jq -r .short_link)
    req back GET "/link/$id"
    assert_equal "$(body back)" '{"link":"https://pad.example/"}'
    req over POST /link "$(create_body 65537)"
    assert_equal "$(status_line over)" "HTTP/1.1 413 Payload Too Large"
    # One byte more is past h2o's own limit: refused on the head alone
    # (so no body is sent into a closing connection), before the service
    # reads it, in h2o's reason phrase (the body in the service's words).
    printf 'POST /link HTTP/1.1\r\nHost: a\r\nContent-Length: 65538\r\n\r\n' | exchange over2
    assert_equal "$(status_line over2)" "HTTP/1.1 413 Request Entity Too Large"
    run curl -s "$SERVICE_URL/stats"
    assert_equal "$(jq -c '.routes["POST /link"]' <<<"$output")" '{"201":1,"413":2}'
}

@test "an HTTP/2 upgrade request is answered in HTTP/1.1, not switched" {
    start_service "$DB" --threads 1
    printf 'GET /heart-beat HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, HTTP2-Settings, close\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n' |
        exchange up
    assert_equal "$(status_line up)" "HTTP/1.1 200 OK"
}

# The listening socket's inode (ss is not everywhere: /proc/net/tcp).
listen_inode() {
    awk -v port="$(printf '%04X' "$SERVICE_PORT")" \
        'NR > 1 && $4 == "0A" && $2 ~ ":" port "$" { print $10 }' /proc/net/tcp
}

@test "--threads N: N descriptors of the one listening socket, one a loop; none left over" {
    local n inode
    for n in 1 2 3; do
        start_service "$DB" --threads "$n"
        inode=$(listen_inode)
        assert [ -n "$inode" ]
        run bash -c "ls -l /proc/$SERVICE_PID/fd | grep -c 'socket:\[$inode\]'"
        assert_output "$n"
        stop_service
    done
}

# bats test_tags=other-user
@test "loops that cannot all get a thread: one line, exit 1, nothing leaked" {
    need_root "to run serve as a user of its own (RLIMIT_NPROC counts every process of a user; uid 0 is exempt)"
    command -v setpriv >/dev/null || skip "no setpriv"
    # RLIMIT_NPROC for a user of its own (uid 0 is exempt) counts threads:
    # with a limit of 2 or 3 the first one or two loops start and the next
    # cannot. The loops that started are stopped, those set up but never
    # started are taken down from the main thread; LeakSanitizer (whose
    # thread fits once the loops are gone) finds anything left behind.
    chmod 777 "$D"
    chmod 666 "$DB"
    local n
    for n in 2 3; do
        run timeout 30 setpriv --reuid="$(own_uid)" --regid="$(own_uid)" --clear-groups \
            --inh-caps=+dac_override --ambient-caps=+dac_override \
            prlimit --nproc="$n" "$KVTEST" shortener serve "$DB" --port 0 --threads 4
        assert_failure 1
        assert_output --regexp '^kvtest shortener serve: cannot start the HTTP server on 127\.0\.0\.1 port [0-9]+$'
    done
}

@test "request heads: 32768 bytes as counted are served, one more gets 431 and the connection closes" {
    start_service "$DB" --threads 2
    # The count: method + path + authority, then name + value + 4 for each
    # header (": " and CRLF); Host is the authority, not a header.
    # GET(3) /heart-beat(11) a(1); connection: close (10+5+4); x: PAD (1+PAD+4)
    local fixed=$((3 + 11 + 1 + 19 + 5)) pad
    pad=$((32768 - fixed))
    printf 'GET /heart-beat HTTP/1.1\r\nHost: a\r\nConnection: close\r\nX: %s\r\n\r\n' \
        "$(head -c "$pad" /dev/zero | tr '\0' p)" | exchange at
    assert_equal "$(status_line at)" "HTTP/1.1 200 OK"
    # One byte more, then a second request on the same connection: the 431
    # closes it, so the second is never answered.
    printf 'GET /heart-beat HTTP/1.1\r\nHost: a\r\nX: %s\r\n\r\nGET /heart-beat HTTP/1.1\r\nHost: a\r\n\r\n' \
        "$(head -c $((pad + 19 + 1)) /dev/zero | tr '\0' p)" | exchange over
    assert_equal "$(status_line over)" "HTTP/1.1 431 Request Header Fields Too Large"
    assert_equal "$(header over Connection)" "close"
    assert_equal "$(body over)" '{"error":"request header fields too large"}'
    assert_equal "$(header over Content-Length)" 43
    assert_equal "$(grep -c '^HTTP/1.1' "$D/over")" 1
}

@test "request targets: 8192 bytes are routed, one more gets 414 and the connection closes" {
    start_service "$DB" --threads 2
    local at over
    at="/link/$(head -c 8186 /dev/zero | tr '\0' a)"
    [ "${#at}" -eq 8192 ]
    printf 'GET %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n' "$at" | exchange at
    # routed: an id over 64 characters is the service's own 400
    assert_equal "$(status_line at)" "HTTP/1.1 400 Bad Request"
    assert_equal "$(body at)" '{"error":"invalid id: expected 1-64 characters of [A-Za-z0-9]"}'
    over="${at}a"
    printf 'GET %s HTTP/1.1\r\nHost: a\r\n\r\nGET /heart-beat HTTP/1.1\r\nHost: a\r\n\r\n' "$over" |
        exchange over
    assert_equal "$(status_line over)" "HTTP/1.1 414 URI Too Long"
    assert_equal "$(body over)" '{"error":"request target longer than 8192 bytes"}'
    assert_equal "$(header over Content-Length)" 49   # the body, and no NUL after it
    assert_equal "$(header over Connection)" "close"
    assert_equal "$(grep -c '^HTTP/1.1' "$D/over")" 1
}

@test "header fields: 100 are served, a 101st is refused by h2o with its own 400" {
    start_service "$DB" --threads 2
    local n
    for n in 100 101; do
        {
            printf 'GET /heart-beat HTTP/1.1\r\nHost: a\r\nConnection: close\r\n'
            for i in $(seq 3 "$n"); do printf 'X-%d: v\r\n' "$i"; done
            printf '\r\n'
        } | exchange "h$n"
    done
    assert_equal "$(status_line h100)" "HTTP/1.1 200 OK"
    # h2o's HTTP/1 parser stops at 100 fields and answers before any
    # handler or filter of ours runs: plain text, not JSON
    assert_equal "$(status_line h101)" "HTTP/1.1 400 Bad Request"
    assert_equal "$(body h101)" "Bad Request"
}

@test "h2o's own refusals: its reason in a JSON body, the service's words for a create, no body for HEAD" {
    start_service "$DB" --threads 2
    printf 'POST /link HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n' | exchange cl
    assert_equal "$(status_line cl)" "HTTP/1.1 400 Invalid Request"
    assert_equal "$(body cl)" '{"error":"broken content-length header"}'
    printf 'POST /link HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n' |
        exchange chunk
    assert_equal "$(body chunk)" '{"error":"broken chunked-encoding"}'
    # Over h2o's body limit: a create is refused in the service's words
    # (and counted as the create's 413); anything else in h2o's.
    printf 'POST /link HTTP/1.1\r\nHost: a\r\nContent-Length: 70000\r\n\r\n' | exchange create
    assert_equal "$(status_line create)" "HTTP/1.1 413 Request Entity Too Large"
    assert_equal "$(body create)" '{"error":"body larger than 65536 bytes"}'
    printf 'GET /link HTTP/1.1\r\nHost: a\r\nContent-Length: 70000\r\n\r\n' | exchange get
    assert_equal "$(body get)" '{"error":"request entity is too large"}'
    printf 'POST /other HTTP/1.1\r\nHost: a\r\nContent-Length: 70000\r\n\r\n' | exchange other
    assert_equal "$(body other)" '{"error":"request entity is too large"}'
    local f
    for f in cl chunk create get other; do
        # one Content-Type, ours (h2o's text/plain replaced, not joined)
        assert_equal "$(header $f Content-Type)" "application/json"
        assert_equal "$(header $f Content-Length)" "$(body $f | wc -c)"
    done
    printf 'HEAD /link HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n' | exchange head
    assert_equal "$(status_line head)" "HTTP/1.1 400 Invalid Request"
    assert_equal "$(body head | wc -c)" 0
    # no Content-Length: a HEAD's may only be the GET's (40 here), and h2o
    # gives the HEAD no text to count (it once said 17, for "error")
    assert_equal "$(header head Content-Length)" ""
    run curl -s "$SERVICE_URL/stats"
    assert_equal "$(jq -c '.routes["POST /link"]' <<<"$output")" '{"413":1}'
}

@test "a full disk: creates get 500 storage error, stored links still resolve, the service lives" {
    local id
    id=$("$KVTEST" shortener keys "$DB" | head -n1)
    # Writes past 256 KiB fail with EFBIG (SIGXFSZ ignored, as a full
    # disk's ENOSPC would): the WAL cannot grow past it.
    SERVICE_WRAP=(bash -c 'trap "" XFSZ; ulimit -f 256; exec "$@"' limit)
    start_service "$DB" --threads 1
    SERVICE_WRAP=()
    local i st=
    for i in $(seq 1 400); do
        req c POST /link "{\"url\":\"https://full.example/$i/$(head -c 600 /dev/zero | tr '\0' q)\"}"
        st=$(status_line c)
        [ "$st" = "HTTP/1.1 201 Created" ] || break
    done
    assert_equal "$st" "HTTP/1.1 500 Internal Server Error"
    assert_equal "$(body c)" '{"error":"storage error"}'
    req old GET "/link/$id"
    assert_equal "$(status_line old)" "HTTP/1.1 200 OK"
    run curl -s "$SERVICE_URL/stats"
    [ "$(jq '.sqlite.errors' <<<"$output")" -ge 1 ]
    [ "$(jq '.routes["POST /link"]["500"]' <<<"$output")" -ge 1 ]
}

@test "SIGTERM: the request in flight is answered, new requests meanwhile close, nothing new is accepted, exit 0" {
    # One loop, so the request in flight keeps the loop that serves B alive.
    start_service "$DB" --threads 1
    local b='{"url":"https://inflight.example/"}' line
    trap '' PIPE
    # B: a keep-alive connection that has had one answer
    exec 6<>"/dev/tcp/127.0.0.1/$SERVICE_PORT"
    printf 'GET /heart-beat HTTP/1.1\r\nHost: a\r\n\r\n' >&6
    while read -r -t 10 line <&6 && [ "$line" != $'\r' ]; do :; done
    read -r -t 10 -N 11 line <&6
    assert_equal "$line" '{"OK":true}'
    # A: a create whose body is half sent when the stop comes. Its
    # "Expect: 100-continue" makes the server say when it has read the
    # head: from then on the request is in flight.
    exec 5<>"/dev/tcp/127.0.0.1/$SERVICE_PORT"
    post_in_flight 5 "$b" ""
    kill -TERM "$SERVICE_PID"
    # the listener is closed (polled, up to 10 s) while the service still
    # runs: it waits for A (the grace for requests in flight, 5 s, is the
    # service's own, not settable: everything down to A's answer must fit in
    # it, milliseconds of work)...
    wait_refused || fail "127.0.0.1:$SERVICE_PORT still accepts connections 10 s after SIGTERM"
    kill -0 "$SERVICE_PID"
    # ...B's next request is answered, and says it closes
    printf 'GET /heart-beat HTTP/1.1\r\nHost: a\r\n\r\n' >&6
    timeout 10 cat <&6 >"$D/b2" || true
    exec 6<&-
    assert_equal "$(status_line b2)" "HTTP/1.1 200 OK"
    assert_equal "$(header b2 Connection)" "close"
    # ...and A, finished, is answered
    printf '%s' "${b:10}" >&5
    timeout 10 cat <&5 >"$D/inflight" || true
    exec 5<&-
    assert_equal "$(status_line inflight)" "HTTP/1.1 201 Created"
    # it stops by itself (the TERM was sent; a second would kill it)
    local st=0
    wait_gone "$SERVICE_PID" 60 || fail "the service still runs 60 s after SIGTERM"
    wait "$SERVICE_PID" || st=$?
    SERVICE_PID=
    assert_equal "$st" 0
    # acknowledged is stored
    local id
    id=$(body inflight | jq -r .short_link)
    start_service "$DB" --threads 1
    req back GET "/link/$id"
    assert_equal "$(body back)" '{"link":"https://inflight.example/"}'
}

@test "SIGTERM with only idle keep-alive connections stops at once, not after the 5 s grace" {
    start_service "$DB" --threads 2
    exec 6<>"/dev/tcp/127.0.0.1/$SERVICE_PORT"
    printf 'GET /heart-beat HTTP/1.1\r\nHost: a\r\n\r\n' >&6
    local line
    read -r -t 10 line <&6
    assert_equal "${line%$'\r'}" "HTTP/1.1 200 OK"
    # the whole answer: the connection is idle, nothing left to read
    while read -r -t 10 line <&6 && [ "$line" != $'\r' ]; do :; done
    read -r -t 10 -N 11 line <&6
    assert_equal "$line" '{"OK":true}'
    # Timed from the signal to the server's close of the idle connection,
    # which comes before the exit's own work (stores, sanitizer): with a
    # request in flight the service waits for it up to its 5 s grace (from
    # the signal, its own clock, not settable) before it closes the rest,
    # so a close 5 s or more after the signal is the grace waited. Any
    # bound below 5 s would only measure the machine's speed.
    local t0 t1 st=0
    t0=$(date +%s%N)
    kill -TERM "$SERVICE_PID"
    read -r -t 30 line <&6 || st=$?
    t1=$(date +%s%N)
    exec 6<&-
    [ "$st" -eq 1 ] || fail "the idle connection was not closed (read status $st, '$line')"
    [ $(((t1 - t0) / 1000000)) -lt 5000 ] ||
        fail "the idle connection was closed $(((t1 - t0) / 1000000)) ms after SIGTERM: the grace was waited"
    # and it exits by itself, with status 0 (a second TERM would kill it)
    local ex=0
    wait_gone "$SERVICE_PID" 60 || fail "the service still runs 60 s after SIGTERM"
    wait "$SERVICE_PID" || ex=$?
    SERVICE_PID=
    assert_equal "$ex" 0
}

@test "a head dribbled across several header timeouts is answered; a silent connection is closed" {
    # The idle timeout, which also bounds a slow first request, far above
    # every wait below: only the header timeout can close.
    start_service "$DB" --threads 1 --header-timeout 3 --idle-timeout 120
    (
        trap '' PIPE
        exec 5<>"/dev/tcp/127.0.0.1/$SERVICE_PORT"
        # 136 bytes in 17 pieces of 8, 0.5 s apart: 8 s, over two header
        # timeouts; only a gap of several seconds (6 times the one asked,
        # or more) could close it. Equal pieces: serve once took h2o's
        # bytes_read (the last read's size) for its progress, and closed a
        # head sent in equal pieces at the second timeout.
        local r i
        r=$'GET /heart-beat HTTP/1.1\r\nHost: a\r\nConnection: close\r\nX-Pad: '$(head -c 71 /dev/zero | tr '\0' p)$'\r\n\r\n'
        [ "${#r}" -eq 136 ]
        for ((i = 0; i < ${#r}; i += 8)); do
            printf '%s' "${r:i:8}" >&5 2>/dev/null || break   # closed: see below
            sleep 0.5
        done
        timeout 30 cat <&5 >"$D/dribble" || true
    )
    assert_equal "$(status_line dribble)" "HTTP/1.1 200 OK"
    # silent: closed after the header timeout, with nothing sent (waited
    # for up to 30 s, well below the idle timeout)
    exec 7<>"/dev/tcp/127.0.0.1/$SERVICE_PORT"
    run timeout 30 cat <&7
    exec 7<&-
    assert_success
    assert_output ""
}

#!/usr/bin/env bats
# Malformed-request corpus against a running "kvtest shortener serve": bad
# JSON, huge and truncated bodies, odd methods, invalid ids, raw protocol
# garbage and slow clients. Every case asserts the documented status, and
# the server must still answer and shut down cleanly afterwards (under
# AddressSanitizer, a crash or leak fails the last test).

load '../../lib/common'

setup_file() {
    # One service for every test, and the last stops it and checks what
    # the others left: never two tests at once under bats --jobs.
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
    export KVTEST=${KVTEST:-$BATS_TEST_DIRNAME/../../../kvtest}
    export SERVERS_DIR=$BATS_FILE_TMPDIR
    export DB=$BATS_FILE_TMPDIR/links.db
    "$KVTEST" shortener init "$DB" --links 20 >/dev/null
    start_service "$DB" --threads 2
    echo "$SERVICE_PID" >"$BATS_FILE_TMPDIR/pid"
}

teardown_file() {
    # Started in setup_file (another process): stop by PID, no wait.
    local pid
    pid=$(cat "$BATS_FILE_TMPDIR/pid" 2>/dev/null) || return 0
    kill -KILL "$pid" 2>/dev/null || true
}

# check EXPECTED METHOD PATH [BODY]: one curl request; prints a line and
# fails when the status differs or the body is not JSON with "error". A
# server that refuses a large body answers and closes while curl may still
# be sending it: curl then fails writing (exit 55) before it reads the
# answer. That request is sent again (3 tries in all); any other failure,
# or a wrong status, fails at once.
check() {
    local want=$1 m=$2 p=$3 got try rc
    local args=(-s --max-time 20 -o "$BATS_TEST_TMPDIR/body" -w '%{http_code}')
    if [ "$m" = HEAD ]; then args+=(-I); else args+=(-X "$m"); fi
    [ $# -ge 4 ] && args+=(--data-binary "$4")
    for try in 1 2 3; do
        rc=0
        got=$(curl "${args[@]}" "$SERVICE_URL$p") || rc=$?
        [ "$rc" -eq 55 ] || break
        : "$try"
    done
    if [ "$rc" -ne 0 ]; then
        echo "FAIL $m $p [${4:-}]: curl exit $rc" >&2
        return 1
    fi
    if [ "$got" != "$want" ]; then
        echo "FAIL $m $p [${4:-}]: want $want got $got: $(cat "$BATS_TEST_TMPDIR/body")" >&2
        return 1
    fi
    if [ "$want" -ge 400 ] && [ "$m" != HEAD ]; then
        jq -e '.error | type == "string"' "$BATS_TEST_TMPDIR/body" >/dev/null || {
            echo "FAIL $m $p: error body not JSON: $(cat "$BATS_TEST_TMPDIR/body")" >&2
            return 1
        }
    fi
}

# raw TEXT: send TEXT (printf %b escapes) on a fresh connection and print
# the status code of the answer (nothing if the server just closed). In a
# subshell ignoring SIGPIPE: the server may close before we finish writing.
raw() (
    trap '' PIPE
    exec 5<>"/dev/tcp/127.0.0.1/$SERVICE_PORT"
    printf '%b' "$1" >&5 2>/dev/null
    timeout 10 head -n1 <&5 | tr -d '\r' | awk '{print $2}'
)

@test "malformed JSON bodies get 400 (26 cases)" {
    n=0
    while IFS= read -r body; do
        check 400 POST /link "$body"
        n=$((n + 1))
    done <<'EOF'
{
}
{"url"}
{"url":}
{"url": "https://a.example/",}
{'url': 'https://a.example/'}
{url: "https://a.example/"}
{"url": "https://a.example/" "x": 1}
{"url": "https://a.example/\x41"}
{"url": "https://a.example/\u12"}
{"url": "https://a.example/\ud800"}
[{"url": "https://a.example/"}]
"https://a.example/"
https://a.example/
{"url": "https://a.example/"} {"url": "https://b.example/"}
{"url": true}
{"url": 1e309}
{"url": {"href": "https://a.example/"}}
{"url": "mailto:someone@example.com"}
{"url": "file:///etc/passwd"}
{"url": "data:text/html,hi"}
{"url": "//example.com/x"}
{"url": "http//example.com"}
{"url": "https://exa mple.com/"}
{"url": "https://example.com/\t"}
{"uRl": "https://a.example/"}
EOF
    [ "$n" -eq 26 ]
}

@test "empty, binary and deeply nested bodies get 400 (6 cases)" {
    check 400 POST /link ''
    check 400 POST /link '   '
    check 400 POST /link "$(printf '\x01\x02\x03\xff\xfe')"
    check 400 POST /link "$(printf '%.0s[' $(seq 1 5000))"
    check 400 POST /link "$(printf '%.0s{"a":' $(seq 1 2000))"
    check 400 POST /link "{\"url\": \"https://a.example/$(printf '\xc3\x28')\"}"
}

@test "invalid ids get 400, unknown valid ones 404 (16 cases)" {
    for p in /link/ /link/a-b /link/a_b /link/a.b "/link/a%20b" "/link/%2e%2e" \
             /link/a/b "/link/%00abc" "/link/abc%0d%0a" "/link/$(head -c 65 /dev/zero | tr '\0' x)" \
             "/link/%E2%82%AC" "/link/abc%3Fq"; do
        check 400 GET "$p"
    done
    check 404 GET /link/a
    check 404 GET "/link/$(head -c 64 /dev/zero | tr '\0' x)"
    check 404 GET /link/ZZZZZZZZZZ
    check 404 GET "/link/ZZZZZZZZZZ?x=1"
}

@test "odd methods get 405 with Allow, unknown paths 404 (18 cases)" {
    for m in PUT DELETE PATCH OPTIONS TRACE FOO get; do
        check 405 "$m" /link/abc
    done
    for m in GET HEAD PUT DELETE; do
        check 405 "$m" /link
    done
    for m in POST PUT; do
        check 405 "$m" /heart-beat
        check 405 "$m" /stats
    done
    check 404 GET /link2
    check 404 POST /links
    check 404 GET /heart-beat/
}

@test "oversized bodies get 413 (5 cases)" {
    big=$BATS_TEST_TMPDIR/big
    head -c 65537 /dev/zero | tr '\0' '{' >"$big"
    check 413 POST /link "@$big"
    head -c 1000000 /dev/urandom >"$big"
    check 413 POST /link "@$big"
    # a lying Content-Length is refused before any body arrives
    [ "$(raw 'POST /link HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n')" = 413 ]
    [ "$(raw 'POST /link HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n\r\n{"url":')" = 413 ]
    # a chunked stream past 16 MiB is cut off; the server lives on
    head -c 20000000 /dev/zero >"$big"
    run curl -s --max-time 20 -o /dev/null -w '%{http_code}' -H 'Transfer-Encoding: chunked' \
        --data-binary "@$big" "$SERVICE_URL/link"
    [ "$output" != 201 ]
    check 200 GET /heart-beat
}

@test "raw protocol garbage is refused and the server lives on (9 cases)" {
    # These answers come from h2o itself (text bodies), except the 431,
    # which is ours. A request line h2o cannot parse and an unknown HTTP
    # version get 400 (libmicrohttpd closed the first and answered 505).
    [ "$(raw 'GARBAGE\r\n\r\n')" = 400 ]
    [ "$(raw 'GET /heart-beat HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n')" = 400 ]
    [ "$(raw 'GET /heart-beat HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n')" = 400 ]
    [ "$(raw 'GET /heart-beat HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n')" = 400 ]
    [ "$(raw 'GET /heart-beat HTTP/9.9\r\nHost: x\r\n\r\n')" = 400 ]
    [ "$(raw 'GET /heart-beat HTTP/1.0\r\n\r\n')" = 200 ]
    [ "$(raw "GET /heart-beat HTTP/1.1\r\nHost: x\r\nX-Long: $(head -c 40000 /dev/zero | tr '\0' a)\r\n\r\n")" = 431 ]
    [ "$(raw 'POST /link HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n')" = 400 ]
    # truncated body: the client gives up mid-body; no answer owed, no crash
    (
        trap '' PIPE
        exec 5<>"/dev/tcp/127.0.0.1/$SERVICE_PORT"
        printf 'POST /link HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"url": "https://tr' >&5
    )
    check 200 GET /heart-beat
}

@test "slow clients: dribbled request answered, others served meanwhile (3 cases)" {
    body='{"url":"https://slow.example/path"}'
    text="POST /link HTTP/1.1\r\nHost: x\r\nContent-Length: ${#body}\r\nConnection: close\r\n\r\n$body"
    (
        exec 6<>"/dev/tcp/127.0.0.1/$SERVICE_PORT"
        printf '%b' "$text" | while IFS= read -r -d '' -n 5 chunk || [ -n "$chunk" ]; do
            printf '%s' "$chunk" >&6
            sleep 0.05
        done
        timeout 10 head -n1 <&6 >"$BATS_TEST_TMPDIR/slow"
    ) &
    slow=$!
    # a client that opens a connection and sends nothing
    exec 7<>"/dev/tcp/127.0.0.1/$SERVICE_PORT"
    for i in 1 2 3; do
        check 200 GET /heart-beat
    done
    wait "$slow"
    grep -q ' 201 ' "$BATS_TEST_TMPDIR/slow"
    exec 7>&-
}

@test "after the corpus: same answers as before, clean shutdown, no sanitizer report" {
    id=$("$KVTEST" shortener keys "$DB" --limit 1)
    check 200 GET "/link/$id"
    check 201 POST /link '{"url":"https://after.example/"}'
    pid=$(cat "$BATS_FILE_TMPDIR/pid")
    kill -TERM "$pid"
    # Not our child (setup_file started it): done when gone or a zombie.
    gone() { ! kill -0 "$pid" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ]; }
    for i in $(seq 1 100); do
        if gone; then break; fi
        sleep 0.1
    done
    gone
    grep -q '^Requests: ' "$SERVICE_OUT"
    # AddressSanitizer, LeakSanitizer and UBSan all report on stderr; the
    # service is not our child, so its stderr is the evidence.
    run cat "$SERVICE_ERR"
    refute_output --partial 'Sanitizer'
    refute_output --partial 'runtime error'
}

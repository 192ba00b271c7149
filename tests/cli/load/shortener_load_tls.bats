#!/usr/bin/env bats
# "shortener load https://...": the load engine over TLS (OpenSSL), driven
# against kvtest's own HTTPS service (serve --tls-cert) with certificates
# made by the openssl command at test time: every answer checked as over
# plain HTTP, the certificate verified (--cacert, --insecure, a name that
# does not match, a server that speaks no TLS), sessions resumed when a
# connection is opened again, the handshakes timed apart from the requests
# (against tests/lib/slow_tls_server.py, whose handshakes take 2 s),
# and load-merge adding https runs.

# status, output, lines and stderr_lines are set by bats' run (SC2154).
# shellcheck disable=SC2154

load '../../lib/common'
load '../../lib/tls'

setup_file() {
    make_test_certs "$BATS_FILE_TMPDIR/certs"
}

setup() {
    tls_setup 50
    "$KVTEST" shortener keys "$DB" >"$D/keys"
}

teardown() {
    [ -z "${SLOW_PID:-}" ] || { kill "$SLOW_PID" 2>/dev/null; wait "$SLOW_PID" 2>/dev/null; }
    shortener_teardown
}

start_tls() {   # start_tls [CERT] [ARGS]: the service over TLS; URL in $U
    local cert=${1:-$C/server.pem}
    shift || true
    start_service "$DB" --threads 2 --tls-cert "$cert" --tls-key "$C/server.key" "$@"
    U="https://127.0.0.1:$SERVICE_PORT"
}

# The JSON run's field: jqo FILTER.
jqo() { jq -r "$1" <<<"$output"; }

@test "load https://: the classic task mix over TLS, every answer checked; one handshake per connection, timed apart; the service counted every request" {
    start_tls
    # one worker: its connections each take a task before any answer comes
    # (with two, a worker that starts late may find the tasks all done)
    run --separate-stderr "$KVTEST" shortener load "$U" --tasks 12 --gets 5 --connections 4 \
        --workers 1 --cacert "$C/ca.pem" --json
    assert_success
    assert_equal "$(jqo .result.requests)" 72
    assert_equal "$(jqo .result.requests_failed)" 0
    assert_equal "$(jqo .result.failures.tls)" 0
    # one connection per virtual user, none reopened, so none resumed
    assert_equal "$(jqo .result.tls.handshakes)" 4
    assert_equal "$(jqo .result.tls.resumed)" 0
    assert_equal "$(jqo .result.tls.handshake.count)" 4
    assert_equal "$(jqo '.result.tls.handshake.min > 0')" true
    assert_equal "$(jqo .options.url)" "$U"
    stop_service
    assert_equal "$SERVICE_STATUS" 0
    run grep -E '^  (GET /link/<id>|POST /link) ' "$SERVICE_OUT"
    assert_output "$(printf '  POST /link       201: 12\n  GET /link/<id>   200: 60')"
}

@test "load https:// text: failures by kind include tls, one line of handshakes; plain http's text has neither" {
    start_tls
    run --separate-stderr "$KVTEST" shortener load "$U" --tasks 3 --gets 2 --connections 2 \
        --workers 1 --cacert "$C/ca.pem"
    assert_success
    assert_line 'Failures by kind: connect 0 timeout 0 io 0 http_status 0 bad_body 0 tls 0'
    assert_line --regexp '^TLS handshakes: 2 \(0 resumed a session\), ms from TCP connect: min [0-9.]+ p50 [0-9.]+ p99 [0-9.]+ max [0-9.]+$'
    stop_service
    start_service "$DB" --threads 2
    run --separate-stderr "$KVTEST" shortener load "http://127.0.0.1:$SERVICE_PORT" --tasks 3 \
        --gets 2 --connections 2
    assert_success
    assert_line 'Failures by kind: connect 0 timeout 0 io 0 http_status 0 bad_body 0'
    refute_line --partial 'TLS'
}

@test "a connection opened again resumes its session: the server closes idle ones, every later handshake is resumed" {
    start_tls "$C/server.pem" --idle-timeout 1
    # one connection, a request every 2 s: each finds its connection closed
    run --separate-stderr "$KVTEST" shortener load "$U" --scenario get --path /heart-beat \
        --connections 1 --rate 0.5 --duration 5 --cacert "$C/ca.pem" --json
    assert_success
    local n
    n=$(jqo .result.tls.handshakes)
    assert_equal "$(jqo .result.requests)" 3
    assert_equal "$n" 3
    assert_equal "$(jqo .result.tls.resumed)" $((n - 1))
}

# start_slow [ARGS]: tests/lib/slow_tls_server.py on SLOW_PORT, ready.
start_slow() {
    SLOW_PORT=$(free_port)
    python3 "$BATS_TEST_DIRNAME/../../lib/slow_tls_server.py" "$SLOW_PORT" "$C/server.pem" \
        "$C/server.key" --seconds 60 "$@" >"$D/slow.out" 2>&1 &
    SLOW_PID=$!
    local _
    for _ in $(seq 1 100); do grep -q ready "$D/slow.out" && break; sleep 0.1; done
}

@test "the handshake is not in the requests' latency: a server whose handshakes take 2 s, requests answered at once" {
    start_slow --delay 2
    # four connections, one request each: each request follows a handshake.
    # The server's wait starts at its accept, the client's clock when it
    # sees the connection up, a little later: so the bound is 1 s, not 2,
    # and a request timed with its handshake would take over 2 s.
    run --separate-stderr "$KVTEST" shortener load "https://127.0.0.1:$SLOW_PORT" \
        --scenario get --path /x --connections 4 --tasks 4 --workers 1 --cacert "$C/ca.pem" --json
    assert_success
    assert_equal "$(jqo .result.tls.handshakes)" 4
    assert_equal "$(jqo '.result.tls.handshake.min >= 1000000')" true
    assert_equal "$(jqo '.result.by_type.all.latency.max < 1000000')" true
}

@test "a certificate that does not verify: every request fails as tls with the reason, exit 1; --insecure goes through" {
    start_tls
    # the test CA is not the system's
    run --separate-stderr "$KVTEST" shortener load "$U" --tasks 2 --gets 1 --connections 2 --json
    assert_failure 1
    assert_equal "$(jqo .result.failures.tls)" 2
    assert_equal "$(jqo .result.requests_failed)" 2
    assert_equal "$(jqo .result.tls.handshakes)" 0
    assert_regex "$(jqo '.result.errors[0]')" '^POST https://127\.0\.0\.1:[0-9]+/link: tls: certificate verify failed: unable to get local issuer certificate \(--cacert FILE to trust its CA, --insecure to skip the check\)$'
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" '^kvtest shortener load: 2 of 2 requests failed \(first: POST https://.*certificate verify failed'
    run --separate-stderr "$KVTEST" shortener load "$U" --tasks 2 --gets 1 --connections 2 \
        --workers 1 --insecure --json
    assert_success
    assert_equal "$(jqo .result.requests_failed)" 0
    assert_equal "$(jqo .result.tls.handshakes)" 2
}

@test "a certificate for another name, and a server that speaks no TLS: tls failures that say so" {
    start_tls "$C/nameonly.pem"
    run --separate-stderr "$KVTEST" shortener load "$U" --tasks 1 --gets 1 --connections 1 \
        --cacert "$C/ca.pem" --json
    assert_failure 1
    assert_equal "$(jqo .result.failures.tls)" 1
    assert_regex "$(jqo '.result.errors[0]')" 'tls: certificate verify failed: IP address mismatch'
    # the same certificate, asked for by the name it has
    run --separate-stderr "$KVTEST" shortener load "https://localhost:$SERVICE_PORT" --tasks 1 \
        --gets 1 --connections 1 --cacert "$C/ca.pem" --json
    assert_success
    stop_service
    start_service "$DB" --threads 2
    run --separate-stderr "$KVTEST" shortener load "https://127.0.0.1:$SERVICE_PORT" --tasks 1 \
        --gets 1 --connections 1 --cacert "$C/ca.pem" --json
    assert_failure 1
    assert_equal "$(jqo .result.failures.tls)" 1
    assert_regex "$(jqo '.result.errors[0]')" 'tls: handshake: '
}

@test "a server that hangs up mid-handshake: each request a tls failure that says so, exit 1, no hang" {
    start_slow --delay 0 --hangup
    run --separate-stderr timeout 60 "$KVTEST" shortener load "https://127.0.0.1:$SLOW_PORT" \
        --scenario get --path /x --connections 2 --tasks 4 --cacert "$C/ca.pem" --json
    assert_failure 1
    assert_equal "$(jqo .result.requests_failed)" 4
    assert_equal "$(jqo .result.failures.tls)" 4
    assert_equal "$(jqo .result.tls.handshakes)" 0
    assert_regex "$(jqo '.result.errors[0]')" '^GET https://127\.0\.0\.1:[0-9]+/x: tls: handshake: (the server closed the connection|Connection reset by peer)$'
}

@test "--cacert and --insecure: only with https, not together; a CA file that is missing or no PEM: one line, exit 1, no request" {
    run --separate-stderr "$KVTEST" shortener load http://127.0.0.1:1 --cacert "$C/ca.pem"
    assert_failure 2
    assert_equal "$stderr" "kvtest shortener load: --cacert applies only to an https:// URL"
    run --separate-stderr "$KVTEST" shortener load http://127.0.0.1:1 --insecure
    assert_failure 2
    assert_equal "$stderr" "kvtest shortener load: --insecure applies only to an https:// URL"
    run --separate-stderr "$KVTEST" shortener load https://127.0.0.1:1 --insecure --cacert "$C/ca.pem"
    assert_failure 2
    assert_equal "$stderr" "kvtest shortener load: --cacert and --insecure: give one (--insecure checks no certificate)"
    # port 1: a request sent would fail as connect, not end here
    run --separate-stderr "$KVTEST" shortener load https://127.0.0.1:1 --cacert "$C/nope.pem"
    assert_failure 1
    assert_equal "$output" ""
    assert_equal "$stderr" "kvtest shortener load: --cacert $C/nope.pem: No such file or directory"
    run --separate-stderr "$KVTEST" shortener load https://127.0.0.1:1 --cacert "$C/garbage.pem"
    assert_failure 1
    assert_equal "$output" ""
    assert_regex "$stderr" "^kvtest shortener load: --cacert $C/garbage.pem: not a PEM file of certificates \(.+\)$"
    run --separate-stderr "$KVTEST" shortener load ftp://127.0.0.1:1
    assert_failure 2
    assert_equal "$stderr" "kvtest shortener load: URL must start with http:// or https://, got 'ftp://127.0.0.1:1'"
}

@test "load-merge adds https runs: handshakes and their histogram summed" {
    start_tls
    "$KVTEST" shortener load "$U" --duration 2 --connections 2 --workers 1 --keys "$D/keys" \
        --cacert "$C/ca.pem" --json >"$D/a.json" 2>"$D/a.err" &
    local a=$!
    "$KVTEST" shortener load "$U" --duration 2 --connections 3 --workers 1 --keys "$D/keys" \
        --cacert "$C/ca.pem" --json >"$D/b.json" 2>"$D/b.err" &
    local b=$!
    wait "$a"
    wait "$b"
    run --separate-stderr "$KVTEST" shortener load-merge "$D/a.json" "$D/b.json" --json
    assert_success
    assert_equal "$(jqo .result.tls.handshakes)" 5
    assert_equal "$(jqo .result.tls.handshake.count)" 5
    run --separate-stderr "$KVTEST" shortener load-merge "$D/a.json" "$D/b.json"
    assert_success
    assert_line --regexp '^TLS handshakes: 5 \(0 resumed a session\)'
}

@test "every mode over https: --pipeline (requests gathered into one TLS write), --walk with --timeline, --slo" {
    start_tls
    # pipelined, GETs of the links the run made (each answer checked against
    # the link its request asked for); the service answered exactly the
    # requests the run counted
    run --separate-stderr "$KVTEST" shortener load "$U" --pipeline 8 --connections 3 \
        --workers 1 --duration 1 --cacert "$C/ca.pem" --json
    assert_success
    assert_equal "$(jqo .result.requests_failed)" 0
    assert_equal "$(jqo .result.tls.handshakes)" 3
    local gets
    gets=$(jqo .result.by_type.get.requests)
    assert_equal "$(jqo "$gets > 100")" true
    # a walk: every key twice, each minute of it on the timeline
    run --separate-stderr "$KVTEST" shortener load "$U" --walk 2 --keys "$D/keys" \
        --connections 4 --timeline "$D/tl.csv" --cacert "$C/ca.pem" --json
    assert_success
    assert_equal "$(jqo .result.requests)" 100
    assert_equal "$(jqo .result.requests_failed)" 0
    run awk -F, 'NR > 1 { n += $2 } END { print n }' "$D/tl.csv"
    assert_output 100
    stop_service
    run grep -E '^  GET /link/<id> ' "$SERVICE_OUT"
    assert_output "  GET /link/<id>   200: $((gets + 100))"
    # a capacity search: two passing steps up to --rate-max, of 200 and
    # 400 requests (a step's last slot on a connection still waiting for
    # an answer at its end is not sent: at 40 requests a step that one
    # slot read as the generator falling short on a loaded machine)
    start_tls
    run --separate-stderr "$KVTEST" shortener load "$U" --scenario get --path /heart-beat \
        --slo p50=1s --rate-start 50 --rate-max 100 --step-time 4s --connections 2 \
        --cacert "$C/ca.pem" --json
    assert_success
    assert_equal "$(jqo .result.capacity.outcome)" at_rate_max
    assert_equal "$(jqo .result.capacity.steps)" 2
}

@test "--reconnect: every request on a new connection, resumed after each one's first; --no-resume: every handshake full; the service counted every request" {
    start_tls
    run --separate-stderr "$KVTEST" shortener load "$U" --scenario get --path /heart-beat \
        --tasks 8 --connections 2 --workers 1 --reconnect --cacert "$C/ca.pem" --json
    assert_success
    assert_equal "$(jqo .result.requests)" 8
    assert_equal "$(jqo .result.requests_failed)" 0
    assert_equal "$(jqo .result.tls.handshakes)" 8
    # each connection's first handshake is full, each later one offers the
    # session the one before got
    assert_equal "$(jqo .result.tls.resumed)" 6
    assert_equal "$(jqo .options.reconnect)" true
    assert_equal "$(jqo .options.no_resume)" null
    run --separate-stderr "$KVTEST" shortener load "$U" --scenario get --path /heart-beat \
        --tasks 8 --connections 2 --workers 1 --reconnect --no-resume --cacert "$C/ca.pem" --json
    assert_success
    assert_equal "$(jqo .result.tls.handshakes)" 8
    assert_equal "$(jqo .result.tls.resumed)" 0
    assert_equal "$(jqo .options.no_resume)" true
    # without --reconnect, --no-resume changes nothing on kept-alive connections
    run --separate-stderr "$KVTEST" shortener load "$U" --scenario get --path /heart-beat \
        --tasks 8 --connections 2 --workers 1 --no-resume --cacert "$C/ca.pem" --json
    assert_success
    assert_equal "$(jqo .result.tls.handshakes)" 2
    assert_equal "$(jqo .options.reconnect)" null
    stop_service
    run grep -E '^  GET /heart-beat ' "$SERVICE_OUT"
    assert_output --regexp ' 200: 24$'
}

@test "--reconnect times each request from its connect: a server whose handshakes take 2 s makes every request over 1 s" {
    start_slow --delay 2
    run --separate-stderr "$KVTEST" shortener load "https://127.0.0.1:$SLOW_PORT" \
        --scenario get --path /x --connections 2 --tasks 2 --workers 1 --reconnect \
        --cacert "$C/ca.pem" --json
    assert_success
    assert_equal "$(jqo .result.tls.handshakes)" 2
    assert_equal "$(jqo '.result.by_type.all.latency.min >= 1000000')" true
}

@test "--reconnect with --pipeline or --http2, --no-resume over http: one line, exit 2" {
    run --separate-stderr "$KVTEST" shortener load https://127.0.0.1:1 --reconnect --pipeline 2
    assert_failure 2
    assert_equal "$stderr" "kvtest shortener load: --reconnect sends one request a connection: not with --pipeline"
    run --separate-stderr "$KVTEST" shortener load https://127.0.0.1:1 --reconnect --http2
    assert_failure 2
    assert_equal "$stderr" "kvtest shortener load: --reconnect sends one request a connection: not with --http2"
    run --separate-stderr "$KVTEST" shortener load http://127.0.0.1:1 --no-resume
    assert_failure 2
    assert_equal "$stderr" "kvtest shortener load: --no-resume applies only to an https:// URL"
}

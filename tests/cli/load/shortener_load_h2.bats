#!/usr/bin/env bats
# "shortener load --http2": the load engine over HTTP/2 through libnghttp2,
# h2 chosen by ALPN against kvtest's own HTTPS service (serve --tls-cert,
# h2o's HTTP/2), and h2c with prior knowledge against tests/lib/h2_server.py
# (Debian's python3-h2), which answers out of order, resets streams, sends
# GOAWAY or a broken frame on purpose. Every answer is checked and handed
# to the checks in the order the requests were made; each misbehaviour is
# its own failure kind; nothing hangs.

# status, output, lines and stderr_lines are set by bats' run (SC2154).
# shellcheck disable=SC2154

load '../../lib/common'
load '../../lib/tls'

H2PY=/usr/bin/python3   # Debian's, with python3-h2 (a pyenv python may lack it)

setup_file() {
    make_test_certs "$BATS_FILE_TMPDIR/certs"
}

setup() {
    tls_setup 50
    "$KVTEST" shortener keys "$DB" >"$D/keys"
}

teardown() {
    [ -z "${H2_PID:-}" ] || { kill "$H2_PID" 2>/dev/null; wait "$H2_PID" 2>/dev/null; }
    shortener_teardown
}

jqo() { jq -r "$1" <<<"$output"; }

# start_h2 [ARGS]: tests/lib/h2_server.py on H2_PORT, ready; H2_URL.
start_h2() {
    "$H2PY" -c 'import h2' 2>/dev/null || skip "no python3-h2 (sudo bash scripts/deps.sh)"
    H2_PORT=$(free_port)
    "$H2PY" "$BATS_TEST_DIRNAME/../../lib/h2_server.py" "$H2_PORT" --seconds 60 "$@" \
        >"$D/h2.out" 2>&1 &
    H2_PID=$!
    local _
    for _ in $(seq 1 200); do grep -q ready "$D/h2.out" && break; sleep 0.1; done
    H2_URL=http://127.0.0.1:$H2_PORT
}

# get20: 20 GETs of /x on one connection, 4 streams at once, --json.
get20() {
    run --separate-stderr timeout 60 "$KVTEST" shortener load "$H2_URL" --http2 --streams 4 \
        --connections 1 --scenario get --path /x --tasks 20 --json
}

@test "load --http2 https://: h2 by ALPN against serve --tls-cert, 8 streams a connection, every answer checked; the service counted every request" {
    start_service "$DB" --threads 2 --tls-cert "$C/server.pem" --tls-key "$C/server.key"
    run --separate-stderr "$KVTEST" shortener load "https://127.0.0.1:$SERVICE_PORT" --http2 \
        --streams 8 --tasks 12 --gets 9 --connections 2 --workers 1 --cacert "$C/ca.pem" --json
    assert_success
    assert_equal "$(jqo .result.requests)" 120
    assert_equal "$(jqo .result.requests_failed)" 0
    assert_equal "$(jqo .options.http2)" true
    assert_equal "$(jqo .options.streams)" 8
    assert_equal "$(jqo .options.pipeline)" null
    assert_equal "$(jqo .result.tls.handshakes)" 2
    stop_service
    run grep -E '^  (GET /link/<id>|POST /link) ' "$SERVICE_OUT"
    assert_output "$(printf '  POST /link       201: 12\n  GET /link/<id>   200: 108')"
}

@test "load --http2: requests of the same length but other bytes each go as themselves (two paths in turn), the same bytes again as they were" {
    start_service "$DB" --threads 2 --tls-cert "$C/server.pem" --tls-key "$C/server.key"
    # /heart-beat and /nosuchpage: 11 bytes each, a 200 and a 404
    run --separate-stderr "$KVTEST" shortener load "https://127.0.0.1:$SERVICE_PORT" --http2 \
        --streams 4 --connections 1 --scenario get --path /heart-beat --path /nosuchpage \
        --tasks 16 --cacert "$C/ca.pem" --allow-failures --json
    assert_success
    assert_equal "$(jqo .result.requests)" 16
    assert_equal "$(jqo .result.failures.http_status)" 8
    stop_service
    run grep -E '^  GET /heart-beat ' "$SERVICE_OUT"
    assert_output --regexp ' 200: 8$'
    run grep -cE ' 404: 8$' "$SERVICE_OUT"
    assert_output 1
}

@test "load --http2 http://: h2c with prior knowledge; answers out of order (newest first) still go to their own requests" {
    start_h2 --reverse 4
    # twelve links made first, four POSTs at a time (three full batches for
    # the server to reverse); it numbers them as it answers
    run --separate-stderr "$KVTEST" shortener load "$H2_URL" --http2 --streams 4 --tasks 12 \
        --gets 0 --connections 1 --workers 1 --json
    assert_success
    assert_equal "$(jqo .result.requests_failed)" 0
    seq 0 11 | awk '{ printf "h2id%06d\n", $1 }' >"$D/h2keys"
    # then POSTs and GETs mixed, four in flight, answered in reverse: a 201
    # handed to a GET, or a 200 to a POST, would fail its check
    run --separate-stderr "$KVTEST" shortener load "$H2_URL" --http2 --streams 4 \
        --connections 1 --workers 1 --duration 1 --keys "$D/h2keys" --create-ratio 0.5 --json
    assert_success
    assert_equal "$(jqo .result.requests_failed)" 0
    assert_equal "$(jqo '.result.by_type.post.requests > 10 and .result.by_type.get.requests > 10')" true
    assert_equal "$(jqo '.result.by_status["2xx"].requests')" "$(jqo .result.requests)"
}

@test "a stream the server resets: h2_reset, the connection goes on" {
    start_h2 --reset-every 5
    get20
    assert_failure 1
    assert_equal "$(jqo .result.failures.h2_reset)" 4
    assert_equal "$(jqo .result.successful)" 16
    assert_equal "$(jqo '.result.errors[0]')" "GET $H2_URL/x: h2_reset: stream reset by the server: INTERNAL_ERROR"
}

@test "GOAWAY: the streams above its last are h2_refused, the rest answered, new connections carry on" {
    start_h2 --goaway-after 6
    get20
    assert_failure 1
    local refused
    refused=$(jqo .result.failures.h2_refused)
    assert_equal "$(jqo "$refused > 0 and $refused + .result.successful == 20")" true
    assert_equal "$(jqo '.result.requests_failed')" "$refused"
    assert_regex "$(jqo '.result.errors[0]')" 'h2_refused: stream refused by the server \(not processed\)$'
}

@test "a broken frame: h2_protocol with nghttp2's reason, no hang; a server without h2 in ALPN: h2_protocol that says so" {
    start_h2 --broken-after 3
    get20
    assert_failure 1
    assert_equal "$(jqo '.result.failures.h2_protocol > 0')" true
    assert_equal "$(jqo '.result.requests')" 20
    assert_regex "$(jqo '.result.errors[0]')" 'h2_protocol: the server broke HTTP/2: PROTOCOL_ERROR \(.*stream_id == 0\)$'
    # an HTTPS server that offers no h2 (Python's ssl, no ALPN)
    local port
    port=$(free_port)
    python3 "$BATS_TEST_DIRNAME/../../lib/slow_tls_server.py" "$port" "$C/server.pem" \
        "$C/server.key" --delay 0 --seconds 30 >"$D/slow.out" 2>&1 &
    local sp=$! _
    for _ in $(seq 1 100); do grep -q ready "$D/slow.out" && break; sleep 0.1; done
    run --separate-stderr "$KVTEST" shortener load "https://127.0.0.1:$port" --http2 \
        --scenario get --path /x --tasks 2 --connections 1 --cacert "$C/ca.pem" --json
    kill "$sp"
    wait "$sp" 2>/dev/null || true
    assert_failure 1
    assert_equal "$(jqo .result.failures.h2_protocol)" 2
    assert_regex "$(jqo '.result.errors[0]')" 'h2_protocol: ALPN: the server did not choose h2 \(it may speak HTTP/1\.1 only\)$'
}

@test "load --http2 text: the HTTP/2 failure kinds on the failures line; --streams and --pipeline misuse: exit 2, one line" {
    start_h2
    run --separate-stderr "$KVTEST" shortener load "$H2_URL" --http2 --tasks 2 --gets 1 \
        --connections 1
    assert_success
    assert_line 'Failures by kind: connect 0 timeout 0 io 0 http_status 0 bad_body 0 h2_refused 0 h2_reset 0 h2_protocol 0'
    run --separate-stderr "$KVTEST" shortener load "$H2_URL" --streams 4
    assert_failure 2
    assert_equal "$stderr" "kvtest shortener load: --streams needs --http2"
    run --separate-stderr "$KVTEST" shortener load "$H2_URL" --http2 --pipeline 4
    assert_failure 2
    assert_equal "$stderr" "kvtest shortener load: --pipeline is HTTP/1.1's: with --http2 give --streams N"
}

@test "every mode over --http2: --rate (corrected and uncorrected), --walk with --timeline, --slo, load-merge" {
    start_service "$DB" --threads 2 --tls-cert "$C/server.pem" --tls-key "$C/server.key"
    local u="https://127.0.0.1:$SERVICE_PORT" h2=(--http2 --streams 4 --cacert "$C/ca.pem")
    run --separate-stderr "$KVTEST" shortener load "$u" "${h2[@]}" --rate 200 --duration 1 \
        --keys "$D/keys" --connections 2 --json
    assert_success
    assert_equal "$(jqo .result.requests_failed)" 0
    assert_equal "$(jqo .result.latency_from)" schedule
    assert_equal "$(jqo .result.latency_uncorrected.latency.count)" "$(jqo .result.requests)"
    run --separate-stderr "$KVTEST" shortener load "$u" "${h2[@]}" --walk 2 --keys "$D/keys" \
        --connections 2 --timeline "$D/tl.csv" --json
    assert_success
    assert_equal "$(jqo .result.requests)" 100
    run awk -F, 'NR > 1 { n += $2 } END { print n }' "$D/tl.csv"
    assert_output 100
    # steps of 200 and 400 requests: a step's last slot on a connection
    # still waiting for an answer at its end is not sent, and at 40
    # requests a step (20/s) that one slot read as the generator falling
    # short on a loaded machine (achieved 19.5/s of 20)
    run --separate-stderr "$KVTEST" shortener load "$u" "${h2[@]}" --scenario get \
        --path /heart-beat --slo p50=1s --rate-start 50 --rate-max 100 --step-time 4s \
        --connections 2 --json
    assert_success
    assert_equal "$(jqo .result.capacity.outcome)" at_rate_max
    "$KVTEST" shortener load "$u" "${h2[@]}" --duration 2 --connections 2 --workers 1 \
        --keys "$D/keys" --json >"$D/a.json" 2>"$D/a.err" &
    local a=$!
    "$KVTEST" shortener load "$u" "${h2[@]}" --duration 2 --connections 1 --workers 1 \
        --keys "$D/keys" --json >"$D/b.json" 2>"$D/b.err"
    wait "$a"
    run --separate-stderr "$KVTEST" shortener load-merge "$D/a.json" "$D/b.json"
    assert_success
    assert_line --regexp '^Failures by kind: .* h2_refused 0 h2_reset 0 h2_protocol 0$'
    assert_line --regexp '^TLS handshakes: 3 '
}

#!/usr/bin/env bats
# "shortener serve --tls-cert/--tls-key": HTTPS through h2o and OpenSSL,
# ALPN choosing HTTP/2 or HTTP/1.1, driven by curl (a real TLS and HTTP/2
# client) that verifies the certificate against a CA made at test time with
# the openssl command. The API and counters as over plain HTTP, one
# process and --processes 2, the orderly stop with an HTTP/2 connection
# open, and every bad certificate or key refused in one line before
# anything listens.

# status, output, lines and stderr_lines are set by bats' run (SC2154).
# shellcheck disable=SC2154

load '../../lib/common'
load '../../lib/tls'

setup_file() {
    make_test_certs "$BATS_FILE_TMPDIR/certs"
}

setup() {
    tls_setup 20
    ID=$("$KVTEST" shortener keys "$DB" | head -n1)
}

teardown() {
    shortener_teardown
}

start_tls() {   # start_tls [ARGS]: the service over TLS; URL in $U
    start_service "$DB" --threads 2 --tls-cert "$C/server.pem" --tls-key "$C/server.key" "$@"
    U="https://127.0.0.1:$SERVICE_PORT"
}

# tls_curl ARGS: curl verifying the server against the test CA.
tls_curl() {
    curl -sS --max-time 20 --cacert "$C/ca.pem" "$@"
}

# refused CERT KEY PATTERN: serve exits 1 with one line on stderr matching
# "kvtest shortener serve: PATTERN" and nothing on stdout. It is pointed at
# the port of a plain service this test holds open ($SERVICE_PORT), so had it
# bound or listened before reading the files, its one line would be the
# "address in use" refusal instead. (Counting the port in /proc/net/tcp
# afterwards was not deterministic: a suite running beside this one may be
# given the same free port.)
refused() {
    run --separate-stderr "$KVTEST" shortener serve "$DB" --port "$SERVICE_PORT" --tls-cert "$1" --tls-key "$2"
    assert_failure 1
    assert_equal "$output" ""
    assert_equal "${#stderr_lines[@]}" 1
    # shellcheck disable=SC2053  # the pattern is a glob on purpose
    [[ "$stderr" == "kvtest shortener serve: "$3 ]] || fail "message: $stderr"
}

@test "serve --tls-cert: HTTPS, HTTP/2 to a client that asks (ALPN h2), HTTP/1.1 to one that does not; the API and counters as over HTTP" {
    start_tls
    run grep -c "listening on https://127.0.0.1:$SERVICE_PORT/ (threads 2, .*, tls h2 http/1.1)" "$SERVICE_ERR"
    assert_output 1
    run tls_curl --http2 -w ' %{http_version} %{http_code}' "$U/link/$ID"
    assert_success
    assert_output --regexp '^\{"link":"https?://[^"]+"\} 2 200$'
    local want=$output
    run tls_curl --http1.1 -w ' %{http_version} %{http_code}' "$U/link/$ID"
    assert_output "${want% 2 200} 1.1 200"
    # localhost, the certificate's other name, and a create read back over h2
    run tls_curl --http2 -X POST -d '{"url":"https://example.org/tls"}' "https://localhost:$SERVICE_PORT/link"
    assert_output --regexp '^\{"short_link":"[A-Za-z0-9]+"\}$'
    local id
    id=$(jq -r .short_link <<<"$output")
    run tls_curl --http2 -w ' %{http_version}' "$U/link/$id"
    assert_output '{"link":"https://example.org/tls"} 2'
    run tls_curl --http2 -w ' %{http_code}' "$U/link/nosuchlink1"
    assert_output '{"error":"no such link"} 404'
    # TLS only: plain HTTP on the port gets no answer
    run --separate-stderr curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SERVICE_PORT/heart-beat"
    assert_output 000
    stop_service
    assert_equal "$SERVICE_STATUS" 0
    run grep -E '^  (GET /link/<id>|POST /link) ' "$SERVICE_OUT"
    assert_output "$(printf '  POST /link       201: 1\n  GET /link/<id>   200: 3 404: 1')"
}

@test "HTTP/2: many requests are streams of one connection, each answered in full" {
    start_tls
    local args=() _
    for _ in $(seq 1 30); do args+=(-o /dev/null "$U/link/$ID"); done
    # curl sends them as streams of one HTTP/2 connection, several at once
    run --separate-stderr tls_curl --http2 --parallel --parallel-max 10 \
        -w '%{http_version} %{num_connects}\n' "${args[@]}"
    assert_success
    run sort <<<"$output"
    # 30 answers over HTTP/2; one transfer made the connection, 29 reused it
    assert_equal "$(uniq -c <<<"$output" | awk '{ print $1, $2, $3 }' | tr '\n' '|')" "29 2 0|1 2 1|"
    stop_service
    run grep -E '^  GET /link/<id> ' "$SERVICE_OUT"
    assert_output '  GET /link/<id>   200: 30'
}

@test "--processes 2 over TLS: every process serves h2, the counters are the sum" {
    start_tls --processes 2
    local _
    for _ in $(seq 1 12); do
        tls_curl --http2 -o /dev/null -w '%{http_version}\n' "$U/link/$ID"
    done >"$D/versions"
    run sort -u "$D/versions"
    assert_output 2
    run wc -l <"$D/versions"
    assert_output 12
    stop_service
    assert_equal "$SERVICE_STATUS" 0
    run grep -E '^  GET /link/<id> ' "$SERVICE_OUT"
    assert_output '  GET /link/<id>   200: 12'
}

@test "stop with an HTTP/2 connection open and idle: it is closed, exit 0 with the counters" {
    start_tls
    # an h2 connection that stays open: openssl s_client with ALPN h2, its
    # stdin a FIFO this shell holds open
    mkfifo "$D/in"
    exec 7<>"$D/in"
    openssl s_client -connect "127.0.0.1:$SERVICE_PORT" -alpn h2 -CAfile "$C/ca.pem" \
        -verify_return_error <"$D/in" >"$D/sc.out" 2>&1 &
    local sc=$! _
    for _ in $(seq 1 300); do
        grep -q '^ALPN protocol: h2' "$D/sc.out" && break
        sleep 0.1
    done
    run grep -c '^ALPN protocol: h2' "$D/sc.out"
    assert_output 1
    run tls_curl --http2 -o /dev/null -w '%{http_code}' "$U/heart-beat"
    assert_output 200
    stop_service
    assert_equal "$SERVICE_STATUS" 0
    run grep -c '^  GET /heart-beat  200: 1$' "$SERVICE_OUT"
    assert_output 1
    # the server closed the idle connection: s_client ends by itself
    run wait_gone "$sc" 10
    exec 7>&-
    assert_success
}

@test "a missing, non-PEM, encrypted or mismatched certificate or key: one line, exit 1, nothing listens" {
    start_service "$DB" --threads 1
    # the witness: the same files but good ones meet the port in use
    run --separate-stderr "$KVTEST" shortener serve "$DB" --port "$SERVICE_PORT" --tls-cert "$C/server.pem" --tls-key "$C/server.key"
    assert_failure
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" '[Aa]ddress (already )?in use'
    refused "$C/nope.pem" "$C/server.key" "--tls-cert $C/nope.pem: No such file or directory"
    refused "$C/server.pem" "$C/nope.key" "--tls-key $C/nope.key: No such file or directory"
    refused "$C/garbage.pem" "$C/server.key" "--tls-cert $C/garbage.pem: not a PEM certificate (*)"
    refused "$C/server.pem" "$C/garbage.pem" "--tls-key $C/garbage.pem: not an unencrypted PEM private key (*)"
    refused "$C/server.pem" "$C/encrypted.key" "--tls-key $C/encrypted.key: not an unencrypted PEM private key (*)"
    refused "$C/server.pem" "$C/other.key" "--tls-key $C/other.key is not the key of the certificate in $C/server.pem"
}

@test "--tls-cert without --tls-key, or the reverse: exit 2, one line" {
    run --separate-stderr "$KVTEST" shortener serve "$DB" --port 0 --tls-cert "$C/server.pem"
    assert_failure 2
    assert_equal "$stderr" "kvtest shortener serve: --tls-cert needs --tls-key too"
    run --separate-stderr "$KVTEST" shortener serve "$DB" --port 0 --tls-key "$C/server.key"
    assert_failure 2
    assert_equal "$stderr" "kvtest shortener serve: --tls-key needs --tls-cert too"
}

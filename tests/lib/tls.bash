# shellcheck shell=bash
# Certificates for the TLS suites, made at test time with the openssl
# command: make_test_certs DIR writes into DIR
#   ca.pem, ca.key          a CA
#   server.pem, server.key  a server certificate it signed for 127.0.0.1
#                           and localhost, and its key
#   nameonly.pem            the same key, certified for localhost alone
#                           (so https://127.0.0.1 does not match it)
#   other.key               another key; encrypted.key: server.key
#                           encrypted; garbage.pem: text that is no PEM
# 0, or 1 with openssl's output on stderr.
make_test_certs() {
    local c=$1
    mkdir -p "$c"
    (
        cd "$c" || exit 1
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
            -keyout ca.key -out ca.pem -days 2 -subj /CN=kvtest-test-ca
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
            -keyout server.key -out server.csr -subj /CN=localhost
        printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
            -days 2 -extfile ext -out server.pem
        printf 'subjectAltName=DNS:localhost\n' >ext-name
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
            -days 2 -extfile ext-name -out nameonly.pem
        openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out other.key
        openssl pkey -in server.key -aes256 -passout pass:secret -out encrypted.key
        echo "not a certificate" >garbage.pem
    ) >"$c/openssl.log" 2>&1 || {
        cat "$c/openssl.log" >&2
        return 1
    }
}

# tls_setup LINKS: a TLS suite's setup: shortener_setup, C the certificates
# of make_test_certs "$BATS_FILE_TMPDIR/certs" (setup_file), and $DB made
# with LINKS links.
tls_setup() {
    shortener_setup
    C=$BATS_FILE_TMPDIR/certs   # read by the suite (SC2034)
    export C
    "$KVTEST" shortener init "$DB" --links "$1" --seed 4 >/dev/null
}

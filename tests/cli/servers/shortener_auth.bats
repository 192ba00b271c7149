#!/usr/bin/env bats
# Valkey with credentials: a real valkey-server with requirepass and two ACL
# users, the real service and bench on free loopback ports. The password
# holds a blank, '@' and '/', so it travels percent-encoded (RFC 3986), and
# no output, message, JSON or /stats may show it in either form.
# In servers/, so make test-servers runs it: a password-protected
# valkey-server with ACL users.

load '../../lib/common'
load '../../lib/cluster'

PW='se cr@t/pw'             # the default user's (requirepass)
PW_URL='se%20cr%40t%2Fpw'   # the same in a URL
APP_URL='a%40pp'            # ACL user app's, "a@pp"

setup() {
    shortener_setup
    D=$BATS_TEST_TMPDIR
    "$KVTEST" shortener init "$DB" --links 20 --seed 3 >/dev/null
    ID=$("$KVTEST" shortener keys "$DB" | head -n 1)
    export REDISCLI_AUTH=$PW
    VALKEY_ARGS=(--requirepass "$PW")
    start_valkey
    H=127.0.0.1:$VALKEY_PORT
    # app: exactly what the service sends, cache-aside and tracking alike;
    # getonly: no SET, no tracking
    valkey-cli -p "$VALKEY_PORT" ACL SETUSER app on '>a@pp' '~kvtest:link:*' \
        '&__redis__:invalidate' +ping +get +set +pttl '+client|id' '+client|tracking' \
        +subscribe >/dev/null
    valkey-cli -p "$VALKEY_PORT" ACL SETUSER getonly on '>g' '~kvtest:link:*' +ping +get >/dev/null
}

teardown() {
    stop_cluster
    shortener_teardown
}

# no_secret FILE...: no password, raw or encoded, in any of them.
no_secret() {
    run grep -l -F -e 'cr@t' -e 'cr%40t' -e 'a@pp' -e 'a%40pp' "$@"
    assert_failure 1
}

# get_twice: GET /link/ID twice, each 200; the second is a cache hit.
get_twice() {
    local i code
    for i in 1 2; do
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$SERVICE_URL/link/$ID")
        [ "$code" = 200 ] || { echo "GET /link/$ID ($i): $code" >&2; return 1; }
    done
}

@test "auth: bench with the default user's password gets hits; wrong or none is one line, exit 1; none shows it" {
    run "$KVTEST" shortener bench "$DB" --configs valkey --cache "valkey://:$PW_URL@$H" --cache-timeout 2000 \
        --lookups 200 --json
    assert_success
    printf '%s\n' "$output" >"$D/ok.txt"
    run jq -e 'select(.result) | .result.configs[0].cache | .hits > 0 and .errors == 0' "$D/ok.txt"
    assert_success
    run jq -r 'select(.result) | .options.cache' "$D/ok.txt"
    assert_output "valkey://:***@$H"
    run "$KVTEST" shortener bench "$DB" --configs valkey --cache "valkey://:wrong$PW_URL@$H" --lookups 10
    assert_failure 1
    assert_output "kvtest shortener bench: Valkey at valkey://:***@$H: $H: AUTH failed: WRONGPASS invalid username-password pair or user is disabled."
    printf '%s\n' "$output" >"$D/wrong.txt"
    run "$KVTEST" shortener bench "$DB" --configs valkey --cache "valkey://$H" --lookups 10
    assert_failure 1
    assert_output --partial 'NOAUTH'
    no_secret "$D/ok.txt" "$D/wrong.txt"
}

@test "auth: serve with the password and with an ACL user (cache-aside and tracking) uses its cache; no line or /stats shows it" {
    local c url shown
    for c in "valkey://:$PW_URL@$H|valkey://:***@$H" "valkey://app:$APP_URL@$H|valkey://app:***@$H" \
        "valkey+track://app:$APP_URL@$H|valkey+track://app:***@$H"; do
        url=${c%%|*} shown=${c#*|}
        # each service fills its cache itself: a SET the user may send
        valkey-cli -p "$VALKEY_PORT" FLUSHALL >/dev/null
        start_service "$DB" --cache "$url" --cache-timeout 2000
        get_twice
        curl -fsS --max-time 10 "$SERVICE_URL/stats" >"$D/stats.json"
        run jq -e '.cache.errors == 0 and (.cache.hits + .cache.local_hits) >= 1 and .cache.sets >= 1' "$D/stats.json"
        assert_success
        stop_service
        [ "$SERVICE_STATUS" -eq 0 ]
        # the start line names the cache, masked
        run grep -c -F "cache $shown, " "$SERVICE_ERR"
        assert_output 1
        no_secret "$D/stats.json" "$SERVICE_ERR" "$SERVICE_OUT"
    done
}

@test "auth: a refusal at start is one line and exit 1, never a service without its cache" {
    local cases=(
        "valkey://:wrong@$H|AUTH failed: WRONGPASS"
        "valkey://$H|PING failed: NOAUTH"
        "valkey://getonly:g@$H|SET refused: NOPERM"
        "valkey+track://getonly:g@$H|NOPERM User getonly has no permissions to run the 'client|id' command"
    )
    local c url want
    for c in "${cases[@]}"; do
        url=${c%%|*} want=${c#*|}
        for procs in 1 2; do
            run timeout 30 "$KVTEST" shortener serve "$DB" --port 0 --processes "$procs" --cache "$url"
            assert_failure 1
            [ "${#lines[@]}" -eq 1 ]
            assert_output --partial "$want"
            assert_output --partial "kvtest shortener serve: cache "
        done
    done
}

@test "auth: credentials that cannot be right are a usage error, the URL masked" {
    local cases=(
        "valkey://app@$H|credentials are USER:PASSWORD@ (or :PASSWORD@ for the default user)"
        "valkey://app:@$H|empty password"
        "valkey://:cr%40t%00x@$H|the password holds a NUL byte"
    )
    local c url want
    for c in "${cases[@]}"; do
        url=${c%%|*} want=${c#*|}
        run "$KVTEST" shortener bench "$DB" --configs valkey --cache "$url" --lookups 10
        assert_failure 2
        [ "${#lines[@]}" -eq 1 ]
        assert_output --partial "$want"
        printf '%s\n' "$output" >"$D/usage.txt"
        no_secret "$D/usage.txt"
    done
}

@test "auth: a cluster with a password: every node is asked with it, a wrong one is one line, exit 1" {
    # three primaries, no replicas: the password reaches each node the
    # slot map names, not only the seed
    CLUSTER_ARGS=(--requirepass "$PW" --masterauth "$PW")
    start_cluster "$D/cluster" 3 0
    local url="valkey-cluster://:$PW_URL@127.0.0.1:${CLUSTER_PORTS[0]}"
    "$KVTEST" shortener init "$D/many.db" --links 300 --seed 4 >/dev/null
    # --cache-timeout 2000: a CPU-starved cluster missed the 50 ms default
    # (hits counted errors in a .ci/run beside a loaded flake series)
    run "$KVTEST" shortener bench "$D/many.db" --configs valkey --cache "$url" --lookups 600 \
        --cache-timeout 2000 --json
    assert_success
    printf '%s\n' "$output" >"$D/cluster.txt"
    run jq -e 'select(.result) | .result.configs[0].cache | .hits > 0 and .errors == 0' "$D/cluster.txt"
    assert_success
    # every primary holds some of the links the bench filled
    local p
    for p in "${CLUSTER_PORTS[@]}"; do
        run valkey-cli -p "$p" DBSIZE
        assert_success
        [ "$output" -gt 0 ]
    done
    run "$KVTEST" shortener bench "$D/many.db" --configs valkey \
        --cache "valkey-cluster://:wrong@127.0.0.1:${CLUSTER_PORTS[0]}" --lookups 10
    assert_failure 1
    [ "${#lines[@]}" -eq 1 ]
    assert_output --partial "AUTH failed: WRONGPASS"
    printf '%s\n' "$output" >>"$D/cluster.txt"
    no_secret "$D/cluster.txt"
}

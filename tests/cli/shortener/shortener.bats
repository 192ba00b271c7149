#!/usr/bin/env bats
# kvtest shortener init/keys/serve: real SQLite files, a real valkey-server
# on a free loopback port, real HTTP through curl. Servers are stopped by PID
# in teardown.
# stores: sqlite postgres
# (make test runs this suite on both stores: with KVTEST_STORE=postgres, DB
# is a fresh database on a private PostgreSQL server started for the suite;
# tests of SQLite's files say so and are skipped there, and
# shortener_pg.bats has PostgreSQL's own.)

load '../../lib/common'
load '../../lib/store_suite'

setup() {
    shortener_setup
}

# Every service still running is stopped with SIGTERM and must exit 0: under
# AddressSanitizer a leak or memory error at shutdown makes that fail.
teardown() {
    shortener_teardown
}

# req METHOD PATH [curl args...]: sets STATUS, BODY, HEADERS (file).
req() {
    local m=$1 p=$2
    shift 2
    HEADERS=$BATS_TEST_TMPDIR/headers
    STATUS=$(curl -s --max-time 20 -o "$BATS_TEST_TMPDIR/body" -D "$HEADERS" \
        -w '%{http_code}' -X "$m" "$@" "$SERVICE_URL$p")
    BODY=$(cat "$BATS_TEST_TMPDIR/body")
}

# create URL: POST it, expect 201, set ID.
create() {
    req POST /link -d "{\"url\": \"$1\"}"
    [ "$STATUS" = 201 ] || { echo "create $1: $STATUS $BODY" >&2; return 1; }
    ID=$(jq -r .short_link <<<"$BODY")
}

stat_field() {   # stat_field JQ_PATH: print a /stats field
    curl -s --max-time 10 "$SERVICE_URL/stats" | jq -r "$1"
}

# until_hits N: GET /link/$ID (each must answer 200) until /stats counts
# more than N cache hits; 60 s at most (the reconnect backoff is at most
# 1 s: the bound is for a loaded machine, not for the service).
until_hits() {
    local end=$((SECONDS + 60))
    while [ "$SECONDS" -lt "$end" ]; do
        req GET "/link/$ID"
        [ "$STATUS" = 200 ] || { echo "GET /link/$ID: $STATUS" >&2; return 1; }
        [ "$(stat_field .cache.hits)" -gt "$1" ] && return 0
        sleep 0.1
    done
    echo "no more than $1 cache hits after 60 s" >&2
    return 1
}

@test "init creates a links database and keys lists 10-character ids" {
    run bash -c 'umask 022 && "$0" shortener init "$1" --links 500 --seed 7' "$KVTEST" "$DB"
    [ "$status" -eq 0 ]
    if store_is_sqlite; then
        [ -s "$DB" ]
        [ "$(stat -c %a "$DB")" = 644 ]   # the mode a plain create gives, not mkstemp's 600
    fi
    run "$KVTEST" shortener keys "$DB"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 500 ]
    # every id is 10 of [A-Za-z0-9], all distinct
    [ "$(printf '%s\n' "${lines[@]}" | grep -cE '^[A-Za-z0-9]{10}$')" -eq 500 ]
    [ "$(printf '%s\n' "${lines[@]}" | sort -u | wc -l)" -eq 500 ]
    run "$KVTEST" shortener keys "$DB" --limit 7
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 7 ]
}

@test "init refuses an existing file without --force and replaces it with" {
    sqlite_only "a file's content and temporary names"
    echo "precious" >"$DB"
    run "$KVTEST" shortener init "$DB"
    [ "$status" -eq 1 ]
    [[ "$output" == *"--force"* ]]
    [ "$(cat "$DB")" = precious ]
    run "$KVTEST" shortener init "$DB" --links 3 --force
    [ "$status" -eq 0 ]
    run "$KVTEST" shortener keys "$DB"
    [ "${#lines[@]}" -eq 3 ]
    # no temporary files left behind
    [ "$(find "$BATS_TEST_TMPDIR" -name 'links.db.kvtest-tmp-*' | wc -l)" -eq 0 ]
}

@test "init and keys misuse: one line, exit 2" {
    sqlite_only "a missing database file"
    run "$KVTEST" shortener init
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    run "$KVTEST" shortener init "$DB" --links -5
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener init "$DB" --bogus
    [ "$status" -eq 2 ]
    run "$KVTEST" shortener keys "$BATS_TEST_TMPDIR/missing.db"
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 1 ]
    [ ! -e "$BATS_TEST_TMPDIR/missing.db" ]
}

@test "serve startup failures are one line with exit 1 or 2, never a hang" {
    sqlite_only "missing and foreign database files"
    run timeout 20 "$KVTEST" shortener serve "$BATS_TEST_TMPDIR/missing.db" --port 0
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *missing.db* ]]
    [ ! -e "$BATS_TEST_TMPDIR/missing.db" ]
    echo "not a database at all, just some text that is long enough" >"$BATS_TEST_TMPDIR/text.db"
    run timeout 20 "$KVTEST" shortener serve "$BATS_TEST_TMPDIR/text.db" --port 0
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 1 ]
    "$KVTEST" shortener init "$DB"
    run timeout 20 "$KVTEST" shortener serve "$DB" --cache redis:/nope
    [ "$status" -eq 2 ]
    [[ "$output" == *"cache"* ]]
    run timeout 20 "$KVTEST" shortener serve "$DB" --cache valkey://127.0.0.1:99999
    [ "$status" -eq 2 ]
    run timeout 20 "$KVTEST" shortener serve "$DB" --sqlite-cache maybe
    [ "$status" -eq 2 ]
    run timeout 20 "$KVTEST" shortener serve "$DB" --bind localhost.invalid
    [ "$status" -eq 2 ]
    run timeout 20 "$KVTEST" shortener serve "$DB" --threads 0
    [ "$status" -eq 2 ]
    run timeout 20 "$KVTEST" shortener serve
    [ "$status" -eq 2 ]
    # port in use
    start_service "$DB" --threads 1
    run timeout 20 "$KVTEST" shortener serve "$DB" --port "$SERVICE_PORT"
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"in use"* ]]
}

@test "libpq is opened by the first PostgreSQL connect, not at start: one that cannot be opened is one line, exit 1" {
    sqlite_only "a PostgreSQL store that never connects"
    run bash -c 'readelf -d "$1" | grep NEEDED' _ "$KVTEST"
    assert_success
    refute_output --partial libpq
    local url=postgres://u:secretpw@127.0.0.1:1/db c
    for c in "init --store $url" "keys --store $url" "bench --store $url" "serve --store $url --port 0"; do
        # shellcheck disable=SC2086  # the words of c are the arguments
        run --separate-stderr env KVTEST_LIBPQ="$D/none.so" timeout 20 "$KVTEST" shortener $c
        [ "$status" -eq 1 ] || fail "$c: status $status, wanted 1: $stderr"
        assert_equal "$stderr" "kvtest shortener ${c%% *}: the PostgreSQL store: $D/none.so: cannot open shared object file: No such file or directory"
    done
    # an SQLite store does not need it
    run env KVTEST_LIBPQ="$D/none.so" "$KVTEST" shortener init "$DB" --links 10
    assert_success
}

@test "heart-beat, create, resolve, unknown id, unknown path" {
    "$KVTEST" shortener init "$DB"
    start_service "$DB" --threads 2
    req GET /heart-beat
    [ "$STATUS" = 200 ]
    [ "$(jq -c . <<<"$BODY")" = '{"OK":true}' ]
    grep -qi '^content-type: application/json' "$HEADERS"

    create "https://example.com/some/page?x=1&y=%20z#frag"
    [[ "$ID" =~ ^[A-Za-z0-9]{10}$ ]]
    req GET "/link/$ID"
    [ "$STATUS" = 200 ]
    [ "$(jq -r .link <<<"$BODY")" = "https://example.com/some/page?x=1&y=%20z#frag" ]

    # the body is JSON whatever the Content-Type says
    req POST /link -H 'Content-Type: text/plain' --data-binary '{"url":"http://plain.example/"}'
    [ "$STATUS" = 201 ]
    # non-ASCII URLs round-trip byte for byte
    create "https://example.org/caf\u00e9/ü"
    req GET "/link/$ID"
    [ "$(jq -r .link <<<"$BODY")" = "https://example.org/café/ü" ]

    req GET /link/AAAAAAAAAA
    [ "$STATUS" = 404 ]
    [ "$(jq -r .error <<<"$BODY")" != null ]
    req GET /nowhere
    [ "$STATUS" = 404 ]
    [ "$(jq -r .error <<<"$BODY")" != null ]
    req GET /
    [ "$STATUS" = 404 ]
    # HEAD answers like GET without a body
    run curl -s -o /dev/null -w '%{http_code}' -I "$SERVICE_URL/heart-beat"
    [ "$output" = 200 ]
}

@test "400 for every invalid create body" {
    "$KVTEST" shortener init "$DB"
    start_service "$DB" --threads 2
    long2048="https://example.com/$(head -c 2028 /dev/zero | tr '\0' a)"
    [ "${#long2048}" -eq 2048 ]
    req POST /link -d "{\"url\": \"$long2048\"}"
    [ "$STATUS" = 201 ]
    for body in \
        'not json' '{"url": "https://a.example/"' '' '[]' '"https://a.example/"' \
        '{}' '{"link": "https://a.example/"}' '{"url": ""}' '{"url": 42}' \
        '{"url": null}' '{"url": ["https://a.example/"]}' '{"url": "ftp://a.example/"}' \
        '{"url": "javascript:alert(1)"}' '{"url": "https://"}' '{"url": "https:///path"}' \
        '{"url": "example.com"}' '{"url": "https://a.example/\u0001"}' \
        '{"url": "https://a.example/\u0000x"}' '{"url": "https://a.example/ x"}' \
        '{"url": "https://a.example/\n"}' "{\"url\": \"${long2048}b\"}" ; do
        req POST /link --data-binary "$body"
        [ "$STATUS" = 400 ] || { echo "body [$body] got $STATUS $BODY" >&2; return 1; }
        [ "$(jq -r .error <<<"$BODY")" != null ]
    done
}

@test "400 for a URL a shortener may not store, each with its reason; a link back to the service itself too" {
    "$KVTEST" shortener init "$DB"
    start_service "$DB" --threads 2
    local c url want self
    self=$SERVICE_URL/link/$(printf 'x%.0s' $(seq 1 10))
    for c in \
        "http://:80|url has no host" \
        "http://exa%mple.com/|url is not a valid URI (RFC 3986)" \
        "http://exa%41mple.com/|url host may hold only letters, digits, '-', '_' and '.' (an IDN as xn--...)" \
        "http://example.com:99999/|url port must be 1..65535" \
        "http://example.com/\u0085|url contains spaces or control characters" \
        "http://user:pw@example.com/|url may not carry a user or password (user:password@)" \
        "$self|url leads back to this service's /link/ (a redirect loop)" \
        "$SERVICE_URL/%6cink/abc|url leads back to this service's /link/ (a redirect loop)"; do
        url=${c%%|*} want=${c#*|}
        req POST /link --data-binary "{\"url\": \"$url\"}"
        [ "$STATUS" = 400 ] || { echo "url [$url] got $STATUS $BODY" >&2; return 1; }
        run jq -r .error <<<"$BODY"
        assert_output "$want"
    done
    # the same service's other paths, and another port, are links like any
    for url in "$SERVICE_URL/stats" "http://127.0.0.1:$((SERVICE_PORT == 65535 ? 1 : SERVICE_PORT + 1))/link/x" \
        "http://example.com/a<b>|c^"; do
        req POST /link --data-binary "{\"url\": \"$url\"}"
        [ "$STATUS" = 201 ] || { echo "url [$url] got $STATUS $BODY" >&2; return 1; }
    done
}

@test "the path is percent-decoded and cut at '?', as clients may send it" {
    "$KVTEST" shortener init "$DB"
    start_service "$DB" --threads 1
    create "https://example.com/encoded"
    # the id's first character as %XX (upper and lower case hex)
    enc=$(printf '%%%02X' "'${ID:0:1}")${ID:1}
    req GET "/link/$enc"
    [ "$STATUS" = 200 ]
    [ "$(jq -r .link <<<"$BODY")" = "https://example.com/encoded" ]
    req GET "/link/$(printf '%%%02x' "'${ID:0:1}")${ID:1}"
    [ "$STATUS" = 200 ]
    req GET "/link/$ID?utm_source=x"
    [ "$STATUS" = 200 ]
    [ "$(jq -r .link <<<"$BODY")" = "https://example.com/encoded" ]
}

@test "400 for invalid ids, 404 for valid unknown ones" {
    "$KVTEST" shortener init "$DB"
    start_service "$DB" --threads 2
    id64=$(head -c 64 /dev/zero | tr '\0' Z)
    req GET "/link/$id64"
    [ "$STATUS" = 404 ]
    for p in "/link/${id64}Z" /link/ /link/abc-def /link/abc_def /link/abc.def \
             "/link/abc%21" /link/abc/def "/link/%00" "/link/ab%20cd" "/link/%C3%A9"; do
        req GET "$p"
        [ "$STATUS" = 400 ] || { echo "$p got $STATUS" >&2; return 1; }
        [[ "$(jq -r .error <<<"$BODY")" == *"id"* ]]
    done
}

@test "405 with Allow for wrong methods" {
    "$KVTEST" shortener init "$DB"
    start_service "$DB" --threads 1
    req GET /link
    [ "$STATUS" = 405 ]
    grep -qi '^allow: POST' "$HEADERS"
    for m in PUT DELETE PATCH POST OPTIONS; do
        req "$m" /link/abc
        [ "$STATUS" = 405 ] || { echo "$m got $STATUS" >&2; return 1; }
        grep -qi '^allow: GET, HEAD' "$HEADERS"
        [ "$(jq -r .error <<<"$BODY")" != null ]
    done
    req POST /heart-beat
    [ "$STATUS" = 405 ]
    req DELETE /stats
    [ "$STATUS" = 405 ]
}

@test "413 for bodies over 64 KiB, with and without Content-Length" {
    "$KVTEST" shortener init "$DB"
    start_service "$DB" --threads 1
    head -c 65537 /dev/zero | tr '\0' ' ' >"$BATS_TEST_TMPDIR/big"
    req POST /link --data-binary "@$BATS_TEST_TMPDIR/big"
    [ "$STATUS" = 413 ]
    [ "$(jq -r .error <<<"$BODY")" != null ]
    req POST /link -H 'Transfer-Encoding: chunked' --data-binary "@$BATS_TEST_TMPDIR/big"
    [ "$STATUS" = 413 ]
    # exactly 64 KiB is allowed: a valid body padded with spaces
    { printf '{"url": "https://pad.example/"}'; head -c $((65536 - 31)) /dev/zero | tr '\0' ' '; } \
        >"$BATS_TEST_TMPDIR/edge"
    [ "$(stat -c %s "$BATS_TEST_TMPDIR/edge")" -eq 65536 ]
    req POST /link --data-binary "@$BATS_TEST_TMPDIR/edge"
    [ "$STATUS" = 201 ]
    # a 10 MB upload is refused without being read
    head -c 10000000 /dev/zero >"$BATS_TEST_TMPDIR/huge"
    req POST /link --data-binary "@$BATS_TEST_TMPDIR/huge"
    [ "$STATUS" = 413 ]
    req GET /heart-beat
    [ "$STATUS" = 200 ]
}

@test "/stats counts requests by route and status; SIGTERM prints them and exits 0" {
    "$KVTEST" shortener init "$DB"
    start_service "$DB" --threads 2
    create https://stats.example/a
    req GET "/link/$ID"
    req GET "/link/$ID"
    req GET /link/nosuchlink1
    req GET /link/bad-id
    req PUT /link
    run stat_field '.routes["GET /link/<id>"]["200"]'
    [ "$output" = 2 ]
    run stat_field '.routes["GET /link/<id>"]["404"]'
    [ "$output" = 1 ]
    run stat_field '.routes["GET /link/<id>"]["400"]'
    [ "$output" = 1 ]
    run stat_field '.routes["POST /link"]["201"]'
    [ "$output" = 1 ]
    run stat_field '.routes["POST /link"]["405"]'
    [ "$output" = 1 ]
    run stat_field '.cache.enabled'
    [ "$output" = false ]
    run stat_field '.sqlite.errors'
    [ "$output" = 0 ]
    stop_service TERM
    [ "$SERVICE_STATUS" -eq 0 ]
    grep -q '^Requests: ' "$SERVICE_OUT"
    grep -Eq '^  GET /link/<id> +200: 2 400: 1 404: 1$' "$SERVICE_OUT"
    run cat "$SERVICE_ERR"
    refute_output --partial 'Sanitizer'
    refute_output --partial 'runtime error'
}

@test "concurrent creates from 8 clients: every link resolves to its URL" {
    "$KVTEST" shortener init "$DB"
    start_service "$DB" --threads 4
    out=$BATS_TEST_TMPDIR/created
    mkdir -p "$out"
    pids=()
    # 8 clients, each one keep-alive curl run of 25 POSTs (a process per
    # request would measure fork, not the server).
    for c in 1 2 3 4 5 6 7 8; do
        for i in $(seq 1 25); do
            [ "$i" -eq 1 ] || echo next
            printf 'url = "%s/link"\ndata = "{\\"url\\":\\"https://c%s.example/item/%s\\"}"\n' \
                "$SERVICE_URL" "$c" "$i"
            printf 'write-out = " %%{http_code}\\n"\n'
            echo "https://c$c.example/item/$i" >>"$out/urls.$c"
        done >"$out/rc.$c"
        curl -s --max-time 60 -K "$out/rc.$c" >"$out/res.$c" &
        pids+=($!)
    done
    wait "${pids[@]}"   # not a bare wait: the service is our child too
    for c in 1 2 3 4 5 6 7 8; do
        paste -d' ' "$out/urls.$c" "$out/res.$c"
    done >"$out/all"
    [ "$(wc -l <"$out/all")" -eq 200 ]
    [ "$(grep -c ' 201$' "$out/all")" -eq 200 ]
    sed 's/.*short_link":"\([A-Za-z0-9]*\)".*/\1/' "$out/all" >"$out/ids"
    [ "$(sort -u "$out/ids" | wc -l)" -eq 200 ]
    # Resolve all 200 over one keep-alive curl run, then compare in order.
    cut -d' ' -f1 "$out/all" >"$out/urls"
    sed "s|^|url = \"$SERVICE_URL/link/|; s|\$|\"|" "$out/ids" >"$out/get.rc"
    curl -s --max-time 60 -K "$out/get.rc" -w '\n' | jq -r .link >"$out/got"
    diff "$out/urls" "$out/got"
    run stat_field '.routes["POST /link"]["201"]'
    [ "$output" = 200 ]
}

@test "--sqlite-cache off serves the same answers" {
    sqlite_only "SQLite's page cache"
    "$KVTEST" shortener init "$DB" --links 50
    start_service "$DB" --threads 2 --sqlite-cache off
    create https://nocache.example/x
    req GET "/link/$ID"
    [ "$STATUS" = 200 ]
    [ "$(jq -r .link <<<"$BODY")" = https://nocache.example/x ]
    n=0
    for id in $("$KVTEST" shortener keys "$DB" --limit 20); do
        req GET "/link/$id"
        [ "$STATUS" = 200 ]
        n=$((n + 1))
    done
    [ "$n" -eq 20 ]
}

@test "valkey cache: miss then hits; Valkey stopped -> still 200 and errors counted; restarted -> hits resume" {
    "$KVTEST" shortener init "$DB"
    start_valkey
    # A generous cache timeout: a 50 ms one trips now and then on a loaded
    # machine, and a timed-out lookup is neither a hit nor a miss (nor is
    # Valkey's death here a hang: its port refuses at once).
    start_service "$DB" --threads 2 --cache "$VALKEY_URL" --cache-ttl 60 --cache-timeout 2000
    create https://cached.example/page
    for i in 1 2 3 4 5 6; do
        req GET "/link/$ID"
        [ "$STATUS" = 200 ]
    done
    run stat_field .cache.misses
    [ "$output" -ge 1 ]
    [ "$output" -le 2 ]   # at most one miss per worker
    run stat_field .cache.hits
    [ "$output" -ge 4 ]
    hits_before=$output
    # the entry is really in Valkey, with the TTL
    run valkey-cli -p "$VALKEY_PORT" GET "kvtest:link:$ID"
    [ "$output" = https://cached.example/page ]
    run valkey-cli -p "$VALKEY_PORT" TTL "kvtest:link:$ID"
    [ "$output" -gt 0 ]
    [ "$output" -le 60 ]

    stop_valkey
    errors_before=$(stat_field .cache.errors)
    for i in $(seq 1 20); do
        req GET "/link/$ID"
        [ "$STATUS" = 200 ] || { echo "GET with Valkey down: $STATUS" >&2; return 1; }
        [ "$(jq -r .link <<<"$BODY")" = https://cached.example/page ]
    done
    create https://cached.example/while-down
    req GET "/link/$ID"
    [ "$STATUS" = 200 ]
    run stat_field .cache.errors
    [ "$output" -gt "$errors_before" ]

    restart_valkey
    until_hits "$hits_before"   # hits resume (reconnect backoff: 1 s at most)
    run stat_field .routes
    [[ "$output" != *'"500"'* ]]
}

@test "a hung Valkey (SIGSTOP): answers from the store, errors counted, backoff; SIGCONT -> hits resume" {
    "$KVTEST" shortener init "$DB"
    start_valkey
    # The default 50 ms cache timeout on purpose: a hang is the subject.
    start_service "$DB" --threads 1 --cache "$VALKEY_URL"
    create https://hung.example/
    req GET "/link/$ID"
    # A hit before the hang (a loaded machine may time one out first: then
    # the next, after the backoff, hits).
    until_hits 0
    kill -STOP "$VALKEY_PID"
    # 20 GETs back to back over one keep-alive connection (the service
    # cuts the path at '?'): each one answered 200, from the store.
    run curl -s --max-time 60 -w '%{http_code}\n' -o "$BATS_TEST_TMPDIR/hung#1" \
        "$SERVICE_URL/link/$ID?n=[1-20]"
    [ "$(grep -c '^200$' <<<"$output")" -eq 20 ] || { kill -CONT "$VALKEY_PID"; echo "$output"; return 1; }
    errors=$(stat_field .cache.errors)
    skipped=$(stat_field .cache.skipped)
    kill -CONT "$VALKEY_PID"
    [ "$errors" -ge 1 ]
    [ "$skipped" -ge 1 ]      # backoff: not one timeout per request
    until_hits "$(stat_field .cache.hits)"
}

@test "serve starts with Valkey down (warning) and uses it once it is up" {
    "$KVTEST" shortener init "$DB"
    port=$(free_port)
    # A generous cache timeout (the port refuses at once while Valkey is
    # down): once it is up, a loaded machine's slow answer is no error.
    start_service "$DB" --threads 1 --cache "valkey://127.0.0.1:$port" --cache-timeout 2000
    grep -q 'warning' "$SERVICE_ERR"
    create https://late.example/
    req GET "/link/$ID"
    [ "$STATUS" = 200 ]
    VALKEY_PORT=$port restart_valkey
    until_hits 0
}

@test "kill -9 after N 201s: after a restart all N links resolve" {
    "$KVTEST" shortener init "$DB"
    start_service "$DB" --threads 4
    # 40 creates over one keep-alive curl run; each answer is one line
    for i in $(seq 1 40); do
        [ "$i" -eq 1 ] || echo next
        printf 'url = "%s/link"\ndata = "{\\"url\\":\\"https://durable.example/%s\\"}"\n' \
            "$SERVICE_URL" "$i"
        printf 'write-out = " %%{http_code}\\n"\n'
    done >"$BATS_TEST_TMPDIR/rc"
    curl -s --max-time 60 -K "$BATS_TEST_TMPDIR/rc" >"$BATS_TEST_TMPDIR/res"
    [ "$(grep -c ' 201$' "$BATS_TEST_TMPDIR/res")" -eq 40 ]
    sed 's/.*short_link":"\([A-Za-z0-9]*\)".*/\1/' "$BATS_TEST_TMPDIR/res" |
        paste -d' ' - <(seq 1 40 | sed 's|^|https://durable.example/|') >"$BATS_TEST_TMPDIR/ids"
    stop_service KILL
    [ "$SERVICE_STATUS" -eq 137 ]
    start_service "$DB" --threads 2
    n=0
    while read -r id url; do
        req GET "/link/$id"
        [ "$STATUS" = 200 ]
        [ "$(jq -r .link <<<"$BODY")" = "$url" ]
        n=$((n + 1))
    done <"$BATS_TEST_TMPDIR/ids"
    [ "$n" -eq 40 ]
}

@test "a slow client does not block others and still gets its answer" {
    "$KVTEST" shortener init "$DB"
    # --header-timeout 60: the slow client holds its half-sent request for
    # as long as the others take, which a loaded machine can make seconds.
    start_service "$DB" --threads 1 --header-timeout 60
    body='{"url":"https://slow.example/"}'
    local mid=$BATS_TEST_TMPDIR/mid go=$BATS_TEST_TMPDIR/go
    (
        exec 5<>"/dev/tcp/127.0.0.1/$SERVICE_PORT"
        reqtext="POST /link HTTP/1.1\r\nHost: x\r\nContent-Length: ${#body}\r\nConnection: close\r\n\r\n$body"
        printf '%b' "$reqtext" | while IFS= read -r -d '' -n 8 chunk || [ -n "$chunk" ]; do
            printf '%s' "$chunk" >&5
            # After the first piece: say so, and wait (60 s at most) for
            # the go before dribbling the rest.
            if [ ! -e "$mid" ]; then
                touch "$mid"
                for _ in $(seq 600); do [ -e "$go" ] && break; sleep 0.1; done
            fi
            sleep 0.1
        done
        timeout 30 cat <&5 >"$BATS_TEST_TMPDIR/slow.out"
    ) &
    slow=$!
    # No fixed sleep: the slow client is mid-request once it says so.
    for _ in $(seq 600); do [ -e "$mid" ] && break; sleep 0.1; done
    [ -e "$mid" ]
    # while the slow client holds a half-sent request, the single worker
    # answers others
    for i in 1 2 3 4 5; do
        req GET /heart-beat
        [ "$STATUS" = 200 ]
    done
    [ ! -s "$BATS_TEST_TMPDIR/slow.out" ]   # and the slow one is not done yet
    touch "$go"
    wait "$slow"
    head -n1 "$BATS_TEST_TMPDIR/slow.out" | grep -q '201'
}

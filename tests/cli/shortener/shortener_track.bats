#!/usr/bin/env bats
# Client-side caching (--cache valkey+track://): a real valkey-server, a real
# store (an SQLite file; a PostgreSQL server in the postgres run) and the
# real service on free loopback ports.
#
# tests/lib/track_probe.py checks, over one keep-alive connection, that a
# cached link is served stale from the cache, then that a change in Valkey
# is seen (polling about every millisecond; a trial that never sees it
# within 3 s fails) and is the expected one. How soon is the machine's
# speed, so no latency is asserted here (the benchmarks measure it); the
# service's counters must show the entries were served from memory and
# dropped. Every service gets --cache-timeout 2000: at the default 50 ms a
# loaded machine times out a fill or a hit now and then, and the link is
# then answered from the store (no stale URL to see, counts off by one).
# stores: sqlite postgres

load '../../lib/common'
load '../../lib/store_suite'

setup() {
    shortener_setup
    PROBE=$BATS_TEST_DIRNAME/../../lib/track_probe.py
    "$KVTEST" shortener init "$DB" --links 50 --seed 5 >/dev/null
    "$KVTEST" shortener keys "$DB" >"$BATS_TEST_TMPDIR/ids"
    start_valkey
    TRACK_URL=valkey+track://127.0.0.1:$VALKEY_PORT
}

teardown() {
    shortener_teardown
}

ids() {   # ids N: the first N ids
    head -n "$1" "$BATS_TEST_TMPDIR/ids" | paste -sd ' '
}

# probe MODE TTL: five trials, each of which must see the change (and the
# stale URL before it); STATS is then the service's /stats.
probe() {
    run python3 "$PROBE" "$1" "$VALKEY_PORT" "$SERVICE_PORT" "$DB" "$2" $(ids 5)
    echo "$output"
    assert_success
    [ "$(grep -c "^$1 " <<<"$output")" -eq 5 ]
    STATS=$(curl -fsS --max-time 10 "$SERVICE_URL/stats")
    echo "$STATS"
}

@test "track: a key deleted in Valkey stops being served from memory" {
    start_service "$DB" --threads 2 --cache "$TRACK_URL" --cache-timeout 2000
    probe del 0
    [ "$(jq .cache.invalidations <<<"$STATS")" -ge 5 ]
    [ "$(jq .cache.local_hits <<<"$STATS")" -ge 5 ]
}

@test "track: a key overwritten in Valkey is served with its new value" {
    start_service "$DB" --threads 2 --cache "$TRACK_URL" --cache-timeout 2000
    probe set 0
    [ "$(jq .cache.invalidations <<<"$STATS")" -ge 5 ]
    [ "$(jq .cache.local_hits <<<"$STATS")" -ge 5 ]
}

@test "track: a key expired by --cache-ttl stops being served from memory" {
    # TTL 3 s: a trial's fill, its hits, the store's change and the stale
    # check must all fall within the TTL, which a loaded machine can
    # stretch past 1 s.
    start_service "$DB" --threads 2 --cache "$TRACK_URL" --cache-ttl 3 --cache-timeout 2000
    probe expire 3
    [ "$(jq .cache.local_hits <<<"$STATS")" -ge 5 ]
    # each trial: the fill's miss, and one more once the key had expired
    [ "$(jq .cache.misses <<<"$STATS")" -ge 10 ]
}

@test "track: killing valkey-server empties the local caches; lookups fall back to the store, none fails" {
    # (A killed Valkey's sockets close at once: no hang for the timeout.)
    start_service "$DB" --threads 2 --cache "$TRACK_URL" --cache-timeout 2000
    local id n=0
    # Three lookups per id: whichever of the 2 service threads takes each
    # connection, two of them land on the same thread, so its local map
    # answers at least one (two lookups could alternate threads every time).
    for id in $(ids 20); do
        curl -fsS "$SERVICE_URL/link/$id" >/dev/null
        curl -fsS "$SERVICE_URL/link/$id" >/dev/null
        curl -fsS "$SERVICE_URL/link/$id" >/dev/null
    done
    run curl -fsS "$SERVICE_URL/stats"
    [ "$(jq .cache.local_hits <<<"$output")" -ge 1 ]
    # Change every URL in the store: a cached answer is now recognisably stale.
    store_sql "UPDATE links SET link_target = link_target || '?v=2'"
    run curl -fsS "$SERVICE_URL/link/$(ids 1)"
    assert_success
    assert_output --partial '"link"'
    refute_output --partial '?v=2'   # still served from a cache
    kill -KILL "$VALKEY_PID"
    wait "$VALKEY_PID" 2>/dev/null || true
    VALKEY_PID=
    for id in $(ids 20); do
        run curl -sS -o "$BATS_TEST_TMPDIR/body" -w '%{http_code}' "$SERVICE_URL/link/$id"
        assert_output 200
        run cat "$BATS_TEST_TMPDIR/body"
        assert_output --partial '?v=2'
        n=$((n + 1))
    done
    [ "$n" -eq 20 ]
    run curl -fsS "$SERVICE_URL/stats"
    [ "$(jq .cache.local_flushes <<<"$output")" -ge 1 ]
    echo "$output"
    [ "$(jq '.routes["GET /link/<id>"]["200"]' <<<"$output")" -eq 81 ]
    [ "$(jq '.routes["GET /link/<id>"]["500"] // 0' <<<"$output")" -eq 0 ]
}

@test "track: /stats and bench --json count local hits, Valkey hits, misses and invalidations" {
    start_service "$DB" --threads 1 --cache "$TRACK_URL" --cache-timeout 2000
    local id end
    id=$(ids 1)
    curl -fsS "$SERVICE_URL/link/$id" >/dev/null      # miss, fill (Valkey only)
    # Then a Valkey hit, kept locally, and a local hit: the map answers
    # only while the channel answered a PING within 250 ms (track.h), which
    # a slow request after a slow one can miss; ask until it does (60 s).
    end=$((SECONDS + 60))
    while [ "$SECONDS" -lt "$end" ]; do
        curl -fsS "$SERVICE_URL/link/$id" >/dev/null
        [ "$(curl -fsS "$SERVICE_URL/stats" | jq .cache.local_hits)" -ge 1 ] && break
    done
    valkey-cli -p "$VALKEY_PORT" set "kvtest:link:$id" http://example.com/v >/dev/null
    end=$((SECONDS + 60))
    while [ "$SECONDS" -lt "$end" ]; do               # until the invalidation is read
        run curl -fsS "$SERVICE_URL/link/$id"
        [[ "$output" != *example.com/v* ]] || break
        sleep 0.02
    done
    assert_output --partial example.com/v              # a Valkey hit
    run curl -fsS "$SERVICE_URL/stats"
    assert_success
    [ "$(jq .cache.track <<<"$output")" = true ]
    [ "$(jq .cache.misses <<<"$output")" -eq 1 ]
    [ "$(jq .cache.local_hits <<<"$output")" -ge 1 ]
    [ "$(jq .cache.valkey_hits <<<"$output")" -ge 1 ]
    [ "$(jq .cache.invalidations <<<"$output")" -eq 1 ]
    stop_service
    run "$KVTEST" shortener bench "$DB" --cache "$TRACK_URL" --cache-timeout 2000 --configs valkey-track,valkey \
        --lookups 500 --repeat 2 --cache-timeout 2000 --json
    assert_success
    [ "$(jq -r '.result.configs | map(.config) | join(",")' <<<"$output")" = "valkey-track,valkey" ]
    [ "$(jq '.result.configs[0].cache.local_hits' <<<"$output")" -ge 900 ]
    [ "$(jq '.result.configs[0].cache | .local_hits + .hits + .misses + .errors + .skipped' <<<"$output")" -eq 1000 ]
    [ "$(jq '.result.configs[0].cache | has("invalidations") and has("local_flushes")' <<<"$output")" = true ]
    [ "$(jq '.result.configs[1].cache.local_hits' <<<"$output")" -eq 0 ]
    [ "$(jq '.result.configs[0].local_hit_ratio' <<<"$output")" != null ]
}

@test "track: bench --track-size bounds the local map (evictions counted)" {
    run "$KVTEST" shortener bench "$DB" --cache "$TRACK_URL" --cache-timeout 2000 --configs valkey-track \
        --track-size 10 --lookups 500 --repeat 1 --cache-timeout 2000 --json
    assert_success
    [ "$(jq '.result.configs[0].cache.local_evictions' <<<"$output")" -gt 0 ]
    [ "$(jq '.result.configs[0].local_hit_ratio' <<<"$output" | awk '{print ($1 < 0.5)}')" -eq 1 ]
    [ "$(jq '.options.track_size' <<<"$output")" -eq 10 ]
    [ "$(jq '.options.cache_timeout_ms' <<<"$output")" -eq 2000 ]
}

@test "track: the threads of one process share the local map (a link read by one is a local hit for all)" {
    # 4 threads x 500 lookups over 50 links, nothing cached before. A fill
    # does not put into the map (track.h), so every link costs at least two
    # Valkey lookups, a miss and the hit that keeps it: 100 with one shared
    # map, plus a few where threads miss the same link at the same moment
    # or a put is refused (108-122 in 35 runs, idle and under load). With
    # one map per thread each thread pays its own hit: 50 + 4 x 50 = 250
    # (251-256 in 18 runs of that fault). The bound sits between the two.
    run "$KVTEST" shortener bench "$DB" --cache "$TRACK_URL" --cache-timeout 2000 --configs valkey-track \
        --threads 4 --lookups 2000 --warmup 0 --repeat 1 --cache-timeout 2000 --json
    assert_success
    local valkey
    valkey=$(jq '.result.configs[0].cache | .hits + .misses' <<<"$output")
    echo "Valkey lookups: $valkey"
    [ "$valkey" -ge 100 ]
    [ "$valkey" -lt 175 ]
    [ "$(jq '.result.configs[0].cache.local_hits' <<<"$output")" -gt 1800 ]
}

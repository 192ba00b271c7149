#!/usr/bin/env bats
# kvtest run: every option at small counts, the upstream result lines, the
# fairness rules (same keys, bytes and max-id for every layout), and the
# features beyond upstream (repeat, cold, threads, zipf, verify, JSON).

load '../../lib/common'

setup_file() {
    : "${KVTEST:?KVTEST must name the binary under test}"
    export S="$BATS_FILE_TMPDIR"
    make_layouts "$S" --count 400 --size 2000 --variance 500
}

setup() {
    common_setup
}

@test "database run: the upstream result lines in the upstream order" {
    run --separate-stderr "$KVTEST" run "$S/x.db"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "SQLite version: 3.52.0" ]
    [ "${lines[1]}" = "--count 1000 --max-id 400 --asc" ]
    [ "${lines[2]}" = "--cache-size 1000 --jmode delete" ]
    [ "${lines[3]}" = "--mmap 0" ]
    [ "${lines[4]}" = "Database page size: 4096" ]
    [[ "${lines[5]}" =~ ^Total\ elapsed\ time:\ [0-9]+\.[0-9]{3}$ ]]
    [[ "${lines[6]}" =~ ^Microseconds\ per\ BLOB\ read:\ [0-9]+\.[0-9]{3}$ ]]
    [[ "${lines[7]}" =~ ^Content\ read\ rate:\ [0-9]+\.[0-9]\ MB/s$ ]]
    [[ "${lines[8]}" =~ ^Latency\ per\ BLOB\ read\ \(us\):\ min\ .*p50.*p90.*p99.*p99\.9.*max ]]
    [ -z "$stderr" ]
}

@test "directory runs: max-id is the largest key present, not 1000" {
    for p in flat tree; do
        run "$KVTEST" run "$S/$p" --count 10
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "--count 10 --max-id 400 --asc" ]
        [[ "${lines[1]}" == "Total elapsed time:"* ]]
        [[ "$output" != *"SQLite version"* ]]
    done
}

@test "db, flat and tree runs request the same keys and read the same bytes" {
    for order in --asc --desc --random "--zipf 1.1"; do
        for p in x.db flat tree; do
            # shellcheck disable=SC2086
            "$KVTEST" run "$S/$p" --count 300 $order --start 7 --keys-out "$D/$p.keys" --json >"$D/$p.json"
        done
        cmp "$D/x.db.keys" "$D/flat.keys"
        cmp "$D/x.db.keys" "$D/tree.keys"
        b=$(jq -r .result.bytes "$D/x.db.json")
        [ "$b" -gt 0 ]
        [ "$(jq -r .result.bytes "$D/flat.json")" = "$b" ]
        [ "$(jq -r .result.bytes "$D/tree.json")" = "$b" ]
    done
    # --blob-api reads the same keys and bytes as SQL
    "$KVTEST" run "$S/x.db" --count 300 --random --json --keys-out "$D/s.keys" >"$D/s.json"
    "$KVTEST" run "$S/x.db" --count 300 --random --blob-api --json --keys-out "$D/b.keys" >"$D/b.json"
    cmp "$D/s.keys" "$D/b.keys"
    [ "$(jq -r .result.bytes "$D/b.json")" = "$(jq -r .result.bytes "$D/s.json")" ]
}

@test "--asc, --desc and --start visit keys as upstream (wrapping at max-id)" {
    "$KVTEST" run "$S/x.db" --count 5 --start 398 --keys-out "$D/k" >/dev/null
    [ "$(tr '\n' ' ' <"$D/k")" = "398 399 400 1 2 " ]
    "$KVTEST" run "$S/x.db" --count 4 --desc --start 2 --keys-out "$D/k" >/dev/null
    [ "$(tr '\n' ' ' <"$D/k")" = "2 1 400 399 " ]
    "$KVTEST" run "$S/x.db" --count 3 --desc --keys-out "$D/k" >/dev/null
    [ "$(tr '\n' ' ' <"$D/k")" = "400 399 398 " ]
    "$KVTEST" run "$S/x.db" --count 3 --max-id 50 --desc --keys-out "$D/k" >/dev/null
    [ "$(tr '\n' ' ' <"$D/k")" = "50 49 48 " ]
}

@test "--random: a permutation of the whole range, reproducible, seed-dependent" {
    "$KVTEST" run "$S/flat" --count 400 --random --keys-out "$D/r1" >/dev/null
    "$KVTEST" run "$S/flat" --count 400 --random --keys-out "$D/r2" >/dev/null
    "$KVTEST" run "$S/flat" --count 400 --random --seed 9 --keys-out "$D/r3" >/dev/null
    [ "$(sort -n "$D/r1" | uniq | wc -l)" -eq 400 ]      # each key once
    [ "$(sort -n "$D/r1" | head -1)" -eq 1 ]
    [ "$(sort -n "$D/r1" | tail -1)" -eq 400 ]
    cmp "$D/r1" "$D/r2"
    run cmp -s "$D/r1" "$D/r3"                            # another seed, other keys
    assert_failure 1
    run cmp -s <(seq 1 400) "$D/r1"                       # not ascending
    assert_failure 1
    # keys spread: the first 40 draws are not bunched in one tenth of the range
    [ "$(head -40 "$D/r1" | awk '{print int(($1-1)/40)}' | sort -u | wc -l)" -ge 6 ]
    run "$KVTEST" run "$S/flat" --count 10 --random
    [ "${lines[0]}" = "--count 10 --max-id 400 --random" ]
    # --start S begins the walk at the S-th key of the same permutation
    "$KVTEST" run "$S/flat" --count 5 --random --start 3 --keys-out "$D/r4" >/dev/null
    [ "$(cat "$D/r4")" = "$(sed -n 3,7p "$D/r1")" ]
}

@test "--zipf: skewed, hot keys spread over the range, reproducible with --seed" {
    "$KVTEST" run "$S/x.db" --count 2000 --zipf 1.2 --keys-out "$D/z1" >/dev/null
    "$KVTEST" run "$S/x.db" --count 2000 --zipf 1.2 --keys-out "$D/z2" >/dev/null
    "$KVTEST" run "$S/x.db" --count 2000 --zipf 1.2 --seed 5 --keys-out "$D/z3" >/dev/null
    cmp "$D/z1" "$D/z2"
    run cmp -s "$D/z1" "$D/z3"                            # another seed, other keys
    assert_failure 1
    top=$(sort -n "$D/z1" | uniq -c | sort -rn | head -1 | awk '{print $1}')
    [ "$top" -gt 200 ]                                     # the hottest key: >10%
    hot=$(sort -n "$D/z1" | uniq -c | sort -rn | head -5 | awk '{print $2}')
    [ "$(echo "$hot" | awk '$1>40' | wc -l)" -ge 1 ]      # not all in the first keys
    run "$KVTEST" run "$S/x.db" --count 10 --zipf 1.2
    [ "${lines[1]}" = "--count 10 --max-id 400 --zipf 1.2" ]
}

@test "database options: --blob-api --cache-size --mmap --nosync --jmode" {
    copy_layouts
    run "$KVTEST" run "$D/x.db" --count 50 --blob-api --cache-size 50 --mmap 8MiB --nosync
    [ "$status" -eq 0 ]
    [ "${lines[2]}" = "--cache-size 50 --jmode delete" ]
    [ "${lines[3]}" = "--mmap 8388608 --blob-api" ]
    [ "${lines[4]}" = "--nosync" ]
    for m in wal truncate persist memory off delete; do
        run "$KVTEST" run "$D/x.db" --count 20 --jmode "$m" --update
        [ "$status" -eq 0 ]
        [ "${lines[2]}" = "--cache-size 1000 --jmode $m" ]
        [[ "$output" == *"Microseconds per BLOB write:"*"Content write rate:"* ]]
    done
    run "$KVTEST" run "$D/x.db" --count 20 --cache-size -2000
    [ "$status" -eq 0 ]
    [ "${lines[2]}" = "--cache-size -2000 --jmode delete" ]
    run "$KVTEST" run "$D/x.db" --count 20 --cache-size -x
    [ "$status" -eq 2 ]
    run "$KVTEST" run "$D/x.db" --count 20 --mmap 5G
    [ "$status" -eq 0 ]
    [ "${lines[3]}" = "--mmap 5000000000" ]
}

@test "--update on db (SQL and blob API), flat and tree; content changes, size stays, verifies" {
    copy_layouts
    cp "$D/flat/000003" "$D/before"
    for p in x.db flat tree; do
        for api in "" --blob-api; do
            run "$KVTEST" run "$D/$p" --count 30 --update $api --verify
            [ "$status" -eq 0 ]
            [[ "$output" == *"Microseconds per BLOB write:"* ]]
            [[ "$output" == *"Verify: ok, 30 blobs checked (read back after the update)"* ]]
        done
    done
    run cmp -s "$D/before" "$D/flat/000003"               # the update changed the bytes
    assert_failure 1
    [ "$(stat -c %s "$D/before")" = "$(stat -c %s "$D/flat/000003")" ]
    run "$KVTEST" run "$D/x.db" --count 400 --verify
    [ "$status" -eq 0 ]
    run "$KVTEST" run "$D/tree" --count 400 --verify
    [ "$status" -eq 0 ]
    run "$KVTEST" run "$D/x.db" --integrity-check --count 10
    [[ "$output" == *"integrity-check: ok"* ]]
}

@test "--update rewrites the bytes: db through SQL, db through the blob API, flat, tree" {
    copy_layouts
    "$KVTEST" export "$D/x.db" "$D/e0" >/dev/null
    run "$KVTEST" run "$D/x.db" --count 5 --update
    assert_success
    "$KVTEST" export "$D/x.db" "$D/e1" >/dev/null
    run "$KVTEST" run "$D/x.db" --count 5 --update --blob-api
    assert_success
    "$KVTEST" export "$D/x.db" "$D/e2" >/dev/null
    cp "$D/tree/00/00/05" "$D/tree5"
    run "$KVTEST" run "$D/tree" --count 5 --update
    assert_success
    for k in 000001 000005; do
        run cmp -s "$D/e0/$k" "$D/e1/$k"          # SQL update changed it
        assert_failure 1
        run cmp -s "$D/e1/$k" "$D/e2/$k"          # blob-API update changed it
        assert_failure 1
        [ "$(stat -c %s "$D/e0/$k")" -eq "$(stat -c %s "$D/e2/$k")" ]
    done
    cmp "$D/e0/000006" "$D/e2/000006"             # beyond --count: untouched
    run cmp -s "$D/tree5" "$D/tree/00/00/05"
    assert_failure 1
    run "$KVTEST" run "$D/x.db" --count 400 --verify
    assert_success
}

@test "--fsync, --multitrans, --nocheckpoint with WAL" {
    copy_layouts
    run "$KVTEST" run "$D/flat" --count 10 --update --fsync
    [ "$status" -eq 0 ]
    run "$KVTEST" run "$D/x.db" --count 10 --update --multitrans --jmode wal --nocheckpoint
    [ "$status" -eq 0 ]
    [[ "${lines[2]}" = "--cache-size 1000 --jmode wal" ]]
    run "$KVTEST" run "$D/x.db" --count 10 --multitrans --blob-api --verify
    [ "$status" -eq 0 ]
    run "$KVTEST" run "$D/x.db" --count 10 --update --jmode wal
    [ "$status" -eq 0 ]
    run "$KVTEST" run "$D/x.db" --integrity-check --count 5
    [ "$status" -eq 0 ]
    [[ "$output" == *"integrity-check: ok"* ]]
}

@test "--synchronous MODE: applied, printed, in JSON; bad or conflicting modes refused" {
    copy_layouts
    run "$KVTEST" run "$D/x.db" --count 10 --update --jmode wal --synchronous normal
    [ "$status" -eq 0 ]
    [[ "${lines[4]}" = "--synchronous normal" ]]
    run "$KVTEST" run "$D/x.db" --count 5 --synchronous off --json
    [ "$status" -eq 0 ]
    [[ "$output" == *'"synchronous":"off"'* ]]
    run "$KVTEST" run "$D/x.db" --synchronous sometimes
    [ "$status" -eq 2 ]
    [[ "$output" == *"--synchronous must be one of off, normal, full, extra"* ]]
    run "$KVTEST" run "$D/x.db" --synchronous full --nosync
    [ "$status" -eq 2 ]
    [[ "$output" == *"conflict"* ]]
}

@test "database options on a directory are ignored with a warning, as upstream ignores them" {
    run --separate-stderr "$KVTEST" run "$S/flat" --count 5 --blob-api --jmode wal
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"--blob-api --jmode"*"ignored"* ]]
    [[ "$output" == *"Microseconds per BLOB read:"* ]]
}

@test "--stats: SQLite counters and /proc/self/io, for databases and directories" {
    run "$KVTEST" run "$S/x.db" --count 20 --stats
    [ "$status" -eq 0 ]
    [[ "$output" == *"Memory Used:"*"Page cache hits:"*"Bytes received by read():"*"Read() system calls:"*"Bytes read from storage:"*"Bytes written to storage:"* ]]
    for p in flat tree; do
        run "$KVTEST" run "$S/$p" --count 20 --stats
        [ "$status" -eq 0 ]
        [[ "$output" == *"Bytes received by read():"* ]]
        r=$(echo "$output" | sed -n 's/^Bytes received by read(): *//p')
        [ "$r" -ge 30000 ]      # 20 files of 1500..2500 bytes were read
        [[ "$output" != *"Memory Used:"* ]]
    done
}

@test "missing keys are counted and cost extra cycles, as upstream" {
    run "$KVTEST" run "$S/x.db" --count 10 --max-id 405 --start 396
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "15 cycles due to 5 misses" ]
    [[ "${lines[2]}" == "--count 10 --max-id 405 --asc" ]]
    run "$KVTEST" run "$S/flat" --count 10 --max-id 405 --start 396 --json
    [ "$(echo "$output" | jq -r .result.misses)" = 5 ]
    [ "$(echo "$output" | jq -r .result.count)" = 10 ]
    # nothing there at all: bounded, not an endless loop
    run "$KVTEST" run "$S/tree" --count 10 --max-id 100000 --start 50000
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "20 cycles due to 20 misses" ]
}

@test "--repeat and --warmup: spread line and per-run JSON" {
    run "$KVTEST" run "$S/x.db" --count 50 --repeat 3 --warmup 1
    [ "$status" -eq 0 ]
    [[ "$output" =~ Repeat\ 3\ \(after\ 1\ warm-up\):\ us\ per\ BLOB\ min\ [0-9.]+\ median\ [0-9.]+\ max\ [0-9.]+ ]]
    run "$KVTEST" run "$S/tree" --count 50 --repeat 3 --json
    [ "$(echo "$output" | jq '.result.runs | length')" = 3 ]
    [ "$(echo "$output" | jq '.result.latency.count')" = 150 ]
    echo "$output" | jq -e '.result.repeat.us_per_blob.min <= .result.repeat.us_per_blob.median and .result.repeat.us_per_blob.median <= .result.repeat.us_per_blob.max'
}

# "Median us per BLOB: M (95% CI LO-HI, N rounds)" or, below 6 rounds,
# "(min-max LO-HI, under 95% coverage with N rounds)"; the classic lines stay.
@test "--repeat 2: median line gives min-max, under 95% coverage; classic lines unchanged" {
    run --separate-stderr "$KVTEST" run "$S/x.db" --count 50 --repeat 2
    assert_success
    [[ "${lines[5]}" =~ ^Total\ elapsed\ time:\ [0-9]+\.[0-9]{3}$ ]]
    [[ "${lines[6]}" =~ ^Microseconds\ per\ BLOB\ read:\ [0-9]+\.[0-9]{3}$ ]]
    [[ "${lines[7]}" =~ ^Content\ read\ rate:\ [0-9]+\.[0-9]\ MB/s$ ]]
    [[ "${lines[9]}" =~ ^Repeat\ 2\ \(after\ 0\ warm-up\):\ us\ per\ BLOB\ min\ ([0-9.]+)\ median\ ([0-9.]+)\ max\ ([0-9.]+)\;\ MB/s\ min\ [0-9.]+\ median\ [0-9.]+\ max\ [0-9.]+$ ]] || fail "${lines[9]}"
    local mn=${BASH_REMATCH[1]} md=${BASH_REMATCH[2]} mx=${BASH_REMATCH[3]}
    [[ "${lines[10]}" =~ ^Median\ us\ per\ BLOB:\ ([0-9.]+)\ \(min-max\ ([0-9.]+)-([0-9.]+),\ under\ 95%\ coverage\ with\ 2\ rounds\)$ ]] || fail "${lines[10]}"
    # the fallback interval is exactly the range of the Repeat line
    assert_equal "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}" "$md $mn $mx"
    [[ "${lines[11]}" =~ ^Median\ MB/s:\ [0-9.]+\ \(min-max\ [0-9.]+-[0-9.]+,\ under\ 95%\ coverage\ with\ 2\ rounds\)$ ]] || fail "${lines[11]}"
    # one round: no interval line at all
    run "$KVTEST" run "$S/x.db" --count 50
    assert_success
    refute_output --partial "Median us per BLOB"
}

@test "--repeat 6: median with its 95% CI inside [min, max]" {
    run "$KVTEST" run "$S/flat" --count 50 --repeat 6
    assert_success
    local rep med all=$output
    rep=$(grep '^Repeat 6 ' <<<"$output")
    med=$(grep '^Median us per BLOB: ' <<<"$output")
    [[ "$rep" =~ min\ ([0-9.]+)\ median\ ([0-9.]+)\ max\ ([0-9.]+)\; ]] || fail "$rep"
    local mn=${BASH_REMATCH[1]} md=${BASH_REMATCH[2]} mx=${BASH_REMATCH[3]}
    [[ "$med" =~ ^Median\ us\ per\ BLOB:\ ([0-9.]+)\ \(95%\ CI\ ([0-9.]+)-([0-9.]+),\ 6\ rounds\)$ ]] || fail "$med"
    assert_equal "${BASH_REMATCH[1]}" "$md"
    run awk -v lo="${BASH_REMATCH[2]}" -v hi="${BASH_REMATCH[3]}" -v mn="$mn" -v md="$md" -v mx="$mx" \
        'BEGIN { exit !(mn <= lo && lo <= md && md <= hi && hi <= mx) }'
    assert_success
    run grep -cE '^Median MB/s: [0-9.]+ \(95% CI [0-9.]+-[0-9.]+, 6 rounds\)$' <<<"$all"
    assert_output 1
}

@test "--repeat --json: repeat.*.ci_lo/ci_hi/ci_covered/n, and runs[] for every layout and mode" {
    run "$KVTEST" run "$S/x.db" --count 50 --repeat 6 --json
    assert_success
    local j=$output
    for m in us_per_blob mb_per_s; do
        run jq -e --arg m "$m" '.result.repeat[$m] | .n == 6 and .ci_covered == true
            and .min <= .ci_lo and .ci_lo <= .median and .median <= .ci_hi and .ci_hi <= .max' <<<"$j"
        assert_success
    done
    run "$KVTEST" run "$S/tree" --count 50 --repeat 2 --json
    assert_success
    run jq -e '.result.repeat.us_per_blob | .n == 2 and .ci_covered == false
        and .ci_lo == .min and .ci_hi == .max' <<<"$output"
    assert_success
    copy_layouts
    local p x
    for p in x.db flat tree; do
        for x in "" --update "--threads 2" --cold; do
            # shellcheck disable=SC2086
            run "$KVTEST" run "$D/$p" --count 20 --repeat 3 --json $x
            assert_success
            run jq -e '(.result.runs | length) == 3 and .result.repeat.us_per_blob.n == 3
                and all(.result.runs[]; .us_per_blob > 0 and .mb_per_s > 0)' <<<"$output"
            assert_success
        done
    done
}

@test "--cold: residency before each run, method named, storage bytes per blob" {
    for p in x.db flat; do
        run "$KVTEST" run "$S/$p" --count 50 --random --cold --repeat 2
        [ "$status" -eq 0 ]
        [[ "$output" == *"Cold cache, run 1: "*"% of "*" pages resident before the run (evicted by posix_fadvise(POSIX_FADV_DONTNEED)"* ]]
        [[ "$output" == *"Cold cache, run 2: "* ]]
        [[ "$output" == *"Bytes read from storage per blob: "* ]]
        run "$KVTEST" run "$S/$p" --count 50 --random --cold --json
        echo "$output" | jq -e '.result.cold.method | test("DONTNEED")'
        echo "$output" | jq -e '.result.cold.effective == true or .result.cold.effective == false'
        echo "$output" | jq -e '.result.runs[0].cold.pages > 0'
    done
}

@test "--fadvise random|normal on databases and files" {
    for p in x.db flat tree; do
        for a in random normal; do
            run "$KVTEST" run "$S/$p" --count 20 --fadvise "$a" --json
            [ "$status" -eq 0 ]
            [ "$(echo "$output" | jq -r .options.fadvise)" = "$a" ]
        done
    done
}

@test "--threads: concurrent readers share the key sequence; total throughput" {
    for p in x.db flat; do
        run "$KVTEST" run "$S/$p" --count 400 --threads 3 --verify
        [ "$status" -eq 0 ]
        [[ "$output" == *"Threads: 3 readers, total throughput"* ]]
        [[ "$output" == *"Verify: ok, 400 blobs checked"* ]]
    done
    run "$KVTEST" run "$S/x.db" --count 300 --threads 2 --random --blob-api --json
    [ "$(echo "$output" | jq .result.count)" = 300 ]
    [ "$(echo "$output" | jq .result.latency.count)" = 300 ]
    [ "$(echo "$output" | jq .result.threads)" = 2 ]
}

@test "--verify: corrupt content names the key; foreign data is unverifiable" {
    copy_layouts
    printf 'X' | dd of="$D/flat/000123" bs=1 seek=100 conv=notrunc 2>/dev/null
    run "$KVTEST" run "$D/flat" --count 400 --verify
    [ "$status" -eq 1 ]
    [[ "$output" == "kvtest run: content mismatch at key 123 of "* ]]
    # Without --verify the same run succeeds: verification is off by default.
    run "$KVTEST" run "$D/flat" --count 400
    [ "$status" -eq 0 ]
    # randomblob() content (the original program's) carries no checksum.
    "$KVTEST" init "$D/rb.db" --count 50 --size 500 --method randomblob >/dev/null
    run "$KVTEST" run "$D/rb.db" --count 50 --verify
    [ "$status" -eq 0 ]
    [[ "$output" == *"Verify: unverifiable"* ]]
    run "$KVTEST" run "$D/rb.db" --count 50 --verify --json
    [ "$(echo "$output" | jq -r .result.verify.status)" = unverifiable ]
}

@test "--no-latency: no percentiles, JSON says latency false" {
    run "$KVTEST" run "$S/x.db" --count 20 --no-latency
    [ "$status" -eq 0 ]
    [[ "$output" != *"Latency per BLOB"* ]]
    run "$KVTEST" run "$S/x.db" --count 20 --no-latency --json
    [ "$(echo "$output" | jq .options.latency)" = false ]
    [ "$(echo "$output" | jq '.result | has("latency")')" = false ]
    [ "$(echo "$output" | jq '.result | has("timer_ns")')" = false ]
}

@test "--json: one object with options, environment and figures" {
    run --separate-stderr "$KVTEST" run "$S/x.db" --count 25 --random --blob-api --json
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 1 ]
    echo "$output" | jq -e '.command == "run" and .options.count == 25 and .options.order == "random" and .options.blob_api == true'
    echo "$output" | jq -e '.env.sqlite_version == "3.52.0" and (.env.sqlite_compile_options | length) > 0'
    echo "$output" | jq -e '(.env.kernel | length) > 0 and (.env.fs_type | length) > 0 and (.env.cpu_model | length) > 0'
    echo "$output" | jq -e '.env.cmdline | test("kvtest run .*--json")'
    echo "$output" | jq -e '.result.op == "read" and .result.store == "db" and .result.api == "blob"'
    echo "$output" | jq -e '.result.count == 25 and .result.us_per_blob > 0 and .result.mb_per_s > 0 and .result.page_size == 4096'
    echo "$output" | jq -e '.result.latency.p50 > 0 and .result.latency.min <= .result.latency.p99 and .result.latency.p99 <= .result.latency.max'
    echo "$output" | jq -e '.result.timer_ns > 0 and .result.timer_share > 0 and .result.timer_share < 1'
    run "$KVTEST" run "$S/tree" --count 5 --json
    echo "$output" | jq -e '.result.store == "tree" and .result.api == "stdio"'
}

@test "run bad input: paths, numbers, conflicts" {
    for a in "--asc --desc" "--desc --random" "--zipf 1 --asc"; do
        # shellcheck disable=SC2086
        run "$KVTEST" run "$S/x.db" $a
        [ "$status" -eq 2 ]
        [[ "$output" == "kvtest run: options --"*" conflict" ]]
    done
    run "$KVTEST" run "$S/x.db" --update --threads 2
    [ "$status" -eq 2 ]
    [[ "$output" == *"--update with --threads 2"* ]]
    run "$KVTEST" run; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" extra; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" --count 0; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" --count -1; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" --count 1e3; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" --zipf 0; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" --zipf abc; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" --repeat 0; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" --threads 0; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" --threads 1000; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" --jmode "wal; drop table kv"; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" --fadvise maybe; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" --start 401; [ "$status" -eq 2 ]
    [[ "$output" == *"beyond --max-id 400"* ]]
    run "$KVTEST" run "$S/x.db" --max-id 0; [ "$status" -eq 2 ]
    run "$KVTEST" run "$S/x.db" --cache-size; [ "$status" -eq 2 ]
    [[ "$output" == *"needs a value"* ]]
    run "$KVTEST" run "$S/nope"; [ "$status" -eq 1 ]
    [[ "$output" == "kvtest run: "*"nope: No such file or directory" ]]
    run "$KVTEST" run /dev/null; [ "$status" -eq 1 ]
    mkdir "$D/emptydir"
    run "$KVTEST" run "$D/emptydir"; [ "$status" -eq 1 ]
    [[ "$output" == *"holds no blobs"* ]]
    # the database was not touched by any of this
    run "$KVTEST" run "$S/x.db" --count 400 --verify
    [ "$status" -eq 0 ]
}

@test "64-bit sizes: mmap and max-id beyond 32 bits" {
    run "$KVTEST" run "$S/x.db" --count 3 --mmap 4294967296
    [ "$status" -eq 0 ]
    [ "${lines[3]}" = "--mmap 4294967296" ]
    run "$KVTEST" run "$S/flat" --count 3 --max-id 4294967297 --random --json
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | jq .options.max_id)" = 4294967297 ]
}

@test "update of a read-only export fails with the path" {
    copy_layouts
    chmod -R a-w "$D/flat"
    # Root ignores permission bits; without CAP_DAC_OVERRIDE it does not.
    local drop=()
    if [ "$(id -u)" -eq 0 ]; then
        drop=(setpriv --bounding-set -dac_override,-dac_read_search,-fowner)
    fi
    run "${drop[@]}" "$KVTEST" run "$D/flat" --update --count 5
    chmod -R u+w "$D/flat"
    [ "$status" -eq 1 ]
    [[ "$output" == *"flat"* ]]
}

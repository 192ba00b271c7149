#!/usr/bin/env bats
# The key-value blob stores, LMDB and RocksDB (lmdb:DIR, rocksdb:DIR):
# export into them, run over them (every key, random keys, updates, cold
# runs, threads), stat and space figures checked against the engines' own
# tools (mdb_stat, mdb_dump, ldb), the fairness rule (every layout asked
# for the same keys reads the same bytes), and the contracts: bad input is
# one line and exit 2 or 1 with nothing created or touched; an interrupted
# export, a full disk and a read-only filesystem leave nothing half-made.
# Real files, real signals, real mounts (root only; skipped otherwise).

# status, output, lines and stderr_lines are set by bats' run (SC2154).
# shellcheck disable=SC2154

load '../../lib/common'

setup_file() {
    : "${KVTEST:?KVTEST must name the binary under test}"
    export S="$BATS_FILE_TMPDIR"
    # 300 blobs of 2..20 KB: values of one to five LMDB overflow pages.
    "$KVTEST" init "$S/x.db" --count 300 --size 11000 --variance 9000 >/dev/null
    "$KVTEST" export "$S/x.db" "$S/flat" >/dev/null
    "$KVTEST" export "$S/x.db" "lmdb:$S/l" >/dev/null
    "$KVTEST" export "$S/x.db" "rocksdb:$S/r" >/dev/null
}

setup() {
    common_setup
}

teardown() {
    common_teardown
}

# ---- helpers -------------------------------------------------------------

# fails_with ST GLOB ARGS...: kvtest ARGS exits ST, prints nothing on
# stdout and exactly one line on stderr, matching "kvtest GLOB". The
# binary is $BIN if set (another build), else $KVTEST.
fails_with() {
    local want=$1 pattern=$2
    shift 2
    run --separate-stderr "${BIN:-$KVTEST}" "$@"
    [ "$status" -eq "$want" ] || fail "kvtest $*: status $status, wanted $want; stderr: $stderr"
    [ -z "$output" ] || fail "kvtest $*: stdout: $output"
    [ "${#stderr_lines[@]}" -eq 1 ] || fail "kvtest $*: not one line on stderr: $stderr"
    # shellcheck disable=SC2053  # the pattern is a glob on purpose
    [[ "$stderr" == "kvtest "$pattern ]] || fail "kvtest $*: message: $stderr"
}

# json_of ARGS...: kvtest ARGS --json must succeed; its stdout in $D/j.
json_of() {
    "$KVTEST" "$@" --json >"$D/j" || fail "kvtest $* --json failed"
}

# Every entry of a store as "KEY VALUE" lines, both in hex (the key as the
# 8 big-endian bytes it is stored under), by the engines' own tools, not
# kvtest: mdb_dump for LMDB, ldb for RocksDB (on a copy: ldb opens it for
# writing).
dump_lmdb() {
    command -v mdb_dump >/dev/null || skip "mdb_dump (lmdb-utils) not installed"
    mdb_dump "$1" | awk '/^HEADER=END/ { on = 1; next } /^DATA=END/ { on = 0 }
        on { sub(/^ /, ""); if (k == "") k = $0; else { print k, $0; k = "" } }'
}
dump_rocksdb() {
    command -v ldb >/dev/null || skip "ldb (rocksdb-tools) not installed"
    rm -rf "$D/ldb-copy"
    cp -a "$1" "$D/ldb-copy"
    ldb --db="$D/ldb-copy" scan --hex | sed -n 's/^0x\([0-9A-Fa-f]*\) : 0x\([0-9A-Fa-f]*\)$/\1 \2/p' |
        tr 'A-F' 'a-f'
    rm -rf "$D/ldb-copy"
}
# The same from a flat export: file 000042 is key 42. (One python3 for
# all the files: an od per file made this test take seconds.)
dump_flat() {
    python3 -c 'import os, sys
for n in sorted(os.listdir(sys.argv[1])):
    with open(os.path.join(sys.argv[1], n), "rb") as f:
        print("%016x %s" % (int(n, 10), f.read().hex()))' "$1"
}

# grown_mib GLOB N: a path matching GLOB takes at least N MiB on disk.
grown_mib() {
    local p m
    for p in $1; do
        m=$(du -sm "$p" 2>/dev/null | cut -f1)
        [ -n "$m" ] && [ "$m" -ge "$2" ] && return 0
    done
    return 1
}

# A database big enough that an export is still writing when the signal
# comes: 200 MB, made once for the suite (under a lock: tests that run at
# the same time, bats --jobs, wait for the one that makes it).
big_db() {
    # shellcheck disable=SC2016  # the script's own arguments
    flock "$S/big.lock" bash -c '[ -e "$1" ] || "$2" init "$1" --count 200k --size 1000 >/dev/null' \
        big_db "$S/big.db" "$KVTEST"
}

# export_midway STORE: start exporting the big database into STORE:$D/e and
# wait until its temporary store has 16 MiB (polled every 20 ms: the
# export lasts well under a second).
export_midway() {
    big_db
    start export "$S/big.db" "$1:$D/e"
    wait_every 0.02 grown_mib "$D/e.kvtest-tmp-*" 16 ||
        fail "$1: export never got going or ended first: $(cat "$D/err")"
}

# export_stopped_by STORE SIG STATUS SIGNUM: an export into STORE:$D/e
# stopped mid-way by SIG exits STATUS with one line naming SIGNUM, and
# leaves no temporary file and no $D/e.
export_stopped_by() {
    export_midway "$1"
    stop_with "$2"
    assert_equal "$status" "$3"
    assert_one_err_line "kvtest export: interrupted by signal $4; temporary files removed"
    assert_no_tmp "$D"
    [ ! -e "$D/e" ] || fail "e exists: $(ls -A "$D/e")"
}

# ---- export, and reading every key ----------------------------------------

@test "export: the blobs and bytes of the database; stat and space agree with it" {
    db_bytes=$(jq -r .result.blob_bytes < <("$KVTEST" stat "$S/x.db" --json))
    db_sizes=$(jq -c .result.size_distribution.sizes < <("$KVTEST" stat "$S/x.db" --json))
    [ "$db_bytes" -gt 3000000 ]
    for k in lmdb rocksdb; do
        run "$KVTEST" export "$S/x.db" "$k:$D/e"
        assert_success
        assert_output --regexp "^Exported 300 blobs \\($db_bytes bytes\\) from $S/x.db to $D/e \\($k\\) in [0-9.]+ s$"
        json_of stat "$k:$D/e"
        assert_equal "$(jq -r .result.layout "$D/j")" "$k"
        assert_equal "$(jq -r .result.entries "$D/j")" 300
        assert_equal "$(jq -r .result.blob_bytes "$D/j")" "$db_bytes"
        assert_equal "$(jq -c .result.size_distribution.sizes "$D/j")" "$db_sizes"
        run "$KVTEST" stat "$k:$D/e"
        assert_success
        assert_line "Number of entries:       300"
        rm -rf "$D/e"
    done
    json_of space "$S/x.db" "$S/flat" "lmdb:$S/l" "rocksdb:$S/r"
    assert_equal "$(jq -r '[.layouts[].layout] | join(" ")' "$D/j")" "database flat lmdb rocksdb"
    for k in lmdb rocksdb; do
        assert_equal "$(jq -r ".layouts[] | select(.layout == \"$k\") | .content_bytes" "$D/j")" "$db_bytes"
        a=$(jq -r ".layouts[] | select(.layout == \"$k\") | .allocated_bytes" "$D/j")
        t=$(jq -r ".layouts[] | select(.layout == \"$k\") | .total_bytes" "$D/j")
        [ "$a" -ge "$db_bytes" ] || fail "$k: allocated $a < content $db_bytes"
        [ "$t" -ge "$a" ] || fail "$k: total $t < allocated $a"
    done
    run "$KVTEST" space "$S/x.db" "lmdb:$S/l" "rocksdb:$S/r"
    assert_success
    assert_line --regexp "^lmdb +2 +$db_bytes +[0-9]+ .* lmdb:$S/l$"
    assert_line --regexp "^rocksdb +[0-9]+ +$db_bytes +[0-9]+ .* rocksdb:$S/r$"
}

@test "export: every value byte-identical to the blob, under its key as 8 big-endian bytes (mdb_dump, ldb)" {
    dump_flat "$S/flat" >"$D/flat.dump"
    [ "$(wc -l <"$D/flat.dump")" -eq 300 ]
    dump_lmdb "$S/l" >"$D/l.dump"
    dump_rocksdb "$S/r" >"$D/r.dump"
    run cmp "$D/flat.dump" "$D/l.dump"
    assert_success
    run cmp "$D/flat.dump" "$D/r.dump"
    assert_success
}

@test "run --asc over every key: 0 misses, verified, the bytes of the database and the flat export" {
    for p in "$S/x.db" "$S/flat" "lmdb:$S/l" "rocksdb:$S/r"; do
        run --separate-stderr "$KVTEST" run "$p" --asc --count 300 --verify --keys-out "$D/${p##*/}.keys" --json
        assert_success
        [ -z "$stderr" ] || fail "$p: stderr: $stderr"
        echo "$output" >"$D/${p##*/}.json"
        assert_equal "$(jq -r .result.misses <<<"$output")" 0
        assert_equal "$(jq -r .result.count <<<"$output")" 300
        assert_equal "$(jq -r .result.verify.status <<<"$output")" ok
        assert_equal "$(jq -r .result.verify.checked <<<"$output")" 300
    done
    b=$(jq -r .result.bytes "$D/x.db.json")
    assert_equal "$b" "$(jq -r .result.blob_bytes < <("$KVTEST" stat "$S/x.db" --json))"
    for p in flat l r; do
        assert_equal "$(jq -r .result.bytes "$D/$p.json")" "$b"
        run cmp "$D/x.db.keys" "$D/$p.keys"
        assert_success
    done
    assert_equal "$(tr '\n' ' ' <"$D/l.keys" | cut -d' ' -f1-3,299-300)" "1 2 3 299 300"
    # the text result of SQLite's kvtest, headed by the engine
    run --separate-stderr "$KVTEST" run "lmdb:$S/l" --count 300 --verify
    assert_success
    assert_equal "${lines[0]}" "LMDB version: 0.9.24"
    assert_equal "${lines[1]}" "--count 300 --max-id 300 --asc"
    assert_equal "${lines[2]}" "LMDB page size: 4096"
    assert_line --regexp '^Microseconds per BLOB read: [0-9]+\.[0-9]{3}$'
    assert_line "Verify: ok, 300 blobs checked"
    run --separate-stderr "$KVTEST" run "rocksdb:$S/r" --count 300 --verify
    assert_success
    assert_equal "${lines[0]}" "RocksDB version: 7.8.3, block cache 8388608 bytes"
    assert_equal "${lines[1]}" "--count 300 --max-id 300 --asc"
    assert_line "Verify: ok, 300 blobs checked"
}

@test "run --random: a seeded permutation, the same keys and bytes in all four layouts" {
    for seed in 1 7; do
        for p in "$S/x.db" "$S/flat" "lmdb:$S/l" "rocksdb:$S/r"; do
            "$KVTEST" run "$p" --random --count 200 --seed "$seed" --verify \
                --keys-out "$D/${p##*/}.$seed.keys" --json >"$D/${p##*/}.$seed.json"
        done
        b=$(jq -r .result.bytes "$D/x.db.$seed.json")
        for p in flat l r; do
            assert_equal "$(jq -r .result.bytes "$D/$p.$seed.json")" "$b"
            assert_equal "$(jq -r .result.misses "$D/$p.$seed.json")" 0
            run cmp "$D/x.db.$seed.keys" "$D/$p.$seed.keys"
            assert_success
        done
        echo "$b" >"$D/bytes.$seed"
    done
    # 200 distinct keys in 1..300, not in ascending order
    assert_equal "$(sort -n "$D/l.1.keys" | uniq | wc -l)" 200
    [ "$(sort -n "$D/l.1.keys" | tail -1)" -le 300 ]
    run cmp "$D/l.1.keys" <(sort -n "$D/l.1.keys")
    assert_failure
    # another seed, other keys; sizes vary, so other bytes
    run cmp "$D/l.1.keys" "$D/l.7.keys"
    assert_failure
    [ "$(cat "$D/bytes.1")" != "$(cat "$D/bytes.7")" ]
    # the same seed again: the same keys and bytes
    "$KVTEST" run "rocksdb:$S/r" --random --count 200 --seed 7 --keys-out "$D/again.keys" --json >"$D/again.json"
    run cmp "$D/again.keys" "$D/r.7.keys"
    assert_success
    assert_equal "$(jq -r .result.bytes "$D/again.json")" "$(cat "$D/bytes.7")"
}

@test "run --threads 2 over a shared environment: every key read and verified" {
    for p in "lmdb:$S/l" "rocksdb:$S/r"; do
        run --separate-stderr "$KVTEST" run "$p" --threads 2 --count 300 --verify --multitrans --json
        assert_success
        assert_equal "$(jq -r .result.misses <<<"$output")" 0
        assert_equal "$(jq -r .result.verify.status <<<"$output")" ok
    done
}

@test "reads, cold runs and stat change nothing in a store (LMDB: its lock file aside)" {
    cp -a "$S/l" "$S/r" "$D/"
    mkdir "$D/before"
    cp -a "$D/l" "$D/r" "$D/before/"
    for p in "lmdb:$D/l" "rocksdb:$D/r"; do
        "$KVTEST" run "$p" --count 300 --random --verify --repeat 2 --cold >/dev/null
        "$KVTEST" run "$p" --count 100 --multitrans --threads 2 >/dev/null
        "$KVTEST" stat "$p" >/dev/null
    done
    "$KVTEST" space "$S/x.db" "lmdb:$D/l" "rocksdb:$D/r" >/dev/null
    run diff -r "$D/r" "$D/before/r"
    assert_success
    run diff -r -x lock.mdb "$D/l" "$D/before/l"
    assert_success
}

@test "run --update: exactly the keys asked get new content of the same size, read back verified" {
    cp -a "$S/l" "$S/r" "$D/"
    dump_lmdb "$D/l" >"$D/l.before"
    dump_rocksdb "$D/r" >"$D/r.before"
    sizes=$(jq -c .result.size_distribution.sizes < <("$KVTEST" stat "lmdb:$D/l" --json))
    # keys 1..50 in one transaction, 101..150 one transaction (or sync) each
    want=$(cd "$S/flat" && stat -c %s 0000{01..50} 000{101..150} | awk '{ s += $1 } END { print s }')
    for k in l r; do
        kind=lmdb
        [ "$k" = l ] || kind=rocksdb
        json_of run "$kind:$D/$k" --update --count 50 --seed 3 --verify
        w=$(jq -r .result.bytes "$D/j")
        assert_equal "$(jq -r .result.op "$D/j")" write
        assert_equal "$(jq -r .result.verify.status "$D/j")" ok
        json_of run "$kind:$D/$k" --update --count 50 --start 101 --multitrans --seed 4 --verify
        assert_equal "$((w + $(jq -r .result.bytes "$D/j")))" "$want"
        # what the engines' own tools see: changed where written, same size
        "dump_$kind" "$D/$k" >"$D/$k.after"
        [ "$(wc -l <"$D/$k.after")" -eq 300 ]
        join "$D/$k.before" "$D/$k.after" | awk '$2 != $3 { print $1 }' >"$D/$k.changed"
        run cmp "$D/$k.changed" <(printf '%016x\n' {1..50} {101..150})
        assert_success
        run awk '{ print $1, length($2) }' "$D/$k.before"
        before_len=$output
        run awk '{ print $1, length($2) }' "$D/$k.after"
        assert_equal "$output" "$before_len"
        # kvtest reads them back: every checksum holds, sizes unchanged
        run "$KVTEST" run "$kind:$D/$k" --count 300 --verify
        assert_success
        assert_line "Verify: ok, 300 blobs checked"
        assert_equal "$(jq -c .result.size_distribution.sizes < <("$KVTEST" stat "$kind:$D/$k" --json))" "$sizes"
    done
}

@test "run --cold: the store's files evicted, resident fraction at most 0.1" {
    [ "$(stat -f -c %T "$D")" != tmpfs ] || skip "$D is on tmpfs: nothing can be evicted"
    # Copies: another test reading the suite's stores at the same time
    # (bats --jobs) would bring their pages back.
    cp -a "$S/l" "$S/r" "$D/"
    for p in "lmdb:$D/l" "rocksdb:$D/r"; do
        # warm first, so the eviction has something to do
        "$KVTEST" run "$p" --count 300 >/dev/null
        # every page of every file of the store counted, and evicted
        run "$KVTEST" run "$p" --count 300 --random --cold
        assert_success
        dir=${p#*:}
        want=$(find "$dir" -maxdepth 1 -type f -printf '%s\n' |
            awk -v pg="$(getconf PAGESIZE)" '{ n += int(($1 + pg - 1) / pg) } END { print n }')
        assert_line --regexp "^Cold cache, run 1: 0\.0% of $want pages resident before the run"
        json_of run "$p" --count 300 --random --cold --verify
        f=$(jq -r .result.cold.resident_fraction "$D/j")
        [ "$f" != null ] || fail "$p: no result.cold.resident_fraction"
        awk -v f="$f" 'BEGIN { exit !(f <= 0.1) }' || fail "$p: resident fraction $f"
        assert_equal "$(jq -r .result.cold.effective "$D/j")" true
        assert_equal "$(jq -r .result.misses "$D/j")" 0
    done
}

@test "run --json names the store, engine version, page size and block cache" {
    json_of run "lmdb:$S/l" --count 10
    assert_equal "$(jq -r '[.result.store, .result.api, .result.engine_version, .result.page_size] | join(" ")' "$D/j")" \
        "lmdb lmdb 0.9.24 4096"
    json_of run "rocksdb:$S/r" --count 10
    assert_equal "$(jq -r '[.result.store, .result.api, .result.engine_version, .result.block_cache] | join(" ")' "$D/j")" \
        "rocksdb rocksdb 7.8.3 8388608"
    json_of run "rocksdb:$S/r" --count 10 --block-cache 1MiB
    assert_equal "$(jq -r .result.block_cache "$D/j")" 1048576
    run "$KVTEST" run "rocksdb:$S/r" --count 10 --block-cache 2MiB
    assert_success
    assert_equal "${lines[0]}" "RocksDB version: 7.8.3, block cache 2097152 bytes"
}

@test "stat lmdb: pages used x page size is mdb_stat's, exactly; rocksdb: its SST files" {
    command -v mdb_stat >/dev/null || skip "mdb_stat (lmdb-utils) not installed"
    run mdb_stat -e "$S/l"
    assert_success
    pages=$(sed -n 's/^ *Number of pages used: *//p' <<<"$output")
    psize=$(sed -n 's/^ *Page size: *//p' <<<"$output")
    msize=$(sed -n 's/^ *Map size: *//p' <<<"$output")
    [ "$pages" -gt 700 ] || fail "mdb_stat: $output"
    json_of stat "lmdb:$S/l"
    assert_equal "$(jq -r .result.lmdb.page_size "$D/j")" "$psize"
    assert_equal "$(jq -r .result.lmdb.pages_used "$D/j")" "$pages"
    assert_equal "$(jq -r .result.lmdb.used_bytes "$D/j")" "$((pages * psize))"
    assert_equal "$(jq -r .result.lmdb.map_size "$D/j")" "$msize"
    json_of space "$S/x.db" "lmdb:$S/l"
    assert_equal "$(jq -r '.layouts[] | select(.layout == "lmdb") | .lmdb.used_bytes' "$D/j")" "$((pages * psize))"
    run "$KVTEST" stat "lmdb:$S/l"
    assert_success
    assert_line "LMDB: page size $psize, $pages pages used ($((pages * psize)) bytes), map size $msize"
    # RocksDB after an update: the new values in a second WAL beside the SST
    cp -a "$S/r" "$D/r"
    "$KVTEST" run "rocksdb:$D/r" --update --count 10 >/dev/null
    logs=("$D"/r/*.log)
    [ "${#logs[@]}" -ge 2 ] || fail "one WAL after the update: $(ls "$D/r")"
    for r in "$S/r" "$D/r"; do
        json_of stat "rocksdb:$r"
        ssts=("$r"/*.sst)
        assert_equal "$(jq -r .result.rocksdb.sst_files "$D/j")" "${#ssts[@]}"
        assert_equal "$(jq -r .result.rocksdb.sst_bytes "$D/j")" \
            "$(stat -c %s "${ssts[@]}" | awk '{ s += $1 } END { print s }')"
        assert_equal "$(jq -r .result.entries "$D/j")" 300
    done
}

@test "database-only options: one warning line, the run goes on" {
    run --separate-stderr "$KVTEST" run "lmdb:$S/l" --count 20 --jmode wal --mmap 4096 --blob-api
    assert_success
    assert_equal "$stderr" "kvtest run: warning: --blob-api --jmode --mmap: option(s) ignored for the lmdb store"
    assert_line --partial "Microseconds per BLOB read"
    run --separate-stderr "$KVTEST" run "rocksdb:$S/r" --count 20 --synchronous normal --nocheckpoint \
        --integrity-check --fsync
    assert_success
    [ "${#stderr_lines[@]}" -eq 1 ] || fail "stderr: $stderr"
    [[ "$stderr" == "kvtest run: warning: --synchronous --nocheckpoint --integrity-check --fsync: option(s) ignored for the rocksdb store" ]] ||
        fail "stderr: $stderr"
    assert_line --partial "Microseconds per BLOB read"
}

# ---- bad input -----------------------------------------------------------

@test "misuse: exit 2, one line naming the problem, nothing created" {
    W=$D/w
    mkdir "$W"
    fails_with 2 "export: --tree applies to files, not to the lmdb store" export "$S/x.db" "lmdb:$W/t" --tree
    fails_with 2 "export: --force applies to files, not to the rocksdb store" export "$S/x.db" "rocksdb:$W/t" --force
    fails_with 2 "export: no directory after lmdb:" export "$S/x.db" "lmdb:"
    fails_with 2 "export: no directory after rocksdb:" export "$S/x.db" "rocksdb:"
    for p in "lmdb:$S/l" "$S/x.db" "$S/flat"; do
        fails_with 2 "run: --block-cache applies to a RocksDB store" run "$p" --block-cache 1M
    done
    fails_with 2 "init: lmdb:$W/t: init makes an SQLite database; make one, then \"kvtest export DBFILE lmdb:$W/t\"" \
        init "lmdb:$W/t"
    fails_with 2 "init: rocksdb:$W/t: init makes an SQLite database*" init "rocksdb:$W/t" --count 10
    fails_with 2 "stat: --vacuum applies to a database*lmdb*" stat "lmdb:$S/l" --vacuum
    run ls -A "$W"
    assert_output ""
}

@test "a path that is not the store its prefix names: exit 1, one line, nothing created in it" {
    fails_with 1 "run: $S/r holds a RocksDB database, not an LMDB environment (name it rocksdb:$S/r)" run "lmdb:$S/r"
    fails_with 1 "run: $S/l holds an LMDB environment, not a RocksDB database (name it lmdb:$S/l)" run "rocksdb:$S/l"
    fails_with 1 "stat: $S/r holds a RocksDB database, not an LMDB environment (name it rocksdb:$S/r)" stat "lmdb:$S/r"
    fails_with 1 "space: $S/l holds an LMDB environment, not a RocksDB database*" space "$S/x.db" "rocksdb:$S/l"
    mkdir "$D/empty"
    fails_with 1 "run: $D/empty: not an LMDB environment (no data.mdb)" run "lmdb:$D/empty"
    fails_with 1 "run: $D/empty: not a RocksDB database (no CURRENT)" run "rocksdb:$D/empty" --update
    fails_with 1 "stat: $D/empty: not an LMDB environment (no data.mdb)" stat "lmdb:$D/empty"
    fails_with 1 "run: $S/flat: not an LMDB environment (no data.mdb)" run "lmdb:$S/flat"
    fails_with 1 "run: $S/x.db: not a directory" run "rocksdb:$S/x.db"
    fails_with 1 "run: $D/none: No such file or directory" run "lmdb:$D/none"
    fails_with 1 "run: $D/none: No such file or directory" run "rocksdb:$D/none"
    fails_with 1 "stat: $D/none: No such file or directory" stat "rocksdb:$D/none"
    fails_with 1 "export: $D/none.db: No such file or directory" export "$D/none.db" "lmdb:$D/t"
    run ls -A "$D/empty"
    assert_output ""
    [ ! -e "$D/none" ] || fail "created $D/none"
    [ ! -e "$D/t" ] || fail "created $D/t"
    # the stores themselves untouched: no LOCK taken over, no lock.mdb made
    run ls -A "$S/r"
    refute_output --partial "mdb"
    run ls -A "$S/l"
    assert_output "data.mdb
lock.mdb"
}

@test "export into a directory that is not an earlier store of that kind: exit 1, left as it was" {
    mkdir "$D/other"
    echo keep >"$D/other/notes.txt"
    cp -a "$S/l" "$D/l"
    cp -a "$S/r" "$D/r"
    mkdir "$D/before"
    cp -a "$D/other" "$D/l" "$D/r" "$D/before/"
    cp -a "$S/flat" "$D/flat"
    fails_with 1 "export: $D/other is not empty and not an earlier lmdb store; refusing to write into it*" \
        export "$S/x.db" "lmdb:$D/other"
    fails_with 1 "export: $D/other is not empty and not an earlier rocksdb store;*" export "$S/x.db" "rocksdb:$D/other"
    fails_with 1 "export: $D/r is not empty and not an earlier lmdb store;*" export "$S/x.db" "lmdb:$D/r"
    fails_with 1 "export: $D/l is not empty and not an earlier rocksdb store;*" export "$S/x.db" "rocksdb:$D/l"
    fails_with 1 "export: $D/flat is not empty and not an earlier lmdb store;*" export "$S/x.db" "lmdb:$D/flat"
    touch "$D/afile"
    fails_with 1 "export: $D/afile: exists and is not a directory" export "$S/x.db" "lmdb:$D/afile"
    for d in other l r; do
        run diff -r "$D/$d" "$D/before/$d"
        assert_success
    done
    run diff -r "$D/flat" "$S/flat"
    assert_success
    assert_no_tmp "$D"
}

@test "export over an earlier store of the same kind (or an empty directory) replaces it" {
    "$KVTEST" init "$D/y.db" --count 120 --size 3000 --seed 9 >/dev/null
    for k in lmdb rocksdb; do
        "$KVTEST" export "$S/x.db" "$k:$D/e" >/dev/null
        run "$KVTEST" export "$D/y.db" "$k:$D/e"
        assert_success
        assert_output --regexp "^Exported 120 blobs \\(360000 bytes\\) from $D/y.db to $D/e \\($k\\)"
        json_of stat "$k:$D/e"
        assert_equal "$(jq -r .result.entries "$D/j")" 120
        assert_equal "$(jq -r .result.blob_bytes "$D/j")" 360000
        run "$KVTEST" run "$k:$D/e" --count 120 --verify --json
        assert_success
        assert_equal "$(jq -r .result.bytes <<<"$output")" 360000
        rm -rf "$D/e"
        mkdir "$D/e"
        run "$KVTEST" export "$D/y.db" "$k:$D/e"
        assert_success
        assert_equal "$(jq -r .result.entries < <("$KVTEST" stat "$k:$D/e" --json))" 120
        rm -rf "$D/e"
    done
    assert_no_tmp "$D"
}

# ---- interruption, a full disk, a read-only filesystem --------------------

@test "export into lmdb:DIR: SIGINT mid-way removes the partial store, exit 130, one line" {
    export_stopped_by lmdb INT 130 2
}

@test "export into rocksdb:DIR: SIGTERM mid-way removes the partial store, exit 143, one line" {
    export_stopped_by rocksdb TERM 143 15
}

@test "export over an earlier store: SIGINT / SIGTERM leave the earlier store whole" {
    sig=INT
    for k in lmdb rocksdb; do
        rm -rf "$D/e" "$D/e.before"
        cp -a "$S/${k:0:1}" "$D/e"
        cp -a "$D/e" "$D/e.before"
        export_midway "$k"
        stop_with "$sig"
        [ "$status" -eq 130 ] || [ "$status" -eq 143 ] || fail "$k: exit $status"
        assert_one_err_line "kvtest export: interrupted by signal *"
        assert_no_tmp "$D"
        run diff -r "$D/e" "$D/e.before"
        assert_success
        sig=TERM
    done
    run "$KVTEST" run "rocksdb:$D/e" --count 300 --verify
    assert_success
}

@test "full disk: export into either store fails with one line, exit 1, nothing left" {
    mount_tmpfs 2m
    for k in lmdb rocksdb; do
        run --separate-stderr "$KVTEST" export "$S/x.db" "$k:$MNT/e"
        assert_equal "$status" 1
        assert_equal "${#stderr_lines[@]}" 1
        [[ "$stderr" == "kvtest export: $MNT/e: "*"No space left on device"* ]] || fail "$k: $stderr"
        [[ "$stderr" != *kvtest-tmp* ]] || fail "$k names the temporary directory: $stderr"
        run ls -A "$MNT"
        assert_output ""
    done
    # into the mount point itself: no sibling to build in, refused up front
    fails_with 1 "export: $MNT: cannot build a store beside it*" export "$S/x.db" "lmdb:$MNT"
    run ls -A "$MNT"
    assert_output ""
}

@test "full disk: export over an earlier store keeps the earlier one whole" {
    mount_tmpfs 2m
    "$KVTEST" init "$D/y.db" --count 20 --size 2000 >/dev/null
    for k in lmdb rocksdb; do
        "$KVTEST" export "$D/y.db" "$k:$MNT/$k" >/dev/null
        cp -a "$MNT/$k" "$D/$k.before"
        run --separate-stderr "$KVTEST" export "$S/x.db" "$k:$MNT/$k"
        assert_equal "$status" 1
        assert_equal "${#stderr_lines[@]}" 1
        run diff -r "$MNT/$k" "$D/$k.before"
        assert_success
        assert_no_tmp "$MNT"
    done
    run "$KVTEST" run "lmdb:$MNT/lmdb" --count 20 --verify
    assert_success
}

@test "read-only filesystem: reads work (LMDB itself opens without its lock there), --update fails with one line" {
    mount_tmpfs 16m
    cp -a "$S/l" "$S/r" "$MNT/"
    cp -a "$S/l" "$MNT/l-nolock"
    rm "$MNT/l-nolock/lock.mdb"
    mount -o remount,ro "$MNT" || skip "cannot remount read-only"
    for p in "lmdb:$MNT/l" "lmdb:$MNT/l-nolock" "rocksdb:$MNT/r"; do
        run --separate-stderr "$KVTEST" run "$p" --count 300 --random --verify
        [ "$status" -eq 0 ] || fail "$p: $stderr"
        assert_line "Verify: ok, 300 blobs checked"
        [ -z "$stderr" ] || fail "$p: $stderr"
        run "$KVTEST" stat "$p" --json
        assert_success
        assert_equal "$(jq -r .result.entries <<<"$output")" 300
    done
    fails_with 1 "run: $MNT/l: Read-only file system" run "lmdb:$MNT/l" --update --count 5
    fails_with 1 "run: $MNT/r: Read-only file system" run "rocksdb:$MNT/r" --update --count 5
    fails_with 1 "export: *$MNT/e*Read-only file system" export "$S/x.db" "lmdb:$MNT/e"
}

# bats test_tags=other-user
@test "read-only directory, not root: LMDB reads without its lock file, --update fails with one line" {
    need_root "to run kvtest as another user"
    command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
    id nobody >/dev/null 2>&1 || skip "no user nobody"
    # nobody must reach the binary and the stores: copies in $D/ro
    for_others "$D/ro"
    cp "$KVTEST" "$D/ro/kvtest"
    cp -a "$S/l" "$S/r" "$D/ro/"
    cp -a "$S/l" "$D/ro/l-nolock"
    rm "$D/ro/l-nolock/lock.mdb"
    chmod -R a+rX,go-w "$D/ro"
    local BIN="$D/ro/kvtest-as-nobody"
    printf '#!/bin/sh\nexec setpriv --reuid=nobody --regid=nogroup --clear-groups %s "$@"\n' "$D/ro/kvtest" >"$BIN"
    chmod 755 "$BIN"
    for p in "lmdb:$D/ro/l" "lmdb:$D/ro/l-nolock" "rocksdb:$D/ro/r"; do
        run --separate-stderr "$BIN" run "$p" --count 300 --random --verify
        [ "$status" -eq 0 ] || fail "$p: $stderr"
        assert_line "Verify: ok, 300 blobs checked"
        [ -z "$stderr" ] || fail "$p: $stderr"
    done
    [ ! -e "$D/ro/l-nolock/lock.mdb" ] || fail "a lock file was made"
    fails_with 1 "run: $D/ro/l: Permission denied" run "lmdb:$D/ro/l" --update --count 5
    fails_with 1 "run: $D/ro/r: Permission denied" run "rocksdb:$D/ro/r" --update --count 5
}

# ---- builds, compare ------------------------------------------------------

@test "--version lists the stores; the portable core refuses them with exit 2" {
    run "$KVTEST" --version
    assert_success
    assert_line "Stores: db, files, lmdb 0.9.24, rocksdb 7.8.3"
    core=${KVTEST_CORE_BIN:-$BATS_TEST_DIRNAME/../../../build/core/kvtest}
    [ -x "$core" ] || skip "no core build at $core (make build/core/kvtest)"
    run "$core" --version
    assert_success
    assert_line "Stores: db, files (not in this build: lmdb, rocksdb)"
    local BIN=$core W=$D/w
    mkdir "$W"
    fails_with 2 "run: this build has no LMDB (the portable core leaves it out)" run "lmdb:$S/l"
    fails_with 2 "run: this build has no RocksDB (the portable core leaves it out)" run "rocksdb:$S/r"
    fails_with 2 "export: this build has no LMDB*" export "$S/x.db" "lmdb:$W/t"
    fails_with 2 "export: this build has no RocksDB*" export "$S/x.db" "rocksdb:$W/t"
    fails_with 2 "stat: lmdb:$S/l: this build has no LMDB*" stat "lmdb:$S/l"
    fails_with 2 "space: rocksdb:$S/r: this build has no RocksDB*" space "$S/x.db" "rocksdb:$S/r"
    run ls -A "$W"
    assert_output ""
}

@test "librocksdb is opened when a RocksDB store is used, not at start: one that cannot be opened is one line, exit 1, nothing created" {
    # not linked: a start that uses no RocksDB store never maps it
    run bash -c 'readelf -d "$1" | grep NEEDED' _ "$KVTEST"
    assert_success
    refute_output --partial librocksdb
    refute_output --partial libpq
    local W=$D/w
    mkdir "$W"
    export KVTEST_LIBROCKSDB=$D/none.so
    fails_with 1 "run: the RocksDB store: $D/none.so: cannot open shared object file*" run "rocksdb:$S/r"
    fails_with 1 "export: $W/t: the RocksDB store: $D/none.so: cannot open*" export "$S/x.db" "rocksdb:$W/t"
    fails_with 1 "stat: the RocksDB store: $D/none.so: cannot open*" stat "rocksdb:$S/r"
    run ls -A "$W"
    assert_output ""
    # a library without RocksDB's functions (one of RocksDB's own
    # dependencies): the first one missing is named
    KVTEST_LIBROCKSDB=libbz2.so.1.0 fails_with 1 "run: the RocksDB store: libbz2.so.1.0 has no rocksdb_*" \
        run "rocksdb:$S/r"
    # the other stores do not need it
    run "$KVTEST" run "lmdb:$S/l" --count 20 --verify
    assert_success
    assert_line "Verify: ok, 20 blobs checked"
}

@test "compare: lmdb and rocksdb results set side by side, one row each" {
    for f in old new; do
        for p in "lmdb:$S/l" "rocksdb:$S/r"; do
            "$KVTEST" run "$p" --count 300 --random --repeat 3 --json
            "$KVTEST" run "$p" --count 300 --random --cold --json
        done >"$D/$f.json"
    done
    run "$KVTEST" compare "$D/old.json" "$D/new.json"
    assert_success
    for m in "lmdb/lmdb random warm" "rocksdb/rocksdb random warm" "lmdb/lmdb random cold" \
        "rocksdb/rocksdb random cold"; do
        assert_line --regexp "^run read $m +us/blob +[13]/[13] "
        assert_line --regexp "^run read $m +MB/s "
    done
    run "$KVTEST" compare "$D/old.json" "$D/new.json" --json
    assert_success
    assert_equal "$(jq -r '[.rows[].measurement] | unique | join(",")' <<<"$output")" \
        "run read lmdb/lmdb random cold,run read lmdb/lmdb random warm,run read rocksdb/rocksdb random cold,run read rocksdb/rocksdb random warm"
}

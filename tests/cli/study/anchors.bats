#!/usr/bin/env bats
# scripts/study/anchors.sh: kvtest's LMDB figure against mdb_stat (exactly
# equal, and a mismatch caught when the two tools look at different
# stores), the RocksDB anchor against db_bench on a tiny export (the rounds
# alternate, the figures land in the CSV), and the report's subsection made
# from them. Needs mdb_stat (lmdb-utils) and db_bench (rocksdb-tools), and
# a kvtest built with LMDB and RocksDB; skipped, saying so, without them.
# In study/, so make test-repo runs it: the study's scripts (make bench),
# not kvtest.

load '../../lib/common'

setup() {
    common_setup
    ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
    A=$ROOT/scripts/study/anchors.sh
    "$KVTEST" --version | grep '^Stores: .*lmdb' >/dev/null || skip "this kvtest has no LMDB store"
    command -v mdb_stat >/dev/null || skip "no mdb_stat (lmdb-utils)"
}

# tiny DIR COUNT: DIR/x.db of COUNT blobs of 4k and its LMDB export DIR/l.
tiny() {
    mkdir -p "$1"
    "$KVTEST" init "$1/x.db" --count "$2" --size 4k --variance 1k >/dev/null
    "$KVTEST" export "$1/x.db" "lmdb:$1/l" >/dev/null
}

@test "anchors --check-lmdb: one export agrees exactly with mdb_stat's pages used x page size" {
    tiny "$D/a" 50
    run bash "$A" --check-lmdb "$D/a/l" "$D/a/l"
    assert_success
    # The figure the test reads from mdb_stat itself.
    bytes=$(mdb_stat -e "$D/a/l" | awk -F': *' '/Page size:/ { p = $2 } /Number of pages used:/ { u = $2 } END { print p * u }')
    [ "$bytes" -gt 0 ]
    assert_output --regexp "^agree: mdb_stat -e $D/a/l: [0-9]+ pages used x [0-9]+ bytes = $bytes bytes; kvtest stat lmdb:$D/a/l: used_bytes $bytes\$"
}

@test "anchors --check-lmdb: fed two different stores, it reports the mismatch and exits 1" {
    tiny "$D/a" 50
    tiny "$D/b" 400
    run bash "$A" --check-lmdb "$D/a/l" "$D/b/l"
    assert_failure 1
    assert_output --regexp "^MISMATCH: mdb_stat -e $D/a/l: [0-9]+ pages used x 4096 bytes = [0-9]+ bytes; kvtest stat lmdb:$D/b/l: used_bytes [0-9]+ \([0-9]+ pages x 4096 bytes\)\$"
    # The two figures really differ, and each is its own store's.
    a=$(sed -E 's/.* = ([0-9]+) bytes;.*/\1/' <<<"$output")
    b=$(sed -E 's/.*used_bytes ([0-9]+) .*/\1/' <<<"$output")
    [ "$a" -lt "$b" ]
    run bash "$A" --check-lmdb "$D/b/l" "$D/b/l"
    assert_success
    assert_output --partial "used_bytes $b"
}

@test "anchors: misuse is one line and exit 2" {
    run bash "$A" --check-lmdb "$D"
    assert_failure 2
    assert_output "anchors: --check-lmdb needs two directories: MDB_DIR KVTEST_DIR"
    run bash "$A" --rounds 0 --lmdb "$D"
    assert_failure 2
    assert_output "anchors: --rounds must be a positive whole number, not 0"
    run bash "$A" --out "$D/o"
    assert_failure 2
    assert_output "anchors: nothing to anchor: give --lmdb DIR and/or --rocksdb DIR (or --check-lmdb)"
    run bash "$A" --lmdb "$D/none"
    assert_failure 2
    assert_output "anchors: --lmdb $D/none: not a directory"
}

@test "anchors: LMDB rows per state in the CSV, RocksDB rounds against db_bench, and the report's subsection" {
    "$KVTEST" --version | grep '^Stores: .*rocksdb' >/dev/null || skip "this kvtest has no RocksDB store"
    command -v db_bench >/dev/null || skip "no db_bench (rocksdb-tools)"
    tiny "$D/a" 200
    "$KVTEST" export "$D/a/x.db" "rocksdb:$D/a/r" >/dev/null
    run bash "$A" --lmdb "$D/a/l" --rocksdb "$D/a/r" --rounds 2 --out "$D/o"
    assert_success
    run bash "$A" --lmdb "$D/a/l" --lmdb-state after-writes --out "$D/o" --force
    assert_success
    run cat "$D/o/csv/anchors-lmdb.csv"
    assert_line "state,mdb_stat_page_size,mdb_stat_pages_used,mdb_stat_bytes,kvtest_page_size,kvtest_pages_used,kvtest_used_bytes,agree"
    assert_line --regexp '^exported,4096,([0-9]+),([0-9]+),4096,\1,\2,yes$'
    assert_line --regexp '^after-writes,4096,([0-9]+),([0-9]+),4096,\1,\2,yes$'
    # Two rounds, alternating; every read found; kvtest's figures from its own JSON.
    run cut -d, -f1,2,7,8,15,16 "$D/o/csv/anchors-rocksdb.csv"
    assert_output "$(printf '%s\n' round,first,dbbench_reads,dbbench_found,kvtest_reads,block_cache \
        1,db_bench,200,200,200,8388608 2,kvtest,200,200,200,8388608)"
    run jq -r 'select(.bench.experiment == "anchor-rocksdb" and (.bench.warmup | not)) | .result.latency.mean' "$D/o/raw/anchors.jsonl"
    assert_equal "$(printf '%s\n' "$output" | paste -sd,)" \
        "$(awk -F, 'NR > 1 { print $9 }' "$D/o/csv/anchors-rocksdb.csv" | paste -sd,)"
    run grep -P '^compression\tkNoCompression\tkNoCompression\tyes\tyes$' "$D/o/csv/anchors-rocksdb-settings.tsv"
    assert_success
    run grep -P '^key order\t.*\tno\tyes$' "$D/o/csv/anchors-rocksdb-settings.tsv"   # 200 blobs fit the cache
    assert_success
    run bash "$ROOT/scripts/study/tables.sh" "$D/o"
    assert_success
    run jq -c '.["anchor/rocksdb/dbbench/kvtest"] | [.n, .covered]' "$D/o/csv/intervals.json"
    assert_output "[2,false]"
    run bash "$ROOT/scripts/study/report.sh" "$D/o"
    assert_success
    run grep -F -- "- **Anchors**" "$D/o/REPORT.md"
    assert_success
    assert_output --partial "LMDB: \`mdb_stat -e\` (pages used x page size) and \`kvtest stat lmdb:DIR\` (used_bytes) agree exactly ("
    assert_output --partial "bytes after the writes); RocksDB: db_bench's readrandom "
    assert_output --regexp "db_bench / kvtest [0-9.]+x \(range [0-9.]+–[0-9.]+ over 2 rounds, too few for a 95% CI\)"
    run grep -F "### Anchors: kvtest against mdb_stat and db_bench" "$D/o/REPORT.md"
    assert_success
    run grep -E '^\| (exported|after-writes) \| [0-9]+ \| 4096 \| [0-9]+ \| [0-9]+ \| yes \|$' "$D/o/REPORT.md"
    assert_line --index 1 --partial "| after-writes |"
    run grep -F "Unmatched on the read path (rows marked **no** above; the ratio above includes their effect): key order;" "$D/o/REPORT.md"
    assert_success
}

#!/usr/bin/env bats
# kvtest init, stat, export: compatibility with SQLite's kvtest (labels,
# defaults, file names), byte-identical exports, and every bad-input case.
# Small sizes only: the suite runs in seconds.

load '../../lib/common'

setup() {
    common_setup
}

@test "no arguments: usage on stderr, exit 2" {
    run --separate-stderr "$KVTEST"
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ "$stderr" == *"Usage: kvtest COMMAND"* ]]
}

@test "help for every core command, -opt and --opt spellings" {
    for c in init stat export run; do
        run "$KVTEST" help "$c"
        [ "$status" -eq 0 ]
        [[ "$output" == "Usage: kvtest $c"* ]]
    done
    run "$KVTEST" run --help
    [[ "$output" == *"--blob-api"*"--no-latency"* ]]
    "$KVTEST" init "$D/a.db" -count 20 -size 100 >/dev/null
    run "$KVTEST" stat "$D/a.db"
    [ "$(echo "$output" | field 'Number of entries')" = 20 ]
}

@test "init defaults: 1000 blobs of 10000 bytes, page size 4096, upstream stat labels" {
    run "$KVTEST" init "$D/d.db"
    [ "$status" -eq 0 ]
    run "$KVTEST" stat "$D/d.db"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "Number of entries:      1000" ]
    [ "${lines[1]}" = "Average value size:    10000" ]
    [ "${lines[2]}" = "Minimum value size:    10000" ]
    [ "${lines[3]}" = "Maximum value size:    10000" ]
    [ "${lines[4]}" = "Page-size:              4096" ]
    [[ "${lines[5]}" == "Page-count:"* ]]
    [ "${lines[6]}" = "Freelist-count:            0" ]
    [ "${lines[7]}" = "Integrity-check:    ok" ]
}

@test "init options: count, size, variance, pagesize with suffixes" {
    run "$KVTEST" init "$D/v.db" --count 2k --size 1KiB --variance 200 --pagesize 8KiB
    [ "$status" -eq 0 ]
    run "$KVTEST" stat "$D/v.db"
    [ "$(echo "$output" | field 'Number of entries')" = 2000 ]
    [ "$(echo "$output" | field 'Page-size')" = 8192 ]
    min=$(echo "$output" | field 'Minimum value size')
    max=$(echo "$output" | field 'Maximum value size')
    # 1024 +- 200: 2000 draws come close to both ends, never past them
    [ "$min" -ge 824 ]
    [ "$min" -lt 900 ]
    [ "$max" -le 1224 ]
    [ "$max" -gt 1150 ]
}

@test "init: same seed gives the same bytes, another seed other bytes" {
    "$KVTEST" init "$D/s1.db" --count 50 --size 500 --seed 42 >/dev/null
    "$KVTEST" init "$D/s2.db" --count 50 --size 500 --seed 42 >/dev/null
    "$KVTEST" init "$D/s3.db" --count 50 --size 500 --seed 43 >/dev/null
    "$KVTEST" export "$D/s1.db" "$D/e1" >/dev/null
    "$KVTEST" export "$D/s2.db" "$D/e2" >/dev/null
    "$KVTEST" export "$D/s3.db" "$D/e3" >/dev/null
    diff -r "$D/e1" "$D/e2"
    run cmp -s "$D/e1/000001" "$D/e3/000001"
    assert_failure 1
}

@test "init --json: one object with options and result" {
    run --separate-stderr "$KVTEST" init "$D/j.db" --count 10 --size 100 --json
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 1 ]
    [ "$(echo "$output" | jq -r '.command')" = init ]
    [ "$(echo "$output" | jq -r '.result.count')" = 10 ]
    [ "$(echo "$output" | jq -r '.result.bytes')" = 1000 ]
    [ "$(echo "$output" | jq -r '.env.sqlite_version')" = 3.52.0 ]
}

@test "init replaces a kvtest database but refuses anything else without --force" {
    "$KVTEST" init "$D/r.db" --count 10 --size 100 >/dev/null
    run "$KVTEST" init "$D/r.db" --count 20 --size 100
    [ "$status" -eq 0 ]
    echo "precious text" >"$D/notes.txt"
    expect_error 1 "refusing to overwrite" init "$D/notes.txt" --count 10
    [ "$(cat "$D/notes.txt")" = "precious text" ]
    : >"$D/empty"
    expect_error 1 "refusing to overwrite" init "$D/empty" --count 10
    run "$KVTEST" init "$D/notes.txt" --count 10 --size 100 --force
    [ "$status" -eq 0 ]
    run "$KVTEST" stat "$D/notes.txt"
    [ "$(echo "$output" | field 'Number of entries')" = 10 ]
    mkdir "$D/adir"
    expect_error 1 "is a directory" init "$D/adir"
    # no temporary file left behind
    [ -z "$(ls "$D" | grep kvtest-tmp)" ]
}

@test "init bad input: numbers, suffixes, overflow, conflicts" {
    expect_error 2 "missing DBFILE" init
    expect_error 2 "unexpected argument" init "$D/x.db" extra
    expect_error 2 "unknown option" init "$D/x.db" --bogus
    expect_error 2 "--count" init "$D/x.db" --count 0
    expect_error 2 "--count" init "$D/x.db" --count -5
    expect_error 2 "--count" init "$D/x.db" --count abc
    expect_error 2 "--count" init "$D/x.db" --count 10x
    expect_error 2 "--count" init "$D/x.db" --count 5000000000
    expect_error 2 "--count" init "$D/x.db" --count 99999999999999999999
    expect_error 2 "--size" init "$D/x.db" --size 3G
    expect_error 2 "--size" init "$D/x.db" --size 0
    expect_error 2 "--size" init "$D/x.db" --size 4294967297
    expect_error 2 "--pagesize" init "$D/x.db" --pagesize 1000
    expect_error 2 "--pagesize" init "$D/x.db" --pagesize 256
    expect_error 2 "--pagesize" init "$D/x.db" --pagesize 131072
    expect_error 2 "--variance" init "$D/x.db" --size 100 --variance 100
    expect_error 2 "needs a value" init "$D/x.db" --count
    [ ! -e "$D/x.db" ]
}

@test "init: a missing directory, a read-only place, not enough space" {
    expect_error 1 "No such file or directory" init "$D/no/such/dir/x.db"
    expect_error 1 "cannot create a file in /proc" init /proc/kvtest-test.db --count 10
    expect_error 1 "not enough space" init "$D/big.db" --count 1000000000 --size 1000000
    [ ! -e "$D/big.db" ]
}

@test "stat: --json, --vacuum, and export directories" {
    "$KVTEST" init "$D/s.db" --count 30 --size 1000 >/dev/null
    run "$KVTEST" stat "$D/s.db" --vacuum
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "Vacuuming....       done" ]]
    run --separate-stderr "$KVTEST" stat "$D/s.db" --json
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | jq -r '.result.entries')" = 30 ]
    [ "$(echo "$output" | jq -r '.result.integrity_check[0]')" = ok ]
    "$KVTEST" export "$D/s.db" "$D/sf" >/dev/null
    run "$KVTEST" stat "$D/sf"
    [ "$status" -eq 0 ]
    expect_error 2 "--vacuum" stat "$D/sf" --vacuum
}

@test "stat/run/export refuse a non-SQLite file, a truncated database, no kv table" {
    echo "just some text that is long enough to look like a header" >"$D/text.db"
    expect_error 1 "not an SQLite database" stat "$D/text.db"
    expect_error 1 "not an SQLite database" run "$D/text.db"
    expect_error 1 "not an SQLite database" export "$D/text.db" "$D/o1"
    # a database without a kv table: build one from a kvtest db by hand is
    # impossible without sqlite3, so truncate the header page instead and
    # use an empty file for "no kv table"
    : >"$D/empty.db"
    expect_error 1 "no kv table" stat "$D/empty.db"
    expect_error 1 "no kv table" run "$D/empty.db"
    "$KVTEST" init "$D/t.db" --count 200 --size 2000 >/dev/null
    head -c 8192 "$D/t.db" >"$D/trunc.db"
    run "$KVTEST" stat "$D/trunc.db"
    [ "$status" -eq 1 ]
    [[ "$output" == "kvtest stat: "*"trunc.db"* ]]
    run "$KVTEST" run "$D/trunc.db" --count 200
    [ "$status" -eq 1 ]
    [[ "$output" == "kvtest run: "*"trunc.db"* ]]
    [[ "$output" != *"Total elapsed"* ]]
}

@test "no kv table: a database of another program" {
    command -v python3 >/dev/null || skip "python3 not installed"
    python3 -c "import sqlite3; c=sqlite3.connect('$D/other.db'); c.execute('create table t(x)'); c.commit()" || skip "no sqlite3 module"
    expect_error 1 "no kv table" stat "$D/other.db"
    expect_error 1 "no kv table" run "$D/other.db"
    expect_error 1 "no kv table" export "$D/other.db" "$D/o2"
    expect_error 1 "refusing to overwrite" init "$D/other.db"
}

@test "export flat and tree: names, counts, byte-identical to each other and verified" {
    "$KVTEST" init "$D/x.db" --count 250 --size 3000 --variance 1000 >/dev/null
    run "$KVTEST" export "$D/x.db" "$D/flat"
    [ "$status" -eq 0 ]
    run "$KVTEST" export "$D/x.db" "$D/tree" --tree --jobs 3
    [ "$status" -eq 0 ]
    [ -f "$D/flat/000001" ]
    [ -f "$D/flat/000250" ]
    [ ! -e "$D/flat/000251" ]
    [ -f "$D/tree/00/00/01" ]
    [ -f "$D/tree/00/02/50" ]
    [ ! -e "$D/tree/00/02/51" ]
    [ "$(find "$D/flat" -type f | wc -l)" -eq 250 ]
    [ "$(find "$D/tree" -type f | wc -l)" -eq 250 ]
    for ((k = 1; k <= 250; k++)); do
        printf -v f '%06d' "$k"
        printf -v t '%02d/%02d/%02d' $((k / 10000)) $((k / 100 % 100)) $((k % 100))
        cmp -s "$D/flat/$f" "$D/tree/$t" || { echo "differ at $k"; return 1; }
    done
    # Every file checks against the checksum init sealed into its blob.
    run "$KVTEST" run "$D/flat" --count 250 --verify
    [ "$status" -eq 0 ]
    [[ "$output" == *"Verify: ok, 250 blobs checked"* ]]
    # Total bytes equal the database's content (stat: average x count).
    bytes=$(cat "$D"/flat/* | wc -c)
    run "$KVTEST" run "$D/x.db" --count 250 --json
    [ "$(echo "$output" | jq -r '.result.bytes')" = "$bytes" ]
}

@test "export byte-compared against the database with python's sqlite3" {
    command -v python3 >/dev/null || skip "python3 not installed"
    python3 -c "import sqlite3" 2>/dev/null || skip "no sqlite3 module"
    "$KVTEST" init "$D/x.db" --count 120 --size 800 --variance 300 >/dev/null
    "$KVTEST" export "$D/x.db" "$D/flat" --jobs 2 >/dev/null
    "$KVTEST" export "$D/x.db" "$D/tree" --tree >/dev/null
    python3 - "$D" <<'PY'
import sqlite3, sys, os
d = sys.argv[1]
c = sqlite3.connect(os.path.join(d, "x.db"))
n = 0
for k, v in c.execute("select k, v from kv"):
    for p in (os.path.join(d, "flat", "%06d" % k),
              os.path.join(d, "tree", "%02d/%02d/%02d" % (k // 10000, k // 100 % 100, k % 100))):
        with open(p, "rb") as f:
            assert f.read() == v, p
    n += 1
assert n == 120
PY
}

@test "export: directory rules (create, earlier export, non-empty, file, --force)" {
    "$KVTEST" init "$D/x.db" --count 20 --size 100 >/dev/null
    "$KVTEST" export "$D/x.db" "$D/e" >/dev/null
    run "$KVTEST" export "$D/x.db" "$D/e"        # an earlier export: fine
    [ "$status" -eq 0 ]
    mkdir "$D/busy"
    echo keep >"$D/busy/notes.txt"
    expect_error 1 "not empty and not an earlier export" export "$D/x.db" "$D/busy"
    [ "$(ls "$D/busy")" = notes.txt ]
    run "$KVTEST" export "$D/x.db" "$D/busy" --force
    [ "$status" -eq 0 ]
    [ "$(cat "$D/busy/notes.txt")" = keep ]
    [ -f "$D/busy/000020" ]
    expect_error 1 "holds a flat export" export "$D/x.db" "$D/e" --tree
    echo x >"$D/afile"
    expect_error 1 "not a directory" export "$D/x.db" "$D/afile"
    expect_error 1 "No such file" export "$D/nope.db" "$D/e2"
    expect_error 1 "is a directory" export "$D/e" "$D/e3"
    expect_error 2 "missing" export "$D/x.db"
    expect_error 2 "--jobs" export "$D/x.db" "$D/e4" --jobs 0
    expect_error 1 "" export "$D/x.db" /proc/kvtest-export-test
}

@test "export over an earlier, larger export removes the stale files" {
    "$KVTEST" init "$D/big.db" --count 40 --size 100 >/dev/null
    "$KVTEST" init "$D/small.db" --count 25 --size 100 >/dev/null
    "$KVTEST" export "$D/big.db" "$D/e" >/dev/null
    run "$KVTEST" export "$D/small.db" "$D/e"
    [ "$status" -eq 0 ]
    assert_output --partial "Removed 15 files of an earlier export beyond key 25"
    [ "$(ls "$D/e" | wc -l)" -eq 25 ]
    run "$KVTEST" run "$D/e" --json
    [ "$(echo "$output" | jq -r '.options.max_id')" = 25 ]
}

@test "export --json and --jobs larger than the blob count" {
    "$KVTEST" init "$D/x.db" --count 5 --size 100 >/dev/null
    run --separate-stderr "$KVTEST" export "$D/x.db" "$D/e" --jobs 8 --tree --json
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | jq -r '.result.files')" = 5 ]
    [ "$(echo "$output" | jq -r '.result.layout')" = tree ]
    [ -d "$D/e/00" ]
}

@test "progress goes to stderr only when it is a terminal" {
    "$KVTEST" init "$D/p.db" --count 300 --size 1000 2>"$D/err" >/dev/null
    [ ! -s "$D/err" ]
    "$KVTEST" export "$D/p.db" "$D/pe" 2>"$D/err" >/dev/null
    [ ! -s "$D/err" ]
}

@test "version and unknown command" {
    run "$KVTEST" --version
    [ "$status" -eq 0 ]
    [[ "$output" == *"SQLite version: 3.52.0"* ]]
    run "$KVTEST" frobnicate
    [ "$status" -eq 2 ]
}

@test "a write failure mid-init or mid-export leaves no half-file (file size limit)" {
    run bash -c 'trap "" XFSZ; ulimit -f 1000; exec "$0" init "$1/lim.db" --count 200 --size 10k' "$KVTEST" "$D"
    [ "$status" -eq 1 ]
    [[ "$output" == "kvtest init: "*"lim.db"*"File too large" ]]
    [ -z "$(ls "$D")" ]                       # neither lim.db nor a temporary file
    "$KVTEST" init "$D/ok.db" --count 5 --size 10000 >/dev/null
    run bash -c 'trap "" XFSZ; ulimit -f 5; exec "$0" export "$1/ok.db" "$1/e"' "$KVTEST" "$D"
    [ "$status" -eq 1 ]
    [[ "$output" == "kvtest export: "*"/e/000001: File too large" ]]
    [ ! -e "$D/e/000001" ]                    # the partial file was removed
}

@test "init creates the database with the usual permissions (umask), not 0600" {
    (umask 022; "$KVTEST" init "$D/p.db" --count 3 --size 100 >/dev/null)
    [ "$(stat -c %a "$D/p.db")" = 644 ]
}

@test "progress with rate and ETA appears when stderr is a terminal" {
    command -v script >/dev/null || skip "script(1) not installed"
    run script -qec "\"$KVTEST\" init \"$D/t.db\" --count 600k --size 40" /dev/null
    [ "$status" -eq 0 ]
    [[ "$output" == *"kvtest init: "*"/600000 blobs ("*"%), "*"blobs/s, "*"MB/s, ETA "* ]]
}

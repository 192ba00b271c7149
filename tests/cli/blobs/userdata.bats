#!/usr/bin/env bats
# The user's own data (issue 14): init --from DIR stores each regular file
# as one blob (keys in byte order of the paths, paths in kv_path), init
# --sizes-from DIR|FILE draws random blobs from DIR's size distribution,
# stat prints the distribution of a database or directory.

load '../../lib/common'

setup() {
    common_setup
    # Root reads any file; without these capabilities it obeys the mode bits.
    DROP=()
    if [ "$(id -u)" -eq 0 ]; then
        DROP=(setpriv --inh-caps=-dac_override,-dac_read_search
              --bounding-set=-dac_override,-dac_read_search)
    fi
}

teardown() {
    common_teardown
    chmod -R u+rwX "$D" 2>/dev/null || true
}

# A skewed mix: 4 files of 1 byte, 4 of 4 KiB, 2 of 100 KiB in nested
# folders (names whose byte order differs from a locale's: "B" < "a",
# "a.txt" < "a/..."), plus what must be skipped: an empty file, a symlink
# to a file, a symlink to a directory, a fifo, and (mode 000) "z/locked".
make_tree() {
    local s=$D/src
    mkdir -p "$s/a/b/c" "$s/B" "$s/z"
    printf x >"$s/a.txt"; printf y >"$s/B/one"; printf z >"$s/a/b/c/deep"; printf w >"$s/a/1"
    for f in a/k4 a/b/k4 B/k4 k4; do head -c 4096 /dev/urandom >"$s/$f"; done
    head -c 102400 /dev/urandom >"$s/a/b/c/big"
    head -c 102400 /dev/urandom >"$s/big2"
    : >"$s/empty"
    ln -s k4 "$s/link"
    ln -s a "$s/dirlink"
    mkfifo "$s/fifo"
    printf 'secret' >"$s/z/locked"
    chmod 000 "$s/z/locked"
}

# The files init --from must store, in its key order.
stored_paths() {
    (cd "$D/src" && find . -type f -size +0 ! -path ./z/locked | sed 's|^\./||' | LC_ALL=C sort)
}

@test "init --from: 10 stored; empty, symlinks, fifo, unreadable skipped and counted" {
    make_tree
    run --separate-stderr "${DROP[@]}" "$KVTEST" init "$D/u.db" --from "$D/src"
    assert_success
    assert_line --index 0 --partial "Created $D/u.db: 10 blobs, 221188 bytes"
    assert_line --index 1 "From $D/src: 10 files stored; skipped 1 empty, 0 over --max-size, 2 symlinks (not followed), 1 special, 1 unreadable, 0 changed while read"
    [[ "$stderr" == "kvtest init: warning: skipped $D/src/z/locked: Permission denied" ]] ||
        fail "stderr: $stderr"
    run "$KVTEST" stat "$D/u.db"
    assert_line "Number of entries:        10"
    run --separate-stderr "${DROP[@]}" "$KVTEST" init "$D/j.db" --from "$D/src" --max-size 4096 --json
    assert_success
    run jq -c '[.result.count, .result.skipped.too_large, .result.skipped.symlinks]' <<<"$output"
    assert_output "[8,2,2]"
}

@test "init --from: export gives back every file byte for byte, in path order" {
    make_tree
    rm -f "$D/src/z/locked"
    "$KVTEST" init "$D/u.db" --from "$D/src" >/dev/null
    run "$KVTEST" export "$D/u.db" "$D/out"
    assert_success
    mapfile -t paths < <(stored_paths)
    assert_equal "${#paths[@]}" 10
    run find "$D/out" -type f
    assert_equal "${#lines[@]}" 10
    local k=0 p
    for p in "${paths[@]}"; do
        k=$((k + 1))
        run cmp "$D/out/$(printf %06d "$k")" "$D/src/$p"
        assert_success
    done
}

@test "init --from: two runs give byte-identical databases" {
    make_tree
    rm -f "$D/src/z/locked"
    # stderr is not a terminal: no progress meter, nothing at all.
    run --separate-stderr "$KVTEST" init "$D/one.db" --from "$D/src"
    assert_success
    assert_equal "$stderr" ""
    "$KVTEST" init "$D/two.db" --from "$D/src" >/dev/null
    run cmp "$D/one.db" "$D/two.db"
    assert_success
}

@test "init --from: the blobs are unverifiable, not corrupt; run and sqlite's kv table still work" {
    make_tree
    rm -f "$D/src/z/locked"
    "$KVTEST" init "$D/u.db" --from "$D/src" >/dev/null
    run "$KVTEST" run "$D/u.db" --random --count 50 --verify
    assert_success
    assert_output --partial "Verify: unverifiable"
    run "$KVTEST" run "$D/u.db" --blob-api --count 10
    assert_success
    assert_output --partial "--max-id 10"
}

@test "init --from: after --update, --verify checks the sealed blobs and counts the user's apart" {
    make_tree
    rm -f "$D/src/z/locked"
    "$KVTEST" init "$D/u.db" --from "$D/src" >/dev/null
    # Key 1 (B/k4, 4 KiB) rewritten with sealed content; 2..10 stay the
    # user's files (the sample of --verify's probe includes key 1).
    run "$KVTEST" run "$D/u.db" --update --count 1
    assert_success
    run "$KVTEST" run "$D/u.db" --count 10 --verify
    assert_success
    assert_output --partial "Verify: ok, 1 blobs checked, 9 of the user's files (no kvtest checksum)"
    run "$KVTEST" run "$D/u.db" --count 10 --verify --json
    assert_success
    [ "$(echo "$output" | jq -c .result.verify)" = '{"status":"ok","checked":1,"unverifiable":9}' ]
}

@test "init --from: misuse is exit 2, one line; a DIR with nothing to store is exit 1, no file left" {
    make_tree
    for extra in "--count 5" "--size 100" "--variance 10" "--sizes-from $D/src"; do
        # shellcheck disable=SC2086  # two words
        run "$KVTEST" init "$D/m.db" --from "$D/src" $extra
        assert_equal "$status" 2
        assert_equal "${#lines[@]}" 1
        assert_output --regexp '^kvtest init: .*(--from|conflict)'
    done
    mkdir -p "$D/nothing/sub"
    : >"$D/nothing/empty"
    ln -s /etc/passwd "$D/nothing/sub/link"
    run "$KVTEST" init "$D/n.db" --from "$D/nothing"
    assert_equal "$status" 1
    assert_equal "${#lines[@]}" 1
    assert_output "kvtest init: $D/nothing: no file to store (1 empty, 0 over --max-size, 1 symlinks, 0 special, 0 unreadable directories)"
    run "$KVTEST" init "$D/n.db" --from "$D/missing"
    assert_equal "$status" 1
    assert_output "kvtest init: $D/missing: No such file or directory"
    run find "$D" -maxdepth 1 -name 'n.db*'
    assert_output ""
}

@test "init --from: only unreadable files is exit 1 and leaves no temporary database" {
    mkdir -p "$D/locked"
    printf abc >"$D/locked/f"
    chmod 000 "$D/locked/f"
    run "${DROP[@]}" "$KVTEST" init "$D/l.db" --from "$D/locked"
    assert_equal "$status" 1
    assert_line --index 1 "kvtest init: $D/locked: no file could be read (1 unreadable, 0 changed while read)"
    run find "$D" -maxdepth 1 -name 'l.db*'
    assert_output ""
}

@test "init --sizes-from DIR: reproducible with --seed, sizes drawn from the source's" {
    make_tree
    "$KVTEST" init "$D/s1.db" --sizes-from "$D/src" --seed 9 >/dev/null
    "$KVTEST" init "$D/s2.db" --sizes-from "$D/src" --seed 9 >/dev/null
    "$KVTEST" init "$D/s3.db" --sizes-from "$D/src" --seed 10 >/dev/null
    run cmp "$D/s1.db" "$D/s2.db"
    assert_success
    run cmp -s "$D/s1.db" "$D/s3.db"
    assert_failure
    # The seed draws the sizes too (with replacement), not only the bytes.
    local z1 z3
    z1=$("$KVTEST" stat "$D/s1.db" --json | jq -c '.result.size_distribution.sizes')
    z3=$("$KVTEST" stat "$D/s3.db" --json | jq -c '.result.size_distribution.sizes')
    [ "$z1" != "$z3" ] || fail "seeds 9 and 10 drew the same sizes: $z1"
    # Default count: the number of files of 1 byte or more (the locked one
    # too: only its size is read).
    run "$KVTEST" stat "$D/s1.db"
    assert_line "Number of entries:        11"
    "$KVTEST" init "$D/many.db" --sizes-from "$D/src" --count 2000 >/dev/null
    run bash -c "'$KVTEST' stat '$D/many.db' --json | jq -c '.result.size_distribution.sizes | unique'"
    assert_output "[1,6,4096,102400]"
    run bash -c "'$KVTEST' stat '$D/many.db' --json | jq '.result.size_distribution.sizes | map(select(. == 1)) | length'"
    # 4 of the 11 source sizes are 1 byte: about 727 of 2000 draws.
    [ "$output" -gt 650 ] && [ "$output" -lt 810 ] || fail "1-byte draws: $output"
    run "$KVTEST" run "$D/many.db" --random --count 500 --verify
    assert_success
    assert_output --partial "Verify: ok"
}

@test "init --sizes-from FILE: stat --json carries the sizes; same database as from the DIR" {
    make_tree
    "$KVTEST" stat "$D/src" --json >"$D/shape.jsonl"
    run jq -c '.result.size_distribution | [.count, .sizes_exact, (.sizes | length)]' "$D/shape.jsonl"
    assert_output "[11,true,11]"
    "$KVTEST" init "$D/dir.db" --sizes-from "$D/src" --seed 4 --count 300 >/dev/null
    "$KVTEST" init "$D/file.db" --sizes-from "$D/shape.jsonl" --seed 4 --count 300 >/dev/null
    run cmp "$D/dir.db" "$D/file.db"
    assert_success
    echo '{"command":"run"}' >"$D/bad.jsonl"
    run "$KVTEST" init "$D/b.db" --sizes-from "$D/bad.jsonl"
    assert_equal "$status" 1
    assert_output --partial "no size distribution"
    run "$KVTEST" init "$D/b.db" --sizes-from "$D/src" --size 100
    assert_equal "$status" 2
}

@test "stat: distribution and power-of-two histogram of a known set, directory and database" {
    # Distinct neighbours at ranks 1, 5 and 9, so an off-by-one rank shows.
    mkdir -p "$D/k/sub/deeper"
    local i=0 n
    for n in 1 10 100 1000 4096 4096 5000 50000 102400 200000; do
        i=$((i + 1))
        head -c "$n" /dev/zero >"$D/k/$([ $((i % 2)) = 0 ] && echo sub/)f$i"
    done
    mv "$D/k/f9" "$D/k/sub/deeper/f9"
    : >"$D/k/empty"
    local dist="Size distribution:  count=10 min=1 p10=1 p50=4096 p90=102400 p99=200000 max=200000 mean=36670"
    run "$KVTEST" stat "$D/k"
    assert_success
    assert_line "$dist"
    assert_line "Size histogram:     1:1 2:0 4:0 8:1 16:0 32:0 64:1 128:0 256:0 512:1 1Ki:0 2Ki:0 4Ki:3 8Ki:0 16Ki:0 32Ki:1 64Ki:1 128Ki:1"
    assert_line "Not in distribution: 1 empty, 0 symlinks, 0 special, 0 unreadable"
    "$KVTEST" init "$D/k.db" --from "$D/k" >/dev/null
    run "$KVTEST" stat "$D/k.db"
    assert_line --index 0 "Number of entries:        10"
    assert_line "$dist"
    run bash -c "'$KVTEST' stat '$D/k.db' --json | jq -c '.result | [.entries, .size_distribution.p10, .size_distribution.p90, .size_distribution.buckets[4]]'"
    assert_output '[10,1,102400,{"lo":4096,"hi":8192,"count":3}]'
}

@test "init --from: SIGINT mid-way removes the temporary database, exit 130" {
    mkdir -p "$D/big"
    local i
    for i in $(seq 1 40); do head -c 2000000 /dev/urandom >"$D/big/f$i"; done
    start init "$D/x.db" --from "$D/big"
    wait_until have_glob "$D/x.db.kvtest-tmp-*" ||
        fail "init never started writing: $(cat "$D/err")"
    stop_with INT
    # 80 MB take far longer to copy than a signal takes to arrive: a 0 here
    # means the signal was ignored, not that init was too quick.
    assert_equal "$status" 130
    run cat "$D/err"
    assert_output "kvtest init: interrupted by signal 2; temporary files removed"
    run find "$D" -maxdepth 1 -name 'x.db*'
    assert_output ""
}

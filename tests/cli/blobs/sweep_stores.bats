#!/usr/bin/env bats
# kvtest sweep --stores: LMDB and RocksDB beside the database and the
# files. Each size's database is exported into every listed store, all are
# timed in the same interleaved rounds with the same keys, and each store
# gets its columns and its crossover over the database's blob API. The
# default list (db,files) prints what sweep printed before --stores.
# Small sizes (a few hundred kB per size): the suite runs in seconds.

load '../../lib/common'

setup() {
    common_setup
}

teardown() {
    common_teardown
}

ALL=db,files,lmdb,rocksdb

# A table row of size $1: count, sql, blob, then us/blob and ratio for
# each of $2 stores.
row_re() {
    local re="^ +$1 +[0-9]+ +[0-9.]+ +[0-9.]+" i
    for ((i = 0; i < $2; i++)); do re+=" +[0-9.]+ +[0-9.]+"; done
    echo "$re\$"
}

@test "--stores db,files,lmdb,rocksdb: every store has a figure at every size and a crossover line" {
    run "$KVTEST" sweep "$D/sw" --stores "$ALL" --sizes 1k,30k --total 300k --repeat 2
    assert_success
    out=$output
    assert_line --index 0 --partial ", page size 4096, stores db, files, lmdb, rocksdb, random reads"
    assert_line --index 1 --regexp '^ +size +count +sql us/blob +blob us/blob +files us/blob +files/blob +lmdb us/blob +lmdb/blob +rocksdb us/blob +rocksdb/blob$'
    for s in 1k 30k; do
        run grep -Ec "$(row_re "$s" 3)" <<<"$out"
        assert_output 1
    done
    # One line per store, in the table's order, each with its interval.
    run grep -E '^Crossover' <<<"$out"
    assert_equal "${#lines[@]}" 3
    [[ "${lines[0]}" =~ ^"Crossover: ".*"(95% CI " ]] || fail "${lines[0]}"
    [[ "${lines[1]}" =~ ^"Crossover (lmdb): ".*"(95% CI " ]] || fail "${lines[1]}"
    [[ "${lines[2]}" =~ ^"Crossover (rocksdb): ".*"(95% CI " ]] || fail "${lines[2]}"
    [ ! -e "$D/sw" ] || fail "left behind: $(ls -A "$D/sw")"
}

@test "--stores --json: per-size figures and ratios of every store, a crossover object per store" {
    run "$KVTEST" sweep "$D/sw" --stores rocksdb,db,lmdb,files --sizes 1k,30k --total 300k \
        --repeat 2 --warmup 0 --json
    assert_success
    assert_equal "${#lines[@]}" 1
    j=$output
    run jq -e '.options.stores == ["db", "files", "lmdb", "rocksdb"] and (.rows | length) == 2
               and .stores_measured_once == true and .complete == true' <<<"$j"
    assert_success
    # Every store read every key once: count x size bytes, no miss, two rounds.
    run jq -e '[.rows[] | (.size * .count) as $b | .files, .lmdb, .rocksdb, .blob
                | .bytes == $b and .misses == 0 and (.runs_us | length) == 2
                  and .us_per_blob > 0] | length == 8 and all' <<<"$j"
    assert_success
    # Each ratio is that store over the database's blob-API time.
    run jq -e '[.rows[] as $r | ("files", "lmdb", "rocksdb") as $s
                | ($r["ratio_" + $s + "_blob"] - $r[$s].us_per_blob / $r.blob.us_per_blob | fabs < 1e-9)
                  and ($r["ratio_" + $s + "_sql"] - $r[$s].us_per_blob / $r.sql.us_per_blob | fabs < 1e-9)]
               | length == 6 and all' <<<"$j"
    assert_success
    run jq -e '(.crossovers | keys_unsorted) == ["files", "lmdb", "rocksdb"]
               and .crossover == .crossovers.files
               and (.crossovers.lmdb.line | startswith("Crossover (lmdb): "))
               and (.crossovers.rocksdb.line | startswith("Crossover (rocksdb): "))
               and all(.crossovers[]; (.kind | IN("cross", "db_wins", "files_win"))
                                      and .ci.resamples == 4000 and .ci.rounds == 2)
               and .pages[0].rows == .rows and .pages[0].crossovers == .crossovers' <<<"$j"
    assert_success
}

@test "--stores: the database, the files, LMDB and RocksDB are asked for the same keys in the same order" {
    run "$KVTEST" sweep "$D/sw" --stores "$ALL" --sizes 1k,30k --total 300k --repeat 2 \
        --keys-out "$D/keys"
    assert_success
    for s in 1000 30000; do
        n=$(( 300000 / s ))
        # A permutation of 1..count, in one random order.
        run sort -n -u "$D/keys-$s-files"
        assert_equal "${#lines[@]}" "$n"
        assert_equal "${lines[0]}" 1
        assert_equal "${lines[$((n - 1))]}" "$n"
        for x in lmdb rocksdb p4096-sql p4096-blob; do
            run cmp "$D/keys-$s-files" "$D/keys-$s-$x"
            assert_success
        done
    done
    # --update writes: the same keys again, for every store.
    run "$KVTEST" sweep "$D/su" --stores "$ALL" --sizes 2k --total 60k --warmup 0 --update \
        --keys-out "$D/upd"
    assert_success
    for x in lmdb rocksdb p4096-sql p4096-blob; do
        run cmp "$D/upd-2000-files" "$D/upd-2000-$x"
        assert_success
    done
    # A different seed is a different order (the comparison above can fail).
    run "$KVTEST" sweep "$D/ss" --stores db,lmdb --sizes 2k --total 60k --warmup 0 --seed 2 \
        --keys-out "$D/seed2"
    assert_success
    run cmp "$D/upd-2000-lmdb" "$D/seed2-2000-lmdb"
    assert_failure
}

@test "default --stores: no lmdb or rocksdb anywhere, the output sweep printed before --stores" {
    run "$KVTEST" sweep "$D/sw" --sizes 1k,30k --total 300k --warmup 0
    assert_success
    refute_output --partial lmdb
    refute_output --partial rocksdb
    refute_output --partial "stores"
    assert_line --index 1 --regexp '^ +size +count +sql us/blob +blob us/blob +files us/blob +files/blob$'
    run grep -Ec "$(row_re 30k 1)" <<<"$output"
    assert_output 1
    run "$KVTEST" sweep "$D/sw" --sizes 1k,30k --total 300k --warmup 0 --json
    assert_success
    refute_output --partial lmdb
    refute_output --partial rocksdb
    keys_default=$(jq -c '[paths | map(tostring) | join(".")]' <<<"$output")
    run jq -e 'has("crossovers") or has("stores_measured_once") or (.options | has("stores"))
               | not' <<<"$output"
    assert_success
    # Listing the default explicitly, in any order, changes nothing.
    run "$KVTEST" sweep "$D/sw" --stores files,db --sizes 1k,30k --total 300k --warmup 0 --json
    assert_success
    assert_equal "$(jq -c '[paths | map(tostring) | join(".")]' <<<"$output")" "$keys_default"
    run "$KVTEST" sweep "$D/sw" --sizes 1k,30k --total 300k --warmup 0 --csv
    assert_success
    refute_output --partial lmdb
    [ ! -e "$D/sw" ] || fail "left behind: $(ls -A "$D/sw")"
}

@test "--stores db,lmdb: no flat export, no files column, only the lmdb crossover" {
    run "$KVTEST" sweep "$D/sw" --stores lmdb,db --sizes 1k,30k --total 300k --warmup 0 --keep
    assert_success
    refute_output --partial files
    assert_line --index 1 --regexp '^ +size +count +sql us/blob +blob us/blob +lmdb us/blob +lmdb/blob$'
    run grep -E '^Crossover' <<<"$output"
    assert_equal "${#lines[@]}" 1
    [[ "${lines[0]}" == "Crossover (lmdb): "* ]] || fail "${lines[0]}"
    run ls "$D/sw"
    assert_output "$(printf '%s\n' sweep-1000.db sweep-1000.lmdb sweep-30000.db sweep-30000.lmdb)"
    # The kept store is what export makes: every blob of the database.
    run "$KVTEST" stat "lmdb:$D/sw/sweep-1000.lmdb"
    assert_success
    assert_equal "$(field 'Number of entries' <<<"$output")" 300
    run "$KVTEST" sweep "$D/sj" --stores db,rocksdb --sizes 1k,30k --total 300k --warmup 0 --json
    assert_success
    run jq -e '(.rows[0] | has("files") or has("ratio_files_blob") or has("lmdb") | not)
               and (.rows[1].rocksdb.bytes == 300000) and (has("crossover") | not)
               and (has("files_measured_once") | not)
               and (.crossovers | keys_unsorted) == ["rocksdb"]' <<<"$output"
    assert_success
}

@test "--stores with several page sizes: a line per store per page size" {
    run "$KVTEST" sweep "$D/sw" --stores "$ALL" --sizes 1k,30k --total 300k --warmup 0 \
        --page-sizes 4k,64k
    assert_success
    assert_output --partial "The stores files, lmdb, rocksdb do not depend on the page size"
    out=$output
    for s in 1k 30k; do
        for p in 4096 65536; do
            run grep -Ec "^ +$s +[0-9]+ +$p( +[0-9.]+){8}$" <<<"$out"
            assert_output 1
        done
    done
    run grep -E '^Crossover' <<<"$out"
    assert_equal "${#lines[@]}" 6
    want=("Crossover (page 4096): " "Crossover (page 65536): "
          "Crossover (lmdb, page 4096): " "Crossover (lmdb, page 65536): "
          "Crossover (rocksdb, page 4096): " "Crossover (rocksdb, page 65536): ")
    for i in 0 1 2 3 4 5; do
        [[ "${lines[$i]}" == "${want[$i]}"* ]] || fail "line $i: ${lines[$i]}"
    done
    [ ! -e "$D/sw" ] || fail "left behind: $(ls -A "$D/sw")"
}

@test "bad --stores: exit 2, one line, nothing created" {
    mkdir "$D/empty"
    for v in "db,bogus" "db,lmdb,lmdb" "db,db,files" "files,lmdb" "lmdb" "" "db,,lmdb" ",db" \
             "db,files," "db" "DB,files" "db, lmdb"; do
        for dir in "$D/sw" "$D/empty"; do
            run "$KVTEST" sweep "$dir" --sizes 1k --total 10k --stores "$v"
            echo "--stores '$v' -> $status: $output"
            assert_equal "$status" 2
            assert_equal "${#lines[@]}" 1
            [[ "$output" == "kvtest sweep: "*"--stores"* ]] || [[ "$output" == "kvtest sweep: "*"store '"* ]] ||
                fail "$output"
        done
        [ ! -e "$D/sw" ] || fail "--stores '$v' created $D/sw"
        run ls -A "$D/empty"
        assert_output ""
    done
    run "$KVTEST" sweep "$D/sw" --sizes 1k --total 10k --stores db,bogus
    assert_output "kvtest sweep: unknown store 'bogus' in --stores (expected db, files, lmdb or rocksdb)"
    run "$KVTEST" sweep "$D/sw" --sizes 1k --total 10k --stores db,lmdb,lmdb
    assert_output --partial "'lmdb' appears twice"
    run "$KVTEST" sweep "$D/sw" --sizes 1k --total 10k --stores files,lmdb
    assert_output --partial "lacks db"
    for v in "" ",db" "db,,lmdb" "db,files,"; do
        run "$KVTEST" sweep "$D/sw" --sizes 1k --total 10k --stores "$v"
        assert_output --partial "an empty item"
    done
}

@test "a store this build lacks: exit 2, one line, nothing created (core build)" {
    [ -n "${KVTEST_CORE_BIN:-}" ] || skip "KVTEST_CORE_BIN not set (make test sets it)"
    for s in lmdb rocksdb; do
        run "$KVTEST_CORE_BIN" sweep "$D/sw" --sizes 1k --total 10k --stores "db,files,$s"
        assert_equal "$status" 2
        assert_equal "${#lines[@]}" 1
        assert_output --regexp "^kvtest sweep: --stores $s: this build has no (LMDB|RocksDB)"
        [ ! -e "$D/sw" ] || fail "created $D/sw"
    done
}

@test "--stores without --keep: DIR keeps only what was there; a taken store name is refused" {
    mkdir -p "$D/mine/sweep-1000"
    echo mine >"$D/mine/notes"
    echo mine >"$D/mine/sweep-1000/000001"   # not sweep's: files are not listed
    run "$KVTEST" sweep "$D/mine" --force --stores db,lmdb,rocksdb --sizes 1k,30k --total 300k \
        --warmup 0 --repeat 2 --update
    assert_success
    run bash -c 'find "$1" -mindepth 1 | sort' _ "$D/mine"
    assert_output "$(printf '%s\n' "$D/mine/notes" "$D/mine/sweep-1000" "$D/mine/sweep-1000/000001" | sort)"
    assert_equal "$(cat "$D/mine/sweep-1000/000001")" mine
    # A name a later size's store will take: refused before anything is made.
    mkdir "$D/mine/sweep-30000.rocksdb"
    run "$KVTEST" sweep "$D/mine" --force --stores db,rocksdb --sizes 1k,30k --total 300k
    assert_equal "$status" 1
    assert_equal "${#lines[@]}" 1
    assert_output --partial "sweep-30000.rocksdb already exists"
    run ls -A "$D/mine"
    assert_output "$(printf '%s\n' notes sweep-1000 sweep-30000.rocksdb)"
}

@test "--stores: SIGTERM while the stores are timed removes everything of that size" {
    start sweep "$D/sw" --stores "$ALL" --sizes 1k --total 40M --warmup 0 --repeat 50
    wait_until test -e "$D/sw/sweep-1000.rocksdb/CURRENT" ||
        fail "RocksDB never came: $(cat "$D/err")"
    sleep 0.5
    stop_with TERM
    assert_equal "$status" 143
    run cat "$D/err"
    assert_equal "${#lines[@]}" 1
    assert_output --partial "interrupted by signal 15"
    [ ! -e "$D/sw" ] || fail "left behind: $(ls -AR "$D/sw")"
}

# Which store each measured access opens, in order (consecutive opens of
# one store are one visit): "db" for the size's database, "files" for its
# export, "lmdb" and "rocksdb" for the stores (not their temporaries while
# export builds them).
store_visits() {
    strace -f -e trace=openat -o "$D/trace" "${KVTEST_REL:-$KVTEST}" sweep "$D/sv" \
        --stores "$ALL" --sizes 10k --total 30k --warmup 0 --repeat 3 >/dev/null
    grep -oE 'sweep-10000(\.db|/[0-9]+|\.lmdb/[^"]*|\.rocksdb/[^"]*)"' "$D/trace" |
        sed -E 's/.*\.db"$/db/; s/.*\.lmdb\/.*/lmdb/; s/.*\.rocksdb\/.*/rocksdb/; s/.*\/[0-9]+"$/files/' |
        uniq | paste -sd' '
}

@test "--stores: the rounds are interleaved: each round visits every store, one further each time" {
    command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh installs it)"
    run store_visits
    assert_success
    # The exports read the database (one visit), then 3 rounds of files
    # lmdb rocksdb sql blob, each starting one layout further (sql and blob
    # are one "db" visit).
    assert_output 'db files lmdb rocksdb db lmdb rocksdb db files rocksdb db files lmdb'
}

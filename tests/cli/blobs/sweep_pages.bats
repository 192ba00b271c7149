#!/usr/bin/env bats
# kvtest sweep --page-sizes and --mmap (issue 11, part 1): one database per
# page size over the same keys and bytes, the files timed once per size, a
# crossover per page size. Real SQLite files, small --total: seconds.

load '../../lib/common'

setup() {
    common_setup
}

teardown() {
    common_teardown
}

# The page size a database really has, as kvtest stat reads it.
page_size_of() {
    "$KVTEST" stat "$1" | sed -n 's/^Page-size: *//p'
}

@test "--page-sizes: a table row per size and page size, a crossover line per page size" {
    run "$KVTEST" sweep "$D/sw" --sizes 1k,4k,20k --total 100k --warmup 0 --page-sizes 4k,64k,16k
    assert_success
    assert_output --partial "page sizes 4096, 16384, 65536"
    assert_output --partial "timed once per size"
    out=$output
    for s in 1k 4k 20k; do
        for p in 4096 16384 65536; do
            run grep -Ec "^ +$s +[0-9]+ +$p +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$" <<<"$out"
            assert_output 1
        done
    done
    # Ascending page order, one crossover line each, no single-page line.
    run grep -E '^Crossover' <<<"$out"
    assert_equal "${#lines[@]}" 3
    [[ "${lines[0]}" == "Crossover (page 4096): "* ]] || fail "${lines[0]}"
    [[ "${lines[1]}" == "Crossover (page 16384): "* ]] || fail "${lines[1]}"
    [[ "${lines[2]}" == "Crossover (page 65536): "* ]] || fail "${lines[2]}"
    [ ! -e "$D/sw" ] || fail "left behind: $(ls -A "$D/sw")"
}

@test "--page-sizes --keep: each database really has its page size and the same blobs as the files" {
    run "$KVTEST" sweep "$D/sw" --sizes 2k,8k --total 64k --warmup 0 --page-sizes 64k,4k --keep
    assert_success
    for s in 2000 8000; do
        assert_equal "$(page_size_of "$D/sw/sweep-$s-p4096.db")" 4096
        assert_equal "$(page_size_of "$D/sw/sweep-$s-p65536.db")" 65536
        # One export per size, made from the first database; every database
        # holds byte for byte what the files hold.
        for p in 4096 65536; do
            "$KVTEST" export "$D/sw/sweep-$s-p$p.db" "$D/re-$s-$p" >/dev/null
            run diff -r "$D/sw/sweep-$s" "$D/re-$s-$p"
            assert_success
        done
    done
    assert_equal "$(find "$D/sw/sweep-2000" -type f | wc -l)" 32
    run ls "$D/sw"
    assert_output "$(printf '%s\n' sweep-2000 sweep-2000-p4096.db sweep-2000-p65536.db \
                                    sweep-8000 sweep-8000-p4096.db sweep-8000-p65536.db)"
}

@test "--page-sizes: every page size and the files are asked for the same keys and bytes" {
    run "$KVTEST" sweep "$D/sw" --sizes 1k,5k --total 40k --warmup 0 --page-sizes 4k,8k,64k \
        --keys-out "$D/keys" --json
    assert_success
    for s in 1000 5000; do
        [ -s "$D/keys-$s-files" ] || fail "no keys of the files run for size $s"
        n=$(( s == 1000 ? 40 : 10 ))
        # Every key once (a permutation of 1..count), in one random order.
        run sort -n -u "$D/keys-$s-files"
        assert_equal "${#lines[@]}" "$n"
        for p in 4096 8192 65536; do
            for api in sql blob; do
                run cmp "$D/keys-$s-files" "$D/keys-$s-p$p-$api"
                assert_success
            done
        done
    done
    # The same bytes: each run read count x size bytes, files and database alike.
    run jq -e '[.pages[] | .pagesize] == [4096, 8192, 65536]' <<<"$output"
    assert_success
    run jq -e '[.pages[].rows[] | (.size * .count) as $b
                | .sql.bytes == $b and .blob.bytes == $b and .files.bytes == $b
                  and .sql.misses == 0 and .blob.misses == 0]
               | length == 6 and all' <<<"$output"
    assert_success
}

@test "--page-sizes --json: per-page rows and crossovers, existing fields kept" {
    run "$KVTEST" sweep "$D/sw" --sizes 1k,10k --total 50k --warmup 0 --page-sizes 4k,16k --json
    assert_success
    assert_equal "${#lines[@]}" 1
    j=$output
    # The fields scripts read before --page-sizes: those of the first page size.
    run jq -e '.command == "sweep" and (.rows | length) == 2 and .options.pagesize == 4096
               and .complete == true and (.crossover.kind | IN("cross", "db_wins", "files_win"))' <<<"$j"
    assert_success
    run jq -e '.options.page_sizes == [4096, 16384] and .files_measured_once == true
               and (.pages | length) == 2 and (.pages[1].rows | length) == 2
               and .pages[1].rows[0].size == 1000 and .pages[1].rows[1].count == 10' <<<"$j"
    assert_success
    run jq -e 'all(.pages[]; .crossover.line | startswith("Crossover (page "))
               and .pages[0].crossover == .crossover and .pages[0].rows == .rows' <<<"$j"
    assert_success
    # The files are timed once: every page size shows the same files figure.
    run jq -e '.pages[0].rows[1].files == .pages[1].rows[1].files
               and .pages[0].rows[1].blob != .pages[1].rows[1].blob' <<<"$j"
    assert_success
    # Each page size's ratio is files over its own blob-API time.
    run jq -e 'all(.pages[].rows[]; (.ratio_files_blob - .files.us_per_blob / .blob.us_per_blob)
               | fabs < 1e-9)' <<<"$j"
    assert_success
}

@test "one page size keeps the old output: Crossover: line, sweep-SIZE.db, --pagesize" {
    run "$KVTEST" sweep "$D/sw" --sizes 2k,8k --total 32k --warmup 0 --page-sizes 64k --keep
    assert_success
    assert_output --partial ", page size 65536, "
    run grep -c '^Crossover: ' <<<"$output"
    assert_output 1
    assert_equal "$(page_size_of "$D/sw/sweep-2000.db")" 65536
    run "$KVTEST" sweep "$D/sw2" --sizes 2k --total 32k --warmup 0 --pagesize 8192 --keep
    assert_success
    assert_equal "$(page_size_of "$D/sw2/sweep-2000.db")" 8192
    run "$KVTEST" sweep "$D/sw3" --sizes 2k --total 32k --warmup 0 --keep
    assert_success
    assert_equal "$(page_size_of "$D/sw3/sweep-2000.db")" 4096
}

@test "--mmap: accepted for the database side, stated in the header and the JSON" {
    run "$KVTEST" sweep "$D/sw" --sizes 1k,4k --total 20k --warmup 0 --mmap 1MiB --page-sizes 4k,8k
    assert_success
    assert_output --partial ", mmap 1048576,"
    run "$KVTEST" sweep "$D/sw" --sizes 1k --total 20k --warmup 0 --mmap 256M --json
    assert_success
    run jq -e '.options.mmap == 256000000' <<<"$output"
    assert_success
    run "$KVTEST" sweep "$D/sw" --sizes 1k --total 20k --mmap -1
    assert_equal "$status" 2
}

@test "bad --page-sizes, and --pagesize with --page-sizes, exit 2 with one line" {
    for v in 4000 1000 256 128k 131072 3k abc "" "4k," ",4k" "4k,,8k" "4k,4096" 0 -4k; do
        run "$KVTEST" sweep "$D/sw" --sizes 1k --total 10k --page-sizes "$v"
        echo "--page-sizes '$v' -> $status: $output"
        assert_equal "$status" 2
        assert_equal "${#lines[@]}" 1
        [[ "$output" == "kvtest sweep: "* ]] || fail "$output"
    done
    run "$KVTEST" sweep "$D/sw" --sizes 1k --total 10k --page-sizes 4k,64k --pagesize 4096
    assert_equal "$status" 2
    assert_equal "${#lines[@]}" 1
    assert_output --partial "--pagesize and --page-sizes"
    [ ! -e "$D/sw" ] || fail "sweep created $D/sw on a usage error"
}

@test "--page-sizes refuses to start when a later page size's database name is taken" {
    mkdir "$D/mine"
    echo mine >"$D/mine/sweep-3000-p65536.db"
    run "$KVTEST" sweep "$D/mine" --sizes 1k,3k --total 10k --force --page-sizes 4k,64k
    assert_equal "$status" 1
    assert_output --partial "sweep-3000-p65536.db already exists"
    assert_equal "$(cat "$D/mine/sweep-3000-p65536.db")" mine
    run ls "$D/mine"
    assert_output sweep-3000-p65536.db
}

@test "--page-sizes --keep: SIGTERM during a later page size removes every database of that size" {
    start sweep "$D/sw" --sizes 1k --total 40M --warmup 0 --page-sizes 4k,64k --keep
    wait_until have_glob "$D/sw/sweep-1000-p65536.db.kvtest-tmp-*" ||
        fail "the second page size never started: $(cat "$D/err")"
    stop_with TERM
    assert_equal "$status" 143
    run cat "$D/err"
    assert_equal "${#lines[@]}" 1
    assert_output --partial "interrupted by signal 15"
    # The size did not finish: its first database is not kept either.
    [ ! -e "$D/sw" ] || fail "left behind: $(ls -A "$D/sw")"
}

@test "--repeat: every layout keeps its rounds (runs_us) and the crossover has a bootstrap interval" {
    run "$KVTEST" sweep "$D/sw" --sizes 1k,10k --total 50k --warmup 0 --repeat 3 --page-sizes 4k,16k --json
    assert_success
    j=$output
    run jq -e 'all(.pages[].rows[] | .sql, .blob, .files;
                   (.runs_us | length) == 3 and (.us_per_blob as $u | any(.runs_us[]; . == $u))
                   and .us_min == (.runs_us | min) and .us_max == (.runs_us | max))' <<<"$j"
    assert_success
    run jq -e 'all(.pages[].crossover; .ci.resamples == 4000 and .ci.rounds == 3
                   and (.ci.lo_open == (.ci.lo == null)) and (.ci.hi_open == (.ci.hi == null))
                   and (.ci.beyond | IN("none", "above", "below"))
                   and (.line | test("[(](95% CI [^;]+); ")))
               and (.crossover.kind | IN("cross", "db_wins", "files_win"))' <<<"$j"
    assert_success
    run "$KVTEST" sweep "$D/sw" --sizes 1k,10k --total 50k --warmup 0 --repeat 2
    assert_success
    run grep -cE '^Crossover: .*[(]95% CI [^;]+; ' <<<"$output"
    assert_output 1
}

@test "one round per layout: no interval, and the line says so" {
    run "$KVTEST" sweep "$D/sw" --sizes 1k,10k --total 50k --warmup 0 --json
    assert_success
    run jq -e '.crossover.ci == null and (.rows[0].files.runs_us | length) == 1
               and (.crossover.line | contains("(no 95% CI from 1 measured round per layout; "))' <<<"$output"
    assert_success
}

# Which store each measured access opens, in order: "db" for the size's
# database, "files" for its export (consecutive opens of one store are one
# visit). Interleaved rounds visit the export between database rounds;
# timing each layout's rounds in a row would give just db, files.
store_visits() {
    strace -f -e trace=openat -o "$D/trace" "$KVTEST_REL" sweep "$D/sv" --sizes 10k \
        --total 30k --warmup 0 --repeat 3 >/dev/null
    grep -oE 'sweep-10000(\.db|/[0-9]+)"' "$D/trace" |
        sed -E 's/.*\.db"/db/; s/.*\/[0-9]+"/files/' | uniq | paste -sd' '
}

@test "--repeat: the rounds are interleaved: every round visits the files and the database" {
    command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh installs it)"
    run store_visits
    assert_success
    # the database and the export are built first (one visit each); then
    # each of the 3 rounds opens the files between database runs
    assert_output --regexp ' files db files db files db$'
}

@test "--repeat: each layout's us_per_blob is the median of its rounds (runs_us)" {
    run "$KVTEST" sweep "$D/sm" --sizes 1k,10k --total 50k --warmup 0 --repeat 3 --json
    assert_success
    run jq -e 'all(.pages[].rows[] | .sql, .blob, .files;
                   .us_per_blob == (.runs_us | sort | .[1]))' <<<"$output"
    assert_success
}

#!/usr/bin/env bats
# kvtest space, stat on export directories, and sweep (issue 3).
# Small sizes only: the whole suite runs in seconds.

load '../../lib/common'

setup() {
    common_setup
}

teardown() {
    common_teardown
}

# ---- space ---------------------------------------------------------------

@test "space: three layouts side by side, same content, overhead vs database" {
    make_layouts "$D" --count 300 --size 3000 --variance 500
    run "$KVTEST" space "$D/x.db" "$D/flat" "$D/tree"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -ge 4 ]
    [[ "${lines[0]}" == layout*files*content*allocated*dirs*"on disk"*"vs db"* ]]
    db=$(printf '%s\n' "${lines[@]}" | awk '$1=="database"{print $3}')
    fl=$(printf '%s\n' "${lines[@]}" | awk '$1=="flat"{print $2, $3}')
    tr=$(printf '%s\n' "${lines[@]}" | awk '$1=="tree"{print $2, $3}')
    [ "$fl" = "300 $db" ]
    [ "$tr" = "300 $db" ]
    # The overhead column is a signed percentage for each export.
    printf '%s\n' "${lines[@]}" | awk '$1=="flat"||$1=="tree"{print $7}' | grep -Eq '^[+-][0-9]+\.[0-9]%$'
    [[ "$output" == *"page utilisation"* ]]
}

@test "space --json: one object, figures consistent with du" {
    make_layouts "$D" --count 300 --size 3000 --variance 500
    run "$KVTEST" space "$D/x.db" "$D/flat" --json
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 1 ]
    echo "$output" | jq -e '.command == "space" and (.layouts | length) == 2' >/dev/null
    echo "$output" | jq -e '.layouts[0].layout == "database" and .layouts[1].layout == "flat"' >/dev/null
    echo "$output" | jq -e '.layouts[1].files == 300 and .layouts[1].content_bytes == .layouts[0].content_bytes' >/dev/null
    echo "$output" | jq -e '.database.page_utilisation > 0 and .database.page_utilisation <= 1' >/dev/null
    # Allocated bytes of the flat export agree with du (in KiB blocks).
    alloc=$(echo "$output" | jq '.layouts[1].allocated_bytes + .layouts[1].directory_bytes')
    du_k=$(du -sk "$D/flat" | cut -f1)
    [ "$alloc" -eq $((du_k * 1024)) ]
}

@test "space: usage and runtime errors" {
    make_layouts "$D" --count 300 --size 3000 --variance 500
    run "$KVTEST" space
    [ "$status" -eq 2 ]; [[ "$output" == "kvtest space: "* ]]
    run "$KVTEST" space "$D/x.db"
    [ "$status" -eq 2 ]
    run "$KVTEST" space "$D/x.db" "$D/flat" "$D/tree" "$D/flat" "$D/tree" extra
    [ "$status" -eq 2 ]; [[ "$output" == *"unexpected argument"* ]]
    run "$KVTEST" space "$D/x.db" "$D/flat" "$D/tree" "$D/extra"
    [ "$status" -eq 1 ]; [[ "$output" == "kvtest space: $D/extra: "* ]]
    run "$KVTEST" space "$D/x.db" "$D/flat" --bogus
    [ "$status" -eq 2 ]; [[ "$output" == *"unknown option"* ]]
    run "$KVTEST" space "$D/none.db" "$D/flat"
    [ "$status" -eq 1 ]; [[ "$output" == *"none.db"* ]]
    run "$KVTEST" space "$D/x.db" "$D/nodir"
    [ "$status" -eq 1 ]; [[ "$output" == *"nodir"* ]]
    run "$KVTEST" space "$D/x.db" "$D/x.db"
    [ "$status" -eq 2 ]; [[ "$output" == *"not a directory"* ]]
    echo "not a database, just text long enough to look like a header" >"$D/t.txt"
    run "$KVTEST" space "$D/t.txt" "$D/flat"
    [ "$status" -eq 1 ]; [[ "$output" == *"t.txt"* ]]
    [ "$(cat "$D/t.txt")" = "not a database, just text long enough to look like a header" ]
}

@test "space: warns when an export does not hold the database's blobs" {
    make_layouts "$D" --count 300 --size 3000 --variance 500
    mkdir "$D/part"
    cp "$D"/flat/00000* "$D/part/"
    run "$KVTEST" space "$D/x.db" "$D/part"
    [ "$status" -eq 0 ]
    [[ "$output" == *"warning"*"unfair"* ]]
}

# ---- stat on directories and space lines of stat on a database ---------

@test "stat on a flat export: files, apparent, allocated, directory overhead" {
    make_layouts "$D" --count 300 --size 3000 --variance 500
    run "$KVTEST" stat "$D/flat"
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | field Layout)" = flat ]
    [ "$(echo "$output" | field 'Number of files')" -eq 300 ]
    app=$(echo "$output" | field 'Apparent bytes')
    alloc=$(echo "$output" | field 'Allocated bytes')
    dirb=$(echo "$output" | field 'Directory overhead')
    [ "$app" -eq "$(cat "$D"/flat/* | wc -c)" ]
    [ "$alloc" -ge "$app" ]
    [ "$dirb" -gt 0 ]
}

@test "stat on a tree export: layout tree, nested directories counted" {
    make_layouts "$D" --count 300 --size 3000 --variance 500
    run "$KVTEST" stat "$D/tree"
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | field Layout)" = tree ]
    [ "$(echo "$output" | field 'Number of files')" -eq 300 ]
    # tree/, 00/, 00/00..00/03: six directories
    [ "$(echo "$output" | field Directories)" -eq 6 ]
}

@test "stat on a database adds file size, allocated, payload, utilisation" {
    make_layouts "$D" --count 300 --size 3000 --variance 500
    run "$KVTEST" stat "$D/x.db"
    [ "$status" -eq 0 ]
    [[ "$output" == *"Number of entries:"* ]]   # upstream lines first
    size=$(echo "$output" | field 'File size')
    [ "$size" -eq "$(stat -c %s "$D/x.db")" ]
    [ "$(echo "$output" | field 'Allocated bytes')" -gt 0 ]
    [ "$(echo "$output" | field 'Payload bytes')" -gt "$(echo "$output" | field 'Blob bytes')" ]
    echo "$output" | grep -Eq '^Page utilisation: +[0-9]+\.[0-9]%$'
}

# ---- sweep ---------------------------------------------------------------

@test "sweep: small end-to-end table, crossover line, cleans up after itself" {
    run "$KVTEST" sweep "$D/sw" --sizes 1k,4k,20k --total 200k --warmup 0
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^Crossover: '
    # One row per size: size count sql blob files ratio.
    rows=$(echo "$output" | grep -Ec '^ +(1k|4k|20k) +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$')
    [ "$rows" -eq 3 ]
    echo "$output" | grep -Eq '^ +1k +200 '
    echo "$output" | grep -Eq '^ +20k +10 '    # at least 10 blobs per size
    [ ! -e "$D/sw" ]                            # sweep made DIR, so it removes it
}

@test "sweep --keep keeps each size's database and export" {
    run "$KVTEST" sweep "$D/sw" --sizes 2k,8k --total 64k --keep --warmup 0
    [ "$status" -eq 0 ]
    [ -f "$D/sw/sweep-2000.db" ]
    [ -f "$D/sw/sweep-8000.db" ]
    [ "$(find "$D/sw/sweep-2000" -type f | wc -l)" -eq 32 ]
    [ "$(find "$D/sw/sweep-8000" -type f | wc -l)" -eq 10 ]
    [ "$(stat -c %s "$D/sw/sweep-2000/000001")" -eq 2000 ]
}

@test "sweep --json: one object with rows and crossover" {
    run "$KVTEST" sweep "$D/sw" --sizes 1k,10k --total 50k --json --warmup 0 --repeat 2
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 1 ]
    echo "$output" | jq -e '.command == "sweep" and (.rows | length) == 2' >/dev/null
    echo "$output" | jq -e '.rows[0].size == 1000 and .rows[0].count == 50' >/dev/null
    echo "$output" | jq -e '.rows[1].files.us_per_blob > 0 and .rows[1].blob.us_per_blob > 0 and .rows[1].sql.us_per_blob > 0' >/dev/null
    echo "$output" | jq -e '.crossover.kind | IN("cross", "db_wins", "files_win")' >/dev/null
    echo "$output" | jq -e '.crossover.line | startswith("Crossover: ")' >/dev/null
    echo "$output" | jq -e '.complete == true and .options.repeat == 2' >/dev/null
}

@test "sweep --update and --cold run" {
    run "$KVTEST" sweep "$D/sw" --sizes 1k,4k --total 20k --update --warmup 0
    [ "$status" -eq 0 ]
    [[ "$output" == *"random writes"* ]]
    echo "$output" | grep -q '^Crossover: '
    run "$KVTEST" sweep "$D/sw" --sizes 1k,4k --total 20k --cold
    [ "$status" -eq 0 ]
    [[ "$output" == *"cold cache"* ]]
    [ ! -e "$D/sw" ]
}

@test "sweep refuses a non-empty DIR without --force and touches nothing" {
    mkdir "$D/mine"
    echo precious >"$D/mine/notes.txt"
    run "$KVTEST" sweep "$D/mine" --sizes 1k --total 10k
    [ "$status" -eq 1 ]
    [[ "$output" == "kvtest sweep: "*"not empty"*"--force"* ]]
    [ "$(ls "$D/mine")" = notes.txt ]
    [ "$(cat "$D/mine/notes.txt")" = precious ]
}

@test "sweep --force in a non-empty DIR removes only what it created" {
    mkdir "$D/mine"
    echo precious >"$D/mine/notes.txt"
    mkdir "$D/mine/sub"
    run "$KVTEST" sweep "$D/mine" --sizes 1k,3k --total 10k --force --warmup 0
    [ "$status" -eq 0 ]
    [ "$(ls "$D/mine" | tr '\n' ' ')" = "notes.txt sub " ]
    [ "$(cat "$D/mine/notes.txt")" = precious ]
}

@test "sweep never overwrites a name it would create" {
    mkdir "$D/mine"
    echo mine >"$D/mine/sweep-3000.db"
    run "$KVTEST" sweep "$D/mine" --sizes 1k,3k --total 10k --force
    [ "$status" -eq 1 ]
    [[ "$output" == *"sweep-3000.db already exists"* ]]
    [ "$(cat "$D/mine/sweep-3000.db")" = mine ]
    [ "$(ls "$D/mine")" = sweep-3000.db ]   # nothing of size 1k was started
}

@test "sweep: interrupted mid-size, it removes what it created and nothing else" {
    mkdir "$D/mine"
    echo precious >"$D/mine/notes.txt"
    "$KVTEST" sweep "$D/mine" --force --sizes 1k,2k --total 20M >"$D/out" 2>&1 &
    PID=$!
    # Interrupt once the first size has started to write (waited for as long
    # as it takes, up to wait_until's 60 s; a sweep that never started, or
    # ended first, fails here, not in what follows). 20M of 1k blobs takes
    # seconds even to a fast machine: the signal lands mid-size.
    wait_until have_glob "$D/mine/sweep-*" || { cat "$D/out"; fail "sweep never started to write"; }
    kill -INT "$PID"
    st=0; wait "$PID" || st=$?
    PID=
    cat "$D/out"
    [ "$st" -eq 130 ]
    grep -q "interrupted" "$D/out"
    [ "$(ls -A "$D/mine")" = notes.txt ]
    [ "$(cat "$D/mine/notes.txt")" = precious ]
}

@test "sweep: usage errors exit 2 with one line" {
    for args in "" "--sizes 1k" "DIR --sizes ''" "DIR --sizes 1k,,2k" "DIR --sizes abc" \
                "DIR --sizes 1k,1000" "DIR --sizes 1k," "DIR --sizes 0" "DIR --total 0" \
                "DIR --pagesize 1000" "DIR --pagesize 128" "DIR --repeat 0" "DIR --bogus" \
                "DIR OTHER"; do
        eval "set -- ${args//DIR/$D/sw}"
        run "$KVTEST" sweep "$@"
        echo "args: $args -> $status: $output"
        [ "$status" -eq 2 ]
        [ "${#lines[@]}" -eq 1 ]
        [[ "$output" == "kvtest sweep: "* ]]
    done
    [ ! -e "$D/sw" ]
    touch "$D/afile"
    run "$KVTEST" sweep "$D/afile" --sizes 1k --total 10k
    [ "$status" -eq 2 ]; [[ "$output" == *"not a directory"* ]]
}

@test "sweep: missing parent and read-only DIR are runtime errors naming the path" {
    run "$KVTEST" sweep "$D/no/such/dir" --sizes 1k --total 10k
    [ "$status" -eq 1 ]; [[ "$output" == *"no/such/dir"* ]]
    mkdir "$D/ro"
    chmod 555 "$D/ro"
    # Root ignores permission bits; without CAP_DAC_OVERRIDE it does not.
    local drop=()
    if [ "$(id -u)" -eq 0 ]; then
        drop=(setpriv --bounding-set -dac_override,-dac_read_search,-fowner)
    fi
    run "${drop[@]}" "$KVTEST" sweep "$D/ro" --sizes 1k --total 10k
    [ "$status" -eq 1 ]
    [[ "$output" == *"$D/ro"* ]]
}

@test "sweep: not enough disk space is reported with the path before writing" {
    run "$KVTEST" sweep "$D/big" --sizes 1M --total 1000G
    [ "$status" -eq 1 ]
    [[ "$output" == "kvtest sweep: $D/big: not enough free space"* ]]
    [ ! -e "$D/big" ]
}

@test "help space and help sweep are the reference" {
    run "$KVTEST" help space
    [ "$status" -eq 0 ]; [[ "$output" == "Usage: kvtest space DBFILE STORE..."* ]]
    run "$KVTEST" help sweep
    [ "$status" -eq 0 ]; [[ "$output" == "Usage: kvtest sweep DIR"* ]]
    [[ "$output" == *"--keep"* && "$output" == *"--force"* && "$output" == *"Crossover"* ]]
}

#!/usr/bin/env bats
# The store options of the shortener's commands against the store kinds
# they apply to (shortener/cli/store_arg.c's table and the commands' own
# rows): an option the store cannot honour is refused before anything is
# opened, exit 2, one line, the same words whichever command takes it; an
# option left at its default is not refused. No server: the PostgreSQL URL
# names a port nothing listens on, so an accepted line fails later with 1.

load '../../lib/common'

setup() {
    common_setup
    PG=postgres://u@127.0.0.1:1/db
    X="$BATS_TEST_TMPDIR/x.db"
}

@test "store options of the other kind: serve refuses each, one line, exit 2" {
    expect_error 2 "shortener serve: --replicas needs a PostgreSQL store (--store postgres://...)" \
        shortener serve "$X" --replicas "$PG"
    expect_error 2 "shortener serve: --sqlite-cache applies to an SQLite store" \
        shortener serve --store "$PG" --sqlite-cache off
    expect_error 2 "shortener serve: --sqlite-exclusive applies to an SQLite store" \
        shortener serve --store "$PG" --sqlite-exclusive
    expect_error 2 "shortener serve: --store-timeout applies to a PostgreSQL store" \
        shortener serve "$X" --store-timeout 100
    expect_error 2 "shortener serve: --mem-limit counts the page cache of an SQLite DBFILE; a PostgreSQL store's memory is its server's" \
        shortener serve --store "$PG" --mem-limit 64MiB
}

@test "store options of the other kind: bench refuses each, for --compare-db too" {
    local pages="evicts an SQLite database file from the page cache; a PostgreSQL store's pages are its server's"
    expect_error 2 "shortener bench: --replicas needs a PostgreSQL store (--store postgres://...)" \
        shortener bench "$X" --replicas "$PG"
    expect_error 2 "shortener bench: --cold $pages" shortener bench --store "$PG" --cold
    expect_error 2 "shortener bench: --mem-limit $pages" \
        shortener bench --store "$PG" --mem-limit 64MiB
    expect_error 2 "shortener bench: --cold $pages" shortener bench "$X" --compare-db "$PG" --cold
    expect_error 2 "shortener bench: --mem-limit $pages" \
        shortener bench "$X" --compare-db "$PG" --mem-limit 64MiB
    expect_error 2 "shortener bench: --cold $pages" \
        shortener bench "$X" --compare-db "$PG" --cold --mem-limit 64MiB
}

@test "store options at their defaults are not refused on the other kind" {
    run "$KVTEST" shortener serve --store "$PG" --sqlite-cache on --port 0
    [ "$status" -eq 1 ]
    refute_output --partial "applies to"
    run "$KVTEST" shortener serve "$X" --store-timeout 5000 --port 0
    [ "$status" -eq 1 ]
    refute_output --partial "applies to"
}

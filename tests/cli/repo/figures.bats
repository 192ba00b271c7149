#!/usr/bin/env bats
# Figures on the pages against the data (scripts/dev/figures.py): every
# figure README.md and docs/*.md quote from results/ is tied to its
# finding ([`ID`] of results/findings.tsv) or to its cell (<!-- fig: ... -->),
# and the pages agree with the data. Then on a page and results files
# written here (--results DIR), so that a new reference run changes no
# test: one figure changed on the page, or one value in findings.tsv, is
# reported in one exact line and exit 1; --fix puts back the data's value
# and nothing else; a tag it cannot read and an unknown id exit 2 with
# one line.
# In repo/, so make test-repo runs it: the documentation, not kvtest.
load '../../lib/common'

setup() {
    D=$BATS_TEST_TMPDIR
    ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
    FIG=$ROOT/scripts/dev/figures.py
    mkdir -p "$D/results/csv"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' id label estimate lo hi kind \
        reads-warm-blob 'warm reads, blob API / files (time)' 0.570677 0.562161 0.589 ratio \
        reads-warm-sql 'warm reads, SQL / files (time)' 0.6402 0.6105 0.6812 ratio \
        http-valkey 'HTTP GET/s, valkey / no cache (rate)' 0.5904 0.5122 0.6061 rate \
        lookup-valkey 'lookups, valkey / sqlite (rate)' 0.3175 0.1488 0.3333 rate \
        crossover-4096 'crossover size, 4096-byte pages' 146935.2 101964 167615.4 bytes \
        >"$D/results/findings.tsv"
    printf 'layout,allocated_mib\nfiles,1155.1\ndb,1024.5\n' >"$D/results/csv/space.csv"
    cat >"$D/README.md" <<'PAGE'
- Warm cache, the database wins: SQLite's blob API took 0.57x the time per
  blob of one file per blob (95% CI 0.56–0.59) [`reads-warm-blob`], SQL
  reads 0.64x (0.61–0.68) [`reads-warm-sql`].
- Files become faster above 146,935 bytes (95% CI 101,964–167,615)
  [`crossover-4096`].
- Valkey cache-aside: 0.59x the GET/s of no cache (0.51–0.61) [`http-valkey`].
- The database was 1024.5 MiB<!-- fig: csv/space.csv row layout=db col allocated_mib -->.
PAGE
    cp "$D/README.md" "$D/README.orig"
}

# check_line TEXT: TEXT (printf's format) as a one-line page, checked
# against the test's results; $output and $status as run leaves them.
check_line() {
    # shellcheck disable=SC2059  # TEXT is a format on purpose (%% for %)
    printf "$1\n" >"$D/one.md"
    run python3 "$FIG" --results "$D/results" "$D/one.md"
}

# lineof TEXT: the line of the copy that holds TEXT.
lineof() {
    grep -nF -- "$1" "$D/README.md" | head -n1 | cut -d: -f1
}

@test "figures: README.md and docs/*.md agree with results/" {
    run python3 "$FIG"
    assert_success
    assert_output ""
    # The check sees the ties (one that found none would pass vacuously):
    # some on README and on every topic page
    # that quotes results/.
    run python3 "$FIG" --list
    assert_success
    assert_line --regexp "^README.md: [1-9][0-9]* ties$"
    local page n
    for page in study scaling shortener blobs ci-check building; do
        n=$(printf '%s\n' "$output" | sed -n "s|^docs/$page.md: \([0-9]*\) ties\$|\1|p")
        [ "${n:-0}" -ge 5 ] || fail "docs/$page.md: ${n:-no} ties"
    done
}

@test "figures: a figure changed on the page is one exact line, exit 1" {
    sed -i 's/reads 0\.64x (0\.61–0\.68)/reads 0.65x (0.61–0.68)/' "$D/README.md"
    n=$(lineof 'reads 0.65x')
    [ -n "$n" ] || fail "the copy was not changed"
    run python3 "$FIG" --results "$D/results" "$D/README.md"
    assert_failure 1
    assert_output "$D/README.md:$n: [reads-warm-sql] page says 0.65, data says 0.64"
}

@test "figures: an estimate followed by a comma is read (\"1.13, 95% CI\"), a thousands group is not split" {
    check_line 'SQL reads (0.65, 95%% CI 0.61–0.68) [`reads-warm-sql`].'
    assert_failure 1
    assert_output "$D/one.md:1: [reads-warm-sql] page says 0.65, data says 0.64"
    check_line 'Above 146,935 bytes (95%% CI 101,964–167,615) [`crossover-4096`].'
    assert_success
    assert_output ""
}

@test "figures: an interval's end and a cell changed on the page are caught" {
    sed -i 's/(0\.51–0\.61) \[`http-valkey`\]/(0.51–0.62) [`http-valkey`]/; s/was 1024\.5 MiB/was 1042.5 MiB/' "$D/README.md"
    a=$(lineof '(0.51–0.62)')
    b=$(lineof '1042.5 MiB')
    run python3 "$FIG" --results "$D/results" "$D/README.md"
    assert_failure 1
    assert_output "$D/README.md:$b: [csv/space.csv row layout=db col allocated_mib] page says 1042.5, data says 1024.5
$D/README.md:$a: [http-valkey] page says 0.62, data says 0.61"
}

@test "figures: a value changed in findings.tsv is caught" {
    sed -i 's/\t0\.562161\t/\t0.552161\t/' "$D/results/findings.tsv"
    grep -q 0.552161 "$D/results/findings.tsv" || fail "findings.tsv was not changed"
    n=$(lineof '(95% CI 0.56–0.59)')
    run python3 "$FIG" --results "$D/results" "$D/README.md"
    assert_failure 1
    assert_output "$D/README.md:$n: [reads-warm-blob] page says 0.56, data says 0.55"
}

@test "figures: --fix writes the data's value back and changes nothing else" {
    sed -i 's/reads 0\.64x (0\.61–0\.68)/reads 0.65x (0.61–0.68)/; s/146,935 bytes/146,953 bytes/; s/was 1024\.5 MiB/was 1042.5 MiB/' "$D/README.md"
    run cmp -s "$D/README.md" "$D/README.orig"
    assert_failure 1
    run python3 "$FIG" --fix --results "$D/results" "$D/README.md"
    assert_success
    assert_line --partial "[reads-warm-sql] page says 0.65, data says 0.64"
    assert_line --partial "[crossover-4096] page says 146,953, data says 146,935"
    run python3 "$FIG" --results "$D/results" "$D/README.md"
    assert_success
    assert_output ""
    run diff "$D/README.orig" "$D/README.md"
    assert_success
    # And a finding moved in the data moves the page, that number only.
    sed -i 's/\t0\.570677\t/\t0.581\t/' "$D/results/findings.tsv"
    run python3 "$FIG" --fix --results "$D/results" "$D/README.md"
    assert_success
    run diff "$D/README.orig" "$D/README.md"
    assert_failure 1
    assert_output --partial "< - Warm cache, the database wins: SQLite's blob API took 0.57x the time per
---
> - Warm cache, the database wins: SQLite's blob API took 0.58x the time per"
    [ "$(diff "$D/README.orig" "$D/README.md" | grep -c '^[<>]')" -eq 2 ] || fail "more than one line changed"
}

# refused TEXT WANT: a page holding TEXT is refused, exit 2, with WANT
# (after "PAGE:1: ") as its one line.
refused() {
    printf '%s\n' "$1" >"$D/bad.md"
    run python3 "$FIG" --results "$D/results" "$D/bad.md"
    assert_failure 2
    assert_output "$D/bad.md:1: $2"
}

@test "figures: a tag it cannot read and an unknown id exit 2 with one line" {
    refused 'A ratio of 0.57x (0.56–0.59) [`reads/warm`].' "bad tag [\`reads/warm\`]"
    refused 'Space: 1024.5 MiB<!-- fig: csv/space.csv row layout=db -->.' \
        "bad tag <!-- fig: csv/space.csv row layout=db -->: wants col and one of row or line"
    refused 'A ratio of 0.57x (0.56–0.59) [`reads-warm-blobs`].' \
        "unknown id reads-warm-blobs (not in findings.tsv)"
    refused 'Space: 1024.5 MiB<!-- fig: csv/nospace.csv row layout=db col mib -->.' \
        "no such data file: csv/nospace.csv"
}

@test "figures: an inverse is shown only with its marker [\`1/ID\`]" {
    check_line 'Valkey ran at 1/3.15 of the rate (3.00–6.72) [`1/lookup-valkey`].'
    assert_success
    assert_output ""
    check_line 'Valkey ran at 1/3.15 of the rate (3.00–6.72) [`lookup-valkey`].'
    assert_failure 1
    assert_line "$D/one.md:1: [lookup-valkey] page says 3.15, data says 0.32"
    check_line 'Above 0.00 bytes [`1/crossover-4096`].'
    assert_failure 2
    assert_output "$D/one.md:1: bad tag [\`1/crossover-4096\`]: an inverse of a bytes"
}

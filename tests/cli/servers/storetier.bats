#!/usr/bin/env bats
# scripts/study/storetier.sh, make bench's store tier: one tiny run (2
# rounds, 300 links, 300 ms HTTP runs) on real servers, made once for the
# file. Every part must have measured every configuration of every round,
# in rotated order, with no failed request; the replica runs' lookups must
# have gone where their --replicas said; the report's verdicts must follow
# the intervals; and nothing it started may be left running. No figure is
# compared with another: the machine is noisy. The release binary runs
# (KVTEST_REL).
# In servers/, so make test-servers runs it: the store-tier study,
# PostgreSQL with replicas beside SQLite.

load '../../lib/common'

setup_file() {
    SCRIPT=$BATS_TEST_DIRNAME/../../../scripts/study/storetier.sh
    ST=$BATS_FILE_TMPDIR/st
    export ST
    timeout -k 5 300 bash "$SCRIPT" "$ST" --links 300 --lookups 300 --rounds 2 \
        --duration 300ms --threads 4 --kvtest "${KVTEST_REL:-$KVTEST}" \
        >"$BATS_FILE_TMPDIR/run.out" 2>"$BATS_FILE_TMPDIR/run.err"
    echo $? >"$BATS_FILE_TMPDIR/run.status"
}

setup() {
    common_setup
    SCRIPT=$BATS_TEST_DIRNAME/../../../scripts/study/storetier.sh
}

# rows CSV AWK_CONDITION: the number of data rows that satisfy it.
rows() {
    awk -F, -v OFS=, "NR > 1 && ($2) { n++ } END { print n + 0 }" "$1"
}

@test "storetier.sh: a tiny run measures every configuration of every part, in rotated order, none failing" {
    run cat "$BATS_FILE_TMPDIR/run.status"
    assert_output 0
    local c=$ST/csv
    # in-process: 2 rounds x 2 key distributions x 2 stores x 3 configurations
    run rows "$c/storetier-bench.csv" '$5 > 0 && $4 ~ /^(none|valkey|valkey-track)$/'
    assert_output 24
    # the stores take turns going first
    run awk -F, 'NR > 1 && $3 == "uniform" && $4 == "none" { printf "%s:%s ", $1, $2 }' \
        "$c/storetier-bench.csv"
    assert_output "1:sqlite 1:postgres 2:postgres 2:sqlite "
    # HTTP: 2 rounds x 12 configurations, every GET answered
    run rows "$c/storetier-http.csv" '$5 > 0 && $8 == 0'
    assert_output 24
    run awk -F, 'NR > 1 { k[$2 "/" $3 "/" $4]++ } END { for (x in k) if (k[x] != 2) exit 1; print length(k) }' \
        "$c/storetier-http.csv"
    assert_output 12
    # creates: both stores each round
    run rows "$c/storetier-post.csv" '$3 > 0 && $6 == 0'
    assert_output 4
    # references: pgbench and valkey-benchmark each round
    run rows "$c/storetier-ref.csv" '($2 == "pgbench" || $2 == "valkey-benchmark") && $3 > 0'
    assert_output 4
    # the settings the figures depend on are recorded
    run cat "$ST/logs/storetier-settings.txt"
    assert_line --regexp '^synchronous_commit: on$'
    assert_line --regexp '^shared_buffers: '
}

@test "storetier.sh: lookups went to the replicas --replicas named, and none to them without" {
    local c=$ST/csv/storetier-replicas.csv
    run rows "$c" '$2 == 0 && $6 == 0 && $7 > 0'
    assert_output 2
    run rows "$c" '($2 == 1 || $2 == 2) && $6 > 0 && $7 == 0'
    assert_output 4
}

@test "storetier.sh: the report's verdicts follow the intervals; under 4 rounds they are ranges" {
    run cat "$ST/REPORT.md"
    assert_output --partial '### The store tier: SQLite in-process vs PostgreSQL across the network'
    assert_output --partial 'too few for a 95% CI'
    # the same section from made-up intervals: above 1, below 1, across 1
    cp -r "$ST" "$D/r"
    jq '.["http/postgres/uniform/valkey/none"] = {est: 1.5, lo: 1.2, hi: 1.8, n: 5, covered: true}
        | .["http/sqlite/uniform/valkey/none"] = {est: 0.5, lo: 0.4, hi: 0.6, n: 5, covered: true}
        | .["http/postgres/zipf/valkey/none"] = {est: 1.1, lo: 0.99, hi: 1.3, n: 5, covered: true}' \
        "$ST/csv/storetier-ci.json" >"$D/r/csv/storetier-ci.json"
    run bash "$BATS_TEST_DIRNAME/../../../scripts/study/report-storetier.sh" "$D/r"
    assert_success
    assert_line --regexp '^\| postgres \| uniform \| Valkey cache-aside \|.*\| 1\.5x \(95% CI 1\.2x–1\.8x\) \| pays off \|$'
    assert_line --regexp '^\| sqlite \| uniform \| Valkey cache-aside \|.*\| 0\.5x \(95% CI 0\.4x–0\.6x\) \| costs \|$'
    assert_line --regexp '^\| postgres \| zipf \| Valkey cache-aside \|.*\| 1\.1x \(95% CI 0\.99x–1\.3x\) \| no difference measurable here \|$'
}

@test "storetier.sh: nothing it started is left running or on disk" {
    local port
    # the primary's port, from the command that filled it
    port=$(sed -n 's|.*postgres://postgres@127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$ST/commands.tsv" | head -n1)
    [ -n "$port" ]
    run bash -c "exec 9<>/dev/tcp/127.0.0.1/$port"
    assert_failure
    run find "$ST/scratch" -mindepth 1 -maxdepth 1
    assert_output ""
}

@test "storetier.sh: bad arguments exit 2 with one line, before anything runs" {
    run bash "$SCRIPT" "$D/x" --rounds 0
    assert_failure 2
    [ "${#lines[@]}" -eq 1 ]
    run bash "$SCRIPT" "$D/x" --bogus
    assert_failure 2
    [ "${#lines[@]}" -eq 1 ]
    run bash "$SCRIPT"
    assert_failure 2
    [ "${#lines[@]}" -eq 1 ]
    [ ! -e "$D/x" ]
}

#!/usr/bin/env bats
# scripts/study/memlimit.sh, make bench's memory-limit part: its argument
# checks (one line, exit 2, before anything runs; "needs root" as another
# user) and one tiny run of both legs, every configuration, and the
# report's section. kvtest's own --mem-limit is
# tests/cli/shortener/shortener_memlimit.bats.
# In study/, so make test-repo runs it: the study's scripts (make bench),
# not kvtest.

load '../../lib/common'

setup() {
    shortener_setup
}

teardown() {
    shortener_teardown
}

MLSH=$BATS_TEST_DIRNAME/../../../scripts/study/memlimit.sh

# bats test_tags=other-user
@test "memlimit.sh: bad arguments, one line each, exit 2 before anything runs" {
    local o=$BATS_TEST_TMPDIR/ml
    run bash "$MLSH" --out "$o" --rounds 0
    assert_failure 2
    assert_output "memlimit: --rounds must be a positive whole number, not 0"
    run bash "$MLSH" --out "$o" --limits 24MiB,lots
    assert_failure 2
    assert_output "memlimit: --limits: not a size: 'lots' (such as 24MiB, 48MiB)"
    run bash "$MLSH" --out "$o" --duration 2h
    assert_failure 2
    assert_output "memlimit: --duration must be seconds (2, 500ms), not 2h"
    run bash "$MLSH" --out "$o" --zipf 0
    assert_failure 2
    assert_output "memlimit: --zipf must be a number above 0, not 0"
    run bash "$MLSH" --out "$o" --links 1k --lookups 2k
    assert_failure 2
    assert_output "memlimit: --lookups (2k) is more than --links (1k)"
    run bash "$MLSH" --out "$o" --links
    assert_failure 2
    assert_output "memlimit: --links needs a value"
    run bash "$MLSH" --out "$o" --fast
    assert_failure 2
    assert_output "memlimit: unknown option --fast (try --help)"
    assert [ ! -e "$o" ]
    if [ "$(id -u)" -ne 0 ]; then
        run bash "$MLSH" --out "$o"
    else
        command -v setpriv >/dev/null || skip "no setpriv"
        # uid 65534 must reach the script and what it sources: copies it can read
        local c=$D/others
        for_others "$c"
        mkdir -p "$c/scripts/study" "$c/tests/lib"
        cp "$(dirname "$MLSH")"/{memlimit,lib,mask}.sh "$c/scripts/study/"
        cp "$BATS_TEST_DIRNAME/../../lib/servers.bash" "$c/tests/lib/"
        chmod -R a+rX "$c"
        run setpriv --reuid=65534 --regid=65534 --clear-groups bash "$c/scripts/study/memlimit.sh" --out "$o"
    fi
    assert_failure 2
    assert_output "memlimit: needs root (--mem-limit creates a memory cgroup)"
}

@test "memlimit.sh --out at a tiny size: both legs, every configuration, the report's section" {
    need_memcg
    local o=$BATS_TEST_TMPDIR/ml
    # The release binary: the sanitizer's shadow memory does not fit a
    # 24 MiB limit. 2 rounds of 500 ms: a pipeline check, not a measurement.
    run bash "$MLSH" --out "$o" --links 20k --lookups 1k --limits 24MiB --rounds 2 \
        --duration 500ms --warmup 500ms --kvtest "${KVTEST_REL:-$KVTEST}"
    assert_success
    # Runs per (leg, memory, keys, config): 2 rounds each; HTTP only limited.
    run awk -F, 'NR > 1 { n[$1 " " $2 " " $4 " " $5]++ } END { for (k in n) print k, n[k] }' "$o/csv/memlimit.csv"
    assert_equal "$(sort <<<"$output" | tr '\n' '|')" \
        "http 24MiB uniform sqlite 2|http 24MiB uniform valkey 2|http 24MiB uniform valkey-track 2|http 24MiB zipf sqlite 2|http 24MiB zipf valkey 2|http 24MiB zipf valkey-track 2|inproc 24MiB uniform sqlite 2|inproc 24MiB uniform valkey 2|inproc 24MiB uniform valkey-track 2|inproc 24MiB zipf sqlite 2|inproc 24MiB zipf valkey 2|inproc 24MiB zipf valkey-track 2|inproc unlimited uniform sqlite 2|inproc unlimited uniform valkey 2|inproc unlimited uniform valkey-track 2|inproc unlimited zipf sqlite 2|inproc unlimited zipf valkey 2|inproc unlimited zipf valkey-track 2|"
    # The benches ran under the limits asked for; every answer was right.
    run jq -r 'select(.bench.leg == "inproc") | [.bench.mem, .result.mem_limit.limit_bytes,
               ([.result.configs[].wrong_answers] | add), (.result.break_even.pays_off | type)] | @tsv' \
        "$o/raw/memlimit.jsonl"
    assert_output "$(printf '%s\t%s\t0\tboolean\n' 24MiB 25165824 24MiB 25165824 unlimited 1099511627776 unlimited 1099511627776)"
    run grep -c -- '--mem-limit 24MiB' "$o/commands.tsv"
    assert_output 14   # 2 benches (uniform, Zipf) and 12 services (2 keys x 2 rounds x 3)
    # Each service's cache counters: 12 services; the caches answered.
    run awk -F, 'NR > 1 { n++; if ($2 != "sqlite" && $4 + $6 > 0) hit++ } END { print n, hit }' \
        "$o/csv/memlimit-http-hits.csv"
    assert_output "12 8"
    run grep -F "### A database larger than memory" "$o/REPORT.md"
    assert_success
    run grep -c '^| 24MiB \|^| unlimited ' "$o/REPORT.md"
    assert_output 4
}

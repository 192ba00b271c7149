#!/usr/bin/env bats
# scripts/study/probe.sh, the machine's pace at the start and end of make
# bench: run for real (a private valkey-server, dd onto the temp dir), and
# its rows read back. The figures vary with the machine; that each is a
# number of its unit, one per metric and label, does not.
# In study/, so make test-repo runs it: the study's scripts, not kvtest.
load '../../lib/common'

setup() {
    ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
    D=$BATS_TEST_TMPDIR
}

@test "probe.sh: every reference a number of its unit, once per label; the whole run's steal from two" {
    command -v valkey-benchmark >/dev/null || skip "no valkey-benchmark (bash scripts/deps.sh)"
    run bash "$ROOT/scripts/study/probe.sh" "$D" start
    assert_success
    run bash "$ROOT/scripts/study/probe.sh" "$D" end
    assert_success
    run head -n1 "$D/raw/probe.tsv"
    assert_output "$(printf 'label\ttime_utc\tmetric\tvalue\tunit')"
    for label in start end; do
        run awk -F'\t' -v l="$label" '$1 == l { print $3 "/" $5 }' "$D/raw/probe.tsv"
        assert_output "$(printf '%s\n' cpu_loop_ms/ms steal_pct/% steal_jiffies/jiffies total_jiffies/jiffies \
            loopback_rtt_us/us fsync_write_us/us)"
    done
    # Every value a number; the timings above zero; the counters do not go back.
    run awk -F'\t' 'NR > 1 && $4 !~ /^[0-9]+(\.[0-9]+)?$/ { print "not a number: " $0 }
                    NR > 1 && $3 ~ /_(ms|us)$/ && $4 + 0 <= 0 { print "not positive: " $0 }' "$D/raw/probe.tsv"
    assert_output ""
    run awk -F'\t' '$3 == "total_jiffies" { t[$1] = $4 } END { exit !(t["end"] > t["start"]) }' "$D/raw/probe.tsv"
    assert_success
    # Nothing left behind in the scratch directory but the server's log.
    run find "$D/scratch" -name 'probe-fsync*'
    assert_output ""
}

@test "probe.sh: bad usage exits 2 in one line" {
    run bash "$ROOT/scripts/study/probe.sh" "$D"
    assert_failure 2
    assert_output "probe: usage: probe.sh OUTDIR LABEL"
    run bash "$ROOT/scripts/study/probe.sh" "$D/none" start
    assert_failure 2
    assert_output "probe: no directory $D/none"
}

#!/usr/bin/env bats
# scripts/study/costs.sh, the per-request costs behind SCALING.md: one tiny
# round (1 s loads, 1000 links) must give every quantity, each a positive
# number, and a costs.md with a row per quantity and the ceilings table.
# The run uses --processes 2, so the service CPU is only positive if the
# script sums the service processes (the parent that supervises them
# serves nothing). No figure is compared with another: the machine is
# noisy. Misuse exits 2 with one line. The release binary runs (KVTEST_REL):
# under AddressSanitizer the costs would be the sanitizer's.
# In study/, so make test-repo runs it: the study's scripts (make bench),
# not kvtest.

load '../../lib/common'

setup() {
    study_setup costs
    command -v valkey-benchmark >/dev/null || skip "no valkey-benchmark"
}

@test "costs.sh: one tiny round gives every quantity, each positive, and the tables" {
    run timeout -k 5 120 bash "$SCRIPT" --rounds 1 --duration 1 --links 1000 --connections 8 \
        --processes 2 --kvtest "$BIN" --out "$D/o"
    assert_success
    tsv=$D/o/costs.tsv
    run head -n1 "$tsv"
    assert_output "$(printf 'what\tround\tvalue\tunit')"
    for q in get-none.requests_per_s get-none.service_cpu get-none.load_cpu get-none.cpus_busy \
        get-valkey.requests_per_s get-valkey.service_cpu get-valkey.load_cpu get-valkey.valkey_cpu \
        get-valkey.cpus_busy get-valkey.hit_ratio post.requests_per_s post.service_cpu \
        post.load_cpu post.cpus_busy commit.us_per_commit commit.p50 commit.commits_per_s \
        rtt.valkey_benchmark bench.sqlite_p50 bench.valkey_p50; do
        run awk -F'\t' -v q="$q" '$1 == q { n++; if (!($3 + 0 > 0)) bad = bad " " $3 }
            END { if (n != 1 || bad != "") { print q ": " n " lines, not positive:" bad; exit 1 } }' "$tsv"
        assert_success
        run grep -c "^| $q | [0-9]" "$D/o/costs.md"
        assert_output 1
    done
    run awk 'END { print NR }' "$tsv"
    assert_output 21
    run grep -c '^| SQLite writer, commits/s' "$D/o/costs.md"
    assert_output 1
}

@test "costs.sh: an unknown option or a bad count exits 2 with one line" {
    run bash "$SCRIPT" --bogus
    assert_failure 2
    assert_output "costs: unknown argument '--bogus' (see --help)"
    run bash "$SCRIPT" --rounds 0
    assert_failure 2
    assert_output "costs: --rounds needs a positive integer, not '0'"
    run bash "$SCRIPT" --out
    assert_failure 2
    assert_output "costs: --out needs a value"
}

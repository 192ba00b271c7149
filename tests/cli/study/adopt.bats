#!/usr/bin/env bats
# scripts/study/adopt.sh: two small runs laid out as make bench writes
# them, adopted into a results directory that also holds what adopt must
# leave alone. What lands is checked file by file; each refusal changes
# nothing.
load '../../lib/common'

setup() {
    ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
    D=$BATS_TEST_TMPDIR
    for r in A B; do
        run_dir "$D/run$r" "$r"
    done
    mkdir -p "$D/join" "$D/res/ci-perf" "$D/res/logs" "$D/res/raw" "$D/res/reproducibility"
    printf -- '- run A (`runA`)\n- run B (`runB`)\n' >"$D/join/reproducibility.md"
    echo "compare" >"$D/join/compare.txt"
    printf 'id\tcause\n' >"$D/join/causes.tsv"
    echo keep >"$D/res/ci-perf/summary.tsv"
    echo old >"$D/res/raw/gone.jsonl"
    echo old >"$D/res/reproducibility/gone.txt"
    echo old >"$D/res/logs/by-hand.txt"
}

# run_dir DIR LETTER: a finished run of commit c0ffee.
run_dir() {
    local r=$1
    mkdir -p "$r"/{charts,csv,env,raw,logs}
    for f in REPORT.md findings.tsv commands.tsv charts/reads.png csv/reads.csv env/environment.txt \
             raw/parts.tsv raw/probe.tsv raw/capacity.jsonl raw/storetier.jsonl \
             logs/{timings.tsv,shortener-stats.txt,anchors-dbbench.txt,anchors-mdb_stat.txt} \
             logs/{anchors-rocksdb-options.diff,storetier-pgbench.txt,storetier-settings.txt} \
             logs/{storetier-stats.jsonl,storetier-valkey-benchmark.csv,stderr.log}; do
        echo "$2 $f" >"$r/$f"
    done
    printf 'scale\tfull\ncommit\tc0ffee\n' >"$r/raw/bench.tsv"
    printf '{"bench":{"warmup":true},"n":1}\n{"bench":{"warmup":false},"n":2}\n' >"$r/raw/shortener.jsonl"
}

adopt() {
    run bash "$ROOT/scripts/study/adopt.sh" --a "$D/runA" --b "$D/runB" --join "$D/join" --results "$D/res" "$@"
}

@test "adopt.sh: run A's files replace the old ones, warm-ups out, big raw gzip'd, run B beside; the rest untouched" {
    adopt
    assert_success
    run cat "$D/res/REPORT.md" "$D/res/charts/reads.png" "$D/res/raw/probe.tsv" "$D/res/logs/timings.tsv"
    assert_output "$(printf 'A %s\n' REPORT.md charts/reads.png raw/probe.tsv logs/timings.tsv)"
    run cat "$D/res/raw/shortener.jsonl"
    assert_output '{"bench":{"warmup":false},"n":2}'
    run gzip -dc "$D/res/raw/capacity.jsonl.gz" "$D/res/raw/storetier.jsonl.gz"
    assert_output "$(printf 'A %s\n' raw/capacity.jsonl raw/storetier.jsonl)"
    run ls "$D/res/raw"
    assert_output "$(printf '%s\n' bench.tsv capacity.jsonl.gz parts.tsv probe.tsv shortener.jsonl storetier.jsonl.gz)"
    run ls "$D/res/reproducibility"
    assert_output "$(printf '%s\n' b-bench.tsv b-csv b-findings.tsv b-parts.tsv b-probe.tsv b-timings.tsv causes.tsv compare.txt)"
    run cat "$D/res/reproducibility/b-csv/reads.csv" "$D/res/reproducibility/b-timings.tsv"
    assert_output "$(printf 'B %s\n' csv/reads.csv logs/timings.tsv)"
    run cat "$D/res/reproducibility/b-findings.tsv" "$D/res/reproducibility/b-probe.tsv"
    assert_output "$(printf 'B %s\n' findings.tsv raw/probe.tsv)"
    # what a run does not write stays; a run's own logs beyond the quoted do not come
    run cat "$D/res/ci-perf/summary.tsv" "$D/res/logs/by-hand.txt"
    assert_output "$(printf '%s\n' keep old)"
    run ls "$D/res/logs"
    assert_output "$(printf '%s\n' anchors-dbbench.txt anchors-mdb_stat.txt anchors-rocksdb-options.diff by-hand.txt \
        shortener-stats.txt storetier-pgbench.txt storetier-settings.txt storetier-stats.jsonl \
        storetier-valkey-benchmark.csv timings.tsv)"
}

@test "adopt.sh: another commit, an unfinished run, a join of other runs: refused, nothing changed" {
    snapshot() { (cd "$D/res" && find . -type f | sort | xargs md5sum); }
    before=$(snapshot)
    sed -i 's/^commit.*/commit\tdecade/' "$D/runB/raw/bench.tsv"
    adopt
    assert_failure 1
    assert_output "adopt: the runs are of different commits (c0ffee, decade): a reference is two runs of one"
    sed -i 's/^commit.*/commit\tc0ffee/' "$D/runB/raw/bench.tsv"
    rm "$D/runA/raw/probe.tsv"
    adopt
    assert_failure 1
    assert_output "adopt: $D/runA is not a finished run: no raw/probe.tsv"
    echo A >"$D/runA/raw/probe.tsv"
    printf -- '- run A (`runX`)\n- run B (`runB`)\n' >"$D/join/reproducibility.md"
    adopt
    assert_failure 1
    assert_output "adopt: $D/join/reproducibility.md does not name runA: a join of other runs"
    run snapshot
    assert_output "$before"
    run bash "$ROOT/scripts/study/adopt.sh" --a "$D/runA"
    assert_failure 2
    assert_output "adopt: --a, --b and --join are all needed"
}

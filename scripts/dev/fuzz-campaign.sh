#!/usr/bin/env bash
# fuzz-campaign.sh: a long fuzzing run of every target, with its figures.
#   scripts/dev/fuzz-campaign.sh [--time S] [--extend S] [--jobs J]
#                                [--targets LIST] [--out DIR]
#
# make fuzz runs each target for seconds, which finds the shallow bugs; a
# campaign runs each for --time (default 600 s) from its seed corpus in
# tests/fuzz/corpus/T, and once more for --extend (default 600 s) when the
# last fifth of the run still found new coverage (the search has not yet
# run dry there). J targets run at once (default 1; each is one process on
# one core).
#
# Writes DIR (default bench-out/fuzz-UTC) with campaign.tsv: per target
# the seconds run, executions, executions per second, the coverage (edges,
# libFuzzer's "cov") and features ("ft") at the end, the second of the last
# new coverage, the seed inputs, the inputs the run added to the corpus,
# crashes and hangs (the files libFuzzer wrote as crash-*, leak-*, oom-*
# and timeout-*, slow-unit-*; each is kept in DIR/finds/T). DIR/log/T.N.log
# keeps libFuzzer's output of each part; DIR/corpus/T the grown corpus (not a seed
# corpus: it is large, and minimising it into tests/fuzz/corpus is a
# decision for whoever reads it, with libFuzzer's -merge=1).
# Exit 0 when no target found anything, 1 when one did, 2 on bad arguments.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
usage_die() { echo "fuzz-campaign.sh: $*" >&2; exit 2; }

TIME=600 EXTEND=600 JOBS=1 TARGETS="" OUTDIR=""
while [ $# -gt 0 ]; do
    case $1 in
        --time | --extend | --jobs | --targets | --out)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --time) TIME=$2 ;; --extend) EXTEND=$2 ;; --jobs) JOBS=$2 ;;
                --targets) TARGETS=$2 ;; --out) OUTDIR=$2 ;;
            esac
            shift 2 ;;
        -h | --help) sed -n '2,22s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) usage_die "unknown option $1 (try --help)" ;;
    esac
done
[[ $TIME =~ ^[1-9][0-9]*$ ]] || usage_die "--time must be a positive whole number of seconds, not $TIME"
[[ $EXTEND =~ ^[0-9]+$ ]] || usage_die "--extend must be a whole number of seconds, not $EXTEND"
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || usage_die "--jobs must be a positive whole number, not $JOBS"
# shellcheck disable=SC2016  # a make variable, expanded by make
ALL=$(make --no-print-directory -s -C "$ROOT" -f Makefile -f - print-fuzz-targets <<<'print-fuzz-targets: ; @echo $(FUZZ_TARGETS)') ||
    usage_die "cannot read FUZZ_TARGETS from the Makefile"
[ -n "$TARGETS" ] || TARGETS=${ALL// /,}
IFS=, read -r -a LIST <<<"$TARGETS"
for t in "${LIST[@]}"; do
    [[ " $ALL " == *" $t "* ]] || usage_die "--targets: unknown target '$t' (one of: $ALL)"
done
OUT=${OUTDIR:-$ROOT/bench-out/fuzz-$(date -u +%Y%m%d-%H%M%S)}
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
    usage_die "$OUT is not empty (--out needs a new or empty directory)"
fi
mkdir -p "$OUT/log" "$OUT/corpus" "$OUT/finds" || exit 1
make --no-print-directory -C "$ROOT" "${LIST[@]/#/build/fuzz/fuzz_}" >"$OUT/log/build.log" 2>&1 ||
    { echo "fuzz-campaign.sh: the build failed (see $OUT/log/build.log)" >&2; exit 1; }

# last_new LOG [COV]: the second of the run in LOG at which the coverage
# (edges, "cov:") last grew past COV (default 0; a part that goes on from
# an earlier one's corpus starts where that one ended, and its first line
# is no growth). libFuzzer's lines carry the executions so far (#N) and the
# mean rate since its start (exec/s), so the second is N / rate (0 when it
# never grew). Not the last NEW line: new features and REDUCE lines go on
# long after the edges stop growing.
last_new() {
    awk -v top="${2:-0}" '/^#[0-9]+\t/ && /cov:/ {
            n = substr($1, 2); r = 0; c = 0
            for (i = 1; i < NF; i++) {
                if ($i == "exec/s:") r = $(i + 1)
                if ($i == "cov:") c = $(i + 1) + 0
            }
            if (c > top) { top = c; s = r > 0 ? n / r : 0 }
        } END {printf "%d\n", s}' "$1"
}

# final_cov LOG: the edges covered at the end of LOG (0 if none).
final_cov() {
    grep -o 'cov: [0-9]*' "$1" | tail -1 | cut -d' ' -f2 | grep . || echo 0
}

# run_target T: the campaign of one target; writes its row.
run_target() {
    local t=$1 seeds bin ext secs=0 part=0 budget last=0 at log execs=0 added=0 cov ft crashes hangs
    local cov0=0
    bin=$ROOT/build/fuzz/fuzz_$t seeds=$ROOT/tests/fuzz/corpus/$t
    mkdir -p "$OUT/corpus/$t" "$OUT/finds/$t"
    # the flags make fuzz gives this target (say -max_len), read from the Makefile
    ext=$(make --no-print-directory -s -C "$ROOT" -f Makefile -f - print-run <<<"print-run: ; @echo \$(FUZZ_RUN_$t)")
    for budget in "$TIME" "$EXTEND"; do
        [ "$budget" -gt 0 ] || break
        part=$((part + 1)) log=$OUT/log/$t.$part.log
        # shellcheck disable=SC2086  # ext holds flags, split on purpose
        "$bin" -max_total_time="$budget" -timeout=10 -print_final_stats=1 $ext \
            -artifact_prefix="$OUT/finds/$t/" "$OUT/corpus/$t" "$seeds" >"$log" 2>&1
        at=$(last_new "$log" "$cov0")
        cov0=$(final_cov "$log")
        [ "$at" -eq 0 ] || last=$((secs + at))
        secs=$((secs + budget))
        execs=$((execs + $(awk '/^stat::number_of_executed_units:/ {print $2}' "$log")))
        added=$((added + $(awk '/^stat::new_units_added:/ {print $2}' "$log")))
        if [ "$part" != 1 ] || [ "$at" -lt $((budget * 4 / 5)) ]; then break; fi
        echo "$t: new coverage at ${at} s of $budget; going on for $EXTEND s" >&2
    done
    cov=$(grep -ho 'cov: [0-9]*' "$OUT/log/$t".*.log | tail -1 | cut -d' ' -f2)
    ft=$(grep -ho 'ft: [0-9]*' "$OUT/log/$t".*.log | tail -1 | cut -d' ' -f2)
    crashes=$(find "$OUT/finds/$t" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'oom-*' \) | wc -l)
    hangs=$(find "$OUT/finds/$t" -type f \( -name 'timeout-*' -o -name 'slow-unit-*' \) | wc -l)
    printf '%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\n' "$t" "$secs" "$execs" $((execs / secs)) \
        "${cov:-0}" "${ft:-0}" "$last" "$(find "$seeds" -type f | wc -l)" "$added" "$crashes" "$hangs" >"$OUT/row-$t.tsv"
}

running=0
for t in "${LIST[@]}"; do
    run_target "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait

{
    printf 'target\tseconds\texecs\texecs_per_s\tcov\tft\tlast_new_s\tseeds\tadded\tcrashes\thangs\n'
    for t in "${LIST[@]}"; do cat "$OUT/row-$t.tsv"; done
} >"$OUT/campaign.tsv"
rm -f "$OUT"/row-*.tsv
column -t -s $'\t' "$OUT/campaign.tsv"
bad=$(awk -F'\t' 'NR > 1 && ($10 + $11) > 0 {print $1}' "$OUT/campaign.tsv" | tr '\n' ' ')
if [ -n "$bad" ]; then
    echo "fuzz-campaign.sh: found something in: $bad(inputs in $OUT/finds)" >&2
    exit 1
fi

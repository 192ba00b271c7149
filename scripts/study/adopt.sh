#!/usr/bin/env bash
# adopt.sh: make a finished make bench run, and its join with a second run
# of the same commit, the committed reference in results/.
#
#   bash scripts/study/adopt.sh --a RUN_A --b RUN_B --join DIR [--results DIR]
#
#   --a RUN_A     the run to adopt (a make bench directory: REPORT.md,
#                 findings.tsv, charts/, csv/, raw/, env/, logs/)
#   --b RUN_B     the second run of the same commit, made apart
#   --join DIR    where repro.sh --join-only --a RUN_A --b RUN_B wrote
#                 reproducibility.md and compare.txt
#   --results DIR where to (default: the checkout's results/)
#
# Replaces exactly what a run writes there and nothing else (the CI
# check's, the history's, the fuzz campaign's and the by-hand studies'
# directories stay): REPORT.md, findings.tsv, commands.tsv, charts/, csv/,
# env/, raw/ (shortener.jsonl without its warm-up lines, which no table
# reads; capacity.jsonl and storetier.jsonl gzip'd), the logs the pages
# quote (logs/timings.tsv, shortener-stats.txt, the anchors' and store
# tier's tool output), reproducibility.md and reproducibility/ (compare.txt,
# run B's findings.tsv, bench.tsv, parts.tsv, probe.tsv and timings.tsv as
# b-*, its csv/ as b-csv/, with causes.tsv when the join had one).
# Refuses, changing nothing, when a run is incomplete, the two runs are of
# different commits, or the join is not of these two runs.
# Exit 0 when adopted, 1 when refused, 2 on bad arguments.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUN_A="" RUN_B="" JOIN="" RESULTS="$KV_ROOT/results"
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --a|--b|--join|--results)
            [ $# -ge 2 ] || usage_die "$1 needs a directory"
            case $1 in --a) RUN_A=$2 ;; --b) RUN_B=$2 ;; --join) JOIN=$2 ;; --results) RESULTS=$2 ;; esac
            shift 2 ;;
        -h|--help) usage 0 ;;
        *) usage_die "unknown argument $1 (expected --a RUN, --b RUN, --join DIR, --results DIR)" ;;
    esac
done
if [ -z "$RUN_A" ] || [ -z "$RUN_B" ] || [ -z "$JOIN" ]; then
    usage_die "--a, --b and --join are all needed"
fi
need_tools gzip awk

# Everything checked before anything is touched.
A_FILES=(REPORT.md findings.tsv commands.tsv raw/bench.tsv raw/parts.tsv raw/probe.tsv
         raw/shortener.jsonl raw/capacity.jsonl raw/storetier.jsonl logs/timings.tsv
         logs/shortener-stats.txt)
LOGS=(timings.tsv shortener-stats.txt anchors-dbbench.txt anchors-mdb_stat.txt
      anchors-rocksdb-options.diff storetier-pgbench.txt storetier-settings.txt
      storetier-stats.jsonl storetier-valkey-benchmark.csv)
for f in "${A_FILES[@]}" "${LOGS[@]/#/logs/}" charts csv env; do
    [ -e "$RUN_A/$f" ] || die "$RUN_A is not a finished run: no $f"
done
for f in findings.tsv raw/bench.tsv raw/parts.tsv raw/probe.tsv logs/timings.tsv csv; do
    [ -e "$RUN_B/$f" ] || die "$RUN_B is not a finished run: no $f"
done
for f in reproducibility.md compare.txt; do
    [ -e "$JOIN/$f" ] || die "$JOIN holds no $f: run repro.sh --join-only --a $RUN_A --b $RUN_B first"
done
commit_of() { awk -F'\t' '$1 == "commit" { print $2 }' "$1/raw/bench.tsv"; }
ca=$(commit_of "$RUN_A") cb=$(commit_of "$RUN_B")
[ -n "$ca" ] || die "$RUN_A/raw/bench.tsv names no commit"
[ "$ca" = "$cb" ] || die "the runs are of different commits ($ca, $cb): a reference is two runs of one"
# The join names both runs' directories in its header.
for r in "$RUN_A" "$RUN_B"; do
    grep -qF "$(basename "$r")" "$JOIN/reproducibility.md" ||
        die "$JOIN/reproducibility.md does not name $(basename "$r"): a join of other runs"
done
[ -d "$RESULTS" ] || die "no $RESULTS directory"

rm -rf "${RESULTS:?}"/{REPORT.md,findings.tsv,commands.tsv,charts,csv,env,raw} \
       "$RESULTS/reproducibility.md" "$RESULTS/reproducibility"
mkdir -p "$RESULTS/logs" "$RESULTS/reproducibility"
cp -R "$RUN_A"/{REPORT.md,findings.tsv,commands.tsv,charts,csv,env,raw} "$RESULTS/"
grep -v '"warmup":true' "$RUN_A/raw/shortener.jsonl" > "$RESULTS/raw/shortener.jsonl"
gzip -9n "$RESULTS/raw/capacity.jsonl" "$RESULTS/raw/storetier.jsonl"
for f in "${LOGS[@]}"; do cp "$RUN_A/logs/$f" "$RESULTS/logs/$f"; done
cp "$JOIN/reproducibility.md" "$RESULTS/"
cp "$JOIN/compare.txt" "$RESULTS/reproducibility/"
[ ! -e "$JOIN/causes.tsv" ] || cp "$JOIN/causes.tsv" "$RESULTS/reproducibility/"
cp "$RUN_B/findings.tsv" "$RESULTS/reproducibility/b-findings.tsv"
for f in bench parts probe; do cp "$RUN_B/raw/$f.tsv" "$RESULTS/reproducibility/b-$f.tsv"; done
# the tables and step times a disagreement's cause is read from
cp "$RUN_B/logs/timings.tsv" "$RESULTS/reproducibility/b-timings.tsv"
cp -R "$RUN_B/csv" "$RESULTS/reproducibility/b-csv"
printf '%s: %s adopted (commit %s), %s beside it\n' "$KV_PROG" "$RUN_A" "$ca" "$RUN_B" >&2

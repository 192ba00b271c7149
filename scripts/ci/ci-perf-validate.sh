#!/usr/bin/env bash
# ci-perf-validate.sh: measure the CI performance check itself. With the
# test build (make inject: build/inject/kvtest, -DKVTEST_INJECT) on both
# sides of scripts/ci/ci-perf.sh:
#  - A/A runs: nothing injected; every FAIL is a false alarm;
#  - injected runs, one path at a time: the current side of that path slowed
#    by a spin proportional to its measured cost per operation: for the
#    instruction layer a counting loop of FACTOR-1 times the path's
#    instructions per operation in the first A/A run (default 1.03), for the
#    wall layer a time spin of FACTOR-1 times its time per operation, the
#    median over every A/A run's samples (default 1.10; http: times the CPU
#    count, since 8 users keep both CPUs busy). Every run that does not FAIL that path is a
#    missed detection. Each injected run measures that path alone, judged
#    (wall layer) as one of all the paths (ci-perf.sh --holm-family): a
#    seventh of a full run's time, and the same Holm level as a full run.
#
#   scripts/ci/ci-perf-validate.sh --layer instr|sys|wall [--aa N] [--runs N]
#       [--paths LIST] [--factor F] [--calibrate N] [--out DIR] [--tag TEXT]
#
# The wall layer's spin costs more than its nominal time (the clock reads
# of the busy-wait, what it does to the caches), so the injected change
# would come out above FACTOR. --calibrate N (wall only, default 5): N runs
# per path of the nominal spin at a fixed 24 pairs (no early stop, whose
# estimates lean high), then the spin scaled by (FACTOR-1)/(median change-1)
# so that the injected runs are slowed by FACTOR as measured, not as meant.
# The spins are written to DIR/runs/STAMP-wall-spin.tsv. --calibrate 0 keeps
# the nominal spin.
#
# --aa N      A/A runs (default 20)      --runs N  injected runs per path (default 20)
# --out DIR   where results go (default results/ci-perf); rows are appended
#             to DIR/validation.tsv, each run's verdicts, counts and wall
#             samples kept under DIR/runs/, a summary in DIR/summary.tsv
# --summary   only rewrite DIR/summary.tsv from DIR/validation.tsv
# --tag TEXT  a word for the conditions, recorded in every row (for example
#             under-load: the wall layer on a busy machine)
# Extra ci-perf.sh options (e.g. --max-pairs 12) go in CI_PERF_OPTS. On a
# shared machine, KV_PAUSE_FILE=FILE holds each run while FILE exists.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../study/lib.sh"

LAYER="" AA=20 RUNS=20 CALIBRATE=5 PATHS="sql-read blob-read files-read db-write files-write lookup http"
FACTOR="" DEST=$KV_ROOT/results/ci-perf TAG="" SUMMARY_ONLY=0
while [ $# -gt 0 ]; do
    case $1 in
        --layer|--aa|--runs|--paths|--factor|--calibrate|--out|--tag)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --layer) LAYER=$2 ;; --aa) AA=$2 ;; --runs) RUNS=$2 ;; --paths) PATHS=${2//,/ } ;;
                --factor) FACTOR=$2 ;; --calibrate) CALIBRATE=$2 ;; --out) DEST=$2 ;; --tag) TAG=$2 ;;
            esac
            shift 2 ;;
        --summary) SUMMARY_ONLY=1; LAYER=${LAYER:-instr}; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) usage_die "unknown option $1 (try --help)" ;;
    esac
done
case $LAYER in instr) FACTOR=${FACTOR:-1.03} ;; wall) FACTOR=${FACTOR:-1.10} ;;
    # System calls: A/A runs only (a spin adds no call, and a slowdown that
    # adds calls is what the instruction and wall layers are measured for).
    sys) FACTOR=1.0; [ "$RUNS" = 0 ] || usage_die "--layer sys has A/A runs only: add --runs 0" ;;
    *) usage_die "--layer must be instr, sys or wall" ;; esac
[[ $AA =~ ^[0-9]+$ && $RUNS =~ ^[0-9]+$ && $CALIBRATE =~ ^[0-9]+$ ]] ||
    usage_die "--aa, --runs and --calibrate must be whole numbers"
[ "$LAYER" = sys ] || [[ $FACTOR =~ ^1\.[0-9]+$ ]] || usage_die "--factor must be above 1, such as 1.10"
TAG=${TAG:-none}

# summarize: DIR/summary.tsv from every row of DIR/validation.tsv.
summarize() {
    awk -F'\t' -v OFS='\t' 'NR > 1 && $4 != "calibration" {
            k = $2 OFS $3 OFS $4 OFS $5
            if ($4 == "aa") {
                if (!((k, $7) in seen)) { seen[k, $7] = 1; runs[k]++ }
                if ($10 != "ok" && !((k, $7) in fseen)) { fseen[k, $7] = 1; fa[k]++ }
            } else if ($8 == $5) { n[k]++; if ($10 != "ok") hit[k]++ }
            else if ($10 != "ok") other[k]++
        }
        END {
            for (k in runs) print k, runs[k], (fa[k] + 0) " with a false alarm"
            for (k in n) print k, n[k], (hit[k] + 0) " caught" ((k in other) ? ", " other[k] " other paths failed" : "")
        }' "$DEST/validation.tsv" | sort | { printf 'layer\ttag\tkind\ttarget\truns\tresult\n'; cat; } >"$DEST/summary.tsv"
    column -t -s $'\t' "$DEST/summary.tsv" >&2
}
if [ "$SUMMARY_ONLY" = 1 ]; then
    [ -s "$DEST/validation.tsv" ] || die "no $DEST/validation.tsv"
    summarize
    exit 0
fi

say "building the test build (make inject)"
nice -n 10 make --no-print-directory -C "$KV_ROOT" inject >/dev/null || die "make inject failed"
KVI=$KV_ROOT/build/inject/kvtest
mkdir -p "$DEST/runs"
DEST=$(cd "$DEST" && pwd)
V=$DEST/validation.tsv
[ -s "$V" ] || printf 'utc\tlayer\ttag\tkind\ttarget\tinject\trun\tpath\tchange\tverdict\tseconds\n' >"$V"
STAMP=$(date -u +%Y%m%dT%H%M%S)
CI=$KV_ROOT/scripts/ci/ci-perf.sh

# median < numbers, one a line: their median (nothing for no numbers).
median() {
    sort -g | awk 'NF { a[++n] = $1 } END { if (n) printf "%.10g\n", n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }'
}

# check NAME KIND TARGET SPEC PATHS [OPTS]: one run of the check (OPTS: more
# ci-perf.sh options), its rows appended to validation.tsv; the run's small
# files kept under runs/NAME.
check() {
    local name=$1 kind=$2 target=$3 spec=$4 paths=$5 opts=${6:-} dir t0 secs
    dir=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-validate.XXXXXX")
    kv_track_dir "$dir"
    # A shared machine's "quiet, measuring" flag (KV_PAUSE_FILE): wait it out.
    while [ -n "${KV_PAUSE_FILE:-}" ] && [ -e "$KV_PAUSE_FILE" ]; do sleep 15; done
    t0=$(kv_now)
    # Judged as one of the full check's 7 paths whatever --paths holds: a
    # subset must not be held to a laxer Holm level than CI's run.
    # shellcheck disable=SC2086  # CI_PERF_OPTS: extra options on purpose
    bash "$CI" --kvtest "$KVI" --ref-kvtest "$KVI" --layers "$LAYER" --paths "${paths// /,}" \
        --holm-family 7 --out "$dir" ${spec:+--inject "$spec"} ${CI_PERF_OPTS:-} $opts \
        >"$dir.txt" 2>&1 || true
    secs=$(kv_since "$t0")
    mkdir -p "$DEST/runs/$name"
    cp "$dir.txt" "$DEST/runs/$name/output.txt"
    [ ! -f "$dir/verdicts.tsv" ] || cp "$dir/verdicts.tsv" "$DEST/runs/$name/"
    [ ! -f "$dir/$LAYER.tsv" ] || cp "$dir/$LAYER.tsv" "$DEST/runs/$name/"
    if [ "$LAYER" = wall ]; then
        # The samples only (the JSON lines are 3 kB each).
        for f in "$dir"/wall/*.jsonl; do
            [ -f "$f" ] || continue
            jq -r --arg f "$(basename "$f" .jsonl)" \
                '[$f, (.result.us_per_blob // .result.configs[0].lookups_per_s // .result.requests_per_s)] | @tsv' "$f"
        done >"$DEST/runs/$name/samples.tsv"
    fi
    rm -f "$dir.txt"
    [ -s "$dir/verdicts.tsv" ] || { say "$name: no verdicts (see $DEST/runs/$name/output.txt)"; rm -rf "$dir"; return 1; }
    awk -F'\t' -v OFS='\t' -v u="$(date -u +%H:%M:%S)" -v l="$LAYER" -v tag="$TAG" -v k="$kind" \
        -v t="$target" -v s="${spec:--}" -v r="$name" -v secs="$secs" \
        '$1 == l { print u, l, tag, k, t, s, r, $2, $5, $7, secs }' "$dir/verdicts.tsv" >>"$V"
    say "$name: $(awk -F'\t' -v l="$LAYER" '$1 == l { printf "%s%s %s %s", s, $2, $5, $7; s = ", " }' "$dir/verdicts.tsv") (${secs%.*}s)"
    LAST=$dir
}

# ---- A/A, and the cost per operation the injections are proportional to
COST=()
for ((i = 1; i <= AA || (i == 1 && RUNS > 0); i++)); do
    kind=aa
    [ "$i" -le "$AA" ] || kind=calibration
    check "$STAMP-$LAYER-aa-$i" "$kind" - "" "$PATHS" || continue
    if [ ${#COST[@]} -eq 0 ] && [ "$LAYER" = instr ]; then
        mapfile -t COST < <(awk -F'\t' '$1 == "instr" { print $2 "\t" $3 }' "$LAST/verdicts.tsv")
    fi
    rm -rf "$LAST"
done
if [ "$LAYER" = wall ]; then
    # The cost per operation: the median over every sample of every A/A run
    # (both sides run the same build), so one slow or fast minute at the
    # start does not make every injection larger or smaller than FACTOR.
    COST=()
    for p in $PATHS; do
        m=$(cat "$DEST"/runs/"$STAMP"-wall-aa-*/samples.tsv 2>/dev/null |
            awk -F'\t' -v p="$p" '{ sub(/\.(ref|cur)$/, "", $1) } $1 == p { print $2 }' | median)
        [ -n "$m" ] || continue
        # us/blob for the blob paths, a rate for lookup and http
        COST+=("$(awk -v p="$p" -v m="$m" -v c="$(nproc)" 'BEGIN {
            if (p == "lookup") m = 1e9 / m; else if (p == "http") m = 1e9 / m * c; else m = m * 1000
            printf "%s\t%.1f\n", p, m }')")
    done
fi
[ ${#COST[@]} -eq 0 ] || printf '%s\n' "${COST[@]}" >"$DEST/runs/$STAMP-$LAYER-cost.tsv"
[ "$RUNS" -gt 0 ] || { summarize; exit 0; }
[ ${#COST[@]} -gt 0 ] || die "no A/A run gave the costs the injections need"

# ---- the instruction count of one loop iteration (the compiler decides it)
IPI=""
if [ "$LAYER" = instr ]; then
    check "$STAMP-instr-iter" calibration files-read files-read:iter:10000 files-read || die "calibration run failed"
    IPI=$(awk -F'\t' '$1 == "instr" { print ($4 - $3) / 10000 }' "$LAST/verdicts.tsv")
    rm -rf "$LAST"
    say "one loop iteration: $IPI instructions"
fi

# ---- injected runs, one path at a time
[ "$LAYER" != wall ] || printf 'path\tnominal_ns\tmeasured\tinjected_ns\n' >"$DEST/runs/$STAMP-wall-spin.tsv"
for p in $PATHS; do
    cost=$(printf '%s\n' "${COST[@]}" | awk -F'\t' -v p="$p" '$1 == p { print $2 }')
    [ -n "$cost" ] || { say "no cost for $p: not injected"; continue; }
    if [ "$LAYER" = instr ]; then
        spec=$p:iter:$(awk -v c="$cost" -v f="$FACTOR" -v i="$IPI" 'BEGIN { printf "%d", (f - 1) * c / i + 0.5 }')
    else
        ns=$(awk -v c="$cost" -v f="$FACTOR" 'BEGIN { printf "%d", (f - 1) * c + 0.5 }')
        changes=""
        for ((i = 1; i <= CALIBRATE; i++)); do
            check "$STAMP-wall-$p-cal-$i" calibration "$p" "$p:ns:$ns" "$p" \
                "--min-pairs 24 --max-pairs 24 --more-pairs 24" || continue
            changes+=" $(awk -F'\t' -v p="$p" '$1 == "wall" && $2 == p { sub(/^x/, "", $5); print $5 + 0 }' "$LAST/verdicts.tsv")"
            rm -rf "$LAST"
        done
        # The median change of the calibration runs; the spin scaled to
        # FACTOR (a change at or below x1.01 says nothing: left nominal).
        med=$(tr ' ' '\n' <<<"$changes" | median)
        scaled=$(awk -v m="${med:-0}" -v f="$FACTOR" -v ns="$ns" 'BEGIN {
            printf "%d", (m > 1.01 ? ns * (f - 1) / (m - 1) + 0.5 : ns) }')
        med=${med:--}
        [ "$CALIBRATE" -eq 0 ] || say "$p: nominal spin ${ns} ns measured x$med; injecting ${scaled} ns"
        printf '%s\t%s\t%s\t%s\n' "$p" "$ns" "$med" "$scaled" >>"$DEST/runs/$STAMP-wall-spin.tsv"
        spec=$p:ns:$scaled
    fi
    for ((i = 1; i <= RUNS; i++)); do
        # The injected path is measured alone (the other paths' behaviour is
        # the A/A runs'). The wall layer judges it as one of the full check's
        # paths (--holm-family), so it is held to the same Holm level.
        check "$STAMP-$LAYER-$p-$i" "inject" "$p" "$spec" "$p" && rm -rf "$LAST"
    done
done

summarize

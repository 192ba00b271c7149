#!/usr/bin/env bash
# ci-perf.sh: the CI performance check. The current build against a
# REFERENCE commit's build, both built and measured in the same job, on the
# same data, path by path:
#
#   scripts/ci/ci-perf.sh [options]          check ./kvtest against the reference
#   scripts/ci/ci-perf.sh --set-reference COMMIT    move the reference (rewrites
#                                            results/baseline.json; commit it)
#
# The reference is the commit named in results/baseline.json, or
# KVTEST_REF=COMMIT (any commit of this clone: a user checks a change against
# its base with KVTEST_REF=main or KVTEST_REF=HEAD~1). Its sources are taken
# with git archive into the scratch directory and its kvtest built there with
# make (build/sqlite3.o is reused when sqlite3.c, sqlite3.h and the SQLite
# flags are unchanged). A commit not in this clone (a shallow checkout): one
# line says so, the layers that need no reference build are skipped, and the
# check fails (it never passes without having compared).
#
# Seven paths: sql-read, blob-read, files-read (random reads of 2,000 blobs of
# 10k +- 2k bytes, warm), db-write, files-write (random overwrites, no sync),
# lookup (shortener bench, in-process SQLite lookups) and http (GET /link/ID
# through "shortener serve", no cache). Three layers:
#
#  instr  instructions per operation under valgrind --tool=cachegrind
#         --cache-sim=no, ASLR off (setarch -R), fixed seed, text output (the
#         --json environment block reads /proc and varies), each path run at
#         two amounts of work: (Ir(N2) - Ir(N1)) / (N2 - N1) leaves out start-up
#         and exit. http: the server's instructions, one client connection
#         reading the first N ids of the key file.
#         FAIL when current/reference > 1 + INSTR_LIMIT (default 0.02: the
#         A/A spread is below 0.1%, and a 3% growth must never pass).
#  sys    system calls per operation, the same two amounts of work under
#         strace -f -c. FAIL when current - reference > SYS_LIMIT (default
#         0.05 calls per operation: one extra call in 20 operations).
#  wall   wall time in ABBA pairs (round r runs reference then current, round
#         r+1 current then reference), each run one sample; per path kvtest
#         compare --paired (a round's two runs paired: Wilcoxon signed-rank,
#         Hodges-Lehmann ratio with Tukey's 95% interval), the p-values
#         Holm-adjusted across the paths. FAIL only
#         when the adjusted p < 0.05 AND the slowdown's interval lies wholly
#         above WALL_LIMIT (default 1.04). From --min-pairs on, a path whose
#         interval is wholly below WALL_LIMIT stops being measured (never
#         one above it: a slower path is judged once, on all its pairs, not
#         after every block); the rest go on up to --max-pairs, and past it those
#         whose estimate is above halfway to WALL_LIMIT go on up to
#         --more-pairs, while the wall layer has run less than
#         --wall-budget seconds.
#
# Options:
#   --ref COMMIT          the reference (default: KVTEST_REF, else baseline.json)
#   --layers LIST         instr,sys,wall (default all three)
#   --paths LIST          a subset of the seven paths (default all)
#   --kvtest PATH         the current binary (default KVTEST, else ./kvtest)
#   --ref-kvtest PATH     use this binary as the reference instead of building
#   --inject SPEC         test build only: KVTEST_INJECT=SPEC for the current
#                         side's runs (see src/measure/inject.h)
#   --min-pairs N         wall pairs before stopping early (default 8)
#   --max-pairs N         wall pairs for a path that does not look slower
#                         (default 24)
#   --more-pairs N        wall pairs at most, for a path still unsettled that
#                         looks slower (default 96)
#   --wall-budget S       seconds of wall rounds after which no path goes on
#                         past --max-pairs (default 300): bounds the whole
#                         step at about 7 minutes even when every path is
#                         slower by a little
#   --holm-family N       correct the wall layer's p-values as for N paths
#                         (default: the paths measured). Lets one path be
#                         measured alone and judged as strictly as in the
#                         full check (ci-perf-validate.sh does, for speed)
#   --out DIR             keep the measurements, logs and verdicts in DIR
#   --judge DIR           judge DIR's measurements again, measuring nothing
#   --history FILE        append this commit's measurements (OUT/history.csv:
#                         commit, time, measurement, metric, value, unit) to
#                         FILE, the series kvtest history reads; a CI job
#                         that keeps FILE between runs has its history
#   --set-reference COMMIT   write COMMIT into the baseline file
#   --baseline FILE       another baseline file than results/baseline.json
#
# Exit status: 0 every path passed every layer that ran; 1 a regression, a
# failed command, or a layer that could not run; 2 usage error. Prints one
# verdict line per path and layer, then one summary line.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../study/lib.sh"
CI_DIR=$KV_SCRIPTS/../ci
# shellcheck source=scripts/ci/ci-perf-layers.sh
source "$CI_DIR/ci-perf-layers.sh"

BASELINE=$KV_ROOT/results/baseline.json
ALL_PATHS="sql-read blob-read files-read db-write files-write lookup http"
REF=${KVTEST_REF:-} LAYERS=instr,sys,wall PATHS=$ALL_PATHS KV="" REF_KV="" INJECT=""
MIN_PAIRS=8 MAX_PAIRS=24 MORE_PAIRS=96 WALL_BUDGET=300 HOLM_FAMILY="" OUTDIR="" JUDGE="" SET_REF="" HISTORY=""
INSTR_LIMIT=${INSTR_LIMIT:-0.02} SYS_LIMIT=${SYS_LIMIT:-0.05} WALL_LIMIT=${WALL_LIMIT:-1.04}
while [ $# -gt 0 ]; do
    case $1 in
        --ref|--layers|--paths|--kvtest|--ref-kvtest|--inject|--min-pairs|--max-pairs|--more-pairs|--wall-budget|--holm-family|--out|--judge|--set-reference|--baseline|--history)
            if [ $# -lt 2 ] || [ -z "$2" ]; then usage_die "$1 needs a value"; fi
            case $1 in
                --ref) REF=$2 ;; --layers) LAYERS=$2 ;; --paths) PATHS=${2//,/ } ;;
                --kvtest) KV=$2 ;; --ref-kvtest) REF_KV=$2 ;; --inject) INJECT=$2 ;;
                --min-pairs) MIN_PAIRS=$2 ;; --max-pairs) MAX_PAIRS=$2 ;;
                --more-pairs) MORE_PAIRS=$2 ;; --wall-budget) WALL_BUDGET=$2 ;;
                --holm-family) HOLM_FAMILY=$2 ;;
                --out) OUTDIR=$2 ;; --judge) JUDGE=$2 ;; --set-reference) SET_REF=$2 ;;
                --baseline) BASELINE=$2 ;;
                --history) HISTORY=$2 ;;
            esac
            shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) usage_die "unknown option $1 (try --help)" ;;
    esac
done
for l in ${LAYERS//,/ }; do
    case $l in instr|sys|wall) ;; *) usage_die "unknown layer '$l' (instr, sys, wall)" ;; esac
done
for p in $PATHS; do
    [[ " $ALL_PATHS " == *" $p "* ]] || usage_die "unknown path '$p' (one of: $ALL_PATHS)"
done
[[ $MIN_PAIRS =~ ^[1-9][0-9]*$ && $MAX_PAIRS =~ ^[1-9][0-9]*$ ]] ||
    usage_die "--min-pairs and --max-pairs must be positive whole numbers"
[ "$MIN_PAIRS" -le "$MAX_PAIRS" ] || usage_die "--min-pairs must not exceed --max-pairs"
{ [[ $MORE_PAIRS =~ ^[1-9][0-9]*$ ]] && [ "$MORE_PAIRS" -ge "$MAX_PAIRS" ]; } ||
    usage_die "--more-pairs must be a whole number, at least --max-pairs"
[[ $WALL_BUDGET =~ ^[0-9]+$ ]] || usage_die "--wall-budget must be a whole number of seconds"
# Fewer than the paths measured would make the correction weaker than Holm's.
[ -z "$HOLM_FAMILY" ] || { [[ $HOLM_FAMILY =~ ^[1-9][0-9]*$ ]] && [ "$HOLM_FAMILY" -ge "$(wc -w <<<"$PATHS")" ]; } ||
    usage_die "--holm-family must be a whole number, at least the number of paths measured"
HOLM_FAMILY=${HOLM_FAMILY:-$(wc -w <<<"$PATHS")}
has_layer() { [[ ",$LAYERS," == *",$1,"* ]]; }

# ------------------------------------------------------- --set-reference
if [ -n "$SET_REF" ]; then
    full=$(git -C "$KV_ROOT" rev-parse --verify --quiet "$SET_REF^{commit}") ||
        usage_die "--set-reference: no commit '$SET_REF' in this clone"
    jq -n --arg c "$full" --arg s "$(git -C "$KV_ROOT" log -1 --format=%s "$full")" \
        --arg when "$(date -u +%Y-%m-%dT%H:%M:%SZ)" '{
          reference: {commit: $c, subject: $s, set_utc: $when},
          note: "scripts/ci/ci-perf.sh builds this commit in its scratch directory and measures it against the current build in the same job (see the script header); move it with scripts/ci/ci-perf.sh --set-reference COMMIT"
        }' >"$BASELINE.tmp"
    mv "$BASELINE.tmp" "$BASELINE"
    say "reference set to ${full:0:12} ($BASELINE; commit it)"
    exit 0
fi

# -------------------------------------------------------------- --judge
if [ -n "$JUDGE" ]; then
    [ -d "$JUDGE" ] || usage_die "--judge: no such directory: $JUDGE"
    OUT=$(cd "$JUDGE" && pwd)
    mkdir -p "$OUT/logs"
    kv_find_kvtest "$KV"
    judge_all
    exit $?
fi

# ---------------------------------------------------------------- setup
need_tools jq awk git make tar
has_layer instr && need_tools valgrind setarch
has_layer sys && need_tools strace
kv_find_kvtest "$KV"
if [ -n "$OUTDIR" ]; then
    mkdir -p "$OUTDIR"
    [ -z "$(ls -A "$OUTDIR")" ] || die "$OUTDIR is not empty (--out needs a new or empty directory)"
    OUT=$(cd "$OUTDIR" && pwd)
else
    OUT=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-ci-perf.XXXXXX")
    kv_track_dir "$OUT"
fi
export OUT
mkdir -p "$OUT/logs" "$OUT/wall"
# The data and the reference build live in memory (/dev/shm) when there is
# room: the check is about kvtest's code, and disk writeback is the noisiest
# thing on a shared VM.
base=${TMPDIR:-/tmp}
if [ -d /dev/shm ] && [ -w /dev/shm ] &&
    [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt 1048576 ]; then
    base=/dev/shm
fi
SCR=$(mktemp -d "$base/kvtest-ci-scratch.XXXXXX")
kv_track_dir "$SCR"
T0=$(kv_now)
: >"$OUT/verdicts.tsv"
INCOMPLETE=""

# ------------------------------------------------------------ reference
ref_build() {
    local full dir=$SCR/ref same=1
    [ -n "$REF" ] || REF=$(jq -r '.reference.commit // empty' "$BASELINE" 2>/dev/null || true)
    [ -n "$REF" ] || die "no reference: results/baseline.json names none (set one with --set-reference COMMIT, or KVTEST_REF=COMMIT)"
    if ! full=$(git -C "$KV_ROOT" rev-parse --verify --quiet "$REF^{commit}"); then
        say "reference commit $REF is not in this clone (a shallow checkout? git fetch --unshallow): no A/B comparison is possible"
        return 1
    fi
    echo "$full" >"$OUT/reference.txt"
    mkdir -p "$dir"
    git -C "$KV_ROOT" archive "$full" | tar -x -C "$dir" ||
        die "could not extract reference commit ${full:0:12}"
    # The amalgamation takes a minute: reuse ours when nothing about it changed.
    kv_reuse_sqlite "$full" "$dir" || same=0
    say "building the reference ${full:0:12} ($(git -C "$KV_ROOT" log -1 --format=%s "$full" | cut -c1-60))"
    local t
    t=$(kv_now)
    make --no-print-directory -C "$dir" -j2 kvtest >"$OUT/logs/ref-build.txt" 2>&1 ||
        die "reference commit ${full:0:12} does not build (see $OUT/logs/ref-build.txt)"
    say "reference built in $(kv_since "$t")s ($([ "$same" = 1 ] && echo 'SQLite object reused' || echo 'SQLite compiled'))"
    REF_KV=$dir/kvtest
}
if [ -n "$REF_KV" ]; then
    [ -x "$REF_KV" ] || die "no reference binary at $REF_KV"
    REF_KV=$(cd "$(dirname "$REF_KV")" && pwd)/$(basename "$REF_KV")
    echo "binary $REF_KV" >"$OUT/reference.txt"
elif ! ref_build; then
    INCOMPLETE="the reference commit $REF is not in this clone"
    REF_KV=""
fi
[ -z "$INJECT" ] || say "INJECTED SLOWDOWN on the current side: KVTEST_INJECT=$INJECT"

# ----------------------------------------------------------------- data
[ -n "$REF_KV" ] || {
    say "instr, sys, wall: skipped, no reference build"
    judge_all || true
    say "INCOMPLETE: $INCOMPLETE; the check fails"
    exit 1
}
say "data: 2000 blobs of 10k +- 2k bytes, their export, 5000 links"
DB=$SCR/ci.db FLAT=$SCR/ci DBW=$SCR/w.db FLATW=$SCR/w LDB=$SCR/links.db KEYS=$SCR/keys.txt
kv_run ci-init "$OUT/logs/data.txt" "$KVTEST" init "$DB" --count 2000 --size 10k --variance 2k || die "kvtest init failed"
kv_run ci-export "$OUT/logs/data.txt" "$KVTEST" export "$DB" "$FLAT" || die "kvtest export failed"
cp "$DB" "$DBW" && cp -r "$FLAT" "$FLATW"
kv_run ci-links "$OUT/logs/data.txt" "$KVTEST" shortener init "$LDB" --links 5000 || die "kvtest shortener init failed"
kv_run ci-keys "$KEYS" "$KVTEST" shortener keys "$LDB" || die "kvtest shortener keys failed"

rc=0
if has_layer instr; then layer_counts instr || rc=1; fi
if has_layer sys; then layer_counts sys || rc=1; fi
if has_layer wall; then layer_wall || rc=1; fi
[ "$rc" = 0 ] || INCOMPLETE="a measurement failed (see above and $OUT/logs)"
say "measured in $(kv_since "$T0")s"
rc=0
judge_all || rc=$?
if [ -n "$INCOMPLETE" ]; then
    say "INCOMPLETE: $INCOMPLETE; the check fails"
    exit 1
fi
exit "$rc"

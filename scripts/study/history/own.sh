#!/usr/bin/env bash
# own.sh: this project's own performance history, commit by commit, in the
# form kvtest history reads.
#   scripts/study/history/own.sh [--commits N | --range A..B] [--every K]
#                                [--wall-runs R] [--deps] [--out DIR]
#                                [--kvtest PATH]
#
# For the N most recent commits of main's first-parent history (default 60;
# every K-th of them with --every K, to reach further back in as many
# builds), or for those after A up to B (--range, e.g. to measure every
# commit between two samples that bracket a change), oldest first: the commit is extracted with git archive into a
# scratch directory and built (build/sqlite3.o reused when SQLite is
# unchanged), then measured as the CI check measures its reference side:
#   - instructions per operation of the seven paths under cachegrind
#     (scripts/ci/ci-perf-layers.sh's layer_counts, that side only);
#   - the wall time of the six paths that are one command (not http: the
#     service and its client), R runs each (default 3; 0: none) after one
#     discarded.
# The data (2,000 blobs of 10k +- 2k, their export, 5,000 links, the keys)
# are made once by the current kvtest (--kvtest, else ./kvtest), which is
# also http's client, so every commit is asked for the same bytes.
#
# Writes DIR (default bench-out/history-UTC):
#   series.csv  commit,time,measurement,metric,value,unit,subject: one row
#               per commit and path (instructions per operation)
#   wall.jsonl  each wall run's --json, with "commit" set
#   builds.tsv  commit, subject, build status (ok, or failed), seconds
#   COMMIT/     the check's logs and counts for that commit
# --deps runs each commit's own scripts/deps.sh before building it (as
# root): commits before the move to h2o need libmicrohttpd-dev, which
# today's deps.sh no longer installs. A commit that does not build (its
# log is kept as DIR/COMMIT-build.log), or a path it cannot run, is a gap
# in its series. Then: kvtest history DIR/series.csv --min-change 0.01, and
# kvtest history DIR/wall.jsonl.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=scripts/ci/ci-perf-layers.sh
source "$KV_SCRIPTS/../ci/ci-perf-layers.sh"

NCOMMITS=60 EVERY=1 WALL_RUNS=3 OUTDIR="" KV="" DEPS=0 RANGE=
while [ $# -gt 0 ]; do
    case $1 in
        --commits|--range|--every|--wall-runs|--out|--kvtest)
            if [ $# -lt 2 ] || [ -z "$2" ]; then usage_die "$1 needs a value"; fi
            case $1 in
                --commits) NCOMMITS=$2 ;; --range) RANGE=$2 ;; --every) EVERY=$2 ;; --wall-runs) WALL_RUNS=$2 ;;
                --out) OUTDIR=$2 ;; --kvtest) KV=$2 ;;
            esac
            shift 2 ;;
        --deps) DEPS=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) usage_die "unknown option $1 (try --help)" ;;
    esac
done
for v in "$NCOMMITS" "$EVERY"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || usage_die "--commits and --every must be positive whole numbers, not '$v'"
done
[[ $WALL_RUNS =~ ^[0-9]+$ ]] || usage_die "--wall-runs must be a whole number, not '$WALL_RUNS'"
[ -z "$RANGE" ] || [[ $RANGE == ?*..?* ]] || usage_die "--range needs A..B (two revisions), not '$RANGE'"
need_tools git make tar jq awk valgrind setarch
kv_find_kvtest "$KV"
ROOT=$KV_ROOT
if [ -n "$RANGE" ]; then
    for end in "${RANGE%%..*}" "${RANGE#*..}"; do
        git -C "$ROOT" rev-parse -q --verify "$end^{commit}" >/dev/null ||
            usage_die "--range $RANGE: '$end' names no commit"
    done
    mapfile -t COMMITS < <(git -C "$ROOT" rev-list --first-parent "$RANGE" |
        awk -v k="$EVERY" '(NR - 1) % k == 0' | tac)
else
    mapfile -t COMMITS < <(git -C "$ROOT" rev-list --first-parent -n "$((NCOMMITS * EVERY))" HEAD |
        awk -v k="$EVERY" '(NR - 1) % k == 0' | tac)
fi
[ "${#COMMITS[@]}" -gt 0 ] || usage_die "no commits to measure (--range $RANGE is empty)"
OUTROOT=${OUTDIR:-$ROOT/bench-out/history-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$OUTROOT"
[ -z "$(ls -A "$OUTROOT")" ] || usage_die "$OUTROOT is not empty (--out needs a new or empty directory)"
OUTROOT=$(cd "$OUTROOT" && pwd)
SCR=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-history.XXXXXX")
kv_track_dir "$SCR"

# The check's variables (ci-perf-layers.sh): the current build makes the
# data and is http's client; REF_KV, the side measured, is each commit's.
PATHS="sql-read blob-read files-read db-write files-write lookup http"
INJECT="" COUNT_SIDES=ref WALL_DISCARD=0
DB=$SCR/ci.db FLAT=$SCR/ci DBW=$SCR/w.db FLATW=$SCR/w LDB=$SCR/links.db KEYS=$SCR/keys.txt
mkdir -p "$SCR/logs"
OUT=$SCR
say "data: 2000 blobs of 10k +- 2k bytes, their export, 5000 links"
kv_run h-init "$SCR/logs/data.txt" "$KVTEST" init "$DB" --count 2000 --size 10k --variance 2k || die "kvtest init failed"
kv_run h-export "$SCR/logs/data.txt" "$KVTEST" export "$DB" "$FLAT" || die "kvtest export failed"
cp "$DB" "$DBW" && cp -r "$FLAT" "$FLATW"
kv_run h-links "$SCR/logs/data.txt" "$KVTEST" shortener init "$LDB" --links 5000 || die "kvtest shortener init failed"
kv_run h-keys "$KEYS" "$KVTEST" shortener keys "$LDB" || die "kvtest shortener keys failed"

# build COMMIT DIR: its kvtest in DIR (0), or 1 with the log in DIR.log.
build() {
    local c=$1 dir=$2
    mkdir -p "$dir"
    git -C "$ROOT" archive "$c" | tar -x -C "$dir"
    kv_reuse_sqlite "$c" "$dir" || true
    : >"$dir.log"
    if [ "$DEPS" = 1 ] && [ -f "$dir/scripts/deps.sh" ]; then
        bash "$dir/scripts/deps.sh" >>"$dir.log" 2>&1 || return 1
    fi
    make --no-print-directory -C "$dir" -j2 kvtest >>"$dir.log" 2>&1
}

say "${#COMMITS[@]} commits, oldest first: ${COMMITS[0]:0:12} .. ${COMMITS[-1]:0:12}"
echo "commit,time,measurement,metric,value,unit,subject" >"$OUTROOT/series.csv"
printf 'commit\tsubject\tbuild\tseconds\n' >"$OUTROOT/builds.tsv"
: >"$OUTROOT/wall.jsonl"
i=0
for c in "${COMMITS[@]}"; do
    i=$((i + 1))
    subject=$(git -C "$ROOT" log -1 --format=%s "$c")
    when=$(git -C "$ROOT" log -1 --format=%cI "$c")
    t=$(kv_now)
    if ! build "$c" "$SCR/src"; then
        say "[$i/${#COMMITS[@]}] ${c:0:12}: does not build (a gap)"
        printf '%s\t%s\tfailed\t%s\n' "$c" "$subject" "$(kv_since "$t")" >>"$OUTROOT/builds.tsv"
        cp "$SCR/src.log" "$OUTROOT/${c:0:12}-build.log"
        rm -rf "$SCR/src" "$SCR/src.log"
        continue
    fi
    printf '%s\t%s\tok\t%s\n' "$c" "$subject" "$(kv_since "$t")" >>"$OUTROOT/builds.tsv"
    REF_KV=$SCR/bin-$i
    cp "$SCR/src/kvtest" "$REF_KV"
    rm -rf "$SCR/src" "$SCR/src.log"
    OUT=$OUTROOT/${c:0:12}
    mkdir -p "$OUT/logs" "$OUT/wall"
    layer_counts instr || say "[$i] ${c:0:12}: a path could not be measured (a gap)"
    # per operation: (Ir(N2) - Ir(N1)) / (N2 - N1), as the check's judge
    awk -F'\t' -v c="$c" -v t="$when" -v s="$subject" '
        { k = $1; if (!(k in n1) || $3 < n1[k]) { n1[k] = $3; v1[k] = $4 }
          if (!(k in n2) || $3 > n2[k]) { n2[k] = $3; v2[k] = $4 } }
        END { gsub(/"/, "\"\"", s)
              for (k in n1) if (n2[k] > n1[k])
                  printf "%s,%s,ci-perf instr,%s,%.1f,instr/op,\"%s\"\n", c, t, k, (v2[k] - v1[k]) / (n2[k] - n1[k]), s }' \
        "$OUT/instr.tsv" | sort -t, -k4,4 >>"$OUTROOT/series.csv"
    for p in $PATHS; do
        if [ "$p" = http ] || [ "$WALL_RUNS" = 0 ]; then continue; fi
        WALL_DISCARD=1
        wall_run "$p" ref || { say "[$i] ${c:0:12}: wall $p failed (a gap)"; continue; }
        WALL_DISCARD=0
        for ((r = 0; r < WALL_RUNS; r++)); do wall_run "$p" ref || break; done
    done
    cat "$OUT"/wall/*.ref.jsonl 2>/dev/null | jq -c --arg c "$c" '.commit = $c' >>"$OUTROOT/wall.jsonl" || true
    rm -f "$REF_KV"
    say "[$i/${#COMMITS[@]}] ${c:0:12} measured in $(kv_since "$t")s: ${subject:0:60}"
done
say "done: $OUTROOT/series.csv ($(($(wc -l <"$OUTROOT/series.csv") - 1)) rows); kvtest history $OUTROOT/series.csv --min-change 0.01"

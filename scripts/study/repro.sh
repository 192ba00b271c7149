#!/usr/bin/env bash
# repro.sh: is the study reproducible? Run it twice and set the runs side by side.
#
#   bash scripts/study/repro.sh [small|full] [--out DIR] [--join-only]
#
#   small        (default) scripts/study/bench.sh small twice: about 6 minutes
#   full         scripts/study/bench.sh full twice: about 20 minutes
#   --out DIR    where the two runs go (default bench-out/repro-DATE-SCALE);
#                an existing non-empty DIR is refused
#   --join-only  run nothing: DIR/a and DIR/b hold two finished runs; redo
#                compare.txt and reproducibility.md from them
#
# Runs "scripts/study/bench.sh SCALE --out DIR/a", then the same into DIR/b, then
#   DIR/compare.txt          kvtest compare DIR/a DIR/b: every metric of the
#                            two runs with its verdict (if this kvtest has
#                            the compare subcommand; the file says if not)
#   DIR/reproducibility.md   every headline finding (each run's findings.tsv,
#                            written by scripts/study/report.sh): run A's figure and
#                            95% interval, run B's, and whether they agree.
# Agree: for a ratio, the two intervals overlap; for a crossover size, one
# run's interval contains the other's estimate (or both runs found the same
# kind of no-crossover). The target is that every headline finding agrees.
# Exit 0 when both runs completed (whatever the agreement), 1 when one
# failed, 2 on bad arguments.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SCALE=small OUTDIR="" JOIN=0
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        small|full) SCALE=$1; shift ;;
        --out) [ $# -ge 2 ] || usage_die "--out needs a directory"; OUTDIR=$2; shift 2 ;;
        --join-only) JOIN=1; shift ;;
        -h|--help) usage 0 ;;
        *) usage_die "unknown argument $1 (expected small, full, --out DIR, --join-only)" ;;
    esac
done
need_tools awk
if [ "$JOIN" = 1 ]; then
    [ -n "$OUTDIR" ] || usage_die "--join-only needs --out DIR (the directory with a/ and b/)"
    if [ ! -d "$OUTDIR/a" ] || [ ! -d "$OUTDIR/b" ]; then
        die "$OUTDIR has no a/ and b/ runs to join"
    fi
else
    OUTDIR=${OUTDIR:-$KV_ROOT/bench-out/repro-$(date -u +%Y%m%d-%H%M%S)-$SCALE}
    if [ -e "$OUTDIR" ] && [ -n "$(ls -A "$OUTDIR" 2>/dev/null)" ]; then
        die "$OUTDIR exists and is not empty; pass --out NEWDIR"
    fi
fi
mkdir -p "$OUTDIR"
DIR=$(cd "$OUTDIR" && pwd)
kv_find_kvtest ""

if [ "$JOIN" = 0 ]; then
    T0=$(kv_now)
    for run in a b; do
        say "run $run of 2: scripts/study/bench.sh $SCALE --out $DIR/$run"
        bash "$KV_SCRIPTS/bench.sh" "$SCALE" --out "$DIR/$run" ||
            say "run $run reported a failure (see $DIR/$run/logs/stderr.log)"
    done
    say "both runs done in $(kv_since "$T0")s"
fi
for run in a b; do
    [ -s "$DIR/$run/findings.tsv" ] ||
        die "run $run wrote no findings.tsv: it did not complete (see $DIR/$run/logs/stderr.log)"
done

# ----------------------------------------------------------- compare
if "$KVTEST" compare --help >/dev/null 2>&1; then
    rc=0
    "$KVTEST" compare "$DIR/a" "$DIR/b" >"$DIR/compare.txt" 2>"$DIR/compare.err" || rc=$?
    case $rc in
        0|1) rm -f "$DIR/compare.err"
             COMPARE="\`compare.txt\`: \`kvtest compare a b\`, every metric of the two runs with its verdict (exit $rc)." ;;
        *) # compare.txt says why, rather than being silently empty
           echo "kvtest compare failed (exit $rc): $(head -n1 "$DIR/compare.err")" >"$DIR/compare.txt"
           rm -f "$DIR/compare.err"
           say "$(cat "$DIR/compare.txt")"
           COMPARE="\`compare.txt\`: \`kvtest compare a b\` failed (exit $rc); the file says why." ;;
    esac
else
    echo "kvtest compare is not available in this build ($KVTEST): no metric-by-metric comparison." \
        >"$DIR/compare.txt"
    say "kvtest compare is not available in $KVTEST: compare.txt says so"
    COMPARE="\`compare.txt\`: empty, this kvtest has no \`compare\` subcommand."
fi

# ----------------------------------------------------- reproducibility.md
param_of() { [ -s "$1" ] || return 0; awk -F'\t' -v k="$2" '$1 == k { print $2; exit }' "$1"; }
# repro_table A.tsv B.tsv: the markdown table and a summary line, from two
# findings.tsv files (id, label, estimate, lo, hi, kind; see report.sh).
repro_table() {
    awk -F'\t' '
    function isnum(v) { return v ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ }
    function sz(b) { return b >= 1e6 ? sprintf("%.3gM", b / 1e6) : b >= 1e3 ? sprintf("%.3gk", b / 1e3) : sprintf("%.0f", b) }
    function f(v, kind) {
        if (v == "NA") return "n/a"
        if (v == "-inf" || v == "inf") return "open"
        if (!isnum(v)) return v
        return kind == "bytes" ? sz(v) : sprintf("%.3g", v)
    }
    function fig(e, l, h, kind) {
        if (!isnum(e)) return kind == "bytes" ? "no crossover (" e ")" : e
        return f(e, kind) (l == "NA" ? " (no interval)" : " [" f(l, kind) "–" f(h, kind) "]")
    }
    function lo(v) { return v == "-inf" ? -1e300 : v + 0 }
    function hi(v) { return v == "inf" ? 1e300 : v + 0 }
    function has(l, h) { return l != "NA" && h != "NA" }
    function agree(i,   ea, eb, la, ha, lb, hb) {
        ea = A_e[i]; eb = B_e[i]; la = A_l[i]; ha = A_h[i]; lb = B_l[i]; hb = B_h[i]
        if (kind[i] == "bytes") {
            if (!isnum(ea) || !isnum(eb)) return ea == eb ? "yes" : "no"
            if (!has(la, ha) && !has(lb, hb)) return "unknown (no interval)"
            if (has(la, ha) && eb + 0 >= lo(la) && eb + 0 <= hi(ha)) return "yes"
            if (has(lb, hb) && ea + 0 >= lo(lb) && ea + 0 <= hi(hb)) return "yes"
            return "no"
        }
        if (!has(la, ha) || !has(lb, hb)) return "unknown (no interval)"
        return (lo(la) <= hi(hb) && lo(lb) <= hi(ha)) ? "yes" : "no"
    }
    FNR == 1 { next }
    FILENAME == ARGV[1] { if (!($1 in seen)) { seen[$1]; ids[++n] = $1 }
        label[$1] = $2; kind[$1] = $6; A[$1]; A_e[$1] = $3; A_l[$1] = $4; A_h[$1] = $5; next }
    { if (!($1 in seen)) { seen[$1]; ids[++n] = $1; label[$1] = $2; kind[$1] = $6 }
      B[$1]; B_e[$1] = $3; B_l[$1] = $4; B_h[$1] = $5 }
    END {
        print "| finding | run A [95% CI] | run B [95% CI] | agree |"
        print "|---|---:|---:|---|"
        for (k = 1; k <= n; k++) {
            i = ids[k]
            if (!(i in A) || !(i in B)) { a = "no (only in run " ((i in A) ? "A" : "B") ")"; miss++ }
            else a = agree(i)
            if (a == "yes") yes++; else if (a == "no") no++; else if (a ~ /^unknown/) unk++
            printf "| %s (`%s`) | %s | %s | %s |\n", label[i], i,
                (i in A) ? fig(A_e[i], A_l[i], A_h[i], kind[i]) : "–",
                (i in B) ? fig(B_e[i], B_l[i], B_h[i], kind[i]) : "–", a
        }
        printf "\n**Summary: %d of %d headline findings agree**", yes, n
        printf " (%d disagree, %d without an interval to judge by, %d found in one run only).", no + 0, unk + 0, miss + 0
        printf " %s\n", (yes == n ? "Target met: every headline finding agrees." : "Target not met: every headline finding should agree.")
    }' "$1" "$2"
}

{
    printf '# Reproducibility: the study run twice\n\n'
    # shellcheck disable=SC2016  # backquotes are markdown
    printf 'Two runs of `scripts/study/bench.sh %s` on this machine, one after the other: run A in `a/`, run B in `b/` (each with its REPORT.md).\n' \
        "$(param_of "$DIR/a/raw/bench.tsv" scale)"
    for run in a b; do
        printf -- '- run %s: started %s, %s s\n' "${run^^}" \
            "$(param_of "$DIR/$run/raw/bench.tsv" started_utc)" \
            "$(param_of "$DIR/$run/raw/bench.tsv" elapsed_s | awk '{ printf "%.0f", $1 }')"
    done
    printf '\nEach figure is the estimate with its 95%% interval in brackets (a ratio: the median of per-round ratios, bootstrap interval; a crossover: bytes). Ratios of times are below 1 where the first path is faster, ratios of rates above 1. *Agree*: the two intervals overlap; for a crossover, one run'"'"'s interval contains the other'"'"'s estimate. *Open*: the crossover interval reaches past the sizes measured.\n\n'
    repro_table "$DIR/a/findings.tsv" "$DIR/b/findings.tsv"
    printf '\n%s\n' "$COMPARE"
} >"$DIR/reproducibility.md.tmp"
mv "$DIR/reproducibility.md.tmp" "$DIR/reproducibility.md"
say "$(grep -o '^\*\*Summary: [^*]*\*\*' "$DIR/reproducibility.md" | tr -d '*')"
echo "Reproducibility: $DIR/reproducibility.md"

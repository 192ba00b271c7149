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
#   --a RUN --b RUN   with --join-only: the two runs are these directories
#                (two make bench runs made apart, the reference's way)
#   --causes FILE     with --join-only: id<TAB>cause lines, the cause found
#                for a finding that does not agree, shown in its row
#
# The two runs of the reference are made apart, not back to back (runs of
# one boot share its page cache, CPU placement and neighbours; the figures
# moved far more between days than between two consecutive runs): two
# "make bench" runs of one commit, hours apart, on a freshly started
# machine where one can, then --join-only --a --b. The header says whether
# both are of one commit (raw/bench.tsv) and whether they share a boot.
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
# kind of no-crossover). Overlap is lenient where the intervals are wide, so
# each row also gives B/A, the ratio of the two estimates, and the summary
# how many are within x1.10 of each other, and whether the two runs read
# the same verdict from their figures (the interval above 1, below 1 or
# holding it; a crossover or none), how many reach the same one and how
# many reverse. The target: at least 90% agree,
# and each that does not has its cause (--causes).
# Exit 0 when both runs completed (whatever the agreement), 1 when one
# failed, 2 on bad arguments.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SCALE=small OUTDIR="" JOIN=0 RUN_A="" RUN_B="" CAUSES=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        small|full) SCALE=$1; shift ;;
        --out) [ $# -ge 2 ] || usage_die "--out needs a directory"; OUTDIR=$2; shift 2 ;;
        --join-only) JOIN=1; shift ;;
        --a|--b|--causes)
            [ $# -ge 2 ] || usage_die "$1 needs a path"
            case $1 in --a) RUN_A=$2 ;; --b) RUN_B=$2 ;; --causes) CAUSES=$2 ;; esac
            shift 2 ;;
        -h|--help) usage 0 ;;
        *) usage_die "unknown argument $1 (expected small, full, --out DIR, --join-only, --a RUN, --b RUN, --causes FILE)" ;;
    esac
done
need_tools awk
if [ -n "$RUN_A$RUN_B$CAUSES" ] && [ "$JOIN" = 0 ]; then
    usage_die "--a, --b and --causes go with --join-only"
fi
if { [ -n "$RUN_A" ] && [ -z "$RUN_B" ]; } || { [ -z "$RUN_A" ] && [ -n "$RUN_B" ]; }; then
    usage_die "--a and --b go together"
fi
[ -z "$CAUSES" ] || [ -r "$CAUSES" ] || usage_die "cannot read $CAUSES"
if [ "$JOIN" = 1 ]; then
    [ -n "$OUTDIR" ] || usage_die "--join-only needs --out DIR (the directory with a/ and b/, or where --a and --b are joined)"
    RUN_A=${RUN_A:-$OUTDIR/a} RUN_B=${RUN_B:-$OUTDIR/b}
    if [ ! -d "$RUN_A" ] || [ ! -d "$RUN_B" ]; then
        die "no runs to join: $RUN_A and $RUN_B must both be run directories"
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
RUN_A=$(cd "${RUN_A:-$DIR/a}" && pwd) RUN_B=$(cd "${RUN_B:-$DIR/b}" && pwd)
for run in "$RUN_A" "$RUN_B"; do
    [ -s "$run/findings.tsv" ] ||
        die "run $run wrote no findings.tsv: it did not complete (see $run/logs/stderr.log)"
done

# ----------------------------------------------------------- compare
if "$KVTEST" compare --help >/dev/null 2>&1; then
    rc=0
    "$KVTEST" compare "$RUN_A" "$RUN_B" >"$DIR/compare.txt" 2>"$DIR/compare.err" || rc=$?
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
    awk -F'\t' -v CAUSES="${3:-/dev/null}" '
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
    # The verdict a run reads from its figure: a ratio or rate whose
    # interval lies above 1, below 1, or holds 1 ("no difference"); a
    # crossover that crosses, or the kind of no-crossover. Empty where a
    # figure gives none (a cost in us, a figure without an interval).
    function verdict(e, l, h, k) {
        if (k == "bytes") return isnum(e) ? "crosses" : e
        if (k != "ratio" && k != "rate" || !isnum(l) || !isnum(h)) return ""
        return l + 0 > 1 ? "above" : h + 0 < 1 ? "below" : "holds1"
    }
    function same(i,   va, vb) {
        if (!(i in A) || !(i in B)) return "–"
        va = verdict(A_e[i], A_l[i], A_h[i], kind[i]); vb = verdict(B_e[i], B_l[i], B_h[i], kind[i])
        if (va == "" || vb == "") return "–"
        nv++
        if (va == vb) { sv++; return "yes" }
        if (va vb == "abovebelow" || va vb == "belowabove") opp++
        return "no (" vname(va) " / " vname(vb) ")"
    }
    function vname(v) { return v == "above" ? "above 1" : v == "below" ? "below 1" : v == "holds1" ? "no difference" : v }
    # B/A: the ratio of the two estimates (numbers only).
    function ba(i) { return (isnum(A_e[i]) && isnum(B_e[i]) && A_e[i] + 0 != 0) ? B_e[i] / A_e[i] : "" }
    FNR == 1 && FILENAME != CAUSES { next }
    FILENAME == CAUSES { if ($1 != "" && $1 !~ /^#/) cause[$1] = $2; next }
    FILENAME == ARGV[1] { if (!($1 in seen)) { seen[$1]; ids[++n] = $1 }
        label[$1] = $2; kind[$1] = $6; A[$1]; A_e[$1] = $3; A_l[$1] = $4; A_h[$1] = $5; next }
    { if (!($1 in seen)) { seen[$1]; ids[++n] = $1; label[$1] = $2; kind[$1] = $6 }
      B[$1]; B_e[$1] = $3; B_l[$1] = $4; B_h[$1] = $5 }
    END {
        print "| finding | run A [95% CI] | run B [95% CI] | B/A | agree | same verdict | cause |"
        print "|---|---:|---:|---:|---|---|---|"
        for (k = 1; k <= n; k++) {
            i = ids[k]
            if (!(i in A) || !(i in B)) { a = "no (only in run " ((i in A) ? "A" : "B") ")"; miss++ }
            else a = agree(i)
            r = (i in A && i in B) ? ba(i) : ""
            if (r != "") { nr++; if (r >= 1 / 1.1 && r <= 1.1) near++ }
            c = ""
            if (a != "yes") {
                c = (i in cause) ? cause[i] : "not found"
                # "not found: ..." states what was looked at, not a cause
                if ((i in cause) && cause[i] !~ /^not found/) explained++
            }
            if (a == "yes") yes++; else if (a == "no") no++; else if (a ~ /^unknown/) unk++
            printf "| %s (`%s`) | %s | %s | %s | %s | %s | %s |\n", label[i], i,
                (i in A) ? fig(A_e[i], A_l[i], A_h[i], kind[i]) : "–",
                (i in B) ? fig(B_e[i], B_l[i], B_h[i], kind[i]) : "–",
                r == "" ? "–" : sprintf("%.3g", r), a, same(i), c
        }
        printf "\n**Summary: %d of %d headline findings agree** (%.0f%%;", yes, n, n ? 100 * yes / n : 0
        printf " %d disagree, %d without an interval to judge by, %d found in one run only).", no + 0, unk + 0, miss + 0
        printf " %d of the %d with two estimates are within x1.10 of each other.", near + 0, nr + 0
        printf " %d of the %d with a verdict in both runs reach the same one (above 1, below 1, no difference; for a crossover, whether it crosses); %d reverse (above 1 in one run, below in the other).", sv + 0, nv + 0, opp + 0
        if (n - yes > 0) printf " Of the %d that do not agree, %d have their cause stated.", n - yes, explained + 0
        printf " %s\n", (yes >= 0.9 * n && explained + 0 == n - yes ? "Target met: at least 90% agree, and each that does not has its cause." \
                         : "Target not met: at least 90% should agree, and each that does not should have its cause.")
    }' "$1" "$2" "${3:-/dev/null}"
}

# run_line RUN LETTER: when, how long, what commit, which boot.
run_line() {
    local b=$1/raw/bench.tsv
    # shellcheck disable=SC2016  # backquotes are markdown
    printf -- '- run %s (`%s`): started %s, %s s; commit %s (binary %s, tree %s); machine booted %s\n' "$2" \
        "$(basename "$1")" "$(param_of "$b" started_utc)" \
        "$(param_of "$b" elapsed_s | awk '{ printf "%.0f", $1 }')" \
        "$(param_of "$b" commit | cut -c1-12)" "$(param_of "$b" binary)" "$(param_of "$b" tree)" \
        "$(param_of "$b" booted_utc)"
}
# independence: one commit or two; one boot or two; how far apart.
independence() {
    local ca cb ba bb sa sb gap
    ca=$(param_of "$RUN_A/raw/bench.tsv" commit) cb=$(param_of "$RUN_B/raw/bench.tsv" commit)
    ba=$(param_of "$RUN_A/raw/bench.tsv" booted_utc) bb=$(param_of "$RUN_B/raw/bench.tsv" booted_utc)
    sa=$(param_of "$RUN_A/raw/bench.tsv" started_utc) sb=$(param_of "$RUN_B/raw/bench.tsv" started_utc)
    if [ -z "$ca" ] || [ -z "$cb" ]; then
        printf 'A run records no commit (made before raw/bench.tsv had one): which code each measured is not known.'
    elif [ "$ca" = "$cb" ]; then
        printf 'Both runs are of commit %s.' "${ca:0:12}"
    else
        printf '**The runs are of different commits** (%s, %s): this is not a check of one commit.' "${ca:0:12}" "${cb:0:12}"
    fi
    if [ -n "$sa" ] && [ -n "$sb" ]; then
        gap=$(( $(date -u -d "$sb" +%s) - $(date -u -d "$sa" +%s) ))
        gap=${gap#-}
        printf ' Their starts are %s apart' "$(awk -v g="$gap" 'BEGIN { if (g >= 3600) printf "%.1f hours", g / 3600; else printf "%.0f minutes", g / 60 }')"
        if [ -n "$ba" ] && [ -n "$bb" ]; then
            if [ "$ba" = "$bb" ]; then printf '; **they share one boot** of the machine.'
            else printf ', on two boots of the machine.'; fi
        else
            printf '; whether they share a boot is not recorded.'
        fi
    fi
    printf '\n'
}
# probes: the machine references of both runs side by side (probe.sh).
probes() {
    [ -s "$RUN_A/raw/probe.tsv" ] && [ -s "$RUN_B/raw/probe.tsv" ] || return 0
    # shellcheck disable=SC2016  # backquotes are markdown
    printf '\nThe machine in each run (`raw/probe.tsv`, `scripts/study/probe.sh`: no kvtest involved), at its start and its end:\n\n'
    printf '| reference | A start | A end | B start | B end |\n|---|---:|---:|---:|---:|\n'
    awk -F'\t' '
        FNR == 1 { run = (FILENAME == ARGV[1]) ? "A" : "B"; next }
        $3 ~ /jiffies$/ { j[run, $1, $3] = $4; next }
        { v[run, $1, $3] = $4 " " $5; if (!($3 in seen)) { seen[$3]; order[++n] = $3 } }
        END {
            for (i = 1; i <= n; i++) { m = order[i]
                printf "| %s | %s | %s | %s | %s |\n", m, v["A", "start", m], v["A", "end", m], v["B", "start", m], v["B", "end", m] }
            printf "| CPU stolen over the run |"
            for (r = 1; r <= 2; r++) { x = r == 1 ? "A" : "B"; dt = j[x, "end", "total_jiffies"] - j[x, "start", "total_jiffies"]
                printf " %s |", (dt > 0 ? sprintf("%.2f %%", 100 * (j[x, "end", "steal_jiffies"] - j[x, "start", "steal_jiffies"]) / dt) : "–")
                if (r == 1) printf " |" }
            printf " |\n"
        }' "$RUN_A/raw/probe.tsv" "$RUN_B/raw/probe.tsv"
}

{
    printf '# Reproducibility: the study run twice\n\n'
    # shellcheck disable=SC2016  # backquotes are markdown
    printf 'Two runs of `scripts/study/bench.sh %s`: run A and run B (each with its REPORT.md).\n' \
        "$(param_of "$RUN_A/raw/bench.tsv" scale)"
    run_line "$RUN_A" A
    run_line "$RUN_B" B
    printf '\n%s\n' "$(independence)"
    printf '\nEach figure is the estimate with its 95%% interval in brackets (a ratio: the median of per-round ratios, bootstrap interval; a crossover: bytes). Ratios of times are below 1 where the first path is faster, ratios of rates above 1. *Agree*: the two intervals overlap; for a crossover, one run'"'"'s interval contains the other'"'"'s estimate. Overlap is lenient where an interval is wide, so *B/A* gives the ratio of the two estimates as well. *Open*: the crossover interval reaches past the sizes measured. *Cause*: for a finding that does not agree, what was found to explain it.\n\n'
    repro_table "$RUN_A/findings.tsv" "$RUN_B/findings.tsv" ${CAUSES:+"$CAUSES"}
    probes
    printf '\n%s\n' "$COMPARE"
} >"$DIR/reproducibility.md.tmp"
mv "$DIR/reproducibility.md.tmp" "$DIR/reproducibility.md"
say "$(grep -o '^\*\*Summary: [^*]*\*\*' "$DIR/reproducibility.md" | tr -d '*')"
echo "Reproducibility: $DIR/reproducibility.md"

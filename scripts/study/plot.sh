#!/usr/bin/env bash
# plot.sh OUTDIR: draw every chart whose CSV exists in OUTDIR/csv into
# OUTDIR/charts, as PNG and SVG, with gnuplot (scripts/study/plot/*.gp).
#
#   reads           random-read latency per access method relative to files
#   writes          write latency per variant
# Error bars are 95% intervals (the *_lo, *_hi columns tables.sh writes).
#   space           disk space of the database, flat and tree layouts, LMDB, RocksDB
#   percentiles     read latency percentiles, warm and cold
#   sweep           time per blob vs blob size (every store), crossover marked
#   shortener-throughput, shortener-latency   per cache configuration
#   shortener-timeline   p50/p99 and requests/s per interval of each
#                        configuration's first measured HTTP run (--timeline)
#   tlscost         the service's GETs over http, https and h2, kept alive
#                   or a new connection each, no cache and Valkey
#                   (scripts/study/http/tlscost.sh)
#
# Each chart is regenerated alone with the gnuplot command this script
# prints in OUTDIR/charts/commands.txt. Safe to re-run (charts are replaced).
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_tools gnuplot
kv_results_dir "$@"
[ -d "$C" ] || die "no $C: run an experiment script first"
G=$KV_SCRIPTS/plot
mkdir -p "$OUT/charts"
: >"$OUT/charts/commands.txt"

# Subtitle: what was measured and where, so a chart makes sense alone.
sub="$(kv_envl cpu), $(kv_envl kernel), $(kv_envl 'filesystem of output dir' | cut -d' ' -f1)"
if [ -s "$OUT/raw/blobs-params.tsv" ]; then
    p() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$OUT/raw/blobs-params.tsv"; }
    blobsub="$(p count) blobs of $(p size) ± $(p variance) bytes; $sub"
else
    blobsub=$sub
fi

# chart NAME VARS: draw NAME.gp into charts/NAME.{png,svg}.
chart() {
    local name=$1 vars=$2 term
    for term in png svg; do
        local e="dir='$G'; out='$OUT/charts/$name.$term'; term='$term'; $vars"
        printf "gnuplot -e \"%s\" scripts/study/plot/%s.gp\n" \
            "${e//$OUT/\$OUT}" "$name" | sed "s|$G|scripts/study/plot|g" >>"$OUT/charts/commands.txt"
        if ! gnuplot -e "$e" "$G/$name.gp" 2>"$OUT/logs/gnuplot-$name.log"; then
            say "gnuplot failed for $name.$term; see $OUT/logs/gnuplot-$name.log"
            return 0
        fi
    done
    # gnuplot warnings are worth seeing; an empty log is removed.
    [ -s "$OUT/logs/gnuplot-$name.log" ] || rm -f "$OUT/logs/gnuplot-$name.log"
    say "chart $OUT/charts/$name.png (.svg)"
}

has_data() { [ -s "$1" ] && [ "$(wc -l <"$1")" -ge 2 ]; }

if has_data "$C/reads-ratio.csv"; then
    cold=0
    awk -F, 'NR > 1 && $3 != "" { found = 1 } END { exit !found }' "$C/reads-ratio.csv" && cold=1
    chart reads "in='$C/reads-ratio.csv'; hascold=$cold; subtitle='$blobsub'"
fi
if has_data "$C/writes.csv"; then
    chart writes "in='$C/writes.csv'; subtitle='$blobsub'"
fi
if has_data "$C/space.csv"; then
    chart space "in='$C/space.csv'; subtitle='$blobsub'"
fi
if has_data "$C/percentiles-warm.csv"; then
    cold=0
    has_data "$C/percentiles-cold.csv" && cold=1
    chart percentiles "in='$C/percentiles-warm.csv'; in2='$C/percentiles-cold.csv'; hascold=$cold; subtitle='$blobsub'"
fi
if has_data "$C/sweep.csv"; then
    cross=$(sed -n 's/^crossover_bytes=//p' "$C/sweep-crossover.txt" 2>/dev/null || true)
    pv=""   # several page sizes: one curve each (tables.sh: sweep-pages.*)
    if has_data "$C/sweep-pages.csv" && [ -s "$C/sweep-pages.tsv" ]; then
        pv="; inp='$C/sweep-pages.csv'; npages=$(awk 'NR > 1' "$C/sweep-pages.tsv" | wc -l)"
        pv+="; pages='$(awk -F'\t' 'NR > 1 { printf "%s ", $1 }' "$C/sweep-pages.tsv")'"
        pv+="; crosses='$(awk -F'\t' 'NR > 1 { printf "%s ", $3 }' "$C/sweep-pages.tsv")'"
    fi
    sci=0   # error bars only where kvtest sweep gave per-run times
    awk -F, 'NR > 1 && $8 != "" { found = 1 } END { exit !found }' "$C/sweep.csv" && sci=1
    # Other stores (kvtest sweep --stores): their STORE_us columns.
    sst=$(head -n1 "$C/sweep.csv" | tr ',' '\n' | sed -n 's/^\(lmdb\|rocksdb\)_us$/\1/p' | paste -sd' ')
    [ -z "$sst" ] || pv+="; stores='$sst'"
    chart sweep "in='$C/sweep.csv'; cross=${cross:-0}; hasci=$sci; subtitle='$sub'$pv"
fi
if has_data "$C/shortener-bench.csv" || has_data "$C/shortener-http.csv"; then
    hb=0; hh=0
    has_data "$C/shortener-bench.csv" && hb=1
    has_data "$C/shortener-http.csv" && hh=1
    v="inb='$C/shortener-bench.csv'; inh='$C/shortener-http.csv'; hasbench=$hb; hashttp=$hh; subtitle='$sub'"
    chart shortener-throughput "$v"
    chart shortener-latency "$v"
fi
# One line per configuration, its first round (shortener.sh writes
# csv/shortener-timeline-CONFIG-rROUND.csv); the interval from the first
# file's first two rows.
tl=$(ls "$C"/shortener-timeline-*-r1.csv 2>/dev/null || true)
if [ -n "$tl" ] && has_data "${tl%%$'\n'*}"; then
    names=$(sed 's|.*/shortener-timeline-||; s|-r1\.csv$||' <<<"$tl" | tr '\n' ' ')
    step=$(awk -F, 'NR == 3 { print $1; exit }' "${tl%%$'\n'*}")
    chart shortener-timeline "files='$(tr '\n' ' ' <<<"$tl")'; names='$names'; step=${step:-1}; subtitle='$sub'"
fi
if has_data "$C/tlscost.csv"; then
    chart tlscost "in='$C/tlscost.csv'; subtitle='$sub'"
fi
exit 0

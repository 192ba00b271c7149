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
#   capacity        p99 of every step of each capacity search against the
#                   rate offered, the bound and each answer marked
#                   (capacity.sh; csv/capacity-steps.csv, report-capacity.sh)
#   stores          the four stores (SQLite, files, LMDB, RocksDB): time per
#                   blob relative to the database per workload (stores.csv)
#   storetier       GET/s per store and cache mode over HTTP, uniform and
#                   Zipf keys (storetier.sh: storetier-summary.csv and
#                   storetier-http.csv)
#   memlimit        each cache's lookups/s relative to no cache under each
#                   memory limit, in-process and HTTP (memlimit.sh;
#                   csv/memlimit-ratios.csv, tables.sh)
#   cluster         in-process lookups/s: no cache, one Valkey, a 3-primary
#                   Valkey Cluster (cluster.sh: cluster.csv, cluster-summary.csv)
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
# kvp FILE KEY: the value of KEY in a two-column TSV of parameters.
kvp() { awk -F'\t' -v k="$2" '$1 == k { print $2; exit }' "$1" 2>/dev/null || true; }
if has_data "$C/capacity-steps.csv"; then
    # The searches of each key distribution, in the order they ran.
    nu=$(awk -F, 'NR > 1 && $1 == "uniform" && !s[$4]++ { printf "%s ", $4 }' "$C/capacity-steps.csv")
    nz=$(awk -F, 'NR > 1 && $1 == "zipf" && !s[$4]++ { printf "%s ", $4 }' "$C/capacity-steps.csv")
    bound=$(awk -F, 'NR == 2 { print $10 }' "$C/capacity-steps.csv")
    CP=$OUT/raw/capacity-params.tsv
    capsub="$(kvp "$CP" links) links, $(kvp "$CP" threads) connections, steps of at least $(kvp "$CP" step_time), one search per configuration (CONFIG:roundN: another)"
    chart capacity "in='$C/capacity-steps.csv'; bound=${bound:-0}; namesu='$nu'; namesz='$nz'; detail='$capsub'; subtitle='$sub'"
fi
if has_data "$C/stores.csv"; then
    # Rounds per workload, as the CSV has them.
    rnd=$(awk -F, 'NR > 1 && $1 != "space" && $7 != "" && !s[$1]++ { printf "%s%s %s", (n++ ? ", " : ""), $1, $7 }' "$C/stores.csv")
    blobs=""   # the blobs, where blobs-params.tsv says
    [ "$blobsub" = "$sub" ] || blobs="; ${blobsub%"; $sub"}"
    chart stores "in='$C/stores.csv'; detail='rounds: $rnd$blobs'; subtitle='$sub'"
fi
if has_data "$C/storetier-summary.csv" && has_data "$C/storetier-http.csv"; then
    TP=$OUT/raw/storetier-params.tsv
    rounds=$(awk -F, 'NR > 1 && $1 == "http" { print $5; exit }' "$C/storetier-summary.csv")
    stsub="${rounds:-?} rounds, $(kvp "$TP" links) links, $(kvp "$TP" threads) connections, $(kvp "$TP" duration) s of GETs a run, Zipf $(kvp "$TP" zipf)"
    chart storetier "in='$C/storetier-summary.csv'; in2='$C/storetier-http.csv'; detail='$stsub'; subtitle='$sub'"
fi
if has_data "$C/memlimit-ratios.csv"; then
    MP=$OUT/raw/memlimit-params.tsv
    mlsub="$(kvp "$MP" rounds) rounds, $(kvp "$MP" links) links ($(awk -v b="$(kvp "$MP" db_bytes)" 'BEGIN { printf "%.0f MB", b / 1e6 }')), in-process $(kvp "$MP" lookups) lookups a run, HTTP $(kvp "$MP" duration) s, in a memory cgroup, Zipf $(kvp "$MP" zipf)"
    chart memlimit "in='$C/memlimit-ratios.csv'; detail='$mlsub'; subtitle='$sub'"
fi
if has_data "$C/cluster-summary.csv" && has_data "$C/cluster.csv"; then
    # The paired ratios with their intervals, one line each.
    n1=""; n2=""
    if [ -s "$C/cluster-ci.json" ]; then
        q='def r: . * 100 | round / 100; def q(k): if .[k] then "\(.[k].est | r) (95% CI \(.[k].lo | r)-\(.[k].hi | r))" else "n/a" end;'
        n1="cluster / one Valkey: $(jq -r "$q"'q("cluster/valkey")' "$C/cluster-ci.json")"
        n2="one Valkey / no cache: $(jq -r "$q"'q("valkey/none")' "$C/cluster-ci.json")"
    fi
    rounds=$(awk -F, 'NR > 1 { r[$1] = 1 } END { print length(r) }' "$C/cluster.csv")
    chart cluster "in='$C/cluster-summary.csv'; in2='$C/cluster.csv'; note1='$n1'; note2='$n2'; detail='$rounds rounds, configurations interleaved, kvtest shortener bench'; subtitle='$sub'"
fi
exit 0

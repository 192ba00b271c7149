# memlimit.gp: a database larger than memory (scripts/study/memlimit.sh):
# each cache's lookups/s relative to SQLite alone (no cache) in the same
# round, Valkey cache-aside and valkey-track, per leg (in-process bench,
# HTTP service), memory limit and key distribution; log scale, above 1 the
# cache pays off; bars: the 95% interval of the median of per-round ratios.
# Input: csv/memlimit-ratios.csv (tables.sh) leg,mem,keys,sqlite_per_s,
#        valkey_ratio,valkey_lo,valkey_hi,track_ratio,track_lo,track_hi
# Variables: detail (what was measured: rounds, keys, ...), in, out, term, subtitle.
load dir.'/common.gp'
if (!exists('detail')) { detail = '' }
set title "A database larger than memory: each cache's rate / no cache's (error bars: 95% CI; under each: no cache's rate)\n".detail."\n".subtitle noenhanced
set ylabel 'lookups/s / no cache'."'".'s in the same round (log scale)'
stats in using 0 nooutput
n = STATS_records
set xrange [-0.6:n-0.4]
# The floor: 0.1x, or lower where a ratio or its interval falls below it
# (a cache 15x slower than no cache would draw as a bar cut at the axis).
# (Empty cells, as with too few rounds for an interval, are left out; a
# column with none leaves no STATS_min.)
vmin = 1
undefine STATS_*
stats in using 5 nooutput
if (exists('STATS_min')) { vmin = STATS_min < vmin ? STATS_min : vmin }
undefine STATS_*
stats in using 6 nooutput
if (exists('STATS_min')) { vmin = STATS_min < vmin ? STATS_min : vmin }
ymin = vmin >= 0.1 ? 0.1 : vmin >= 0.05 ? 0.05 : vmin >= 0.025 ? 0.025 : 0.01
set logscale y
set yrange [ymin:300]
set ytics (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 10, 25, 50, 100, 250)
set format y '%gx'
set xtics scale 0 font ',9'
set bmargin 6
set key top right font ',10' samplen 1.5
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb '#444444' back
leg(l) = l eq 'inproc' ? 'in-process' : l eq 'http' ? 'HTTP' : l
lo(r) = r < 1 ? r : 1
hi(r) = r < 1 ? 1 : r
w = 0.17
plot in using ($0 - 0.2):5:($0 - 0.2 - w):($0 - 0.2 + w):(lo($5)):(hi($5)) \
         with boxxyerror lt 2 fs solid 0.85 border rgb '#333333' title 'valkey cache-aside', \
     '' using ($0 + 0.2):8:($0 + 0.2 - w):($0 + 0.2 + w):(lo($8)):(hi($8)) \
         with boxxyerror lt 3 fs solid 0.85 border rgb '#333333' title 'valkey-track', \
     '' using ($0 - 0.2):5:6:7 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.2 notitle, \
     '' using ($0 + 0.2):8:9:10 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.2 notitle, \
     '' using 0:(ymin):xtic(leg(strcol(1))."\n".strcol(2)." ".strcol(3)."\n".sprintf('no cache %.0fk/s', $4 / 1000)) with points ps 0 notitle

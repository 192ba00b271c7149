# reads.gp: random-read latency per access method relative to flat files
# (flat files = 1; below 1 is faster than files), warm and cold cache.
# Input: csv/reads-ratio.csv  label,warm_ratio,cold_ratio,warm_us,cold_us,
#        warm_lo,warm_hi,cold_lo,cold_hi (95% interval of each ratio: error bars)
# Variables: in, out, term, hascold (0/1), subtitle.
load dir.'/common.gp'
set title "Random reads: time per blob relative to flat files (lower is faster; bars: 95% CI)\n".subtitle noenhanced
set ylabel 'time per blob / time per blob of flat files'
stats in using 0 nooutput
n = STATS_records
set xrange [-0.6:n-0.4]
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set key top left
set xtics rotate by -20 left
set bmargin 6
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb '#444444' back
w = hascold ? 0.36 : 0.6
dx = hascold ? 0.19 : 0
if (hascold) {
    plot in using ($0-dx):2:(w):xtic(1) with boxes title 'warm cache' lt 1, \
         '' using ($0+dx):3:(w) with boxes title 'cold cache' lt 2, \
         '' using ($0-dx):2:6:7 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.2 notitle, \
         '' using ($0+dx):3:8:9 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.2 notitle, \
         '' using ($0-dx):2:(sprintf('%.1f µs', $4)) with labels offset 0,0.8 font ',8' notitle, \
         '' using ($0+dx):3:(sprintf('%.0f µs', $5)) with labels offset 0,0.8 font ',8' notitle
} else {
    plot in using 0:2:(w):xtic(1) with boxes title 'warm cache' lt 1, \
         '' using 0:2:6:7 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.2 notitle, \
         '' using 0:2:(sprintf('%.1f µs', $4)) with labels offset 0,0.8 font ',8' notitle
}

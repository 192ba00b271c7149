# percentiles.gp: latency percentiles of random reads per access method
# (median over rounds of each round's percentile), warm and cold cache.
# Input: csv/percentiles-warm.csv (and in2 = percentiles-cold.csv if hascold)
#   pct,"method 1","method 2",...   rows p50,p90,p99,p99.9,max
# Variables: in, in2, out, term, hascold, subtitle.
load dir.'/common.gp'
set logscale y
set ylabel 'µs per blob read'
set key top left
set xrange [-0.3:4.3]
stats in using 0 nooutput
ncol = STATS_columns
if (hascold) {
    set multiplot layout 1,2 title "Random-read latency percentiles (log scale)\n".subtitle noenhanced
    set title 'warm cache'
    plot for [i=2:ncol] in using 0:i:xtic(1) with linespoints title columnhead(i) lt (i-1)
    set title 'cold cache (page cache evicted before each run)'
    set key top left font ',9'
    stats in2 using 0 nooutput
    ncol2 = STATS_columns
    plot for [i=2:ncol2] in2 using 0:i:xtic(1) with linespoints title columnhead(i) lt (i-1)
    unset multiplot
} else {
    set title "Random-read latency percentiles, warm cache (log scale)\n".subtitle noenhanced
    plot for [i=2:ncol] in using 0:i:xtic(1) with linespoints title columnhead(i) lt (i-1)
}

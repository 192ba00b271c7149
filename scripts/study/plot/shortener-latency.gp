# shortener-latency.gp: latency percentiles per configuration, in-process
# lookups (µs) and HTTP GETs measured by kvtest shortener load (ms).
# Inputs: inb = csv/shortener-bench.csv  columns 7-10 = p50,p90,p99,p999 (µs)
#         inh = csv/shortener-http.csv   columns 7-10 = p50,p90,p99,p999 (ms)
# Variables: inb, inh, out, term, hasbench, hashttp, subtitle.
load dir.'/common.gp'
set key top left
set logscale y
set offsets 0, 0, graph 0.05, 0
set xtics rotate by -20 left
both = hasbench && hashttp
w = 0.19
if (both) {
    set multiplot layout 1,2 title "URL shortener: latency percentiles by configuration (log scale)\n".subtitle noenhanced
}
if (hasbench) {
    stats inb using 0 nooutput
    n = STATS_records
    set xrange [-0.6:n-0.4]
    set ylabel 'µs per lookup'
    set title 'in-process lookups'
    if (!both) { set title "URL shortener: in-process lookup latency (log scale)\n".subtitle noenhanced }
    plot inb using ($0-1.5*w):7:(w):xtic(1) with boxes lt 1 title 'p50', \
         '' using ($0-0.5*w):8:(w) with boxes lt 2 title 'p90', \
         '' using ($0+0.5*w):9:(w) with boxes lt 3 title 'p99', \
         '' using ($0+1.5*w):10:(w) with boxes lt 4 title 'p99.9'
}
if (hashttp) {
    stats inh using 0 nooutput
    n = STATS_records
    set xrange [-0.6:n-0.4]
    set ylabel 'ms per GET request'
    set title 'HTTP GET /link/ID (kvtest shortener load)'
    if (!both) { set title "URL shortener over HTTP: latency percentiles (log scale)\n".subtitle noenhanced }
    plot inh using ($0-1.5*w):7:(w):xtic(1) with boxes lt 1 title 'p50', \
         '' using ($0-0.5*w):8:(w) with boxes lt 2 title 'p90', \
         '' using ($0+0.5*w):9:(w) with boxes lt 3 title 'p99', \
         '' using ($0+1.5*w):10:(w) with boxes lt 4 title 'p99.9'
}
if (both) { unset multiplot }

# shortener-throughput.gp: lookups per second per configuration, in-process
# (no HTTP; log scale) and over HTTP (kvtest shortener load and wrk against
# the same service); bars: the 95% interval of the median over rounds.
# Inputs: inb = csv/shortener-bench.csv  config,lookups_per_s,lookups_min,lookups_max,...,
#               columns 13-14 lookups_lo,lookups_hi
#         inh = csv/shortener-http.csv   config,rps,rps_min,rps_max,wrk_rps,...,
#               columns 17-18 rps_lo,rps_hi
# Variables: inb, inh, out, term, hasbench, hashttp, subtitle.
load dir.'/common.gp'
set key top right
both = hasbench && hashttp
if (both) {
    set multiplot layout 1,2 title "URL shortener: lookups per second by configuration\n".subtitle noenhanced
}
if (hasbench) {
    stats inb using 0 nooutput
    n = STATS_records
    set xrange [-0.6:n-0.4]
    set logscale y
    set yrange [*:*]
    set offsets 0, 0, graph 0.12, 0
    set format y '%.0s%c'
    set ylabel 'lookups per second (log scale)'
    set title 'in-process, 1 thread, no HTTP'
    if (!both) { set title "URL shortener: in-process lookups per second (no HTTP)\n".subtitle noenhanced }
    set xtics rotate by -20 left
    plot inb using 0:2:(0.6):xtic(1) with boxes lt 1 notitle, \
         '' using 0:2:13:14 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 notitle, \
         '' using 0:(column(14) > 0 ? column(14) : $2):(sprintf('%.0f/s', $2)) with labels offset 0,0.8 font ',9' notitle
    unset logscale y
}
if (hashttp) {
    stats inh using 0 nooutput
    n = STATS_records
    set xrange [-0.6:n-0.4]
    set yrange [0:*]
    set offsets 0, 0, graph 0.15, 0
    set format y '%.0s%c'
    set ylabel 'GET /link/ID per second'
    set title 'over HTTP: kvtest shortener load vs wrk'
    if (!both) { set title "URL shortener over HTTP: requests per second\n".subtitle noenhanced }
    set xtics rotate by -20 left
    plot inh using ($0-0.19):2:(0.36):xtic(1) with boxes lt 1 title 'kvtest load', \
         '' using ($0+0.19):5:(0.36) with boxes lt 2 title 'wrk', \
         '' using ($0-0.19):2:17:18 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 notitle, \
         '' using ($0-0.19):2:(sprintf('%.0f', $2)) with labels offset 0,0.8 font ',9' notitle, \
         '' using ($0+0.19):5:(sprintf('%.0f', $5)) with labels offset 0,0.8 font ',9' notitle
}
if (both) { unset multiplot }

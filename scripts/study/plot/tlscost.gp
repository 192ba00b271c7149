# tlscost.gp: the service's GETs per second over http, https and h2, kept
# alive or a new connection per request, without a cache and with Valkey
# (left), and the time each way costs a request beyond http kept-alive
# (right, log scale); bars: 95% intervals of the medians over rounds.
# Input: csv/tlscost.csv (scripts/study/http/tlscost.sh) cell,
#        none_rps,lo,hi (2-4), valkey_rps,lo,hi (5-7), none_us,lo,hi
#        (8-10), valkey_us,lo,hi (11-13), p50/p99 ms (14-17)
# Variables: in, out, term, subtitle.
load dir.'/common.gp'
set multiplot layout 1,2 title "The service's GET over TLS and HTTP/2: requests/s, and what each way adds to a request\n".subtitle noenhanced
stats in using 0 nooutput
n = STATS_records
set xrange [-0.6:n-0.4]
set xtics rotate by -30 left font ',9'
set bmargin 5
set key top right
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set format y '%.0s%c'
set ylabel 'GET /link/ID per second'
set title 'requests/s (median of rounds)'
plot in using ($0-0.19):2:(0.36):xtic(1) with boxes lt 1 title 'no cache', \
     '' using ($0+0.19):5:(0.36) with boxes lt 2 title 'valkey', \
     '' using ($0-0.19):2:3:4 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 notitle, \
     '' using ($0+0.19):5:6:7 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 notitle
set logscale y
set yrange [*:*]
set format y '%g'
set ylabel 'µs a request, beyond http kept-alive (log scale)'
set title 'added time (two cores), median of per-round differences'
# http-keep is the base (0): left out of a log scale, as is any cell that
# came out no slower than it
plot in using ($0-0.19):($8 > 0 ? $8 : NaN):(0.36):xtic(1) with boxes lt 1 title 'no cache', \
     '' using ($0+0.19):($11 > 0 ? $11 : NaN):(0.36) with boxes lt 2 title 'valkey', \
     '' using ($0-0.19):($8 > 0 ? $8 : NaN):($9 > 0 ? $9 : $8):10 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 notitle, \
     '' using ($0+0.19):($11 > 0 ? $11 : NaN):($12 > 0 ? $12 : $11):13 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 notitle, \
     '' using ($0-0.19):($8 > 0 ? $8 : NaN):(sprintf('%.0f', $8)) with labels offset 0,0.8 font ',8' notitle, \
     '' using ($0+0.19):($11 > 0 ? $11 : NaN):(sprintf('%.0f', $11)) with labels offset 0,0.8 font ',8' notitle
unset multiplot

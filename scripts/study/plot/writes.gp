# writes.gp: time per blob written (random order, fresh content of the
# same size), median over rounds with its 95% interval as bars (order
# statistics; below 6 rounds that is min-max); log scale.
# Input: csv/writes.csv  variant,label,rounds,count,us,us_min,us_max,...,
#        columns 17-18 us_lo,us_hi
# Variables: in, out, term, subtitle.
load dir.'/common.gp'
set title "Random writes: µs per blob (median of rounds, bars: its 95% CI; log scale)\n".subtitle noenhanced
set ylabel 'µs per blob written'
stats in using 0 nooutput
n = STATS_records
set xrange [-0.6:n-0.4]
set logscale y
set offsets 0, 0, graph 0.1, 0
set xtics rotate by -20 left
set bmargin 7
set key off
plot in using 0:5:(0.6):xtic(2) with boxes lt 1, \
     '' using 0:5:17:18 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5, \
     '' using 0:(column(18) > 0 ? column(18) : $5):(sprintf('%.1f', $5)) with labels offset 0,0.8 font ',10'

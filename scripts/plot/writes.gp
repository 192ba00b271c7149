# writes.gp: time per blob written (random order, fresh content of the
# same size), median over rounds with min-max bars; log scale.
# Input: csv/writes.csv  variant,label,rounds,count,us,us_min,us_max,...
# Variables: in, out, term, subtitle.
load dir.'/common.gp'
set title "Random writes: µs per blob (median of rounds, bars show min-max; log scale)\n".subtitle noenhanced
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
     '' using 0:5:6:7 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5, \
     '' using 0:7:(sprintf('%.1f', $5)) with labels offset 0,0.8 font ',10'

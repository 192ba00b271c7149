# shortener-timeline.gp: how latency and throughput moved during each
# measured HTTP run (kvtest shortener load --timeline), one line per
# configuration, so a stall or a warm-up shows where the run's percentiles
# would hide it. Top: p50 (dashed), p99 (solid) and max (dotted) per
# interval, ms, log
# scale; bottom: requests completed per second in each interval (a step
# per interval: a row covers [t_s, t_s + step); the last row is the
# partial interval the run ended in, so its rate reads low).
# Inputs: files = 'A.csv B.csv ...' (t_s,requests,failures,p50_us,p99_us,max_us),
#         names = their configuration names, same order; step = interval (s).
# Variables: files, names, step, out, term, subtitle.
load dir.'/common.gp'
n = words(files)
# Both panels share the x range: up to the latest interval start of any file.
xmax = step
do for [i=1:n] {
    stats word(files, i) using 1 nooutput
    if (STATS_max > xmax) { xmax = STATS_max }
}
set xrange [0:xmax]
set multiplot layout 2,1 title "URL shortener over HTTP: latency and throughput per ".sprintf('%g', step*1000)." ms interval (kvtest shortener load --timeline)\n".subtitle noenhanced
set key outside right top
set lmargin 12
set rmargin 22
set logscale y
set ylabel 'ms (p50 dashed, p99 solid, max dotted)'
unset xlabel
# Each interval's latency is a level over [t_s, t_s + step) (a vector
# without head), so an interval without answers (empty fields) is a gap,
# not a line drawn across it from its neighbours.
lat(c) = column(2) > 0 ? column(c) / 1000 : NaN
plot for [i=1:n] word(files, i) using 1:(lat(5)):(step):(0) with vectors nohead lt i title word(names, i).' p99', \
     for [i=1:n] word(files, i) using 1:(lat(4)):(step):(0) with vectors nohead lt i dt 2 notitle, \
     for [i=1:n] word(files, i) using 1:(lat(6)):(step):(0) with vectors nohead lt i dt 3 lw 1 notitle
unset logscale y
set ylabel 'requests/s'
set xlabel 's since the run started'
set yrange [0:*]
plot for [i=1:n] word(files, i) using 1:($2/step) with steps lt i title word(names, i)
unset multiplot

# capacity.gp: capacity at a p99 bound (scripts/study/capacity.sh): the
# p99 latency of every constant-rate step of each search against the rate
# it offered (log-log), one line per search, the bound as a horizontal
# line, each search's answer (the midpoint of its last pass and first
# fail) marked on the bound; uniform keys left, Zipf keys right.
# Input: csv/capacity-steps.csv (report-capacity.sh) keys,config,round,
#        search,step,target_per_s,achieved_per_s,p99_us,pass,bound_us,
#        outcome,capacity_per_s
# Variables: detail (what was measured: rounds, keys, ...), in, out, term, subtitle, bound (µs), namesu and namesz (the
# searches of each key distribution, 'A B ...'; either may be empty).
load dir.'/common.gp'
if (!exists('detail')) { detail = '' }
if (!exists('namesu')) { namesu = '' }
if (!exists('namesz')) { namesz = '' }
set multiplot layout 1,2 title sprintf("Capacity at p99 ≤ %g ms: the p99 of each constant-rate step of each search against the rate offered\n", bound / 1000.0).detail."\n".subtitle noenhanced
set logscale xy
set format x '%.0s%c'
set format y '%.0s%c'
set xlabel 'offered rate (GET/s, log scale)'
set ylabel 'p99 latency of the step (µs, log scale)'
set grid xtics ytics lc rgb '#dddddd' lt 1
set key top left font ',9' samplen 2
set arrow 1 from graph 0, first bound to graph 1, first bound nohead dt 2 lw 1.5 lc rgb '#d62728' back
set label 1 sprintf('bound %g µs', bound) at graph 0.99, first bound right offset 0,0.7 tc rgb '#d62728' font ',9' front
stats in using 6 nooutput
set xrange [STATS_min / 1.5:STATS_max * 1.5]
stats in using 8 nooutput
set yrange [STATS_min / 2:STATS_max * 4]
# panel KEYS NAMES: one line per search, failed steps crossed, the answer on the bound
do for [p=1:2] {
    keys = p == 1 ? 'uniform' : 'zipf'
    names = p == 1 ? namesu : namesz
    n = words(names)
    set title (p == 1 ? 'uniform keys' : 'Zipf keys')
    if (n == 0) {
        set label 2 'no searches' at graph 0.5, graph 0.5 center front
        plot 1/0 notitle
        unset label 2
    } else {
        plot for [i=1:n] in using (strcol(1) eq keys && strcol(4) eq word(names, i) ? $6 : NaN):8 \
                 with linespoints lt i ps 0.8 title word(names, i), \
             for [i=1:n] in using (strcol(1) eq keys && strcol(4) eq word(names, i) && $9 == 0 ? $6 : NaN):8 \
                 with points pt 2 ps 1.3 lc rgb '#000000' notitle, \
             for [i=1:n] in using (strcol(1) eq keys && strcol(4) eq word(names, i) ? $12 : NaN):10 \
                 with points lt i pt 13 ps 2.2 notitle, \
             keyentry with points pt 2 ps 1.3 lc rgb '#000000' title 'step failed', \
             keyentry with points pt 13 ps 2 lc rgb '#444444' title 'capacity found'
    }
}
unset multiplot

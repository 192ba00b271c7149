# history.gp: each series of this project's own history (instructions per
# operation of the CI check's paths, one point per measured commit) with the
# level of each segment kvtest history found (the segment's median); a step
# in the level line is a change point. A series spanning over 2x is drawn on
# a log scale, and again from x = zoomfrom on (zoom names it) so the smaller
# steps after its big one show; the others over at least +-3% of their
# median.
# Input: plot.csv (scripts/study/history/report.py) metric,x,value,level.
# Variables: in, out, term, metrics (space-separated), zoom, zoomfrom,
# subtitle.
load dir.'/common.gp'
if (term eq 'svg') {
    set terminal svg size 960,1200 dynamic enhanced font 'Helvetica,12' background '#ffffff'
} else {
    set terminal pngcairo size 960,1200 enhanced font 'Sans,10' background '#ffffff'
}
set output out
if (!exists('zoom')) { zoom = '' }
n = words(metrics) + (zoom eq '' ? 0 : 1)
set multiplot layout int((n + 1) / 2), 2 title "kvtest's own history: the CI check's paths, commit by commit, and the segments kvtest history found\n".subtitle noenhanced
set key off
set format y '%.0f'
set xlabel 'commit no. on main' offset 0,0.5
set ylabel 'instr/op' offset 1,0
sel(m) = strcol(1) eq m
do for [i = 1:words(metrics)] {
    m = word(metrics, i)
    set yrange [*:*]  # stats reads only what the last panel's range let in
    stats in using (sel(m) ? $3 : NaN) nooutput
    # at least +-3% around the median, so that a flat series looks flat and
    # a step of 1% (the report's smallest change) is a visible one
    if (STATS_max > 2 * STATS_min) {
        set logscale y
    } else {
        unset logscale y
        set yrange [(STATS_min < 0.97 * STATS_median ? STATS_min : 0.97 * STATS_median):(STATS_max > 1.03 * STATS_median ? STATS_max : 1.03 * STATS_median)]
    }
    set title m
    plot in using (sel(m) ? $2 : NaN):3 with points lt 1 ps 0.6, \
         '' using (sel(m) ? $2 : NaN):4 with steps lt 4 lw 2
}
if (zoom ne '') {
    unset logscale y
    set yrange [*:*]
    set title zoom.' from commit no. '.zoomfrom
    plot in using (sel(zoom) && $2 >= zoomfrom ? $2 : NaN):3 with points lt 1 ps 0.6, \
         '' using (sel(zoom) && $2 >= zoomfrom ? $2 : NaN):4 with steps lt 4 lw 2
}
unset multiplot

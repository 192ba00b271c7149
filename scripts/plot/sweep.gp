# sweep.gp: time per blob vs blob size for SQL, blob API and files (left,
# log-log), and the ratio files / blob API with the crossover marked (right).
# Input: csv/sweep.csv  size,count,sql_us,blob_us,files_us,ratio_files_blob,ratio_files_sql
# Variables: in, out, term, cross (interpolated crossover size in bytes, 0 if
# none in range), subtitle.
load dir.'/common.gp'
stats in using 1 nooutput
stats_min_x = STATS_min / 1.6
stats_max_x = STATS_max * 1.6
set multiplot layout 1,2 title "Blob-size sweep: random reads of every blob, warm cache\n".subtitle noenhanced
set logscale x
set xrange [stats_min_x:stats_max_x]
set format x '%.0s%c'
set xlabel 'blob size (bytes)'
set grid xtics ytics lc rgb '#dddddd' lt 1
set key top left
set title 'µs per blob (log-log)'
set logscale y
set ylabel 'µs per blob read'
plot in using 1:3 with linespoints lt 1 title 'SQLite SQL', \
     '' using 1:4 with linespoints lt 2 title 'SQLite blob API', \
     '' using 1:5 with linespoints lt 4 title 'separate files'
set title 'files / blob API (below 1: files faster)'
set ylabel 'time ratio'
set key bottom left
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb '#444444' back
if (cross > 0) {
    set arrow 2 from first cross, graph 0 to first cross, graph 1 nohead lw 2 lc rgb '#d62728' front
    set label 1 sprintf('crossover ≈ %.0f bytes', cross) at first cross, graph 0.95 right offset -0.6,0 textcolor rgb '#d62728' front
} else {
    set label 1 'no crossover in range' at graph 0.05, graph 0.95 textcolor rgb '#d62728' front
}
plot in using 1:6 with linespoints lt 2 title 'files / blob API', \
     '' using 1:7 with linespoints lt 1 dt 2 title 'files / SQL'
unset multiplot

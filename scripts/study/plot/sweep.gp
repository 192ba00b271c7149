# sweep.gp: time per blob vs blob size for SQL, blob API, files and any
# other store (left, log-log), and the ratio files / blob API with the
# crossover marked (right).
# Input: csv/sweep.csv  size,count,sql_us,blob_us,files_us,ratio_files_blob,ratio_files_sql,
#        ratio_files_blob_lo,ratio_files_blob_hi (95% interval: error bars; empty
#        when kvtest sweep gave no per-run times)
# Variables: in, out, term, cross (interpolated crossover size in bytes, 0 if
# none in range), subtitle, hasci (0/1: interval columns filled).
# With several page sizes (kvtest sweep --page-sizes) also:
#   inp     csv/sweep-pages.csv  size,files_us,blob_us_P1..blob_us_Pn,ratio_P1..ratio_Pn,
#           ratio_lo_P1..ratio_lo_Pn,ratio_hi_P1..ratio_hi_Pn
#   npages  n (> 1), pages 'P1 P2 ...' (bytes), crosses 'C1 C2 ...' (0: none)
# and the chart has one blob-API curve and one ratio curve per page size.
# With other stores (kvtest sweep --stores): stores 'lmdb rocksdb' names
# the STORE_us columns of csv/sweep.csv, one curve each on the left.
load dir.'/common.gp'
if (!exists('npages')) { npages = 1 }
if (!exists('stores')) { stores = '' }
nst = words(stores)
# The read charts' colours: LMDB 7, RocksDB 8.
stlabel(s) = s eq 'lmdb' ? 'LMDB' : s eq 'rocksdb' ? 'RocksDB' : s
stlt(s) = s eq 'lmdb' ? 7 : s eq 'rocksdb' ? 8 : 9
# Their curves, appended to the left plot as a macro (empty without them).
stplot = ''
do for [i=1:nst] {
    stplot = stplot.sprintf(", in using 1:(column('%s_us')) with linespoints lt %d title '%s'", \
                            word(stores, i), stlt(word(stores, i)), stlabel(word(stores, i)))
}
# hasci: 1 when the CSVs carry the ratio's 95% interval (error bars).
if (!exists('hasci')) { hasci = 0 }
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
# Page size in KiB for the legend.
pk(i) = sprintf('%d KiB pages', int(word(pages, i)) / 1024)
# Line type of page size i: every colour but the files' red (lt 4).
plt(i) = i < 4 ? i : i + 1
if (npages > 1) {
    plot for [i=1:npages] inp using 1:(column(2 + i)) with linespoints lt plt(i) \
             title 'SQLite blob API, '.pk(i), \
         inp using 1:2 with linespoints lt 4 title 'separate files' @stplot
} else {
    plot in using 1:3 with linespoints lt 1 title 'SQLite SQL', \
         '' using 1:4 with linespoints lt 2 title 'SQLite blob API', \
         '' using 1:5 with linespoints lt 4 title 'separate files' @stplot
}
set title 'files / blob API (below 1: files faster; bars: 95% CI)'
set ylabel 'time ratio'
set key bottom left
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb '#444444' back
if (npages > 1) {
    # One marker per page size that has a crossover, in its curve's colour.
    nc = 0
    do for [i=1:npages] {
        c = real(word(crosses, i))
        if (c > 0) {
            nc = nc + 1
            set arrow (1 + i) from first c, graph 0 to first c, graph 1 nohead lw 2 dt 3 lt plt(i) front
            set label i sprintf('%s: crossover ≈ %.0f bytes', pk(i), c) at graph 0.98, graph (0.97 - 0.06 * nc) right tc lt plt(i) front
        }
    }
    if (nc == 0) {
        set label 1 'no crossover in range' at graph 0.05, graph 0.95 textcolor rgb '#d62728' front
    }
    if (hasci) {
        plot for [i=1:npages] inp using 1:(column(2 + npages + i)) with linespoints lt plt(i) \
                 title 'files / blob API, '.pk(i), \
             for [i=1:npages] inp using 1:(column(2 + npages + i)):(column(2 + 2 * npages + i)):(column(2 + 3 * npages + i)) \
                 with yerrorbars lt plt(i) pt 7 ps 0 notitle
    } else {
        plot for [i=1:npages] inp using 1:(column(2 + npages + i)) with linespoints lt plt(i) \
                 title 'files / blob API, '.pk(i)
    }
} else {
    if (cross > 0) {
        set arrow 2 from first cross, graph 0 to first cross, graph 1 nohead lw 2 lc rgb '#d62728' front
        set label 1 sprintf('crossover ≈ %.0f bytes', cross) at first cross, graph 0.95 right offset -0.6,0 textcolor rgb '#d62728' front
    } else {
        set label 1 'no crossover in range' at graph 0.05, graph 0.95 textcolor rgb '#d62728' front
    }
    if (hasci) {
        plot in using 1:6 with linespoints lt 2 title 'files / blob API', \
             '' using 1:6:8:9 with yerrorbars lt 2 pt 7 ps 0 notitle, \
             '' using 1:7 with linespoints lt 1 dt 2 title 'files / SQL'
    } else {
        plot in using 1:6 with linespoints lt 2 title 'files / blob API', \
             '' using 1:7 with linespoints lt 1 dt 2 title 'files / SQL'
    }
}
unset multiplot

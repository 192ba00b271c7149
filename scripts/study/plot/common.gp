# common.gp: terminal, colours and axes shared by every kvtest chart.
# Callers set: out (output file), term ('png' or 'svg').
if (term eq 'svg') {
    set terminal svg size 960,540 dynamic enhanced font 'Helvetica,13' background '#ffffff'
} else {
    set terminal pngcairo size 960,540 enhanced font 'Sans,11' background '#ffffff'
}
set output out
set datafile separator ','
set datafile missing ''
set datafile columnheaders
set border 3 lw 1
set tics nomirror
set grid ytics lc rgb '#dddddd' lt 1
set key noenhanced
set style fill solid 0.85 border rgb '#333333'
set linetype 1 lc rgb '#1f77b4' lw 2 pt 7 ps 1.1
set linetype 2 lc rgb '#ff7f0e' lw 2 pt 5 ps 1.1
set linetype 3 lc rgb '#2ca02c' lw 2 pt 9 ps 1.3
set linetype 4 lc rgb '#d62728' lw 2 pt 11 ps 1.3
set linetype 5 lc rgb '#9467bd' lw 2 pt 13 ps 1.3
set linetype 6 lc rgb '#8c564b' lw 2 pt 3 ps 1.1
# 7-10: the read charts' LMDB, RocksDB and readahead-off lines.
set linetype 7 lc rgb '#e377c2' lw 2 pt 6 ps 1.1
set linetype 8 lc rgb '#7f7f7f' lw 2 pt 4 ps 1.1
set linetype 9 lc rgb '#bcbd22' lw 2 pt 8 ps 1.3
set linetype 10 lc rgb '#17becf' lw 2 pt 10 ps 1.3
set linetype cycle 10

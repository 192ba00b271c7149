# stores.gp: the four stores side by side (scripts/study/fasterthanfs.sh):
# per workload (warm reads, cold reads, writes synced once per run, writes
# never synced) each store's time per blob relative to the SQLite
# database's in the same round (log scale; a bar runs from 1 to the
# ratio: below 1 the store is faster than the database), the 95% interval
# of that ratio as error bars and the median µs per blob as labels.
# Input: csv/stores.csv (tables.sh) mode,store,variant,label,us,bytes,
#        rounds,ratio_to_db,ratio_lo,ratio_hi,ratio_n,fastest (the
#        database's row: ratio 1, no interval; a store without the mode:
#        empty; mode "space" is not drawn, see space.gp)
# Variables: detail (what was measured: rounds, keys, ...), in, out, term, subtitle.
load dir.'/common.gp'
if (!exists('detail')) { detail = '' }
set title "Four stores: time per blob relative to the SQLite database per workload (error bars: 95% CI; labels: median µs/blob)\n".detail."\n".subtitle noenhanced
set ylabel 'time per blob / database'."'".'s (log scale; below 1: faster)'
mx(m) = m eq 'read-warm' ? 0 : m eq 'read-cold' ? 1 : m eq 'write-synced' ? 2 : m eq 'write-nosync' ? 3 : NaN
mname(m) = m eq 'read-warm' ? 'warm reads' : m eq 'read-cold' ? 'cold reads' : \
           m eq 'write-synced' ? 'writes, one sync per run' : 'writes, never synced'
sx(s) = s eq 'database' ? -0.3 : s eq 'files' ? -0.1 : s eq 'lmdb' ? 0.1 : 0.3
x(m, s) = mx(m) + sx(s)
w = 0.09
set logscale y
set xrange [-0.6:3.6]
set yrange [0.2:20]
set ytics (0.25, 0.5, 1, 2, 4, 8, 16)
set format y '%gx'
set xtics scale 0 font ',10' offset 0,-0.3
set bmargin 5
set key top left font ',10' samplen 1.5
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb '#444444' back
lo(r) = r < 1 ? r : 1
hi(r) = r < 1 ? 1 : r
# Where a bar's label goes: beyond its interval's end (or the bar's).
top(r, h) = h == h && h > r ? h : r
bot(r, l) = l == l && l < r ? l : r
# Each workload's tic names the database's variant (its API or mode).
d0 = ''; d1 = ''; d2 = ''; d3 = ''
db(m) = strcol(2) eq 'database' && strcol(1) eq m
stats in using (db('read-warm') ? (d0 = strcol(4), 1) : db('read-cold') ? (d1 = strcol(4), 1) : \
                db('write-synced') ? (d2 = strcol(4), 1) : db('write-nosync') ? (d3 = strcol(4), 1) : 1) nooutput
vs(d) = d eq '' ? '' : "\nvs ".d
set xtics (mname('read-warm').vs(d0) 0, mname('read-cold').vs(d1) 1, mname('write-synced').vs(d2) 2, mname('write-nosync').vs(d3) 3)
plot for [i=1:4] in using (strcol(2) eq word('database files lmdb rocksdb', i) && mx(strcol(1)) == mx(strcol(1)) && $5 == $5 ? x(strcol(1), strcol(2)) : NaN):8:(x(strcol(1), strcol(2)) - w):(x(strcol(1), strcol(2)) + w):(lo($8)):(hi($8)) \
         with boxxyerror lt (i == 1 ? 1 : i == 2 ? 4 : i == 3 ? 7 : 8) fs solid 0.85 border rgb '#333333' \
         title word('SQLite files LMDB RocksDB', i), \
     in using (mx(strcol(1)) == mx(strcol(1)) && strcol(2) ne 'database' && $5 == $5 ? x(strcol(1), strcol(2)) : NaN):8:9:10 \
         with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.2 notitle, \
     in using (mx(strcol(1)) == mx(strcol(1)) && strcol(2) eq 'database' ? x(strcol(1), strcol(2)) : NaN):8 \
         with points pt 5 ps 1.2 lc rgb '#1f77b4' notitle, \
     in using (mx(strcol(1)) == mx(strcol(1)) && $5 == $5 && $8 >= 1 ? x(strcol(1), strcol(2)) : NaN):(top($8, strcol(10) eq '' ? NaN : $10)):(sprintf('%.3g µs', $5)) \
         with labels rotate by 90 left offset 0,0.4 font ',8' notitle, \
     in using (mx(strcol(1)) == mx(strcol(1)) && $5 == $5 && $8 < 1 ? x(strcol(1), strcol(2)) : NaN):(bot($8, strcol(9) eq '' ? NaN : $9)):(sprintf('%.3g µs', $5)) \
         with labels rotate by 90 right offset 0,-0.4 font ',8' notitle, \
     in using (mx(strcol(1)) == mx(strcol(1)) && strcol(2) eq 'database' ? x(strcol(1), strcol(2)) : NaN):(1):(sprintf('%.3g µs', $5)) \
         with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
     in using (mx(strcol(1)) == mx(strcol(1)) && strcol(5) eq '' ? x(strcol(1), strcol(2)) : NaN):(1):('no such mode') \
         with labels rotate by 90 left offset 0,0.4 font ',8' tc rgb '#777777' notitle

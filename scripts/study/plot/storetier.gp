# storetier.gp: the store tier over HTTP (scripts/study/storetier.sh):
# GET/s of the service on SQLite and on PostgreSQL, each with no cache,
# Valkey cache-aside and valkey+track (client-side tracking), uniform keys
# left, Zipf keys right; bars: the median over rounds, dots: each round.
# Input: in   csv/storetier-summary.csv part,store,dist,config,rounds,per_s,...
#             (the "http" rows are drawn)
#        in2  csv/storetier-http.csv round,store,dist,cache,requests_per_s,...
# Variables: detail (what was measured: rounds, keys, ...), in, in2, out, term, subtitle.
load dir.'/common.gp'
if (!exists('detail')) { detail = '' }
set multiplot layout 1,2 title "The store tier over HTTP: GET /link/ID per second by store and cache (bars: median of the rounds; dots: each round)\n".detail."\n".subtitle noenhanced
sx(s) = s eq 'sqlite' ? 0 : s eq 'postgres' ? 1 : NaN
cx(c) = c eq 'none' ? -0.27 : c eq 'valkey' ? 0 : c eq 'valkey-track' ? 0.27 : NaN
x(s, c) = sx(s) + cx(c)
set xrange [-0.55:1.55]
set xtics ('SQLite' 0, 'PostgreSQL' 1) scale 0
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
set format y '%.0s%c'
set ylabel 'GET/s'
set key outside bottom center horizontal font ',10' samplen 1.5
name(i) = i == 1 ? 'no cache' : i == 2 ? 'valkey cache-aside' : 'valkey+track'
do for [p=1:2] {
    d = p == 1 ? 'uniform' : 'zipf'
    set title (p == 1 ? 'uniform keys' : 'Zipf keys')
    plot for [i=1:3] in using (strcol(1) eq 'http' && strcol(3) eq d && strcol(4) eq word('none valkey valkey-track', i) ? x(strcol(2), strcol(4)) : NaN):6:(0.25) \
             with boxes lt i title name(i), \
         in2 using (strcol(3) eq d ? x(strcol(2), strcol(4)) : NaN):5 with points pt 7 ps 0.6 lc rgb '#000000' \
             title (p == 1 ? 'one round' : ''), \
         in using (strcol(1) eq 'http' && strcol(3) eq d ? x(strcol(2), strcol(4)) : NaN):(0):(sprintf('%.0fk', $6 / 1000)) \
             with labels offset 0,0.7 font ',9' tc rgb '#ffffff' notitle
}
unset multiplot

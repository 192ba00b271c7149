# cluster.gp: the cache as a Valkey Cluster (scripts/study/cluster.sh):
# in-process lookups/s with no cache, one Valkey and a 3-primary Valkey
# Cluster; bars: the median over rounds, dots: each round, labels: µs per
# lookup at the median and, for the caches, a GET's round trip as
# valkey-benchmark -c 1 measured it.
# Input: in   csv/cluster-summary.csv config,median_lookups_per_s,
#             median_p50_us,reference_gets_per_s,lookup_us,round_trip_us,ratio
#        in2  csv/cluster.csv round,config,lookups_per_s,p50_us,mean_us,hit_ratio
# Variables: detail (what was measured: rounds, keys, ...), in, in2, out, term, subtitle, note1 and note2 (paired ratios of
# lookups/s with their 95% intervals, from cluster-ci.json; may be empty).
load dir.'/common.gp'
if (!exists('detail')) { detail = '' }
set title "The cache as a Valkey Cluster: in-process lookups/s (bars: median of the rounds; dots: each round)\n".detail."\n".subtitle noenhanced
cx(c) = c eq 'none' ? 0 : c eq 'valkey' ? 1 : c eq 'cluster' ? 2 : NaN
set xrange [-0.6:2.6]
set xtics ('no cache (SQLite)' 0, 'one Valkey' 1, 'Valkey Cluster, 3 primaries' 2) scale 0
set yrange [0:*]
set offsets 0, 0, graph 0.2, 0
set format y '%.0s%c'
set ylabel 'lookups/s'
if (!exists('note1')) { note1 = '' }
if (!exists('note2')) { note2 = '' }
set label 1 note1 at graph 0.98, graph 0.84 right font ',10' front
set label 2 note2 at graph 0.98, graph 0.79 right font ',10' front
set key top right font ',10'
plot in using (cx(strcol(1))):2:(0.6) with boxes lt 1 title 'median', \
     in2 using (cx(strcol(2))):3 with points pt 7 ps 0.7 lc rgb '#000000' title 'one round', \
     in using (strcol(6) eq '' ? cx(strcol(1)) : NaN):2:(sprintf('%.1f µs a lookup', $5)) with labels offset 0,1 font ',9' notitle, \
     in using (strcol(6) eq '' ? NaN : cx(strcol(1))):2:(sprintf('%.1f µs a lookup', $5)) with labels offset 0,2.2 font ',9' notitle, \
     in using (strcol(6) eq '' ? NaN : cx(strcol(1))):2:(sprintf('(a GET'."'".'s round trip: %.1f µs)', $6)) with labels offset 0,1 font ',9' notitle

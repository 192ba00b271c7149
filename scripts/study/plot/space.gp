# space.gp: disk space of every layout (database, flat, tree, LMDB,
# RocksDB: kvtest space, else du), apparent vs allocated.
# Input: csv/space.csv  layout,files,apparent_mib,allocated_mib,overhead_vs_db_pct
# Variables: in, out, term, subtitle.
load dir.'/common.gp'
set title "Disk space of the same blobs in each layout\n".subtitle noenhanced
set ylabel 'MiB'
stats in using 0 nooutput
n = STATS_records
set xrange [-0.6:n-0.4]
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set key top left
plot in using ($0-0.19):3:(0.36):xtic(1) with boxes title 'blob content (apparent size)' lt 1, \
     '' using ($0+0.19):4:(0.36) with boxes title 'on disk (allocated blocks + directories)' lt 2, \
     '' using ($0+0.19):4:(sprintf('%.0f MiB (%+.0f%% vs db)', $4, $5)) with labels offset 0,0.8 font ',10' notitle

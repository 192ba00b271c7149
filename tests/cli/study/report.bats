#!/usr/bin/env bats
# The study's report states every ratio with its 95% interval: build/ratioci
# (scripts/tools/ratioci.c, the seeded bootstrap over paired rounds), the
# wording of scripts/study/report.sh on small synthetic results directories, and
# scripts/study/repro.sh's join of two runs' findings.tsv. No benchmark runs here:
# every figure is made up, so the expected words are known.
# In study/, so make test-repo runs it: the study's scripts (make bench),
# not kvtest.

load '../../lib/common'

setup() {
    common_setup
    ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
    RATIOCI=${KV_RATIOCI:-$ROOT/build/ratioci}
    [ -x "$RATIOCI" ] || fail "no $RATIOCI (make build/ratioci; make test builds it)"
}

# ------------------------------------------------------------- ratioci
@test "ratioci: bad input, no input, an unknown option: one line, exit 2" {
    run "$RATIOCI" <<<"1.5 abc"
    assert_failure 2
    assert_output 'ratioci: line 1: expected two positive numbers "NUM DEN"'
    run "$RATIOCI" <<<$'2 1\n3 0'
    assert_failure 2
    assert_output --partial "line 2: expected two positive numbers"
    run "$RATIOCI" <<<"2 1 7"
    assert_failure 2
    assert_output "ratioci: line 1: unexpected text after the two numbers"
    run "$RATIOCI" </dev/null
    assert_failure 2
    assert_output 'ratioci: no input: expected lines "NUM DEN"'
    run "$RATIOCI" --median <<<"nan"
    assert_failure 2
    assert_output "ratioci: line 1: expected one finite number"
    run "$RATIOCI" --seed 3 </dev/null
    assert_failure 2
    assert_output "ratioci: unknown argument --seed (try --help)"
}

@test "ratioci: constant ratios give a point interval, covered from 4 pairs" {
    run "$RATIOCI" <<<$'4 2\n8 4\n\n6 3\n10 5'
    assert_success
    assert_output "2 2 2 4 1"
    run "$RATIOCI" <<<$'4 2\n8 4\n6 3'
    assert_success
    assert_output "2 2 2 3 0"
}

@test "ratioci: known data: the median of the per-pair ratios, a seeded interval inside their range" {
    # Ratios 0.8 0.9 1.0 1.1 1.2 1.3 (pairs given in another order).
    pairs=$'1.2 1\n0.8 1\n1.3 1\n2 2\n0.9 1\n2.2 2'
    run "$RATIOCI" <<<"$pairs"
    assert_success
    read -r est lo hi n cov <<<"$output"
    assert_equal "$est" 1.05
    assert_equal "$n" 6
    assert_equal "$cov" 1
    awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo >= 0.8 && lo < 1.05 && hi > 1.05 && hi <= 1.3) }' ||
        fail "interval $lo-$hi not inside 0.8-1.3 around 1.05"
    # Fixed seed: the same input gives the same interval.
    first=$output
    run "$RATIOCI" <<<"$pairs"
    assert_output "$first"
    # --median: order statistics of 1..7 (stats_median_ci).
    run "$RATIOCI" --median <<<$'7\n1\n2\n3\n4\n5\n6'
    assert_success
    assert_output "4 1.73333 6.26667 7 1"
}

# -------------------------------------------------------------- report
# results_dir DIR FLAT_US BLOB_US...: a results directory whose only data
# are warm random reads of flat files and the blob API, one round per pair
# of figures (round i: flat FLAT_US[i], blob BLOB_US[i]).
results_dir() {
    local dir=$1 r=0 f b
    shift
    mkdir -p "$dir/raw"
    : >"$dir/raw/blobs.jsonl"
    while [ $# -ge 2 ]; do
        f=$1 b=$2
        shift 2
        r=$((r + 1))
        for v in "flat $f" "db-blob $b"; do
            jq -cn --arg v "${v% *}" --argjson us "${v#* }" --argjson r "$r" '{command: "run",
                result: {us_per_blob: $us, count: 1000, mb_per_s: 1,
                         latency: {p50: 1, p90: 2, p99: 3, p999: 4, max: 5}},
                bench: {experiment: "read", variant: $v, cache: "warm", round: $r, warmup: false}}' \
                >>"$dir/raw/blobs.jsonl"
        done
    done
    # A warm-up round that would change every ratio if it were counted.
    jq -cn '{command: "run", result: {us_per_blob: 1000, count: 1000},
             bench: {experiment: "read", variant: "db-blob", cache: "warm", round: 0, warmup: true}}' \
        >>"$dir/raw/blobs.jsonl"
}

report() {
    run bash "$ROOT/scripts/study/tables.sh" "$1"
    assert_success
    run bash "$ROOT/scripts/study/report.sh" "$1"
    assert_success
    run grep -F -- "- **Reads, warm cache**" "$1/REPORT.md"
    assert_success
}

@test "report: a ratio whose interval excludes 1 is faster, with its 95% interval" {
    # The blob API takes half the time of files in every one of 5 rounds.
    results_dir "$D/r" 10 5 12 6 9 4.5 11 5.5 10 5
    report "$D/r"
    assert_output --partial "took 5 µs per blob against 10 µs for separate flat files: 2x faster (95% CI 2–2)."
    refute_output --partial "no difference measurable here"
    run grep -P '^reads-warm-blob\t[^\t]+\t0.5\t0.5\t0.5\tratio$' "$D/r/findings.tsv"
    assert_success
    run head -n1 "$D/r/csv/reads-ratio.csv"
    assert_output "label,warm_ratio,cold_ratio,warm_us,cold_us,warm_lo,warm_hi,cold_lo,cold_hi"
    run grep '^"SQLite blob API",0.5,,5,,0.5,0.5,,$' "$D/r/csv/reads-ratio.csv"
    assert_success
}

@test "report: a ratio whose interval contains 1 is no difference measurable here, not faster or slower" {
    # Per-round ratios 0.9 1.1 0.95 1.05 1.0: noise around 1.
    results_dir "$D/r" 10 9 10 11 10 9.5 10 10.5 10 10
    report "$D/r"
    assert_output --partial "for separate flat files: no difference measurable here (1x, 95% CI 0.9"
    refute_output --regexp "flat files: [0-9.]+x (faster|slower)"
    run grep -P '^reads-warm-blob\t[^\t]+\t1\t0\.9[0-9]*\t1\.[0-9]+\tratio$' "$D/r/findings.tsv"
    assert_success
}

@test "report: below 4 paired rounds the interval is called a range, not a 95% CI" {
    results_dir "$D/r" 10 5 12 6.6 9 4.5
    report "$D/r"
    assert_output --regexp "faster \(range [0-9.]+–[0-9.]+ over 3 rounds, too few for a 95% CI\)"
}

@test "report: the header says what made the figures, from the run's records: commit, parts, every run's build" {
    results_dir "$D/r" 10 5 12 6 9 4.5 11 5.5 10 5
    printf 'scale\tfull\nstarted_utc\t2026-12-06T10:00:00Z\nelapsed_s\t2600\ncommit\tc0ffee\nbinary\tclean\ntree\tclean\nkvtest\t1.1.0; gcc 12.2.0, rel: -std=c11 -O2 -g\nkernel\tLinux 6.1.0 x86_64\nbooted_utc\t2026-12-06T09:00:00Z\n' \
        >"$D/r/raw/bench.tsv"
    printf 'part\tname\tstarted_utc\tseconds\tstatus\n1\tfasterthanfs.sh\t2026-12-06T10:00:01Z\t1200.4\tok\n2\tshortener.sh\t2026-12-06T10:20:01Z\t300\tfailed\n' \
        >"$D/r/raw/parts.tsv"
    # Nine runs name the commit; one was made by a build with changes of
    # another; the warm-up round names none.
    jq -c 'if .bench.round == 5 and .bench.variant == "flat" then .env = {commit: "beef", dirty: true}
           elif .bench.warmup then . else .env = {commit: "c0ffee", dirty: false} end' \
        "$D/r/raw/blobs.jsonl" >"$D/r/raw/x" && mv "$D/r/raw/x" "$D/r/raw/blobs.jsonl"
    printf 'label\ttime_utc\tmetric\tvalue\tunit\n' >"$D/r/raw/probe.tsv"
    printf '%s\tT\t%b\n' start 'cpu_loop_ms\t600\tms' start 'steal_jiffies\t100\tjiffies' start 'total_jiffies\t10000\tjiffies' \
        start 'loopback_rtt_us\t9.5\tus' end 'cpu_loop_ms\t700\tms' end 'steal_jiffies\t150\tjiffies' \
        end 'total_jiffies\t20000\tjiffies' end 'loopback_rtt_us\t12.25\tus' >>"$D/r/raw/probe.tsv"
    report "$D/r"
    run grep -F "| fixed CPU loop | 600 ms | 700 ms |" "$D/r/REPORT.md"
    assert_success
    run grep -F "| loopback round trip (valkey-benchmark -c 1) | 9.5 us | 12.25 us |" "$D/r/REPORT.md"
    assert_success
    # 50 of 10000 jiffies stolen between start and end.
    run grep -F "| CPU stolen over the whole run | 0.50 % | |" "$D/r/REPORT.md"
    assert_success
    run grep -F "Commit c0ffee (binary built clean, tree clean); kvtest 1.1.0; gcc 12.2.0, rel: -std=c11 -O2 -g; Linux 6.1.0 x86_64; machine booted 2026-12-06T09:00:00Z." "$D/r/REPORT.md"
    assert_success
    run grep -F "| 1 fasterthanfs.sh | 2026-12-06T10:00:01Z | 1200 | ok |" "$D/r/REPORT.md"
    assert_success
    run grep -F "| 2 shortener.sh | 2026-12-06T10:20:01Z | 300 | failed |" "$D/r/REPORT.md"
    assert_success
    run grep -F 'The kvtest runs kept in `raw/` name their build: c0ffee (9 runs), beef with changes (1 runs).' "$D/r/REPORT.md"
    assert_success
}

# shortener_dir DIR: HTTP rounds of the shortener study only, uniform and
# Zipf keys, 5 rounds: uniform valkey 0.89-0.93x of no cache (slower),
# valkey-track 1.26-1.30x; Zipf valkey 0.98-1.02x, valkey-track 1.49-1.53x.
shortener_dir() {
    local dir=$1 r row
    mkdir -p "$dir/raw"
    printf 'links\t100\nrounds\t5\nzipf\t1.0\n' >"$dir/raw/shortener-params.tsv"
    : >"$dir/raw/shortener.jsonl"
    for r in 1 2 3 4 5; do
        for row in "http sqlite 100" "http valkey $((88 + r))" "http valkey-track $((125 + r))" \
            "http-zipf sqlite 100" "http-zipf valkey $((97 + r))" "http-zipf valkey-track $((148 + r))"; do
            read -r e c v <<<"$row"
            jq -cn --arg e "$e" --arg c "$c" --argjson v "$v" --argjson r "$r" '{command: "shortener-load",
                result: {requests: 1000, requests_failed: 0, by_type: {get: {requests_per_s: $v,
                         latency: {p50: 1, p90: 2, p99: 3, p999: 4, max: 5, mean: 1}}}},
                bench: {experiment: $e, config: $c, round: $r, warmup: false}}' >>"$dir/raw/shortener.jsonl"
        done
    done
    # A warm-up that would make valkey pay off with Zipf keys if it counted.
    jq -cn '{command: "shortener-load", result: {by_type: {get: {requests_per_s: 1000}}},
             bench: {experiment: "http-zipf", config: "valkey", round: 1, warmup: true}}' \
        >>"$dir/raw/shortener.jsonl"
}

@test "report: whether each cache mode pays off over HTTP, for uniform and Zipf keys" {
    shortener_dir "$D/s"
    run bash "$ROOT/scripts/study/tables.sh" "$D/s"
    assert_success
    run cat "$D/s/csv/shortener-payoff.csv"
    assert_line "keys,config,rounds,rps,ratio_to_sqlite,ratio_lo,ratio_hi,pays_off,ratio_to_valkey,valkey_lo,valkey_hi"
    assert_line --regexp '^uniform,valkey,5,91,0\.91,0\.[0-9]+,0\.9[0-9]*,no \(slower\),,,$'
    assert_line --regexp '^uniform,valkey-track,5,128,1\.28,1\.2[0-9]*,1\.[23][0-9]*,yes,1\.4[0-9]*,'
    assert_line --regexp '^zipf 1\.0,valkey,5,100,1,0\.9[0-9]*,1\.0[0-9]*,no difference measurable,,,$'
    assert_line --regexp '^zipf 1\.0,valkey-track,5,151,1\.51,1\.4[0-9]*,1\.5[0-9]*,yes,1\.5[0-9]*,'
    run bash "$ROOT/scripts/study/report.sh" "$D/s"
    assert_success
    run grep -F -- "- **Does a cache pay off over HTTP?**" "$D/s/REPORT.md"
    assert_success
    assert_output --partial "zipf 1.0 keys (no cache 100 GET/s): valkey 100 GET/s, vs no cache no difference measurable here"
    assert_output --partial "valkey-track 151 GET/s, vs no cache 1.51x faster (95% CI"
    run grep -F "| zipf 1.0 | valkey-track | 151 | 1.51x (" "$D/s/REPORT.md"
    assert_success
    run grep -P '^http-zipf-track-sqlite\t[^\t]+\t1\.51\t' "$D/s/findings.tsv"
    assert_success
}

@test "report: the service as a fraction of nginx's ceiling, paired by round, with its interval" {
    mkdir -p "$D/n/csv"
    # Rounds alternate the order; each round's service/nginx ratio is 0.5
    # except one (0.9), so the median is 0.5 whichever round is unpaired.
    printf 'round\tserver\trequests_per_s\n' >"$D/n/csv/nginx.tsv"
    printf '%s\n' "1 service 50" "1 nginx 100" "2 nginx 120" "2 service 60" \
        "3 service 45" "3 nginx 90" "4 nginx 100" "4 service 90" "5 service 55" "5 nginx 110" |
        tr ' ' '\t' >>"$D/n/csv/nginx.tsv"
    printf '| a | b |\n|:--|--:|\n| service / nginx (per-round ratios) | 0.500 [0.500, 0.900] |\n' >"$D/n/csv/nginx.md"
    run bash "$ROOT/scripts/study/tables.sh" "$D/n"
    assert_success
    run jq -c '.["ceiling/service/nginx"] | [.est, .n, .covered]' "$D/n/csv/intervals.json"
    assert_output "[0.5,5,true]"
    run bash "$ROOT/scripts/study/report.sh" "$D/n"
    assert_success
    run grep -F -- "- **The HTTP ceiling**" "$D/n/REPORT.md"
    assert_success
    assert_output --partial "the service answered 55 GET/s against 100 for nginx"
    assert_output --partial ": 50% of that ceiling (95% CI 50–"
    run grep -F "The service reaches **0.500 [0.500, 0.900]** of nginx's rate" "$D/n/REPORT.md"
    assert_success
    run grep -P '^http-ceiling\t[^\t]+\t0\.5\t0\.5\t' "$D/n/findings.tsv"
    assert_success
}

# memlimit_dir DIR: made-up results of scripts/study/memlimit.sh, rows out
# of order. SQLite's rate doubles round by round, so only pairing by round
# gives the constant ratios: in-process uniform valkey 2x sqlite in every
# round (pays off), valkey-track 0.5x (slower); Zipf valkey 0.9-1.1x (no
# difference); over HTTP valkey 1.5x, valkey-track 3x (2x valkey).
memlimit_dir() {
    local d=$1 r s
    mkdir -p "$d/csv" "$d/raw"
    printf 'links\t800k\ndb_bytes\t95000000\nlimits\t24MiB\nhttp_limit\t24MiB\nrounds\t5\n' >"$d/raw/memlimit-params.tsv"
    printf 'lookups\t10k\nduration\t2\nwarmup\t2\nthreads\t30\nzipf\t1.0\n' >>"$d/raw/memlimit-params.tsv"
    echo "leg,mem,limit_bytes,keys,config,round,rate" >"$d/csv/memlimit.csv"
    for r in 5 4 3 2 1; do
        s=$((100 << (r - 1)))
        echo "inproc,24MiB,25165824,uniform,valkey,$r,$((2 * s))"
        echo "inproc,24MiB,25165824,uniform,valkey-track,$r,$((s / 2))"
        echo "inproc,24MiB,25165824,zipf,valkey,$r,$(( s * (8 + 2 * (r % 2) + r % 3) / 10 ))"
        echo "http,24MiB,25165824,uniform,valkey,$r,$((3 * s / 2))"
        echo "http,24MiB,25165824,uniform,valkey-track,$r,$((3 * s))"
    done >>"$d/csv/memlimit.csv"
    for r in 1 2 3 4 5; do
        s=$((100 << (r - 1)))
        echo "inproc,24MiB,25165824,uniform,sqlite,$r,$s"
        echo "inproc,24MiB,25165824,zipf,sqlite,$r,$s"
        echo "http,24MiB,25165824,uniform,sqlite,$r,$s"
    done >>"$d/csv/memlimit.csv"
    echo "mem,limit_bytes,keys,sqlite_us,cache_hit_us,cache_hit_ratio,pays_off,track_us,track_local_hit_ratio,read_bytes,peak_bytes" >"$d/csv/memlimit-breakeven.csv"
    echo "24MiB,25165824,uniform,40.5,17.25,1,true,0.4,0.99,188000000,25165824" >>"$d/csv/memlimit-breakeven.csv"
    echo "unlimited,1099511627776,uniform,7.5,17.25,1,false,0.3,1,34000000,50000000" >>"$d/csv/memlimit-breakeven.csv"
    printf '%s\n' keys,config,round,hits,misses,local_hits uniform,sqlite,1,0,0,0 uniform,valkey,1,90,10,0 \
        uniform,valkey,2,80,20,0 uniform,valkey-track,1,10,10,80 >"$d/csv/memlimit-http-hits.csv"
}

@test "report: a database larger than memory, paired by round, pays off only above 1, after the HTTP ceiling" {
    memlimit_dir "$D/m"
    printf '| a | b |\n|:--|--:|\n| service / nginx (per-round ratios) | 0.500 [0.500, 0.900] |\n' >"$D/m/csv/nginx.md"
    run bash "$ROOT/scripts/study/tables.sh" "$D/m"
    assert_success
    run jq -c '[.["memlimit/inproc/24MiB/uniform/valkey/sqlite"], .["memlimit/http/24MiB/uniform/valkey-track/valkey"]]
               | map([.est, .lo, .hi, .n, .covered])' "$D/m/csv/intervals.json"
    assert_output "[[2,2,2,5,true],[2,2,2,5,true]]"
    run jq -r '.[] | [.leg, .keys, .config, .rate, .pays_off // "-"] | @tsv' "$D/m/csv/memlimit.json"
    assert_output "$(printf '%s\n' "inproc uniform valkey 800 yes" "inproc uniform valkey-track 200 no (slower)" \
        "inproc zipf valkey 400 no difference measurable" "http uniform valkey 600 yes" \
        "http uniform valkey-track 1200 yes" "inproc uniform sqlite 400 -" "inproc zipf sqlite 400 -" \
        "http uniform sqlite 400 -" | sed 's/ /\t/; s/ /\t/; s/ /\t/; s/ /\t/')"
    run bash "$ROOT/scripts/study/report.sh" "$D/m"
    assert_success
    run grep -F -- "- **A database larger than memory**" "$D/m/REPORT.md"
    assert_success
    assert_output --partial "a 95 MB links database, the process in a memory cgroup of 24MiB"
    assert_output --partial "In-process, uniform keys: valkey 2x faster (95% CI 2–2): pays off; valkey-track 2x slower (95% CI 2–2): does not pay off. zipf keys: valkey no difference measurable here"
    assert_output --partial "Over HTTP, uniform keys: valkey 1.5x faster (95% CI 1.5–1.5): pays off; valkey-track 3x faster"
    run grep -F "| in-process | 24MiB (db 3.8x) | uniform | valkey | 800 | 2x (2–2) | yes | – |" "$D/m/REPORT.md"
    assert_success
    run grep -F "| HTTP | 24MiB (db 3.8x) | uniform | valkey-track | 1,200 | 3x (3–3) | yes | 2x (2–2) | 90% (80%) |" "$D/m/REPORT.md"
    assert_success
    run grep -F "| HTTP | 24MiB (db 3.8x) | uniform | valkey | 600 | 1.5x (1.5–1.5) | yes | – | 85% |" "$D/m/REPORT.md"
    assert_success
    run grep -F "| 24MiB (db 3.8x) | uniform | 40.50 | 17.25 (100%) | yes | 0.40 (99%) | 188 | 24 |" "$D/m/REPORT.md"
    assert_success
    run grep -F "| unlimited | uniform | 7.50 | 17.25 (100%) | no |" "$D/m/REPORT.md"
    assert_success
    run grep -F "uniform keys: an SQLite lookup costs more than a cache hit (cache-aside can pay off) with 24MiB; less with no limit." "$D/m/REPORT.md"
    assert_success
    # The section comes right after the HTTP ceiling.
    run grep -E '^### ' "$D/m/REPORT.md"
    assert_output --partial "$(printf '### The HTTP ceiling: the service against nginx\n### A database larger than memory')"
    run grep -P '^memlimit-inproc-24MiB-uniform-valkey\t[^\t]+\t2\t2\t2\trate$' "$D/m/findings.tsv"
    assert_success
    run grep -P '^memlimit-http-24MiB-uniform-valkey-track\t[^\t]+\t3\t3\t3\trate$' "$D/m/findings.tsv"
    assert_success
}

# stores_dir DIR: made-up results of the four stores (fasterthanfs.sh
# with LMDB and RocksDB), 5 rounds, no cold reads. Warm reads: SQL 6 µs,
# blob API 5, blob API + mmap 3 (the database's best), flat 8, tree 9 (the
# files' best is flat, 2.67x the database's time), LMDB 1 (3x faster in
# every round), RocksDB 0.9-1.3x the database's time (no difference).
# The database's time drifts round by round, so only pairing by round
# gives constant ratios. Writes, synced per run: WAL 60, LMDB 30 (2x
# faster), RocksDB 120 (2x slower); never synced: journal off 20, flat 80,
# LMDB 10, RocksDB 100. Disk space from a kvtest space object.
stores_dir() {
    local d=$1 r k f row v us
    mkdir -p "$d/raw"
    : >"$d/raw/blobs.jsonl"
    for r in 1 2 3 4 5; do
        k=$(awk -v r="$r" 'BEGIN { print 1 + r / 10 }')                     # drift of the round
        f=$(awk -v r="$r" 'BEGIN { split("0.9 1.2 1.1 1.0 1.3", a, " "); print a[r] }')
        for row in "read warm db-sql 6" "read warm db-blob 5" "read warm db-blob-mmap 3" \
            "read warm flat 8" "read warm tree 9" "read warm lmdb 1" "read warm rocksdb $(awk -v f="$f" 'BEGIN { print 3 * f }')" \
            "write warm db-wal 60" "write warm lmdb 30" "write warm rocksdb 120" \
            "write warm db-nosync 20" "write warm flat 80" "write warm lmdb-nosync 10" "write warm rocksdb-nosync 100"; do
            read -r e c v us <<<"$row"
            jq -cn --arg e "$e" --arg c "$c" --arg v "$v" --argjson us "$(awk -v u="$us" -v k="$k" 'BEGIN { print u * k }')" \
                --argjson r "$r" '{command: "run", result: {us_per_blob: $us, count: 1000, mb_per_s: 1,
                    latency: {p50: 1, p90: 2, p99: 3, p999: 4, max: 5}},
                bench: {experiment: $e, variant: $v, cache: $c, round: $r, warmup: false}}' >>"$d/raw/blobs.jsonl"
        done
    done
    # A warm-up that would make RocksDB the fastest if it counted.
    jq -cn '{command: "run", result: {us_per_blob: 0.01, count: 1000},
             bench: {experiment: "read", variant: "rocksdb", cache: "warm", round: 0, warmup: true}}' >>"$d/raw/blobs.jsonl"
    jq -cn '{command: "space", layouts: [
        {layout: "database", files: 1, content_bytes: 943718400, total_bytes: 1048576000, directory_bytes: 0, vs_db: 1},
        {layout: "flat", files: 100000, content_bytes: 943718400, total_bytes: 1205862400, directory_bytes: 0, vs_db: 1.15},
        {layout: "tree", files: 100000, content_bytes: 943718400, total_bytes: 1216348160, directory_bytes: 0, vs_db: 1.16},
        {layout: "lmdb", files: 2, content_bytes: 943718400, total_bytes: 1258291200, directory_bytes: 0, vs_db: 1.2},
        {layout: "rocksdb", files: 20, content_bytes: 943718400, total_bytes: 996147200, directory_bytes: 0, vs_db: 0.95}]}' \
        >"$d/raw/space.jsonl"
}

@test "report: the four stores side by side, each against the database's best API, paired by round" {
    stores_dir "$D/st"
    run bash "$ROOT/scripts/study/tables.sh" "$D/st"
    assert_success
    run cat "$D/st/csv/stores.csv"
    assert_line "mode,store,variant,label,us,bytes,rounds,ratio_to_db,ratio_lo,ratio_hi,ratio_n,fastest"
    assert_line "read-warm,database,db-blob-mmap,SQLite blob API + mmap,3.9,,5,1,,,,false"
    assert_line "read-warm,files,flat,flat files,10.4,,5,2.667,2.667,2.667,5,false"
    assert_line "read-warm,lmdb,lmdb,LMDB,1.3,,5,0.333,0.333,0.333,5,true"
    assert_line --regexp '^read-warm,rocksdb,rocksdb,RocksDB,[0-9.]+,,5,1\.1,0\.9[0-9]*,1\.[23][0-9]*,5,false$'
    assert_line "write-synced,files,,,,,,,,,,false"
    assert_line "write-synced,lmdb,lmdb,LMDB,39,,5,0.5,0.5,0.5,5,true"
    assert_line "write-nosync,rocksdb,rocksdb-nosync,RocksDB no sync,130,,5,5,5,5,5,false"
    assert_line "space,rocksdb,rocksdb,RocksDB,,996147200,,0.95,,,,true"
    refute_output --partial "read-cold"          # no cold reads in this run: no row
    run bash "$ROOT/scripts/study/report.sh" "$D/st"
    assert_success
    run grep -F -- "- **Four stores**" "$D/st/REPORT.md"
    assert_success
    assert_output --partial "Warm random reads: fastest LMDB (1.3 µs per blob); against the database (SQLite blob API + mmap, 3.9 µs): files (flat files) 2.67x slower (95% CI 2.67–2.67), LMDB 3x faster (95% CI 3–3), RocksDB no difference measurable here (1.1x, 95% CI 0.9"
    assert_output --partial "Random writes, one transaction per run synced at its end: fastest LMDB (39 µs per blob); against the database (SQLite WAL, 78 µs): files no equivalent, LMDB 2x faster (95% CI 2–2), RocksDB 2x slower (95% CI 2–2)"
    assert_output --partial "Disk space: the database 1000 MiB; files (flat files) 1150 MiB (+15%), LMDB 1200 MiB (+20%), RocksDB 950 MiB (-5%), smallest RocksDB."
    run grep -F "| warm random reads | LMDB | LMDB | 1.3 | 0.33x (0.33–0.33) | faster | 1 |" "$D/st/REPORT.md"
    assert_success
    run grep -E '^\| warm random reads \| RocksDB \| RocksDB \| [0-9.]+ \| 1\.1x \(0\.9[0-9]*–1\.[23][0-9]*\) \| no difference measurable \| 3 \|$' "$D/st/REPORT.md"
    assert_success
    run grep -F "| random writes, never synced | files | flat files | 104 | 4x (4–4) | slower | 3 |" "$D/st/REPORT.md"
    assert_success
    run grep -F "| RocksDB | RocksDB | 20 | 900 | 950 | -5% |" "$D/st/REPORT.md"
    assert_success
    # The section sits after the blob sections, and its ratios are findings.
    run grep -E '^### ' "$D/st/REPORT.md"
    assert_output --partial "$(printf '### Random writes\n### Four stores side by side: SQLite, files, LMDB, RocksDB')"
    run grep -P '^stores-read-warm-lmdb\twarm random reads, lmdb \(LMDB\) / database \(SQLite blob API \+ mmap\) \(time\)\t0\.333[0-9]*\t0\.333[0-9]*\t0\.333[0-9]*\tratio$' "$D/st/findings.tsv"
    assert_success
    # Old results without LMDB or RocksDB: no section, no extra intervals.
    results_dir "$D/old" 10 5 12 6 9 4.5 11 5.5 10 5
    report "$D/old"
    [ ! -e "$D/old/csv/stores.json" ]
    run grep -c "Four stores" "$D/old/REPORT.md"
    assert_output 0
    run jq -r 'keys[]' "$D/old/csv/intervals.json"
    refute_output --partial "db-blob-mmap"
}

# sweep_stores_dir DIR: a made-up kvtest sweep --stores db,files,lmdb,rocksdb
# (one page size, 5 rounds, 3 sizes). Every figure drifts round by round
# (x1.1..x1.5), so only pairing by round gives constant ratios. LMDB is
# fastest everywhere: at 1k against RocksDB (0.5 / 0.8), at 10k against
# the blob API (half), at 100k tied with files (per-round ratios
# 0.91..1.11: no difference measurable). RocksDB is faster than the blob
# API at 1k (0.8x) and slower from 10k on (1.5x, 2x).
sweep_stores_dir() {
    mkdir -p "$1/raw"
    jq -cn '[1.1, 1.2, 1.3, 1.4, 1.5] as $k | [1, 1, 1, 1, 1] as $one | [0.9, 1.1, 0.95, 1.05, 1.0] as $f
        | def res($base; $m): ([range(5) as $i | $base * $k[$i] * $m[$i]]) as $r
              | {us_per_blob: ($r | sort | .[2]), runs_us: $r, count: 10};
          def row($size; $sql; $blob; $files; $fm; $lmdb; $rocks):
              {size: $size, count: 10, sql: res($sql; $one), blob: res($blob; $one), files: res($files; $fm),
               lmdb: res($lmdb; $one), rocksdb: res($rocks; $one)}
              | .blob.us_per_blob as $b | .sql.us_per_blob as $s
              | reduce ("files", "lmdb", "rocksdb") as $x (.; .["ratio_\($x)_blob"] = (.[$x].us_per_blob / $b)
                                                             | .["ratio_\($x)_sql"] = (.[$x].us_per_blob / $s));
        {command: "sweep", complete: true, files_measured_once: true, stores_measured_once: true,
         options: {sizes: [1000, 10000, 100000], total: 10000, pagesize: 4096, repeat: 5, warmup: 1,
                   stores: ["db", "files", "lmdb", "rocksdb"]},
         rows: [row(1000; 2; 1; 3; $one; 0.5; 0.8), row(10000; 2.5; 2; 3; $one; 1; 3),
                row(100000; 11; 10; 5; $f; 5; 20)],
         crossover: {kind: "cross", size: 31623, crossings: 1, line: "Crossover: 31.6k bytes (95% CI 20k-60k; files faster than the database above this blob size)",
                     ci: {lo: 20000, hi: 60000, lo_open: false, hi_open: false, beyond: "none"}},
         bench: {experiment: "sweep"}}
        | .crossovers = {files: .crossover,
            lmdb: {kind: "files_win", size: null, crossings: 0, line: "Crossover (lmdb): none in range 1k..100k (95% CI below 1k: not within the sizes measured; lmdb is already faster at the smallest size)",
                   ci: {lo: null, hi: 1000, lo_open: true, hi_open: false, beyond: "below"}},
            rocksdb: {kind: "files_win", size: null, crossings: 0, line: "Crossover (rocksdb): none in range 1k..100k (95% CI below 1k: not within the sizes measured; rocksdb is already faster at the smallest size)",
                      ci: {lo: null, hi: 1000, lo_open: true, hi_open: false, beyond: "below"}}}' \
        >"$1/raw/sweep.jsonl"
}

@test "report: the sweep with LMDB and RocksDB: a crossover per store, the fastest store per size against the runner-up" {
    sweep_stores_dir "$D/sw"
    run bash "$ROOT/scripts/study/tables.sh" "$D/sw"
    assert_success
    run cat "$D/sw/csv/sweep-stores.csv"
    assert_line "size,count,database_us,database_api,database_page,files_us,lmdb_us,rocksdb_us,fastest,runner_up,fastest_vs_runner_up,lo,hi,n,verdict"
    assert_line "1000,10,1.3,blob,4096,3.9,0.65,1.04,lmdb,rocksdb,0.625,0.625,0.625,5,faster"
    assert_line "10000,10,2.6,blob,4096,3.9,1.3,3.9,lmdb,database,0.5,0.5,0.5,5,faster"
    assert_line --regexp '^100000,10,13,blob,4096,6\.6,6\.5,26,lmdb,files,1,0\.9[0-9]*,1\.[01][0-9]*,5,no difference measurable$'
    run cat "$D/sw/csv/sweep-crossovers.csv"
    assert_line "files,4096,cross,31623,20000,60000,1000,3,3,3,100000,0.5,0.45,0.55,"
    assert_line "lmdb,4096,files_win,,0,1000,1000,0.5,0.5,0.5,100000,0.5,0.5,0.5,"
    assert_line "rocksdb,4096,files_win,,0,1000,1000,0.8,0.8,0.8,100000,2,2,2,10000"
    run head -n1 "$D/sw/csv/sweep.csv"
    assert_output --partial ",ratio_files_blob_hi,lmdb_us,ratio_lmdb_blob,ratio_lmdb_blob_lo,ratio_lmdb_blob_hi,rocksdb_us,"
    run bash "$ROOT/scripts/study/report.sh" "$D/sw"
    assert_success
    cp "$D/sw/REPORT.md" "$D/first.md"
    run grep -F -- "- **Fastest store by blob size**" "$D/sw/REPORT.md"
    assert_success
    assert_output --partial "LMDB at every size: at 1k 1.6x faster than RocksDB (95% CI 1.6–1.6); at 10k 2x faster than the database (95% CI 2–2); at 100k no difference measurable from files (1x, 95% CI 0.9"
    run grep -F -- "- **Crossover by store**" "$D/sw/REPORT.md"
    assert_success
    assert_output --partial "LMDB: 4 KiB pages no crossover (LMDB already faster at 1k), LMDB / blob API 0.5x (95% CI 0.5–0.5) at 1k"
    assert_output --partial "RocksDB: 4 KiB pages no crossover (RocksDB already faster at 1k, but slower than the database from 10k on), RocksDB / blob API 0.8x (95% CI 0.8–0.8) at 1k and 2x (95% CI 2–2) at 100k."
    run grep -F "| files | 4 KiB | 31.6k | 20k–60k | 1k: 3x (3–3) | 100k: 0.5x (0.45–0.55) | – |" "$D/sw/REPORT.md"
    assert_success
    run grep -F "| RocksDB | 4 KiB | none: RocksDB faster from the smallest size | below 1k | 1k: 0.8x (0.8–0.8) | 100k: 2x (2–2) | 10k |" "$D/sw/REPORT.md"
    assert_success
    run grep -F "Crossover (rocksdb): none in range 1k..100k" "$D/sw/REPORT.md"
    assert_success
    run grep -F "| 1k | 1.3 (blob API, 4 KiB pages) | 3.9 | 0.65 | 1.04 | LMDB | RocksDB | 0.63x (0.63–0.63) | LMDB faster |" "$D/sw/REPORT.md"
    assert_success
    run grep -E '^\| 100k \| 13 \(blob API, 4 KiB pages\) \| 6\.6 \| 6\.5 \| 26 \| LMDB \| files \| 1x \(0\.9[0-9]*–1\.[01][0-9]*\) \| no difference measurable \|$' "$D/sw/REPORT.md"
    assert_success
    run grep -P '^crossover-rocksdb-4096\tcrossover size, rocksdb / blob API, 4096-byte pages\tfiles_win\t-inf\t1000\tbytes$' "$D/sw/findings.tsv"
    assert_success
    # The same results give the same report.
    run bash "$ROOT/scripts/study/tables.sh" "$D/sw"
    run bash "$ROOT/scripts/study/report.sh" "$D/sw"
    run cmp "$D/first.md" "$D/sw/REPORT.md"
    assert_success
    # A sweep of the default stores (no options.stores, no crossovers):
    # the tables and report as before, nothing about other stores.
    jq -c 'del(.options.stores, .crossovers, .stores_measured_once)
           | .rows |= map(del(.lmdb, .rocksdb, .ratio_lmdb_blob, .ratio_lmdb_sql, .ratio_rocksdb_blob, .ratio_rocksdb_sql))' \
        "$D/sw/raw/sweep.jsonl" >"$D/old.jsonl"
    mkdir -p "$D/old/raw"
    mv "$D/old.jsonl" "$D/old/raw/sweep.jsonl"
    run bash "$ROOT/scripts/study/tables.sh" "$D/old"
    assert_success
    [ ! -e "$D/old/csv/sweep-stores.json" ]
    run head -n1 "$D/old/csv/sweep.csv"
    assert_output "size,count,sql_us,blob_us,files_us,ratio_files_blob,ratio_files_sql,ratio_files_blob_lo,ratio_files_blob_hi"
    run bash "$ROOT/scripts/study/report.sh" "$D/old"
    assert_success
    run grep -c "Fastest store\|Crossover by store\|By store" "$D/old/REPORT.md"
    assert_output 0
    run grep -c "^crossover-" "$D/old/findings.tsv"
    assert_output 1
}

# --------------------------------------------------------------- repro
# findings FILE LINE...: a findings.tsv with its header.
findings() {
    local f=$1
    shift
    mkdir -p "$(dirname "$f")"
    printf 'id\tlabel\testimate\tlo\thi\tkind\n' >"$f"
    printf '%s\n' "$@" | tr '|' '\t' >>"$f"
}

@test "repro.sh --join-only: agree where intervals overlap or a crossover interval holds the other's size" {
    findings "$D/p/a/findings.tsv" "reads|warm reads|0.5|0.46|0.53|ratio" \
        "http|HTTP|0.39|0.37|0.59|rate" "cross|crossover|135000|80000|190000|bytes" \
        "cross64|crossover 64k|db_wins|NA|NA|bytes" "only-a|gone in B|2|1.5|2.5|ratio" \
        "rev|reversed|0.8|0.7|0.9|ratio" "half|one verdict|1.5|1.2|1.8|rate" "cost|a cost|4|3|5|us"
    findings "$D/p/b/findings.tsv" "reads|warm reads|0.52|0.5|0.6|ratio" \
        "http|HTTP|0.7|0.65|0.75|rate" "cross|crossover|170000|150000|inf|bytes" \
        "cross64|crossover 64k|db_wins|NA|NA|bytes" "rev|reversed|1.2|1.1|1.3|ratio" \
        "half|one verdict|1.3|0.9|1.6|rate" "cost|a cost|4.5|3.5|5.5|us"
    run bash "$ROOT/scripts/study/repro.sh" --join-only --out "$D/p"
    assert_success
    run cat "$D/p/reproducibility.md"
    assert_line "| warm reads (\`reads\`) | 0.5 [0.46–0.53] | 0.52 [0.5–0.6] | 1.04 | yes | yes |  |"
    assert_line "| HTTP (\`http\`) | 0.39 [0.37–0.59] | 0.7 [0.65–0.75] | 1.79 | no | yes | not found |"
    assert_line "| crossover (\`cross\`) | 135k [80k–190k] | 170k [150k–open] | 1.26 | yes | yes |  |"
    assert_line "| crossover 64k (\`cross64\`) | no crossover (db_wins) | no crossover (db_wins) | – | yes | yes |  |"
    assert_line "| gone in B (\`only-a\`) | 2 [1.5–2.5] | – | – | no (only in run A) | – | not found |"
    assert_line "| reversed (\`rev\`) | 0.8 [0.7–0.9] | 1.2 [1.1–1.3] | 1.5 | no | no (below 1 / above 1) | not found |"
    assert_line "| one verdict (\`half\`) | 1.5 [1.2–1.8] | 1.3 [0.9–1.6] | 0.867 | yes | no (above 1 / no difference) |  |"
    assert_line "| a cost (\`cost\`) | 4 [3–5] | 4.5 [3.5–5.5] | 1.12 | yes | – |  |"
    assert_output --partial "**Summary: 5 of 8 headline findings agree** (62%; 2 disagree, 0 without an interval to judge by, 1 found in one run only). 1 of the 6 with two estimates are within x1.10 of each other. 4 of the 6 with a verdict in both runs reach the same one (above 1, below 1, no difference; for a crossover, whether it crosses); 1 reverse (above 1 in one run, below in the other). Of the 3 that do not agree, 0 have their cause stated. Target not met"
    assert_output --partial "A run records no commit"
    run cat "$D/p/compare.txt"
    assert_output --partial "kvtest compare failed (exit 2): "   # no raw/ results here
}

@test "repro.sh --join-only --a --b --causes: one commit, two boots, hours apart; causes in their rows; the probes side by side" {
    findings "$D/runA/findings.tsv" "reads|warm reads|0.5|0.46|0.53|ratio" "http|HTTP|0.39|0.37|0.59|rate" \
        "w|writes|1|0.9|1.1|ratio" "x|x|1|0.9|1.1|ratio" "y|y|1|0.9|1.1|ratio" "z|z|1|0.9|1.1|ratio" \
        "u|u|1|0.9|1.1|ratio" "v|v|1|0.9|1.1|ratio" "s|s|1|0.9|1.1|ratio" "t|t|1|0.9|1.1|ratio"
    findings "$D/runB/findings.tsv" "reads|warm reads|0.52|0.5|0.6|ratio" "http|HTTP|0.7|0.65|0.75|rate" \
        "w|writes|1.05|0.9|1.1|ratio" "x|x|1|0.9|1.1|ratio" "y|y|1|0.9|1.1|ratio" "z|z|1|0.9|1.1|ratio" \
        "u|u|1|0.9|1.1|ratio" "v|v|1|0.9|1.1|ratio" "s|s|1|0.9|1.1|ratio" "t|t|1|0.9|1.1|ratio"
    for r in A B; do
        mkdir -p "$D/run$r/raw"
        printf 'scale\tfull\ncommit\tabcdef0123456789\nbinary\tclean\ntree\tclean\n' >"$D/run$r/raw/bench.tsv"
        printf 'label\ttime_utc\tmetric\tvalue\tunit\n' >"$D/run$r/raw/probe.tsv"
    done
    printf 'started_utc\t2026-12-06T10:00:00Z\nelapsed_s\t2600.4\nbooted_utc\t2026-12-06T09:00:00Z\n' >>"$D/runA/raw/bench.tsv"
    printf 'started_utc\t2026-12-07T01:30:00Z\nelapsed_s\t2700\nbooted_utc\t2026-12-07T01:00:00Z\n' >>"$D/runB/raw/bench.tsv"
    printf '%s\tT\t%b\n' start 'loopback_rtt_us\t9.5\tus' end 'loopback_rtt_us\t10\tus' >>"$D/runA/raw/probe.tsv"
    printf '%s\tT\t%b\n' start 'loopback_rtt_us\t19\tus' end 'loopback_rtt_us\t21\tus' >>"$D/runB/raw/probe.tsv"
    # Run B: 30 of 6000 jiffies stolen; run A recorded none.
    printf '%s\tT\t%b\n' start 'steal_jiffies\t10\tjiffies' start 'total_jiffies\t1000\tjiffies' \
        end 'steal_jiffies\t40\tjiffies' end 'total_jiffies\t7000\tjiffies' >>"$D/runB/raw/probe.tsv"
    printf '# id\tcause\nhttp\tthe loopback round trip doubled (probe: 9.5 -> 19 us)\n' >"$D/causes.tsv"
    run bash "$ROOT/scripts/study/repro.sh" --join-only --out "$D/j" --a "$D/runA" --b "$D/runB" --causes "$D/causes.tsv"
    assert_success
    run cat "$D/j/reproducibility.md"
    assert_line "- run A (\`runA\`): started 2026-12-06T10:00:00Z, 2600 s; commit abcdef012345 (binary clean, tree clean); machine booted 2026-12-06T09:00:00Z"
    assert_line "Both runs are of commit abcdef012345. Their starts are 15.5 hours apart, on two boots of the machine."
    assert_line "| HTTP (\`http\`) | 0.39 [0.37–0.59] | 0.7 [0.65–0.75] | 1.79 | no | yes | the loopback round trip doubled (probe: 9.5 -> 19 us) |"
    assert_line "| loopback_rtt_us | 9.5 us | 10 us | 19 us | 21 us |"
    assert_line "| CPU stolen over the run | – | | 0.50 % | |"
    assert_output --partial "**Summary: 9 of 10 headline findings agree** (90%; 1 disagree, 0 without an interval to judge by, 0 found in one run only). 9 of the 10 with two estimates are within x1.10 of each other. 10 of the 10 with a verdict in both runs reach the same one (above 1, below 1, no difference; for a crossover, whether it crosses); 0 reverse (above 1 in one run, below in the other). Of the 1 that do not agree, 1 have their cause stated. Target met"
    # One boot, another commit: both said.
    sed -i 's/^booted_utc.*/booted_utc\t2026-12-06T09:00:00Z/; s/^commit.*/commit\t99999999aaaa/' "$D/runB/raw/bench.tsv"
    run bash "$ROOT/scripts/study/repro.sh" --join-only --out "$D/j" --a "$D/runA" --b "$D/runB"
    assert_success
    run grep -F "**The runs are of different commits** (abcdef012345, 99999999aaaa): this is not a check of one commit. Their starts are 15.5 hours apart; **they share one boot** of the machine." "$D/j/reproducibility.md"
    assert_success
    # 90% agree, but the one that does not has no cause: not met.
    run grep -F "Of the 1 that do not agree, 0 have their cause stated. Target not met" "$D/j/reproducibility.md"
    assert_success
    # A "not found: ..." line is shown in its row but is no cause.
    printf 'http\tnot found: neither side moved measurably\n' >"$D/causes.tsv"
    run bash "$ROOT/scripts/study/repro.sh" --join-only --out "$D/j" --a "$D/runA" --b "$D/runB" --causes "$D/causes.tsv"
    assert_success
    run grep -F "| no | yes | not found: neither side moved measurably |" "$D/j/reproducibility.md"
    assert_success
    run grep -F "Of the 1 that do not agree, 0 have their cause stated. Target not met" "$D/j/reproducibility.md"
    assert_success
    # awk's ">" in a print is a redirection: nothing may be written beside.
    run ls "$D"
    assert_output "$(printf '%s\n' causes.tsv j runA runB)"
}

@test "repro.sh: every finding agreeing meets the target; bad arguments exit 2" {
    findings "$D/q/a/findings.tsv" "reads|warm reads|0.5|0.46|0.53|ratio"
    findings "$D/q/b/findings.tsv" "reads|warm reads|0.52|0.5|0.6|ratio"
    run bash "$ROOT/scripts/study/repro.sh" --join-only --out "$D/q"
    assert_success
    run grep -F "**Summary: 1 of 1 headline findings agree** (100%; 0 disagree, 0 without an interval to judge by, 0 found in one run only). 1 of the 1 with two estimates are within x1.10 of each other. 1 of the 1 with a verdict in both runs reach the same one (above 1, below 1, no difference; for a crossover, whether it crosses); 0 reverse (above 1 in one run, below in the other). Target met: at least 90% agree, and each that does not has its cause." "$D/q/reproducibility.md"
    assert_success
    run bash "$ROOT/scripts/study/repro.sh" medium
    assert_failure 2
    assert_output "repro: unknown argument medium (expected small, full, --out DIR, --join-only, --a RUN, --b RUN, --causes FILE)"
    run bash "$ROOT/scripts/study/repro.sh" --join-only
    assert_failure 2
    run bash "$ROOT/scripts/study/repro.sh" --out
    assert_failure 2
    run bash "$ROOT/scripts/study/repro.sh" --join-only --out "$D/q" --a "$D/q/a"
    assert_failure 2
    assert_output "repro: --a and --b go together"
    run bash "$ROOT/scripts/study/repro.sh" --a "$D/q/a" --b "$D/q/b"
    assert_failure 2
    assert_output "repro: --a, --b and --causes go with --join-only"
    run bash "$ROOT/scripts/study/repro.sh" --join-only --out "$D/q" --causes "$D/none.tsv"
    assert_failure 2
    assert_output "repro: cannot read $D/none.tsv"
}

#!/usr/bin/env bash
# storetier.sh: does a Valkey cache pay off in front of each link store, and
# what does a networked store cost? SQLite (in the service's process) beside
# PostgreSQL (a server across loopback TCP, with two streaming replicas).
#
#   scripts/study/storetier.sh DIR [--links 20k] [--lookups 10k] [--rounds 5]
#       [--duration 2] (seconds, or 500ms) [--threads 30] [--zipf 1.0]
#       [--kvtest PATH] [--force] [--keep] [--no-report]
#
# Setup: a links database of LINKS links (kvtest shortener init --seed 1),
# its ids (kvtest shortener keys), a private valkey-server and a private
# PostgreSQL primary (tests/lib/pg.bash: initdb in a scratch directory,
# default settings, loopback, a free port) holding the same links (init
# postgres://... --from links.db), two streaming replicas of it, caught up.
# The settings that decide the figures (server_version, shared_buffers,
# synchronous_commit, fsync, max_connections: all PostgreSQL's defaults) go
# to DIR/logs/storetier-settings.txt. Each server's table and indexes are
# read once (an index scan over each index) so every part starts with the
# store's own caches warm. Then, every part in ROUNDS rounds, the order of
# its configurations rotated per round:
#   1. in-process lookups: for uniform and Zipf (ZIPF) ids and each store,
#      one "kvtest shortener bench" with --configs STORE,valkey,valkey-track
#      (no cache, Valkey cache-aside, client-side caching), LOOKUPS lookups
#      per configuration after a warm-up run, Valkey flushed before each;
#      then the references: pgbench (one client, prepared, a script that
#      SELECTs link_target by a random id) and valkey-benchmark -c 1 -t get.
#      -> csv/storetier-bench.csv, csv/storetier-ref.csv
#   2. HTTP GETs: store (sqlite, postgres) x cache (none, valkey,
#      valkey+track) x keys (uniform, Zipf): a fresh "kvtest shortener serve"
#      (default 8 threads, Valkey flushed), the walk below, then DURATION s of
#      GETs of existing ids by THREADS connections ("kvtest shortener load").
#      -> csv/storetier-http.csv
#   3. replicas: PostgreSQL, no cache, uniform GETs as in 2, through the
#      primary alone, --replicas R0 and --replicas R0,R1, with each service's
#      /stats read counters. -> csv/storetier-replicas.csv
#   4. creates: the replicas stopped, per store a fresh copy of the links
#      (init --from) and a fresh service without a cache, DURATION s of POSTs
#      only (--create-ratio 1). PostgreSQL commits with synchronous_commit=on
#      (each create waits for its WAL flush), SQLite in WAL mode with
#      synchronous=NORMAL (no sync per commit): the point of this part.
#      -> csv/storetier-post.csv
# Then the medians per configuration (csv/storetier-summary.csv) and the
# per-round paired ratios with their 95% intervals (csv/storetier-ci.json,
# build/ratioci), and unless --no-report DIR/REPORT.md (report.sh; the
# section itself is scripts/study/report-storetier.sh).
#
# The walk. A cache is only worth measuring full: before a measured run with
# valkey, "load --walk 1" GETs every id once (the first GET of an id puts it
# in Valkey; a second pass would be hits, as the measured run is); with
# valkey+track "--walk 2" (the second GET of an id fills the process's map).
# Without a cache there is no walk: the store's caches (PostgreSQL's
# shared_buffers, the OS page cache of the SQLite file) outlive the service
# and were warmed at setup. Measured on this 2-core machine at 100k links,
# one pass over every id took 0.9 s (SQLite) and 2.2-3 s (PostgreSQL, 34-46k
# GET/s) without a cache, 3.4 s (SQLite) and 4.9 s (PostgreSQL) filling
# Valkey, and the walk of 2 before valkey+track 5.6 s (SQLite) and 12 s
# (PostgreSQL): "--walk 2" before each of the 60 HTTP runs, as shortener.sh
# walks, would take about 6 minutes, more than this whole part may use at
# full scale (5), and the walks above still about 4 (258 s) beside the 2
# minutes of 2 s runs. So the full-scale defaults are 20k links (the walks
# then took 47 s in all; 20k or 100k links fit both stores' caches alike)
# and runs of 2 s: 286 and 311 s in all in two runs here, another test
# suite running (setup 2, in-process 26 and 70: one loopback round trip
# took 10 us in the first and 70 us in the second, HTTP 193 and 178,
# replicas 36 and 35, creates 26 and 24). Small scale (make bench
# SCALE=small: --links 10k --lookups 5k --rounds 3 --duration 500ms) took
# 71-78 s (107 s with --duration 1); each HTTP run costs about 0.45 s
# besides its duration and walk (a fresh service, its /stats, Valkey
# flushed).
#
# Every process it starts (valkey-server, PostgreSQL, the service) is
# stopped by PID on exit, Ctrl-C or error.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/lib/pg.bash
source "$KV_ROOT/tests/lib/pg.bash"

LINKS=20k LOOKUPS=10k ROUNDS=5 DURATION=2 THREADS=30 ZIPF=1.0
KV="" FORCE=0 KEEP=0 REPORT=1 DIR=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --links|--lookups|--rounds|--duration|--threads|--zipf|--kvtest)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --links) LINKS=$2 ;; --lookups) LOOKUPS=$2 ;; --rounds) ROUNDS=$2 ;;
                --duration) DURATION=$2 ;; --threads) THREADS=$2 ;; --zipf) ZIPF=$2 ;;
                --kvtest) KV=$2 ;;
            esac
            shift 2 ;;
        -*) kv_common_flag "$1" || usage_die "unknown option $1 (try --help)"; shift ;;
        *) [ -z "$DIR" ] || usage_die "one DIR only"; DIR=$1; shift ;;
    esac
done
[ -n "$DIR" ] || usage_die "usage: storetier.sh DIR [options] (try --help)"
for v in ROUNDS THREADS; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || usage_die "--${v,,} must be a positive whole number, not ${!v}"
done
# Seconds, or milliseconds with "ms" (as kvtest load takes it).
[[ $DURATION =~ ^[1-9][0-9]*(s|ms)?$ ]] || usage_die "--duration must be whole seconds (2, 2s) or milliseconds (500ms), not $DURATION"
DUR_MS=${DURATION%s}
case $DURATION in *ms) DUR_MS=${DURATION%ms} ;; *) DUR_MS=$((DUR_MS * 1000)) ;; esac
DUR_SHOW=$DURATION
[[ $DURATION =~ [a-z]$ ]] || DUR_SHOW="$DURATION s"
if ! [[ $ZIPF =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v z="$ZIPF" 'BEGIN { exit !(z > 0) }'; then
    usage_die "--zipf must be a number above 0, not $ZIPF"
fi
NLINKS=$(kv_count "$LINKS")
kv_count "$LOOKUPS" >/dev/null
[ "$NLINKS" -gt 0 ] || usage_die "--links must be at least 1"

need_tools jq awk curl valkey-server valkey-cli valkey-benchmark psql pgbench
kv_find_kvtest "$KV"
kv_find_ratioci
kv_has_opt "shortener serve" "--replicas" ||
    die "$KVTEST has no PostgreSQL store (kvtest shortener serve --replicas)"
kv_prepare_out "$DIR" "$FORCE"
kv_part_start storetier
# PostgreSQL first (a fast shutdown of every server, its directory removed),
# then lib.sh's cleanup (every other PID, the scratch directory), which
# exits with the script's status.
st_cleanup() {
    local rc=$?
    set +e
    stop_all_pg
    (exit "$rc")
    kv_cleanup
}
trap st_cleanup EXIT

RAW=$OUT/raw/storetier.jsonl
: >"$RAW"
printf 'links\t%s\nlookups\t%s\nrounds\t%s\nduration\t%s\nthreads\t%s\nzipf\t%s\ncpus\t%s\n' \
    "$LINKS" "$LOOKUPS" "$ROUNDS" "$DURATION" "$THREADS" "$ZIPF" "$(nproc)" >"$OUT/raw/storetier-params.tsv"
T0=$(kv_now)
step() { say "[$(kv_since "$T0")s] $*"; }
timing() { printf '%s\t%s\n' "$1" "$2" >>"$OUT/logs/timings.tsv"; }
meta() { # meta PART STORE DIST CONFIG ROUND WARMUP (plain words: no quoting needed)
    printf '{"experiment":"storetier-%s","store":"%s","dist":"%s","config":"%s","round":%s,"warmup":%s}' \
        "$1" "$2" "$3" "$4" "$5" "$([ "$6" = 1 ] && echo true || echo false)"
}
# rot N R I: the I-th configuration of round R, the order rotated per round.
rot() { echo $(( ($3 + $2 - 1) % $1 )); }
flush() { valkey-cli -p "$VALKEY_PORT" flushall >/dev/null; }
# psql as the user postgres over TCP, unaligned, tuples only (add -p PORT -d DB).
PSQL=(psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres)

# --------------------------------------------------------------- setup
step "links database ($LINKS links), valkey-server, PostgreSQL primary and 2 replicas"
t=$(kv_now)
DB=$SCR/links.db KEYS=$SCR/keys.txt
kv_run storetier-init "$OUT/logs/storetier-init.txt" "$KVTEST" shortener init "$DB" --links "$LINKS" --seed 1
kv_run storetier-init "$KEYS" "$KVTEST" shortener keys "$DB"
[ -s "$KEYS" ] || die "kvtest shortener keys printed no ids"
start_valkey "$SCR" "$OUT/logs/storetier-valkey.log" || die "could not start valkey-server; see $OUT/logs/storetier-valkey.log"
TRACK=valkey+track://127.0.0.1:$VALKEY_PORT
start_pg 2>>"$OUT/logs/storetier-postgres.txt" || die "could not start PostgreSQL; see $OUT/logs/storetier-postgres.txt"
kv_run storetier-init "$OUT/logs/storetier-init.txt" "$KVTEST" shortener init "$PG_URL" --from "$DB"
for i in 0 1; do
    start_pg_replica "" 2>>"$OUT/logs/storetier-postgres.txt" || die "could not start replica $i; see $OUT/logs/storetier-postgres.txt"
done
for i in 0 1; do
    pg_wait_replica_caught_up "$i" 60 2>>"$OUT/logs/storetier-postgres.txt" || die "replica $i did not catch up"
done
REPLICAS="${PG_REPLICA_URLS[0]},${PG_REPLICA_URLS[1]}"
SETTINGS=(server_version shared_buffers synchronous_commit fsync max_connections)
sargs=()
for s in "${SETTINGS[@]}"; do sargs+=(-c "SHOW $s"); done
tmp=$(mktemp "$SCR/settings.XXXXXX")
kv_run storetier-settings "$tmp" "${PSQL[@]}" -p "$PG_PORT" -d kvtest "${sargs[@]}"
{
    paste -d'\t' <(printf '%s\n' "${SETTINGS[@]}") "$tmp" | sed 's/\t/: /'
    echo "replicas: ${#PG_REPLICA_URLS[@]} (streaming, asynchronous, on this machine)"
    for d in "PostgreSQL data|$PG_DIR" "SQLite databases|$SCR"; do
        echo "filesystem of the ${d%%|*}: $(findmnt -n -o FSTYPE,SOURCE -T "${d#*|}" 2>/dev/null | head -n1 | tr -s ' ' || echo unknown)"
    done
} >"$OUT/logs/storetier-settings.txt"
rm -f "$tmp"
[ "$(sed -n 's/^synchronous_commit: //p' "$OUT/logs/storetier-settings.txt")" = on ] ||
    die "PostgreSQL's synchronous_commit is not on (its default); see $OUT/logs/storetier-settings.txt"
NMAX=$("${PSQL[@]}" -p "$PG_PORT" -d kvtest -c 'SELECT max(id) FROM links')
# Read each table and index once on every server (the replicas start with
# empty shared_buffers): an index scan over the link_hash index (the
# service's lookups) and over the primary key (pgbench's).
for port in "$PG_PORT" "${PG_REPLICA_PORTS[@]}"; do
    kv_run storetier-prewarm "$OUT/logs/storetier-init.txt" "${PSQL[@]}" -p "$port" -d kvtest \
        -c 'SET enable_seqscan = off' -c 'SET enable_bitmapscan = off' \
        -c "SELECT count(link_target) FROM links WHERE link_hash > ''" \
        -c 'SELECT count(link_target) FROM links WHERE id > 0'
done
timing storetier-setup "$(kv_since "$t")"

# ------------------------------------------------------ 1. in-process
store_of() { if [ "$1" = sqlite ]; then echo "$DB"; else echo "$PG_URL"; fi; }
zipf_args() { if [ "$1" = zipf ]; then echo "--zipf $ZIPF"; fi; }
BENCH=$OUT/csv/storetier-bench.csv REF=$OUT/csv/storetier-ref.csv
echo "round,store,dist,config,lookups_per_s,p50_us,mean_us,hit_ratio" >"$BENCH"
echo "round,tool,per_s,us" >"$REF"
PGB_S=2
[ "$DUR_MS" -ge 2000 ] || PGB_S=1
printf '\\set k random(1, %s)\nSELECT link_target FROM links WHERE id = :k;\n' "$NMAX" >"$SCR/pgbench.sql"
printf 'pgbench_s\t%s\npgbench_max_id\t%s\n' "$PGB_S" "$NMAX" >>"$OUT/raw/storetier-params.tsv"
step "in-process lookups: $LOOKUPS per configuration, $ROUNDS rounds"
t=$(kv_now)
BCONF=("uniform|sqlite" "uniform|postgres" "zipf|sqlite" "zipf|postgres")
for ((r = 1; r <= ROUNDS; r++)); do
    for ((i = 0; i < ${#BCONF[@]}; i++)); do
        IFS='|' read -r dist store <<<"${BCONF[$(rot ${#BCONF[@]} "$r" "$i")]}"
        flush
        # shellcheck disable=SC2046  # zipf_args: no word or two
        kv_json storetier-bench "$(meta bench "$store" "$dist" all "$r" 0)" "$RAW" \
            "$KVTEST" shortener bench "$(store_of "$store")" --cache "$TRACK" \
            --configs "$store,valkey,valkey-track" --lookups "$LOOKUPS" --repeat 1 --warmup 1 \
            --track-size "$NLINKS" $(zipf_args "$dist") --seed "$r" --json
        line=$(tail -n1 "$RAW")
        bad=$(jq -r '[.result.configs[] | select((.wrong_answers // 0) > 0 or (.sqlite_errors // 0) > 0)
            | "\(.config): \(.wrong_answers) wrong answers, \(.sqlite_errors) store errors"] | join("; ")' <<<"$line")
        [ -z "$bad" ] || die "kvtest shortener bench on $store ($dist, round $r): $bad"
        jq -r --arg r "$r" --arg s "$store" --arg d "$dist" "$KV_JQ_DEFS"'.result.configs[] |
            [$r, $s, $d, (if .config == $s then "none" else .config end), (.lookups_per_s | r3),
             (.latency.p50 | r3), (.latency.mean | r3), (.hit_ratio // "")] | @csv' <<<"$line" |
            tr -d '"' >>"$BENCH"
    done
    # The references: one connection, one request at a time; µs = 1e6 / rate.
    tmp=$(mktemp "$SCR/ref.XXXXXX")
    kv_run storetier-pgbench "$tmp" pgbench -n -M prepared -c 1 -T "$PGB_S" -f "$SCR/pgbench.sql" \
        -h 127.0.0.1 -p "$PG_PORT" -U postgres kvtest
    cat "$tmp" >>"$OUT/logs/storetier-pgbench.txt"
    tps=$(awk '/^tps = / { print $3; exit }' "$tmp")
    [ -n "$tps" ] || die "no tps in pgbench's output (see $OUT/logs/storetier-pgbench.txt)"
    : >"$tmp"
    kv_run storetier-vbench "$tmp" valkey-benchmark -h 127.0.0.1 -p "$VALKEY_PORT" -c 1 -n 20000 -t get --csv
    cat "$tmp" >>"$OUT/logs/storetier-valkey-benchmark.csv"
    vgs=$(awk -F'","' '/^"GET/ { gsub(/"/, "", $2); print $2; exit }' "$tmp")
    [ -n "$vgs" ] || die "no GET rate in valkey-benchmark's output"
    rm -f "$tmp"
    awk -v r="$r" -v p="$tps" -v v="$vgs" 'BEGIN {
        printf "%s,pgbench,%.1f,%.3f\n%s,valkey-benchmark,%.1f,%.3f\n", r, p, 1e6 / p, r, v, 1e6 / v }' >>"$REF"
done
timing storetier-bench "$(kv_since "$t")"

# ------------------------------------------------------------- HTTP runs
# serve_run STORE CACHE WALK EXTRA...: a fresh service on STORE (sqlite or
# postgres) with --cache CACHE and EXTRA options, Valkey flushed, WALK passes
# over every id (0: none), then one measured load run with the options in
# LOAD_ARGS, recorded with META; its /stats into logs/storetier-stats.jsonl
# and in STATS. The measured run's JSON is the last line of RAW.
serve_run() {
    local store=$1 cache=$2 walk=$3
    shift 3
    flush
    if ! kv_serve_start storetier-serve "$OUT/logs/storetier-serve.txt" "$(store_of "$store")" \
        --cache "$cache" "$@" || ! wait_http "$SERVICE_URL/heart-beat" "$SERVICE_PID"; then
        die "could not start kvtest shortener serve; see $OUT/logs/storetier-serve.txt"
    fi
    if [ "$walk" -gt 0 ]; then
        kv_json storetier-walk "${META/\"warmup\":false/\"warmup\":true}" "$RAW" \
            "$KVTEST" shortener load "$SERVICE_URL" --walk "$walk" --connections "$THREADS" \
            --keys "$KEYS" --json
    fi
    kv_json storetier-load "$META" "$RAW" "$KVTEST" shortener load "$SERVICE_URL" "${LOAD_ARGS[@]}"
    STATS=$(curl -fsS --max-time 5 "$SERVICE_URL/stats") || die "no /stats from the service"
    jq -c --argjson m "$META" '{bench: $m, stats: .}' <<<"$STATS" >>"$OUT/logs/storetier-stats.jsonl"
    kv_serve_stop
}
walk_of() { case $1 in none) echo 0 ;; valkey) echo 1 ;; *) echo 2 ;; esac; }
cache_url() { case $1 in none) echo none ;; valkey) echo "$VALKEY_URL" ;; *) echo "$TRACK" ;; esac; }
# load_row KIND: "requests_per_s,p50_us,p99_us,failed" of the last run.
load_row() {
    tail -n1 "$RAW" | jq -r --arg k "$1" "$KV_JQ_DEFS"'.result |
        [(.requests_per_s | r3), (.by_type[$k].latency.p50 | r3), (.by_type[$k].latency.p99 | r3),
         .requests_failed] | @csv'
}

# ------------------------------------------------------------ 2. HTTP GETs
HTTP=$OUT/csv/storetier-http.csv
echo "round,store,dist,cache,requests_per_s,p50_us,p99_us,failed" >"$HTTP"
HCONF=()
for store in sqlite postgres; do
    for dist in uniform zipf; do
        for cache in none valkey valkey-track; do HCONF+=("$store|$dist|$cache"); done
    done
done
step "HTTP GETs: ${#HCONF[@]} configurations x $ROUNDS rounds of $DUR_SHOW, $THREADS connections"
t=$(kv_now)
for ((r = 1; r <= ROUNDS; r++)); do
    for ((i = 0; i < ${#HCONF[@]}; i++)); do
        IFS='|' read -r store dist cache <<<"${HCONF[$(rot ${#HCONF[@]} "$r" "$i")]}"
        step "HTTP round $r/$ROUNDS: $store, $dist keys, cache $cache"
        META=$(meta http "$store" "$dist" "$cache" "$r" 0)
        LOAD_ARGS=(--duration "$DURATION" --connections "$THREADS" --keys "$KEYS" --create-ratio 0)
        [ "$dist" = uniform ] || LOAD_ARGS+=(--zipf "$ZIPF")
        LOAD_ARGS+=(--seed "$r" --json)
        serve_run "$store" "$(cache_url "$cache")" "$(walk_of "$cache")"
        printf '%s,%s,%s,%s,%s\n' "$r" "$store" "$dist" "$cache" "$(load_row get | tr -d '"')" >>"$HTTP"
    done
done
timing storetier-http "$(kv_since "$t")"

# ------------------------------------------------------------- 3. replicas
REPL=$OUT/csv/storetier-replicas.csv
echo "round,replicas,requests_per_s,p50_us,p99_us,replica_reads,primary_reads" >"$REPL"
step "replicas: PostgreSQL without a cache, 0, 1 and 2 replicas x $ROUNDS rounds"
t=$(kv_now)
for ((r = 1; r <= ROUNDS; r++)); do
    for ((i = 0; i < 3; i++)); do
        n=$(rot 3 "$r" "$i")
        META=$(meta replicas postgres uniform "$n" "$r" 0)
        LOAD_ARGS=(--duration "$DURATION" --connections "$THREADS" --keys "$KEYS" --create-ratio 0 --seed "$r" --json)
        ropt=()
        [ "$n" -eq 0 ] || ropt=(--replicas "$(cut -d, -f1-"$n" <<<"$REPLICAS")")
        serve_run postgres none 0 "${ropt[@]}"
        printf '%s,%s,%s,%s\n' "$r" "$n" "$(load_row get | tr -d '"' | cut -d, -f1-3)" \
            "$(jq -r '[.store.replica_reads, .store.primary_reads] | @csv' <<<"$STATS")" >>"$REPL"
    done
done
timing storetier-replicas "$(kv_since "$t")"

# -------------------------------------------------------------- 4. creates
# The primary alone (replicas replaying its WAL would share the 2 cores),
# each run on a fresh copy of the links: the stores do not grow over rounds.
for i in 0 1; do stop_pg_replica "$i" 2>>"$OUT/logs/storetier-postgres.txt" || die "could not stop replica $i"; done
kv_run storetier-post-init "$OUT/logs/storetier-init.txt" "${PSQL[@]}" -p "$PG_PORT" -d postgres -c 'CREATE DATABASE posts'
POST_PG=postgres://postgres@127.0.0.1:$PG_PORT/posts POST_DB=$SCR/posts.db
POST=$OUT/csv/storetier-post.csv
echo "round,store,creates_per_s,p50_us,p99_us,failed" >"$POST"
step "creates: sqlite and postgres x $ROUNDS rounds of $DUR_SHOW"
t=$(kv_now)
for ((r = 1; r <= ROUNDS; r++)); do
    for ((i = 0; i < 2; i++)); do
        store=sqlite dest=$POST_DB
        [ "$(rot 2 "$r" "$i")" = 0 ] || store=postgres
        if [ "$store" = sqlite ]; then
            rm -f "$POST_DB" "$POST_DB-wal" "$POST_DB-shm"
        else
            dest=$POST_PG
        fi
        kv_run storetier-post-init "$OUT/logs/storetier-init.txt" \
            "$KVTEST" shortener init "$dest" --from "$DB" --force
        META=$(meta post "$store" - none "$r" 0)
        LOAD_ARGS=(--duration "$DURATION" --connections "$THREADS" --create-ratio 1 --seed "$r" --json)
        flush
        if ! kv_serve_start storetier-serve "$OUT/logs/storetier-serve.txt" "$dest" --cache none ||
            ! wait_http "$SERVICE_URL/heart-beat" "$SERVICE_PID"; then
            die "could not start kvtest shortener serve; see $OUT/logs/storetier-serve.txt"
        fi
        kv_json storetier-post "$META" "$RAW" "$KVTEST" shortener load "$SERVICE_URL" "${LOAD_ARGS[@]}"
        kv_serve_stop
        printf '%s,%s,%s\n' "$r" "$store" "$(load_row post | tr -d '"')" >>"$POST"
    done
done
timing storetier-post "$(kv_since "$t")"
stop_all_pg 2>>"$OUT/logs/storetier-postgres.txt" || say "some PostgreSQL processes did not stop (see $OUT/logs/storetier-postgres.txt)"
stop_valkey

# ------------------------------------------------------------ 5. summaries
# Medians per configuration, one table for every part:
#   part,store,dist,config,rounds,per_s,p50_us,mean_us,p99_us,hit_ratio,failed,replica_reads,primary_reads
# (bench: config none|valkey|valkey-track; ref: store postgres|valkey, config
# pgbench|valkey-benchmark, mean_us = 1e6 / rate; http: config = the cache;
# post: dist "-"; replicas: config = the number of replicas; failed: the sum
# over rounds; empty where a part has no such figure).
SUM=$OUT/csv/storetier-summary.csv
echo "part,store,dist,config,rounds,per_s,p50_us,mean_us,p99_us,hit_ratio,failed,replica_reads,primary_reads" >"$SUM"
# summarise PART FILE KEYCOLS VALUECOLS: KEYCOLS "store,dist,config" as
# column numbers of FILE ("" for a constant, "=TEXT"), VALUECOLS the column
# numbers (or "") of per_s,p50,mean,p99,hit,failed,replica_reads,primary_reads.
summarise() {
    awk -F, -v part="$1" -v keys="$3" -v vals="$4" '
        function median(s,   a, k, i, j, t) {
            k = split(s, a, " ")
            for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
            if (k == 0) return ""
            return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
        }
        BEGIN { nk = split(keys, kc, ","); nv = split(vals, vc, ",") }
        NR == 1 { next }
        {
            key = ""
            for (i = 1; i <= nk; i++) key = key (i > 1 ? "," : "") (kc[i] ~ /^=/ ? substr(kc[i], 2) : $kc[i])
            if (!(key in n)) order[++nkeys] = key
            n[key]++
            for (i = 1; i <= nv; i++) if (vc[i] != "" && $vc[i] != "") v[key, i] = v[key, i] " " $vc[i]
        }
        END {
            for (o = 1; o <= nkeys; o++) {
                key = order[o]; line = part "," key "," n[key]
                for (i = 1; i <= nv; i++) {
                    if (vc[i] == "") { line = line ","; continue }
                    if (i == 6) { split(v[key, i], f, " "); s = 0; for (x in f) s += f[x]; line = line "," s; continue }
                    m = median(v[key, i])
                    line = line "," (m == "" ? "" : sprintf(m + 0 >= 1e5 ? "%.0f" : "%.6g", m))
                }
                print line
            }
        }' "$2"
}
{
    summarise bench "$BENCH" 2,3,4 5,6,7,,8,,,
    summarise ref "$REF" "2,=uniform,2" 3,,4,,,,,
    summarise http "$HTTP" 2,3,4 5,6,,7,,8,,
    summarise post "$POST" "2,=-,=none" 3,4,,5,,6,,
    summarise replicas "$REPL" "=postgres,=uniform,2" 3,4,,5,,,6,7
} | sort -t, -k1,1 -s >>"$SUM"
# ref rows: the tool's store in the store column.
sed -i -E 's/^ref,pgbench,/ref,postgres,/; s/^ref,valkey-benchmark,/ref,valkey,/' "$SUM"

# Paired by round: each ratio the median of the per-round ratios, with its
# 95% interval (build/ratioci).
{
    awk -F, 'NR > 1 { v[$1, $2, $3, $4] = $5; r[$1] = 1 }
        END { for (i in r) for (s = 1; s <= 2; s++) for (d = 1; d <= 2; d++) {
            st = s == 1 ? "sqlite" : "postgres"; di = d == 1 ? "uniform" : "zipf"
            printf "bench/%s/%s/valkey/none\t%s\t%s\n", st, di, v[i, st, di, "valkey"], v[i, st, di, "none"]
            printf "bench/%s/%s/valkey-track/none\t%s\t%s\n", st, di, v[i, st, di, "valkey-track"], v[i, st, di, "none"]
            if (s == 1) printf "bench/postgres/sqlite/%s/none\t%s\t%s\n", di, v[i, "postgres", di, "none"], v[i, "sqlite", di, "none"]
        } }' "$BENCH"
    join -t, <(awk -F, 'NR > 1 && $2 == "postgres" && $3 == "uniform" && $4 == "none" { print $1 "," $5 }' "$BENCH" | sort) \
        <(awk -F, 'NR > 1 && $2 == "pgbench" { print $1 "," $3 }' "$REF" | sort) |
        awk -F, '{ printf "bench/postgres/pgbench\t%s\t%s\n", $2, $3 }'
    awk -F, 'NR > 1 { v[$1, $2, $3, $4] = $5; r[$1] = 1 }
        END { for (i in r) for (s = 1; s <= 2; s++) for (d = 1; d <= 2; d++) {
            st = s == 1 ? "sqlite" : "postgres"; di = d == 1 ? "uniform" : "zipf"
            printf "http/%s/%s/valkey/none\t%s\t%s\n", st, di, v[i, st, di, "valkey"], v[i, st, di, "none"]
            printf "http/%s/%s/valkey-track/none\t%s\t%s\n", st, di, v[i, st, di, "valkey-track"], v[i, st, di, "none"]
            printf "http/%s/%s/valkey-track/valkey\t%s\t%s\n", st, di, v[i, st, di, "valkey-track"], v[i, st, di, "valkey"]
            if (s == 1) for (c = 1; c <= 3; c++) {
                ca = c == 1 ? "none" : c == 2 ? "valkey" : "valkey-track"
                printf "http/postgres/sqlite/%s/%s\t%s\t%s\n", di, ca, v[i, "postgres", di, ca], v[i, "sqlite", di, ca]
            }
        } }' "$HTTP"
    awk -F, 'NR > 1 { v[$1, $2] = $3; r[$1] = 1 }
        END { for (i in r) printf "post/postgres/sqlite\t%s\t%s\n", v[i, "postgres"], v[i, "sqlite"] }' "$POST"
    awk -F, 'NR > 1 { v[$1, $2] = $3; r[$1] = 1 }
        END { for (i in r) { printf "replicas/1/0\t%s\t%s\n", v[i, 1], v[i, 0]; printf "replicas/2/0\t%s\t%s\n", v[i, 2], v[i, 0] } }' "$REPL"
} | kv_ci_table >"$OUT/csv/storetier-ci.json"
timing storetier-total "$(kv_since "$T0")"

step "done: $BENCH, $REF, $HTTP, $REPL, $POST, $SUM, $OUT/csv/storetier-ci.json"
column -s, -t "$SUM"
# The break-even of each store and key distribution, from the in-process
# medians: cache-aside can only pay off when the store costs more than a hit.
awk -F, '$1 == "bench" { p[$2 "," $3 "," $4] = $7; k[$2 "," $3] = 1 }
    END { for (x in k) { s = p[x ",none"]; h = p[x ",valkey"]; split(x, a, ",")
        printf "%s, %s keys: a store lookup %s us (p50), a Valkey cache hit %s us: cache-aside %s\n", a[1], a[2], s, h,
            (s + 0 > h + 0 ? "can pay off (the store costs more)" : "cannot pay off (the store costs less)") } }' "$SUM" | sort
if [ "$REPORT" = 1 ]; then
    bash "$KV_SCRIPTS/report.sh" "$OUT"
    say "report: $OUT/REPORT.md"
fi
say "done in $(kv_since "$T0")s"

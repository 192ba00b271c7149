#!/usr/bin/env bash
# shortener.sh: does a Valkey cache speed up an SQLite-backed service?
#
#   scripts/study/shortener.sh [--duration 8] [--links 100k] [--lookups 20k]
#       [--repeat 3] [--rounds 2] [--threads 30] [--zipf 1.0] [--out DIR] [--force]
#       [--keep] [--no-report] [--kvtest PATH]
#
# Starts a private valkey-server (free loopback port, no persistence) and
# a links database of LINKS links, then:
#   1. in-process lookups, no HTTP: "kvtest shortener bench" over the
#      configurations sqlite, sqlite-nocache (PRAGMA cache_size=0),
#      valkey (cache-aside over sqlite), valkey-nocache, valkey-track(-nocache)
#      (client-side caching, local map of LINKS entries), interleaved, plus
#      the covering schema (a copy made by init --schema covering --from) as
#      its own row; then sqlite and valkey again with --cold, so the report
#      states the cache break-even warm and cold;
#      and valkey-benchmark -c 1 -t get as the raw round-trip reference;
#   2. over HTTP, for each configuration (Valkey cache on/off x SQLite page
#      cache on/off, and Valkey with client-side caching), ROUNDS times in rotating order: start the service,
#      GET every id twice ("kvtest shortener load --walk 2": every configuration
#      starts from the same steady state, Valkey and the track map holding every
#      link, SQLite's page cache warm), warm it up 2 s (1 s if DURATION <= 2),
#      drive GET /link/ID for DURATION s with
#      "kvtest shortener load" (THREADS virtual users, existing ids), cross-
#      check with wrk (same connections, same ids, scripts/study/wrk-links.lua),
#      and in the first round run the classic task-shaped stress test
#      (100 tasks: one POST, then 80 GETs of the new link); stop the service.
#      Each measured load run also writes its timeline (--timeline, 250 ms
#      rows) to csv/shortener-timeline-CONFIG-rROUND.csv, drawn as a chart.
#   3. over HTTP with skewed keys (--zipf S over the same ids, default 1.0:
#      a few links get most lookups, as on a real shortener; 0 skips it):
#      sqlite, valkey and valkey-track, ROUNDS rounds in rotating order,
#      the same walk, warm-up and DURATION, kvtest load only (wrk's script picks
#      ids uniformly, so it has no Zipf row), recorded as experiment
#      "http-zipf". At full scale (5 rounds of 5 s) this adds 15 runs of
#      about 8 s, about 2 minutes, plus the walks (2 x LINKS GETs before
#      every HTTP run: 4,000 GETs took 0.06-0.24 s here, so at 100k links
#      roughly 3-12 s a run).
# Writes raw/shortener.jsonl (one object per run, straight from --json, plus
# {"bench": {...}}), CSVs, charts and the REPORT.md section into DIR
# (default bench-out/shortener-DATE). Every process it starts is stopped by
# PID on exit, Ctrl-C or error.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION=8 LINKS=100k LOOKUPS=20k REPEAT=3 ROUNDS=2 THREADS=30 ZIPF=1.0
OUTDIR="" FORCE=0 KEEP=0 KV="" REPORT=1
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --duration|--links|--lookups|--repeat|--rounds|--threads|--zipf|--out|--kvtest)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --duration) DURATION=$2 ;; --links) LINKS=$2 ;; --lookups) LOOKUPS=$2 ;;
                --repeat) REPEAT=$2 ;; --rounds) ROUNDS=$2 ;; --threads) THREADS=$2 ;;
                --zipf) ZIPF=$2 ;; --out) OUTDIR=$2 ;; --kvtest) KV=$2 ;;
            esac
            shift 2 ;;
        *) kv_common_flag "$1" || usage_die "unknown option $1 (try --help)"; shift ;;
    esac
done
for v in DURATION REPEAT ROUNDS THREADS; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || usage_die "--${v,,} must be a positive whole number, not ${!v}"
done
[[ $ZIPF =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage_die "--zipf must be a number >= 0, not $ZIPF"

need_tools jq awk curl valkey-server valkey-cli valkey-benchmark wrk
kv_find_kvtest "$KV"
for sub in init keys serve bench load; do
    "$KVTEST" shortener "$sub" --help 2>/dev/null | grep . >/dev/null ||
        die "kvtest shortener $sub is not available in $KVTEST"
done
OUTDIR=${OUTDIR:-$KV_ROOT/bench-out/shortener-$(date -u +%Y%m%d-%H%M%S)}
kv_prepare_out "$OUTDIR" "$FORCE"
export KEEP
RAW=$OUT/raw/shortener.jsonl
rm -f "$RAW" "$OUT"/logs/shortener-*.txt "$OUT"/csv/shortener-timeline-*.csv
mkdir -p "$OUT/csv"
: >"$RAW"
[ -e "$OUT/commands.tsv" ] && sed -i '/^shortener-/d' "$OUT/commands.tsv"
[ -s "$OUT/env/environment.txt" ] || kv_env_capture
printf 'links\t%s\nlookups\t%s\nrepeat\t%s\nrounds\t%s\nduration\t%s\nthreads\t%s\n' \
    "$LINKS" "$LOOKUPS" "$REPEAT" "$ROUNDS" "$DURATION" "$THREADS" >"$OUT/raw/shortener-params.tsv"
printf 'zipf\t%s\n' "$ZIPF" >>"$OUT/raw/shortener-params.tsv"
kv_scratch shortener
T0=$(kv_now)
step() { say "[$(kv_since "$T0")s] $*"; }
timing() { printf '%s\t%s\n' "$1" "$2" >>"$OUT/logs/timings.tsv"; }
meta() { # meta EXPERIMENT CONFIG ROUND WARMUP
    jq -cn --arg e "$1" --arg c "$2" --argjson r "$3" --argjson w "$4" \
        '{experiment:$e, config:$c, round:$r, warmup:($w==1)}'
}

step "private valkey-server"
start_valkey "$SCR" "$OUT/logs/valkey.log" || die "could not start valkey-server; see $OUT/logs/valkey.log"
CACHE=valkey://127.0.0.1:$VALKEY_PORT
DB=$SCR/links.db KEYS=$SCR/keys.txt
step "links database: $LINKS links"
t=$(kv_now)
kv_run shortener-init "$OUT/logs/shortener-init.txt" \
    "$KVTEST" shortener init "$DB" --links "$LINKS" --seed 1
kv_run shortener-init "$KEYS" "$KVTEST" shortener keys "$DB"
timing shortener-init "$(kv_since "$t")"
[ -s "$KEYS" ] || die "kvtest shortener keys printed no ids"
COV=$SCR/covering.db
kv_run shortener-init "$OUT/logs/shortener-init.txt" \
    "$KVTEST" shortener init "$COV" --schema covering --from "$DB"

# ------------------------------------------------------- 1. in-process
step "in-process lookups: $LOOKUPS per configuration, $REPEAT rounds + 1 warm-up"
t=$(kv_now)
valkey-cli -p "$VALKEY_PORT" flushall >/dev/null
kv_json shortener-bench "$(meta lookup all 1 0)" "$RAW" \
    "$KVTEST" shortener bench "$DB" --cache "$CACHE" --configs all \
    --compare-db "$COV" --track-size "$LINKS" \
    --lookups "$LOOKUPS" --repeat "$REPEAT" --warmup 1 --json
timing shortener-bench "$(kv_since "$t")"
step "in-process lookups with --cold: sqlite and valkey (the cold side of the break-even)"
t=$(kv_now)
kv_json shortener-bench "$(meta lookup-cold cold 1 0)" "$RAW" \
    "$KVTEST" shortener bench "$DB" --cache "$CACHE" --configs sqlite,valkey --cold \
    --lookups "$LOOKUPS" --repeat "$REPEAT" --warmup 1 --json
timing shortener-bench-cold "$(kv_since "$t")"

step "valkey-benchmark -c 1 -t get: the raw loopback round trip"
vb=$OUT/logs/shortener-valkey-benchmark.csv
kv_run shortener-vbench "$vb" valkey-benchmark -h 127.0.0.1 -p "$VALKEY_PORT" \
    -c 1 -n 20000 -t get --csv
awk -F'","' '/^"GET/ { gsub(/"/, "", $2); print $2 }' "$vb" | head -n1 |
    jq -Rc --argjson m "$(meta valkey-benchmark valkey-benchmark 1 0)" \
        '{tool: "valkey-benchmark", requests_per_s: (tonumber), bench: $m}' >>"$RAW"

# ------------------------------------------------------------- 2. HTTP
# name|cache|sqlite-cache, the same configurations as the in-process bench.
CONFIGS=("sqlite|none|on" "sqlite-nocache|none|off" "valkey|$CACHE|on" "valkey-nocache|$CACHE|off"
         "valkey-track|valkey+track://127.0.0.1:$VALKEY_PORT|on")
serve_start() { # serve_start CACHE SQLITE_CACHE -> SERVICE_URL, SERVICE_PID
    if ! kv_serve_start shortener-serve "$OUT/logs/shortener-serve.txt" "$DB" \
        --cache "$1" --sqlite-cache "$2" ||
        ! wait_http "$SERVICE_URL/heart-beat" "$SERVICE_PID"; then
        die "could not start kvtest shortener serve; see $OUT/logs/shortener-serve.txt"
    fi
}
serve_stop() {
    # Its counters (cache hits/misses/errors) are worth keeping.
    if curl -fsS --max-time 2 "$SERVICE_URL/stats" >>"$OUT/logs/shortener-stats.txt" 2>/dev/null; then
        echo >>"$OUT/logs/shortener-stats.txt"
    fi
    kv_serve_stop
}

# walk EXPERIMENT NAME ROUND: every id GET twice, in file order, before the
# timed warm-up, recorded as a warm-up (tables.sh ignores it). Without it a
# run starts with every cache empty, and with Zipf keys the long tail keeps
# bringing first lookups: valkey-track answered only ~80% from its map and
# measured 0.87x of no cache, against 1.54x (99.9% local) once every id had
# been asked before. The first GET of an id fills Valkey, the second the
# track map, so each configuration is measured from its steady state.
walk() {
    kv_json shortener-load "$(meta "$1" "$2" "$3" 1)" "$RAW" \
        "$KVTEST" shortener load "$SERVICE_URL" --walk 2 --threads "$THREADS" \
        --keys "$KEYS" --json
}

t=$(kv_now)
n=${#CONFIGS[@]}
WARM=2
[ "$DURATION" -gt 2 ] || WARM=1
for ((r = 1; r <= ROUNDS; r++)); do
    for ((i = 0; i < n; i++)); do
        IFS='|' read -r name cache sc <<<"${CONFIGS[$(( (i + r - 1) % n ))]}"
        step "HTTP round $r/$ROUNDS: $name (cache $cache, SQLite page cache $sc)"
        [ "$cache" = none ] || valkey-cli -p "$VALKEY_PORT" flushall >/dev/null
        serve_start "$cache" "$sc"
        URL=$SERVICE_URL
        walk http "$name" "$r"
        # Warm-up: the timed run's own start (the walk filled the caches).
        kv_json shortener-load "$(meta http "$name" "$r" 1)" "$RAW" \
            "$KVTEST" shortener load "$URL" --duration "$WARM" --threads "$THREADS" \
            --keys "$KEYS" --create-ratio 0 --seed "$r" --json
        kv_json shortener-load "$(meta http "$name" "$r" 0)" "$RAW" \
            "$KVTEST" shortener load "$URL" --duration "$DURATION" --threads "$THREADS" \
            --keys "$KEYS" --create-ratio 0 --seed "$((r + 100))" --json \
            --timeline "$OUT/csv/shortener-timeline-$name-r$r.csv" --interval 250ms
        wtmp=$(mktemp "$OUT/logs/.wrk.XXXXXX")
        kv_run shortener-wrk "$wtmp" wrk -t2 -c"$THREADS" -d"${DURATION}s" \
            -s "$KV_SCRIPTS/wrk-links.lua" "$URL" -- "$KEYS"
        grep '^{"tool":"wrk"' "$wtmp" |
            jq -c --argjson m "$(meta wrk "$name" "$r" 0)" '. + {bench: $m}' >>"$RAW"
        grep -v '^{"tool":"wrk"' "$wtmp" >>"$OUT/logs/shortener-wrk.txt" || true
        rm -f "$wtmp"
        if [ "$r" = 1 ]; then
            kv_json shortener-classic "$(meta classic "$name" "$r" 0)" "$RAW" \
                "$KVTEST" shortener load "$URL" --tasks 100 --threads "$THREADS" --gets 80 --json
        fi
        serve_stop
    done
done
timing shortener-http "$(kv_since "$t")"

# ------------------------------------------------- 3. HTTP, Zipf keys
if awk -v z="$ZIPF" 'BEGIN { exit !(z > 0) }'; then
    t=$(kv_now)
    ZCONFIGS=("sqlite|none|on" "valkey|$CACHE|on" "valkey-track|valkey+track://127.0.0.1:$VALKEY_PORT|on")
    n=${#ZCONFIGS[@]}
    for ((r = 1; r <= ROUNDS; r++)); do
        for ((i = 0; i < n; i++)); do
            IFS='|' read -r name cache sc <<<"${ZCONFIGS[$(( (i + r - 1) % n ))]}"
            step "HTTP round $r/$ROUNDS, Zipf $ZIPF keys: $name (cache $cache)"
            [ "$cache" = none ] || valkey-cli -p "$VALKEY_PORT" flushall >/dev/null
            serve_start "$cache" "$sc"
            walk http-zipf "$name" "$r"
            kv_json shortener-load "$(meta http-zipf "$name" "$r" 1)" "$RAW" \
                "$KVTEST" shortener load "$SERVICE_URL" --duration "$WARM" --threads "$THREADS" \
                --keys "$KEYS" --zipf "$ZIPF" --create-ratio 0 --seed "$r" --json
            kv_json shortener-load "$(meta http-zipf "$name" "$r" 0)" "$RAW" \
                "$KVTEST" shortener load "$SERVICE_URL" --duration "$DURATION" --threads "$THREADS" \
                --keys "$KEYS" --zipf "$ZIPF" --create-ratio 0 --seed "$((r + 100))" --json
            serve_stop
        done
    done
    timing shortener-http-zipf "$(kv_since "$t")"
fi
stop_valkey
timing shortener-total "$(kv_since "$T0")"

if [ "$REPORT" = 1 ]; then
    step "tables, charts, report"
    kv_report "$OUT"
fi
say "done in $(kv_since "$T0")s"

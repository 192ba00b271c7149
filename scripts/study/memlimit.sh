#!/usr/bin/env bash
# memlimit.sh: does a Valkey cache pay off once the links database outgrows
# memory? The original experiment's own caveat (the OS file cache can mask
# what an external cache is worth), measured with the process in a memory
# cgroup (--mem-limit: the limit counts the page cache, so SQLite reads its
# pages from storage). Valkey runs outside the limit.
#
#   scripts/study/memlimit.sh [--out DIR] [--links 800k] [--limits 24MiB,48MiB]
#       [--rounds 5] [--lookups 10k] [--duration 2] [--warmup 1] (seconds, or 500ms)
#       [--threads 30] [--zipf 1.0] [--kvtest PATH] [--force] [--keep]
#       [--no-report]
#
# On a fresh database of LINKS links (800k: about 95 MB, 4x the first limit
# and 2x the second), with uniform keys and with Zipf keys (exponent ZIPF):
#   1. in-process ("kvtest shortener bench", sqlite, valkey cache-aside and
#      valkey-track interleaved in every round, LOOKUPS lookups per run,
#      ROUNDS measured runs after one warm-up that also fills Valkey), once
#      under each limit of LIMITS and once "unlimited" (a limit of 1024GiB:
#      the database then fits in the OS file cache, as in every other
#      figure), each run with its break-even line (result.break_even);
#   2. over HTTP, under the first limit only (the unlimited figures are the
#      main study's): "kvtest shortener serve --mem-limit" with --cache none,
#      valkey and valkey+track, ROUNDS rounds in rotating order, each a fresh
#      service, WARMUP s then DURATION s of GETs by THREADS users ("kvtest
#      shortener load") over a hot set of LOOKUPS ids drawn at random from
#      the whole database (the in-process bench's number of distinct ids),
#      uniform or with --zipf. The service's own memory (8 worker threads,
#      each with its SQLite page cache) needs about 20 MiB of that limit: at
#      16MiB it is killed by the kernel and the script stops, saying so.
# Valkey is flushed before each run; the client-side map holds the hot set
# (--track-size twice LOOKUPS). Writes DIR/raw/memlimit.jsonl (every run's JSON
# with {"bench": ...}), DIR/raw/memlimit-params.tsv, DIR/csv/memlimit.csv
# (leg,mem,limit_bytes,keys,config,round,rate: one row per measured run),
# DIR/csv/memlimit-breakeven.csv (one row per in-process bench),
# DIR/csv/memlimit-http-hits.csv (each service's cache counters) and, unless
# --no-report, the tables and DIR/REPORT.md (scripts/study/tables.sh pairs
# the rounds, build/ratioci gives the intervals), and prints the section.
# About 3 minutes with the defaults (make bench's full scale).
#
# Root only, and a memory controller (cgroup v1 or v2): otherwise one line
# and exit 2 (not root) or 1 (no controller). Every process it starts is
# stopped by PID on exit, Ctrl-C or error.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LINKS=800k LIMITS=24MiB,48MiB ROUNDS=5 LOOKUPS=10k DURATION=2 WARM=1 THREADS=30 ZIPF=1.0
OUTDIR="" FORCE=0 KEEP=0 KV="" REPORT=1
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --out|--links|--limits|--rounds|--lookups|--duration|--warmup|--threads|--zipf|--kvtest)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --out) OUTDIR=$2 ;; --links) LINKS=$2 ;; --limits) LIMITS=$2 ;;
                --rounds) ROUNDS=$2 ;; --lookups) LOOKUPS=$2 ;; --duration) DURATION=$2 ;;
                --warmup) WARM=$2 ;; --threads) THREADS=$2 ;; --zipf) ZIPF=$2 ;;
                --kvtest) KV=$2 ;;
            esac
            shift 2 ;;
        *) kv_common_flag "$1" || usage_die "unknown option $1 (try --help)"; shift ;;
    esac
done
for v in ROUNDS THREADS; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || usage_die "--${v,,} must be a positive whole number, not ${!v}"
done
# Seconds, or kvtest load's own units (500ms).
[[ $DURATION =~ ^[1-9][0-9]*(ms|s)?$ ]] || usage_die "--duration must be seconds (2, 500ms), not $DURATION"
[[ $WARM =~ ^[1-9][0-9]*(ms|s)?$ ]] || usage_die "--warmup must be seconds (2, 500ms), not $WARM"
NLINKS=$(kv_count "$LINKS")
NHOT=$(kv_count "$LOOKUPS")
if [ "$NLINKS" -eq 0 ] || [ "$NHOT" -eq 0 ]; then usage_die "--links and --lookups must be above 0"; fi
[ "$NHOT" -le "$NLINKS" ] || usage_die "--lookups ($LOOKUPS) is more than --links ($LINKS)"
if ! [[ $ZIPF =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v z="$ZIPF" 'BEGIN { exit !(z > 0) }'; then
    usage_die "--zipf must be a number above 0, not $ZIPF"
fi
IFS=, read -r -a LIM <<<"$LIMITS"
[ ${#LIM[@]} -gt 0 ] || usage_die "--limits needs at least one size"
for l in "${LIM[@]}"; do
    [[ $l =~ ^[1-9][0-9]*(k|K|M|G|KiB|MiB|GiB)?$ ]] ||
        usage_die "--limits: not a size: '$l' (such as 24MiB, 48MiB)"
done

[ "$(id -u)" -eq 0 ] || usage_die "needs root (--mem-limit creates a memory cgroup)"
# The memory controller: a v1 hierarchy, or v2 with memory enabled.
grep -qE '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' /proc/self/cgroup ||
    { grep -q '^0::' /proc/self/cgroup && grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; } ||
    die "no memory cgroup controller on this machine (v1 memory or v2 memory.max): nothing measured"
need_tools jq awk shuf curl valkey-server valkey-cli
kv_find_kvtest "$KV"
kv_find_ratioci
kv_has_opt "shortener bench" --mem-limit || die "$KVTEST has no shortener bench --mem-limit"
kv_has_opt "shortener serve" --mem-limit || die "$KVTEST has no shortener serve --mem-limit"
OUTDIR=${OUTDIR:-$KV_ROOT/bench-out/memlimit-$(date -u +%Y%m%d-%H%M%S)}
kv_prepare_out "$OUTDIR" "$FORCE"
[ -s "$OUT/env/environment.txt" ] || kv_env_capture
RAW=$OUT/raw/memlimit.jsonl CSV=$OUT/csv/memlimit.csv BE=$OUT/csv/memlimit-breakeven.csv
HITS=$OUT/csv/memlimit-http-hits.csv
rm -f "$RAW" "$OUT/logs/memlimit-"*
[ -e "$OUT/commands.tsv" ] && sed -i '/^memlimit-/d' "$OUT/commands.tsv"
: >"$RAW"
echo "leg,mem,limit_bytes,keys,config,round,rate" >"$CSV"
echo "keys,config,round,hits,misses,local_hits" >"$HITS"
echo "mem,limit_bytes,keys,sqlite_us,cache_hit_us,cache_hit_ratio,pays_off,track_us,track_local_hit_ratio,read_bytes,peak_bytes" >"$BE"
kv_scratch memlimit
T0=$(kv_now)
step() { say "[$(kv_since "$T0")s] $*"; }
meta() { # meta LEG MEM KEYS CONFIG ROUND WARMUP
    jq -cn --arg l "$1" --arg m "$2" --arg k "$3" --arg c "$4" --argjson r "$5" --argjson w "$6" \
        '{experiment: "memlimit", leg: $l, mem: $m, keys: $k, config: $c, round: $r, warmup: ($w == 1)}'
}
bytes() { # bytes SIZE: kvtest's size units (K/M/G = 1000^n, KiB/MiB/GiB = 1024^n)
    awk -v s="$1" 'BEGIN { n = s + 0; u = s; sub(/^[0-9]+/, "", u)
        m = 1073741824
        if (u == "") m = 1; else if (u ~ /^[kK]$/) m = 1e3; else if (u == "M") m = 1e6
        else if (u == "G") m = 1e9; else if (u == "KiB") m = 1024; else if (u == "MiB") m = 1048576
        printf "%.0f\n", n * m }'
}

step "links database: $LINKS links, a hot set of $LOOKUPS of them"
DB=$SCR/links.db HOT=$SCR/hot.txt
kv_run memlimit-init "$OUT/logs/memlimit-init.txt" "$KVTEST" shortener init "$DB" --links "$LINKS" --seed 1
# A fixed pseudo-random sample (shuf seeded by a constant stream), spread
# over the whole file, so its rows live on pages all over the database.
"$KVTEST" shortener keys "$DB" | shuf -n "$NHOT" --random-source=<(yes) >"$HOT" ||
    die "could not draw $NHOT ids from $DB"
[ "$(wc -l <"$HOT")" -eq "$NHOT" ] || die "kvtest shortener keys gave fewer than $NHOT ids"
DBB=$(stat -c %s "$DB")
{
    printf 'links\t%s\ndb_bytes\t%s\nlimits\t%s\nhttp_limit\t%s\nrounds\t%s\n' \
        "$LINKS" "$DBB" "$LIMITS" "${LIM[0]}" "$ROUNDS"
    printf 'lookups\t%s\nduration\t%s\nwarmup\t%s\nthreads\t%s\nzipf\t%s\n' \
        "$LOOKUPS" "$DURATION" "$WARM" "$THREADS" "$ZIPF"
} >"$OUT/raw/memlimit-params.tsv"
step "$DB: $DBB bytes; limits $LIMITS (HTTP under ${LIM[0]})"
start_valkey "$SCR" "$OUT/logs/memlimit-valkey.log" || die "could not start valkey-server"
VK=valkey://127.0.0.1:$VALKEY_PORT TR=valkey+track://127.0.0.1:$VALKEY_PORT

# ------------------------------------------------------- 1. in-process
for mem in "${LIM[@]}" unlimited; do
    lim=$mem
    # "unlimited" is a limit above the machine's memory: the same group,
    # eviction at the start and counters, only the budget differs.
    [ "$mem" != unlimited ] || lim=1024GiB
    for keys in uniform zipf; do
        args=(--configs "sqlite,valkey,valkey-track" --cache "$TR" --track-size "$((2 * NHOT))"
              --lookups "$NHOT" --repeat "$ROUNDS" --warmup 1 --mem-limit "$lim" --json)
        [ "$keys" = uniform ] || args+=(--zipf "$ZIPF")
        step "in-process, $mem, $keys keys"
        valkey-cli -p "$VALKEY_PORT" flushall >/dev/null
        kv_json memlimit-bench "$(meta inproc "$mem" "$keys" all 0 0)" "$RAW" \
            "$KVTEST" shortener bench "$DB" "${args[@]}" || die "kvtest shortener bench failed ($mem, $keys)"
        tail -n 1 "$RAW" | jq -r --arg m "$mem" --arg b "$(bytes "$lim")" --arg k "$keys" '
            .result.configs[] | .config as $c | .runs | to_entries[]
            | ["inproc", $m, $b, $k, $c, .key + 1, .value.lookups_per_s] | @csv' | tr -d '"' >>"$CSV"
        tail -n 1 "$RAW" | jq -r --arg m "$mem" --arg b "$(bytes "$lim")" --arg k "$keys" '
            .result as $r | ($r.break_even // {}) as $e
            | [$m, $b, $k, $e.sqlite_us, $e.cache_hit_us, $e.cache_hit_ratio, $e.pays_off,
               $e.track_us, $e.track_local_hit_ratio, $r.mem_limit.read_bytes, $r.mem_limit.peak_bytes]
            | map(if . == null then "" else . end) | @csv' | tr -d '"' >>"$BE"
    done
done

# ------------------------------------------------------------- 2. HTTP
HL=${LIM[0]}
CONFIGS=("sqlite|none" "valkey|$VK" "valkey-track|$TR")
n=${#CONFIGS[@]}
for keys in uniform zipf; do
    zargs=()
    [ "$keys" = uniform ] || zargs=(--zipf "$ZIPF")
    for ((r = 1; r <= ROUNDS; r++)); do
        for ((i = 0; i < n; i++)); do
            IFS='|' read -r name cache <<<"${CONFIGS[$(( (i + r - 1) % n ))]}"
            step "HTTP under $HL, $keys keys, round $r/$ROUNDS: $name"
            [ "$cache" = none ] || valkey-cli -p "$VALKEY_PORT" flushall >/dev/null
            if ! kv_serve_start memlimit-serve "$OUT/logs/memlimit-serve.txt" "$DB" \
                --cache "$cache" --mem-limit "$HL" --track-size "$((2 * NHOT))" ||
                ! wait_http "$SERVICE_URL/heart-beat" "$SERVICE_PID"; then
                die "kvtest shortener serve --mem-limit $HL did not start; see $OUT/logs/memlimit-serve.txt"
            fi
            # Warm-up: fills Valkey, the client-side map and SQLite's cache.
            kv_json memlimit-load "$(meta http "$HL" "$keys" "$name" "$r" 1)" "$RAW" \
                "$KVTEST" shortener load "$SERVICE_URL" --duration "$WARM" --threads "$THREADS" \
                --keys "$HOT" "${zargs[@]}" --create-ratio 0 --seed "$r" --json ||
                die "the warm-up load failed ($name, $keys, round $r; the service killed by its limit?)"
            kv_json memlimit-load "$(meta http "$HL" "$keys" "$name" "$r" 0)" "$RAW" \
                "$KVTEST" shortener load "$SERVICE_URL" --duration "$DURATION" --threads "$THREADS" \
                --keys "$HOT" "${zargs[@]}" --create-ratio 0 --seed "$((r + 100))" --json ||
                die "the load failed ($name, $keys, round $r; the service killed by its limit?)"
            tail -n 1 "$RAW" | jq -r --arg m "$HL" --arg b "$(bytes "$HL")" --arg k "$keys" \
                --arg c "$name" --arg r "$r" '
                ["http", $m, $b, $k, $c, $r, .result.by_type.get.requests_per_s] | @csv' |
                tr -d '"' >>"$CSV"
            # The service's cache counters over its life (warm-up included).
            curl -fsS --max-time 2 "$SERVICE_URL/stats" 2>/dev/null |
                jq -c --argjson m "$(meta http "$HL" "$keys" "$name" "$r" 0)" \
                    '{tool: "stats", stats: .} + {bench: $m}' >>"$RAW" || true
            tail -n 1 "$RAW" | jq -r --arg k "$keys" --arg c "$name" --arg r "$r" '
                select(.tool == "stats" and .bench.round == ($r | tonumber)) | .stats.cache
                | [$k, $c, $r, .hits // 0, .misses // 0, .local_hits // 0] | @csv' | tr -d '"' >>"$HITS"
            kv_serve_stop
        done
    done
done
stop_valkey
printf 'memlimit\t%s\n' "$(kv_since "$T0")" >>"$OUT/logs/timings.tsv"
step "done: $CSV, $BE"
if [ "$REPORT" = 1 ]; then
    bash "$KV_SCRIPTS/tables.sh" "$OUT"
    bash "$KV_SCRIPTS/report.sh" "$OUT"
    # The section of the report this run feeds.
    awk '/^### A database larger than memory/ { p = 1 } p && /^##/ && !/larger than memory/ { exit } p' \
        "$OUT/REPORT.md"
fi

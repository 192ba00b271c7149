#!/usr/bin/env bash
# capacity.sh: how many requests a second does each shortener configuration
# serve with its p99 latency under one bound? The highest constant arrival
# rate at which p99 <= X ("kvtest shortener load --slo p99=X"), per
# configuration, beside the closed-loop requests/s of the same service
# (make bench's seventh part).
#
#   scripts/study/capacity.sh DIR [--scale full|small] [--links 100k]
#       [--threads 30] [--zipf 1.0] [--step-time 1s] [--unloaded-rate 1000]
#       [--unloaded-time 2s] [--rate-start R (default: the unloaded rate)]
#       [--closed-time 5s] [--bound US] [--again LIST] [--no-postgres]
#       [--kvtest PATH] [--force] [--keep] [--no-report]
#   scripts/study/capacity.sh --bound-of P99_US... (print the bound X that
#       these unloaded p99s give, by the rule below, and exit)
#
# Setup as shortener.sh's: a links database of LINKS links (kvtest shortener
# init --seed 1), its ids (kvtest shortener keys), a private valkey-server,
# and a private PostgreSQL primary holding the same links (tests/lib/pg.bash,
# as storetier.sh: initdb in a scratch directory, default settings,
# loopback, a free port; init postgres://... --from links.db) where one can
# be started: otherwise its configurations are skipped, with a line in
# DIR/logs/capacity-skipped.txt. The configurations:
#   uniform keys: sqlite, sqlite-nocache (PRAGMA cache_size=0), valkey
#     (cache-aside over sqlite), valkey-nocache, valkey-track (client-side
#     caching), postgres, postgres+valkey (cache-aside over PostgreSQL);
#   Zipf ZIPF keys: sqlite, valkey, valkey-track.
# Every run is shortener.sh's measured run but for its timing: a fresh
# "kvtest shortener serve" (Valkey flushed), "load --walk 2" (every id GET
# twice: the caches full, as shortener.sh walks before each run), then GETs
# of existing ids (--keys, --create-ratio 0, --zipf for Zipf keys) over
# THREADS connections.
#   1. Unloaded latency: for each configuration, UNLOADED_TIME of GETs at a
#      constant UNLOADED_RATE requests/s (load --rate: latency from each
#      request's scheduled send, as the search judges it). 1000/s is 1-3%
#      of what these services take (40-100k/s closed-loop), and 2 s of it
#      give 2000 samples, as many as a search step judges a p99 from (200/s
#      would need 10 s a configuration for as many; with 600, over 3 s,
#      one stall on this shared machine moved a p99 from 1.2 to 10 ms).
#   2. The bound: X = 5 x the median of the configurations' unloaded p99s,
#      rounded up to 1, 2 or 5 x 10^k microseconds (--bound-of), one X for
#      the whole table so that its rates compare (--bound US sets it). The
#      median, not the largest: a p99 of 2000 samples is their 20th
#      largest, and one stall of this shared machine in one configuration's
#      2 s moved the largest from 0.7 to 1.5 ms (and X from 5 to 10 ms)
#      between two runs. How it was chosen goes to
#      DIR/raw/capacity-params.tsv, with the largest for reference.
#   3. The search: for each configuration, "load --slo p99=X --rate-start
#      RATE_START --step-time STEP_TIME" (RATE_START: the unloaded rate,
#      which passes by the bound's construction; doubling steps, then bisection to
#      2%; a step lasts max(STEP_TIME, 2000 / rate) for its 2000 p99
#      samples). Configurations in --again (a comma list of KEYS/CONFIG, e.g.
#      uniform/sqlite) are searched a second time at the end, round 2: how
#      far two searches of the same service agree.
#   4. After each search, on the same service: CLOSED_TIME of closed-loop
#      GETs (the same mix and connections, each sending its next request as
#      soon as the last is answered, as shortener.sh measures), the rate
#      the capacity is set beside. shortener.sh's own figures (make bench's
#      part 2, 20 minutes earlier) are shown beside it where DIR has them:
#      on this shared machine the same service measured 68k GET/s closed-loop
#      in one run and 93k/s in another a day later, too far apart to set one
#      run's capacity beside another's.
# Output: raw/capacity.jsonl (every run's --json with {"bench": {experiment:
# "capacity", phase: walk|unloaded|search|closed, keys, config, store,
# round, warmup, wall_s}}), raw/capacity-params.tsv (the settings, and how
# X was chosen), csv/capacity-unloaded.csv, and, from
# scripts/study/report-capacity.sh, csv/capacity.csv (each search beside
# its closed-loop rate, and shortener.sh's or storetier.sh's where DIR has
# them), csv/capacity-steps.csv (every step of each search, for the chart)
# and logs/capacity-section.md, the REPORT.md section (report.sh
# prints it in DIR/REPORT.md).
#
# Scales: full (100k links as shortener.sh's full scale, 2 s steps,
# 3 s closed-loop runs, uniform/sqlite searched again) and small (10k
# links as its small scale, 500 ms steps, 1 s closed-loop runs, no second
# search). Options override the scale's settings.
#
# Every process it starts (valkey-server, PostgreSQL, the service) is
# stopped by PID on exit, Ctrl-C or error.
#
# Measured on this 2-core machine (2026-12-03, the full scale's settings):
# 440-446 s in three runs (setup 1 s, unloaded runs 65 s, searches
# 374-380 s: 11 searches of 12-15 steps, 24-30 s of steps each, about 33 s
# with the service's start, walk and closed-loop run). Small scale: 137 s.
# Before the search counted a step's rate over its planned length, told a
# stall from a queue by the median from send and slept to the nanosecond
# (epoll_pwait2), a search of the same service could land far from
# another (uniform sqlite: 8.0k and >= 31.7k/s in one run, at a bound that
# the generator's 1 ms sleeps had set at 20 ms); since, the two searches
# of uniform sqlite agreed within 10% in each of three runs: see the
# report's "Searched twice".
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/lib/pg.bash
source "$KV_ROOT/tests/lib/pg.bash"

BOUND_FACTOR=5
# bound_of P99_US...: BOUND_FACTOR x their median, rounded up to 1, 2 or 5
# x 10^k microseconds (at least 1). Exit 1 on no value or a value that is
# not a number above zero.
bound_of() {
    printf '%s\n' "$@" | sort -g | awk -v f="$BOUND_FACTOR" '
        $0 !~ /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ || $0 + 0 <= 0 { bad = 1 }
        { x[NR] = $0 + 0 }
        END {
            if (bad || NR == 0) exit 1
            m = NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2
            v = f * m
            for (p = 1; p < 1e15; p *= 10)
                for (i = 1; i <= 3; i++) {
                    c = (i == 1 ? 1 : i == 2 ? 2 : 5) * p
                    if (c >= v * (1 - 1e-12)) { printf "%.0f\n", c; exit }
                }
            exit 1
        }'
}
if [ "${1:-}" = --bound-of ]; then
    shift
    [ $# -gt 0 ] || usage_die "--bound-of needs the unloaded p99s, in microseconds"
    bound_of "$@" || usage_die "--bound-of takes numbers above zero (microseconds), not: $*"
    exit 0
fi

SCALE=full LINKS="" THREADS=30 ZIPF=1.0 STEP_TIME="" RATE_START="" CLOSED_TIME=""
UNLOADED_RATE=1000 UNLOADED_TIME=2s BOUND="" AGAIN=- POSTGRES=1
KV="" FORCE=0 KEEP=0 REPORT=1 DIR=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --scale|--links|--threads|--zipf|--step-time|--rate-start|--unloaded-rate|--unloaded-time|--closed-time|--bound|--again|--kvtest)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --scale) SCALE=$2 ;; --links) LINKS=$2 ;; --threads) THREADS=$2 ;;
                --zipf) ZIPF=$2 ;; --step-time) STEP_TIME=$2 ;; --rate-start) RATE_START=$2 ;;
                --unloaded-rate) UNLOADED_RATE=$2 ;; --unloaded-time) UNLOADED_TIME=$2 ;;
                --closed-time) CLOSED_TIME=$2 ;;
                --bound) BOUND=$2 ;; --again) AGAIN=$2 ;; --kvtest) KV=$2 ;;
            esac
            shift 2 ;;
        --no-postgres) POSTGRES=0; shift ;;
        -*) kv_common_flag "$1" || usage_die "unknown option $1 (try --help)"; shift ;;
        *) [ -z "$DIR" ] || usage_die "one DIR only"; DIR=$1; shift ;;
    esac
done
[ -n "$DIR" ] || usage_die "usage: capacity.sh DIR [options] (try --help)"
case $SCALE in
    full) LINKS=${LINKS:-100k} CLOSED_TIME=${CLOSED_TIME:-3s} STEP_TIME=${STEP_TIME:-2s}
          [ "$AGAIN" != - ] || AGAIN=uniform/sqlite ;;
    small) LINKS=${LINKS:-10k} CLOSED_TIME=${CLOSED_TIME:-1s} STEP_TIME=${STEP_TIME:-500ms}
          [ "$AGAIN" != - ] || AGAIN="" ;;
    *) usage_die "--scale must be full or small, not $SCALE" ;;
esac
RATE_START=${RATE_START:-$UNLOADED_RATE}
for v in THREADS RATE_START UNLOADED_RATE; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || usage_die "--$(tr '_A-Z' '-a-z' <<<"$v") must be a positive whole number, not ${!v}"
done
for v in STEP_TIME UNLOADED_TIME CLOSED_TIME; do
    [[ ${!v} =~ ^[1-9][0-9]*(s|ms)?$ ]] ||
        usage_die "--$(tr '_A-Z' '-a-z' <<<"$v") must be whole seconds (2, 2s) or milliseconds (500ms), not ${!v}"
done
[ -z "$BOUND" ] || [[ $BOUND =~ ^[1-9][0-9]*$ ]] || usage_die "--bound must be whole microseconds above 0, not $BOUND"
if ! [[ $ZIPF =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v z="$ZIPF" 'BEGIN { exit !(z > 0) }'; then
    usage_die "--zipf must be a number above 0, not $ZIPF"
fi
NLINKS=$(kv_count "$LINKS")
[ "$NLINKS" -gt 0 ] || usage_die "--links must be at least 1"

# name|keys|store|cache|sqlite page cache: the configurations, in order.
CONFIGS=("sqlite|uniform|sqlite|none|on" "sqlite-nocache|uniform|sqlite|none|off"
         "valkey|uniform|sqlite|valkey|on" "valkey-nocache|uniform|sqlite|valkey|off"
         "valkey-track|uniform|sqlite|track|on"
         "postgres|uniform|postgres|none|-" "postgres+valkey|uniform|postgres|valkey|-"
         "sqlite|zipf|sqlite|none|on" "valkey|zipf|sqlite|valkey|on" "valkey-track|zipf|sqlite|track|on")
if [ -n "$AGAIN" ]; then
    IFS=, read -r -a again_list <<<"$AGAIN"
    for a in "${again_list[@]}"; do
        printf '%s\n' "${CONFIGS[@]}" | awk -F'|' -v a="$a" '$2 "/" $1 == a { f = 1 } END { exit !f }' ||
            usage_die "--again: no configuration $a (KEYS/CONFIG, e.g. uniform/sqlite)"
    done
fi

need_tools jq awk curl valkey-server valkey-cli
kv_find_kvtest "$KV"
kv_has_opt "shortener load" "--slo" || die "$KVTEST has no capacity search (kvtest shortener load --slo)"
kv_prepare_out "$DIR" "$FORCE"
kv_part_start capacity
# PostgreSQL first (a fast shutdown, its directory removed), then lib.sh's
# cleanup (every other PID, the scratch directory), which exits with the
# script's status.
cap_cleanup() {
    local rc=$?
    set +e
    [ -z "${PG_DIR:-}" ] || stop_all_pg 2>>"$OUT/logs/capacity-postgres.txt"
    (exit "$rc")
    kv_cleanup
}
trap cap_cleanup EXIT

RAW=$OUT/raw/capacity.jsonl PARAMS=$OUT/raw/capacity-params.tsv SKIPPED=$OUT/logs/capacity-skipped.txt
: >"$RAW"
printf 'scale\t%s\nlinks\t%s\nthreads\t%s\nzipf\t%s\nstep_time\t%s\nrate_start\t%s\nunloaded_rate\t%s\nunloaded_time\t%s\nclosed_time\t%s\nwalk\t2\ncpus\t%s\n' \
    "$SCALE" "$LINKS" "$THREADS" "$ZIPF" "$STEP_TIME" "$RATE_START" "$UNLOADED_RATE" "$UNLOADED_TIME" \
    "$CLOSED_TIME" "$(nproc)" >"$PARAMS"
T0=$(kv_now)
step() { say "[$(kv_since "$T0")s] $*"; }
timing() { printf '%s\t%s\n' "$1" "$2" >>"$OUT/logs/timings.tsv"; }
meta() { # meta PHASE KEYS CONFIG STORE ROUND WARMUP
    jq -cn --arg p "$1" --arg k "$2" --arg c "$3" --arg s "$4" --argjson r "$5" --argjson w "$6" \
        '{experiment: "capacity", phase: $p, keys: $k, config: $c, store: $s, round: $r, warmup: ($w == 1)}'
}
skip_line() { say "$*"; echo "$*" >>"$SKIPPED"; }

# --------------------------------------------------------------- setup
step "links database ($LINKS links), valkey-server$([ "$POSTGRES" = 0 ] || echo ", PostgreSQL")"
t=$(kv_now)
DB=$SCR/links.db KEYS=$SCR/keys.txt
kv_run capacity-init "$OUT/logs/capacity-init.txt" "$KVTEST" shortener init "$DB" --links "$LINKS" --seed 1
kv_run capacity-init "$KEYS" "$KVTEST" shortener keys "$DB"
[ -s "$KEYS" ] || die "kvtest shortener keys printed no ids"
start_valkey "$SCR" "$OUT/logs/capacity-valkey.log" || die "could not start valkey-server; see $OUT/logs/capacity-valkey.log"
PG=""
if [ "$POSTGRES" = 0 ]; then
    skip_line "postgres, postgres+valkey: skipped (--no-postgres)"
elif ! kv_has_opt "shortener serve" "--replicas"; then
    skip_line "postgres, postgres+valkey: skipped ($KVTEST has no PostgreSQL store)"
elif ! start_pg 2>>"$OUT/logs/capacity-postgres.txt"; then
    skip_line "postgres, postgres+valkey: skipped (could not start PostgreSQL: $(tail -n 1 "$OUT/logs/capacity-postgres.txt"))"
else
    kv_run capacity-init "$OUT/logs/capacity-init.txt" "$KVTEST" shortener init "$PG_URL" --from "$DB"
    PG=$PG_URL
    "$(pg_bindir)/postgres" --version >>"$OUT/logs/capacity-postgres.txt" 2>&1 || true
fi
if [ -z "$PG" ]; then
    kept=()
    for c in "${CONFIGS[@]}"; do [[ $c == *"|postgres|"* ]] || kept+=("$c"); done
    CONFIGS=("${kept[@]}")
fi
printf 'postgres\t%s\n' "$([ -n "$PG" ] && echo yes || echo "skipped")" >>"$PARAMS"
timing capacity-setup "$(kv_since "$t")"

# run_config PHASE ROUND NAME KEYS STORE CACHE SC ARGS...: a fresh service
# for the configuration (Valkey flushed), the walk, then one "kvtest
# shortener load" with ARGS on top of the mix (GETs of existing ids over
# THREADS connections, Zipf keys for KEYS zipf), recorded with its tags;
# after a search, on the same service, CLOSED_TIME of closed-loop GETs
# (phase "closed": each connection sends its next request when the last is
# answered, as shortener.sh measures), so that the capacity is set beside
# the closed-loop rate of the very same service, minutes apart at most.
# A search that ended without an answer (exit 1 after its JSON: below the
# first step, the generator's limit) is recorded and said; anything else
# that fails stops the script.
run_config() {
    local phase=$1 round=$2 name=$3 keys=$4 store=$5 cache=$6 sc=$7 db url
    shift 7
    valkey-cli -p "$VALKEY_PORT" flushall >/dev/null
    db=$DB
    [ "$store" = sqlite ] || db=$PG
    case $cache in
        none) url=none ;; valkey) url=$VALKEY_URL ;; track) url=valkey+track://127.0.0.1:$VALKEY_PORT ;;
    esac
    local sopt=()
    [ "$sc" = - ] || sopt=(--sqlite-cache "$sc")
    if ! kv_serve_start capacity-serve "$OUT/logs/capacity-serve.txt" "$db" --cache "$url" "${sopt[@]}" ||
        ! wait_http "$SERVICE_URL/heart-beat" "$SERVICE_PID"; then
        die "could not start kvtest shortener serve; see $OUT/logs/capacity-serve.txt"
    fi
    kv_json capacity-walk "$(meta walk "$keys" "$name" "$store" "$round" 1)" "$RAW" \
        "$KVTEST" shortener load "$SERVICE_URL" --walk 2 --connections "$THREADS" --keys "$KEYS" --json
    local mix=(--connections "$THREADS" --keys "$KEYS" --create-ratio 0)
    [ "$keys" = uniform ] || mix+=(--zipf "$ZIPF")
    load_once "$phase" "$round" "$name" "$keys" "$store" "${mix[@]}" "$@"
    if [ "$phase" = search ]; then
        load_once closed "$round" "$name" "$keys" "$store" "${mix[@]}" --duration "$CLOSED_TIME" \
            --seed "$((round + 100))"
    fi
    kv_serve_stop
}
# load_once PHASE ROUND NAME KEYS STORE ARGS...: "kvtest shortener load
# SERVICE_URL ARGS --json", its JSON tagged into RAW with wall_s, the
# command's wall time (for a search: its steps, the connections opened for
# each, its start).
load_once() {
    local phase=$1 round=$2 name=$3 keys=$4 store=$5 tmp rc=0 t1 wall
    shift 5
    tmp=$(mktemp "$SCR/load.XXXXXX")
    t1=$(kv_now)
    kv_run "capacity-$phase" "$tmp" "$KVTEST" shortener load "$SERVICE_URL" "$@" --json || rc=$?
    wall=$(kv_since "$t1")
    if [ "$rc" -ne 0 ] && ! { [ "$phase" = search ] && [ "$rc" -eq 1 ] &&
        jq -eR 'fromjson? | objects | select(.result.capacity.outcome == "below_first_step"
            or .result.capacity.outcome == "generator_limit")' "$tmp" >/dev/null 2>&1; }; then
        die "kvtest shortener load failed on $keys/$name ($phase, exit $rc); see $OUT/logs/stderr.log"
    fi
    jq -c --argjson m "$(meta "$phase" "$keys" "$name" "$store" "$round" 0)" --argjson w "$wall" \
        -R 'fromjson? | objects | . + {bench: ($m + {wall_s: $w})}' "$tmp" >>"$RAW"
    rm -f "$tmp"
}

# ------------------------------------------------------ 1. unloaded latency
UNL=$OUT/csv/capacity-unloaded.csv
echo "keys,config,store,rate_per_s,achieved_per_s,requests,failed,p50_us,p90_us,p99_us,p999_us" >"$UNL"
step "unloaded latency: ${#CONFIGS[@]} configurations, $UNLOADED_TIME at $UNLOADED_RATE requests/s each"
t=$(kv_now)
for c in "${CONFIGS[@]}"; do
    IFS='|' read -r name keys store cache sc <<<"$c"
    step "unloaded: $keys keys, $name"
    run_config unloaded 1 "$name" "$keys" "$store" "$cache" "$sc" --rate "$UNLOADED_RATE" \
        --duration "$UNLOADED_TIME" --seed 1
    tail -n1 "$RAW" | jq -r --arg k "$keys" --arg c "$name" --arg s "$store" "$KV_JQ_DEFS"'.result as $r
        | $r.by_type.get.latency as $l
        | [$k, $c, $s, .options.rate, ($r.requests_per_s | r3), $r.requests, $r.requests_failed,
           ($l.p50 | r3), ($l.p90 | r3), ($l.p99 | r3), ($l.p999 | r3)] | @csv' | tr -d '"' >>"$UNL"
done
timing capacity-unloaded "$(kv_since "$t")"

# ------------------------------------------------------------- 2. the bound
read -r MAXP99 MAXCONF < <(awk -F, 'NR > 1 && $10 + 0 > m { m = $10 + 0; c = $1 "/" $2 } END { print m, c }' "$UNL")
mapfile -t P99S < <(awk -F, 'NR > 1 { print $10 }' "$UNL")
MEDP99=$(printf '%s\n' "${P99S[@]}" | sort -g | awk '{ x[NR] = $0 } END { if (NR) print NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }')
if [ -n "$BOUND" ]; then
    HOW="set by --bound"
else
    BOUND=$(bound_of "${P99S[@]}") || die "no unloaded p99 to choose the bound from (see $UNL)"
    HOW="$BOUND_FACTOR x the median unloaded p99, rounded up to 1, 2 or 5 x 10^k us"
fi
printf 'bound_us\t%s\nbound_rule\t%s\nbound_factor\t%s\nbound_median_p99_us\t%s\nbound_max_p99_us\t%s\nbound_max_config\t%s\n' \
    "$BOUND" "$HOW" "$BOUND_FACTOR" "$MEDP99" "$MAXP99" "$MAXCONF" >>"$PARAMS"
step "bound: p99 <= $BOUND us ($HOW; the median unloaded p99: $MEDP99 us; the largest: $MAXP99 us, $MAXCONF)"

# --------------------------------------------------------------- 3. search
SEARCH=(--slo "p99=${BOUND}us" --rate-start "$RATE_START" --step-time "$STEP_TIME")
step "searches: ${#CONFIGS[@]} configurations, ${SEARCH[*]}"
t=$(kv_now)
for c in "${CONFIGS[@]}"; do
    IFS='|' read -r name keys store cache sc <<<"$c"
    step "search: $keys keys, $name"
    ts=$(kv_now)
    run_config search 1 "$name" "$keys" "$store" "$cache" "$sc" "${SEARCH[@]}" --seed 2
    grep '"phase":"search"' "$RAW" | tail -n1 | jq -r --arg t "$(kv_since "$ts")" '.result.capacity
        | "    \(.outcome): \(.rate_per_s | round)/s [\(.lo_per_s | round), \(.hi_per_s // "open" | if type == "number" then round else . end)], \(.steps) steps, \(.seconds * 10 | round / 10) s of steps, \($t | tonumber | round) s with the walk and the closed-loop run"' >&2
done
for a in ${AGAIN//,/ }; do
    c=$(printf '%s\n' "${CONFIGS[@]}" | awk -F'|' -v a="$a" '$2 "/" $1 == a' | head -n1)
    if [ -z "$c" ]; then skip_line "second search of $a: skipped (not measured in this run)"; continue; fi
    IFS='|' read -r name keys store cache sc <<<"$c"
    step "search again: $keys keys, $name"
    run_config search 2 "$name" "$keys" "$store" "$cache" "$sc" "${SEARCH[@]}" --seed 3
done
timing capacity-search "$(kv_since "$t")"
[ -z "$PG" ] || stop_all_pg 2>>"$OUT/logs/capacity-postgres.txt" ||
    say "some PostgreSQL processes did not stop (see $OUT/logs/capacity-postgres.txt)"
stop_valkey
timing capacity-total "$(kv_since "$T0")"
# The same durations in the part's own parameters, so that its report needs
# no other file (results/ keeps one timings.tsv for the whole study).
awk -F'\t' '$1 ~ /^capacity-/ { sub(/^capacity-/, "time_", $1); print $1 "\t" $2 }' \
    "$OUT/logs/timings.tsv" >>"$PARAMS"

# csv/capacity.csv and the section (report.sh prints it again in REPORT.md).
bash "$KV_SCRIPTS/report-capacity.sh" "$OUT" >"$OUT/logs/capacity-section.md" ||
    die "scripts/study/report-capacity.sh failed"
step "done: $RAW, $UNL, $OUT/csv/capacity.csv"
column -s, -t "$OUT/csv/capacity.csv" >&2
if [ "$REPORT" = 1 ]; then
    bash "$KV_SCRIPTS/report.sh" "$OUT"
    say "report: $OUT/REPORT.md"
fi
say "done in $(kv_since "$T0")s"

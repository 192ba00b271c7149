#!/usr/bin/env bash
# costs.sh: what one request costs each tier, as inputs for the "Scaling
# out" arithmetic (SCALING.md): service CPU per request, the SQLite
# single-writer limit, the cache round trip.
#
#   scripts/study/costs.sh [--out DIR] [--rounds 6] [--duration 3]
#       [--links 100000] [--connections 32] [--processes 1] [--kvtest PATH]
#
# On a scratch database ("kvtest shortener init --links LINKS") it starts
# a valkey-server (no persistence) and two services on free loopback ports,
# "serve --cache none" and "serve --cache valkey://...", each with
# --processes N, then runs ROUNDS rounds of these steps, the order rotated
# by one step each round (round-robin):
#   get-none    load --create-ratio 0 (GETs of 10,000 existing ids) against
#               the --cache none service for DURATION seconds
#   get-valkey  the same against the valkey service (its cache warmed first)
#   post        load --create-ratio 1 (every request a POST /link, so a
#               commit) against the --cache none service
#   commit      in-process, no HTTP: "kvtest run --update --multitrans
#               --jmode wal --synchronous normal" on a kv table of 100-byte
#               blobs: one transaction per row written, as the service
#               commits a link; a proxy for the per-commit cost on this disk
#               (it updates a row where the service inserts one)
#   rtt         valkey-benchmark -c 1 -n 20000 -t get -q: the raw round trip
#   bench       "kvtest shortener bench --configs sqlite,valkey": in-process
#               lookup p50 from SQLite and through Valkey
# Service CPU is user+sys of the serve process and its children (with
# --processes N the N service processes; /proc/PID/stat, CLK_TCK ticks)
# before and after the load run, divided by the requests the run's --json
# counted; valkey-server's CPU likewise; the load generator's own CPU comes
# from the shell's "times" around it. Medians with 95% intervals
# (build/ratioci --median; 6 rounds or more reach 95%, fewer give min-max).
#
# Output: the table on stdout; with --out DIR also DIR/costs.tsv (one line
# per measured value per round: what, round, value, unit; a header line)
# and DIR/costs.md (quantity, median, 95% CI, unit, how measured, then the
# ceilings on paper computed from the medians). Every server is stopped by
# PID on exit. About ROUNDS x (3 x DURATION + 4) seconds plus setup: about
# 90 s with the defaults. The machine's other load changes every figure:
# run it on a quiet machine, and compare figures only within one run.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROUNDS=6 DURATION=3 LINKS=100000 CONNECTIONS=32 PROCESSES=1 KV="" OUTDIR=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || usage_die "$1 needs a positive integer, not '$2'"; }
while [ $# -gt 0 ]; do
    case $1 in
        --out|--rounds|--duration|--links|--connections|--processes|--kvtest)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --out) OUTDIR=$2 ;; --kvtest) KV=$2 ;;
                --rounds) posint "$1" "$2"; ROUNDS=$2 ;;
                --duration) posint "$1" "$2"; DURATION=$2 ;;
                --links) posint "$1" "$2"; LINKS=$2 ;;
                --connections) posint "$1" "$2"; CONNECTIONS=$2 ;;
                --processes) posint "$1" "$2"; PROCESSES=$2 ;;
            esac
            shift 2 ;;
        -h|--help) usage 0 ;;
        *) usage_die "unknown argument '$1' (see --help)" ;;
    esac
done
need_tools jq curl valkey-server valkey-benchmark
kv_find_ratioci
kv_find_kvtest "$KV"
kv_has_opt "shortener serve" --processes || die "$KVTEST has no shortener serve --processes"
TICK=$(getconf CLK_TCK)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-costs.XXXXXX")
kv_track_dir "$WORK"
export SERVERS_DIR=$WORK
RAW=$WORK/costs.tsv TABLE=$WORK/costs.md
: >"$RAW"

# ------------------------------------------------------------ measuring
# ticks PID: user+sys clock ticks of PID and of its children (the service
# processes of --processes N), from /proc/PID/stat fields 14 and 15 (the
# command name in parentheses may hold spaces: cut after the last ")").
ticks() {
    local pids=("$1") p sum=0 t
    # shellcheck disable=SC2207  # pids are digits
    pids+=($(cat /proc/"$1"/task/*/children 2>/dev/null || true))
    for p in "${pids[@]}"; do
        t=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $12 + $13 }') || t=0
        sum=$((sum + ${t:-0}))
    done
    echo "$sum"
}
# record WHAT ROUND VALUE UNIT
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$RAW"; }
# per_req TICKS REQUESTS: microseconds of CPU per request.
per_req() { awk -v t="$1" -v n="$2" -v hz="$TICK" 'BEGIN { printf "%.3f", t / hz * 1e6 / n }'; }
# times_cpu FILE: seconds of user+sys of the children, from bash's "times"
# (its second line, "0m1.234s 0m0.567s").
times_cpu() {
    awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { v = $i; sub(/s$/, "", v); split(v, a, "m"); s += a[1] * 60 + a[2] }
                   printf "%.3f", s }' "$1"
}
# stat_cache URL: "hits misses" from /stats (the sum over processes if any).
stat_cache() {
    curl -fsS --max-time 5 "$1/stats" | jq -r '(.all // .) | .cache | "\(.hits) \(.misses)"'
}

# load_step NAME ROUND URL PID VPID ARGS...: one load run against the
# service PID at URL; records its requests/s, service and load CPU per
# request, valkey-server's (VPID, or - for none) and how many CPUs all of
# them kept busy (CPU seconds per second of the run: near the machine's
# CPU count, the run was CPU-bound; well under it, something else limits).
load_step() {
    local name=$1 r=$2 url=$3 pid=$4 vpid=$5 t0 t1 v0=0 v1=0 n rps secs lcpu
    local json=$WORK/load.json tf=$WORK/times.txt
    shift 5
    t0=$(ticks "$pid")
    [ "$vpid" = - ] || v0=$(ticks "$vpid")
    printf '%s\t%s\n' "$name" "$(kv_show_cmd "$KVTEST" shortener load "$url" --duration "$DURATION" \
        --connections "$CONNECTIONS" --json "$@")" >>"$WORK/commands.tsv"
    ("$KVTEST" shortener load "$url" --duration "$DURATION" --connections "$CONNECTIONS" \
        --json "$@" >"$json" 2>>"$WORK/load.err"; times >"$tf") ||
        die "$name round $r: kvtest shortener load failed (see $WORK/load.err)"
    t1=$(ticks "$pid")
    [ "$vpid" = - ] || v1=$(ticks "$vpid")
    n=$(jq -r 'if .result.requests_failed == 0 then .result.requests
               else error("failed requests") end' "$json") || die "$name round $r: failed requests"
    rps=$(jq -r '.result.requests_per_s' "$json")
    secs=$(jq -r '.result.seconds' "$json")
    lcpu=$(times_cpu "$tf")
    record "$name.requests_per_s" "$r" "$rps" "requests/s"
    record "$name.service_cpu" "$r" "$(per_req $((t1 - t0)) "$n")" "us/request"
    record "$name.load_cpu" "$r" "$(awk -v s="$lcpu" -v n="$n" 'BEGIN { printf "%.3f", s * 1e6 / n }')" "us/request"
    [ "$vpid" = - ] || record "$name.valkey_cpu" "$r" "$(per_req $((v1 - v0)) "$n")" "us/request"
    record "$name.cpus_busy" "$r" "$(awk -v t=$((t1 - t0 + v1 - v0)) -v hz="$TICK" -v l="$lcpu" -v s="$secs" \
        'BEGIN { printf "%.3f", (t / hz + l) / s }')" "CPUs"
    say "$name round $r: $n requests, $(printf '%.0f' "$rps") req/s, service $((t1 - t0)) ticks, load ${lcpu}s"
}

step_get_none() { load_step get-none "$1" "$URL_NONE" "$PID_NONE" - --keys "$KEYS" --create-ratio 0; }
step_post() { load_step post "$1" "$URL_NONE" "$PID_NONE" - --create-ratio 1; }
step_get_valkey() {
    local r=$1 c0 c1
    c0=$(stat_cache "$URL_VALKEY")
    load_step get-valkey "$r" "$URL_VALKEY" "$PID_VALKEY" "$VALKEY_PID" --keys "$KEYS" --create-ratio 0
    c1=$(stat_cache "$URL_VALKEY")
    record get-valkey.hit_ratio "$r" "$(awk -v a="$c0" -v b="$c1" 'BEGIN { split(a, x, " "); split(b, y, " ")
        h = y[1] - x[1]; m = y[2] - x[2]; printf "%.4f", (h + m) ? h / (h + m) : 0 }')" "share"
}
step_commit() {
    local r=$1 json=$WORK/commit.json
    kv_run commit "$json.tmp" "$KVTEST" run "$WORK/kv.db" --update --multitrans --jmode wal \
        --synchronous normal --count 20000 --random --seed "$r" --json ||
        die "commit round $r: kvtest run failed"
    jq -c . "$json.tmp" >"$json"; rm -f "$json.tmp"
    record commit.us_per_commit "$r" "$(jq -r '.result.us_per_blob' "$json")" "us/commit"
    record commit.p50 "$r" "$(jq -r '.result.latency.p50' "$json")" "us/commit"
    record commit.commits_per_s "$r" "$(jq -r '1e6 / .result.us_per_blob' "$json")" "commits/s"
}
step_rtt() {
    local r=$1 out=$WORK/vb.txt rps
    kv_run rtt "$out" valkey-benchmark -h 127.0.0.1 -p "$VALKEY_PORT" -c 1 -n 20000 -t get -q ||
        die "rtt round $r: valkey-benchmark failed"
    rps=$(tr '\r' '\n' <"$out" | sed -n 's/^ *GET: \([0-9.]*\) requests per second.*/\1/p' | tail -n1)
    : >"$out"
    [ -n "$rps" ] || die "rtt round $r: no requests per second in valkey-benchmark's output"
    record rtt.valkey_benchmark "$r" "$(awk -v x="$rps" 'BEGIN { printf "%.3f", 1e6 / x }')" "us/round trip"
}
step_bench() {
    local r=$1 json=$WORK/bench.json
    : >"$json"
    kv_run bench "$json" "$KVTEST" shortener bench "$DB" --cache "$VALKEY_URL" \
        --configs sqlite,valkey --lookups 20000 --repeat 1 --warmup 1 --seed "$r" --json ||
        die "bench round $r: kvtest shortener bench failed"
    record bench.sqlite_p50 "$r" "$(jq -r '.result.configs[] | select(.config == "sqlite") | .latency.p50' "$json")" "us/lookup"
    record bench.valkey_p50 "$r" "$(jq -r '.result.configs[] | select(.config == "valkey") | .latency.p50' "$json")" "us/lookup"
}

# ---------------------------------------------------------------- setup
OUT=$WORK   # kv_run logs under $OUT
mkdir -p "$WORK/logs"
DB=$WORK/links.db KEYS=$WORK/keys.txt
say "scratch database of $LINKS links in $WORK"
"$KVTEST" shortener init "$DB" --links "$LINKS" --seed 1 >/dev/null
"$KVTEST" shortener keys "$DB" --limit 10000 >"$KEYS"
"$KVTEST" init "$WORK/kv.db" --count 100k --size 100 >/dev/null
start_valkey "$WORK" || die "valkey-server did not start"
start_service "$DB" --cache none --processes "$PROCESSES" || die "the --cache none service did not start"
URL_NONE=$SERVICE_URL PID_NONE=$SERVICE_PID
start_service "$DB" --cache "$VALKEY_URL" --processes "$PROCESSES" || die "the valkey service did not start"
URL_VALKEY=$SERVICE_URL PID_VALKEY=$SERVICE_PID
for u in "$URL_NONE $PID_NONE" "$URL_VALKEY $PID_VALKEY"; do
    wait_http "${u% *}/heart-beat" "${u#* }" || die "the service at ${u% *} does not answer"
done
{
    printf 'valkey\t%s\n' "valkey-server --save '' --appendonly no --port $VALKEY_PORT --bind 127.0.0.1"
    printf 'serve-none\t%s\n' "$(kv_show_cmd "$KVTEST" shortener serve "$DB" --port "${URL_NONE##*:}" --cache none --processes "$PROCESSES")"
    printf 'serve-valkey\t%s\n' "$(kv_show_cmd "$KVTEST" shortener serve "$DB" --port "${URL_VALKEY##*:}" --cache "$VALKEY_URL" --processes "$PROCESSES")"
} >>"$WORK/commands.tsv"
say "valkey $VALKEY_URL (pid $VALKEY_PID); services $URL_NONE (pid $PID_NONE), $URL_VALKEY (pid $PID_VALKEY); $(nproc) CPUs, CLK_TCK $TICK"
# Fill the cache with the ids the GET steps use, so get-valkey measures hits.
"$KVTEST" shortener load "$URL_VALKEY" --duration "$DURATION" --keys "$KEYS" --create-ratio 0 \
    --connections "$CONNECTIONS" >/dev/null 2>&1 || die "the cache warm-up load failed"

STEPS=(get-none get-valkey post commit rtt bench)
for r in $(seq 1 "$ROUNDS"); do
    for i in $(seq 0 $((${#STEPS[@]} - 1))); do
        s=${STEPS[$(((i + r - 1) % ${#STEPS[@]}))]}
        "step_${s//-/_}" "$r"
    done
done
stop_pid "$PID_NONE"; stop_pid "$PID_VALKEY"; stop_valkey

# ---------------------------------------------------------------- table
# how WHAT: the "how measured" cell of each quantity.
how() {
    case $1 in
        get-none.*|get-valkey.*|post.*)
            local kind=${1%%.*} q=${1#*.} w
            case $kind in
                get-none) w="GET /link/<id>, --cache none" ;;
                get-valkey) w="GET /link/<id>, --cache valkey:// (warm)" ;;
                post) w="POST /link (--create-ratio 1), --cache none" ;;
            esac
            case $q in
                requests_per_s) echo "$w: load --json requests/s, $CONNECTIONS connections, load on the same machine" ;;
                service_cpu) echo "$w: user+sys of serve (--processes $PROCESSES, children summed) / requests" ;;
                load_cpu) echo "$w: user+sys of kvtest shortener load / requests" ;;
                valkey_cpu) echo "$w: user+sys of valkey-server / requests" ;;
                hit_ratio) echo "$w: cache hits / (hits + misses), from /stats" ;;
                cpus_busy) echo "$w: CPU seconds of serve + load$([ "$kind" != get-valkey ] || echo ' + valkey-server') per second of the run" ;;
            esac ;;
        commit.us_per_commit) echo "kvtest run --update --multitrans --jmode wal --synchronous normal, 100-byte rows: mean per commit, checkpoints included" ;;
        commit.p50) echo "the same run: median commit" ;;
        commit.commits_per_s) echo "the same run: 1 / mean commit, one writer" ;;
        rtt.valkey_benchmark) echo "valkey-benchmark -c 1 -n 20000 -t get -q: 10^6 / (GET/s)" ;;
        bench.sqlite_p50) echo "kvtest shortener bench --configs sqlite: in-process lookup p50, warm" ;;
        bench.valkey_p50) echo "kvtest shortener bench --configs valkey: in-process lookup p50 (a cache hit)" ;;
    esac
}
CI=$(awk -F'\t' '{ print $1 "\t" $3 }' "$RAW" | kv_ci_table)
med() { jq -r --arg k "$1" '.[$k].est // empty' <<<"$CI"; }
NCPU=$(nproc)
{
    echo "| quantity | median | 95% CI | unit | how measured |"
    echo "|---|---:|---|---|---|"
    awk -F'\t' '!seen[$1]++ { print $1 "\t" $4 }' "$RAW" | while IFS=$'\t' read -r what unit; do
        jq -r --arg k "$what" --arg u "$unit" --arg h "$(how "$what")" '.[$k] |
            def f: if . >= 100 then (. * 10 | round) / 10 else (. * 1000 | round) / 1000 end;
            "| \($k) | \(.est | f) | \(.lo | f)–\(.hi | f)\(if .covered then "" else " (min–max, n<6)" end) | \($u) | \($h) |"' <<<"$CI"
    done
    echo
    echo "Ceilings on paper from the medians above (C = CPUs of a service machine; this one has $NCPU):"
    echo
    awk -v g="$(med get-none.service_cpu)" -v v="$(med get-valkey.service_cpu)" \
        -v p="$(med post.service_cpu)" -v c="$(med commit.commits_per_s)" -v k="$(med get-valkey.valkey_cpu)" \
        -v n="$NCPU" 'BEGIN {
        printf "| ceiling | per core | this machine (C = %d) | from |\n|---|---:|---:|---|\n", n
        printf "| GET, --cache none, requests/s | %.0f | %.0f | 10^6 / get-none.service_cpu |\n", 1e6 / g, n * 1e6 / g
        printf "| GET, --cache valkey, requests/s | %.0f | %.0f | 10^6 / get-valkey.service_cpu |\n", 1e6 / v, n * 1e6 / v
        printf "| POST, service CPU only, creates/s | %.0f | %.0f | 10^6 / post.service_cpu |\n", 1e6 / p, n * 1e6 / p
        printf "| SQLite writer, commits/s, whatever the cores, processes or machines | — | %.0f | commit.commits_per_s |\n", c
        printf "| one valkey-server (one thread), GETs/s | %.0f | — | 10^6 / get-valkey.valkey_cpu |\n", 1e6 / k
    }'
} >"$TABLE"
cat "$TABLE"
if [ -n "$OUTDIR" ]; then
    mkdir -p "$OUTDIR"
    { printf 'what\tround\tvalue\tunit\n'; cat "$RAW"; } >"$OUTDIR/costs.tsv"
    {
        echo "# Per-request costs (scripts/study/costs.sh)"
        echo
        echo "Measured $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)),"
        echo "$(uname -sr), kvtest $(git -C "$KV_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'),"
        echo "$ROUNDS rounds (steps rotated round-robin), $DURATION s per load run, $LINKS links,"
        echo "--processes $PROCESSES, $CONNECTIONS connections; service, load generator and valkey-server"
        echo "share this machine. Load average (1, 5, 15 min) at the start: $LOAD0; at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
        echo
        cat "$TABLE"
        echo
        echo "Commands (the first round's; \$OUT is the script's scratch directory, removed at the end):"
        echo
        awk -F'\t' '!seen[$1]++ { print "    " $2 }' "$WORK/commands.tsv"
    } >"$OUTDIR/costs.md"
    say "wrote $OUTDIR/costs.tsv and $OUTDIR/costs.md"
fi

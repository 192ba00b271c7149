#!/usr/bin/env bash
# cluster.sh: in-process lookups through a Valkey Cluster, beside one
# valkey-server and no cache.
#
#   scripts/study/cluster.sh DIR [--links 20k] [--lookups 20k] [--rounds 3]
#       [--kvtest PATH] [--force]
#
# On a fresh links database (kvtest shortener init), starts a private
# 3-primary Valkey Cluster (no replicas; scripts/study/cluster-lib.sh) and
# one valkey-server, all on free loopback ports, then ROUNDS times, in an
# order rotated per round: "kvtest shortener bench" with no cache (sqlite),
# through the single Valkey (valkey://) and through the cluster
# (valkey-cluster://), each a warm-up run then one measured run of LOOKUPS
# lookups. Then valkey-benchmark -c 1 -t get against the single server and
# valkey-benchmark --cluster -c 1 -t get against the cluster: the raw
# loopback round trip each lookup pays, and the ratio of the median lookup
# cost to it (one round trip: the ratio says what the cache-aside code adds).
# Writes DIR/csv/cluster.csv (one row per run), DIR/csv/cluster-summary.csv
# (median per configuration, reference, ratio) and DIR/csv/cluster-ci.json
# (the per-round ratios cluster/valkey, cluster/none and valkey/none with
# their 95% intervals, build/ratioci) and prints the summary. make bench
# runs it as its third part (into its own output directory, --force).
# Every process it starts is stopped by PID on exit, Ctrl-C or error.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/study/cluster-lib.sh
source "$KV_SCRIPTS/cluster-lib.sh"

# shellcheck disable=SC2034  # REPORT: --no-report is accepted, there is no report
LINKS=20k LOOKUPS=20k ROUNDS=3 KV="" FORCE=0 KEEP=0 REPORT=0 DIR=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --links|--lookups|--rounds|--kvtest)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --links) LINKS=$2 ;; --lookups) LOOKUPS=$2 ;; --rounds) ROUNDS=$2 ;;
                --kvtest) KV=$2 ;;
            esac
            shift 2 ;;
        -*) kv_common_flag "$1" || usage_die "unknown option $1 (try --help)"; shift ;;
        *) [ -z "$DIR" ] || usage_die "one DIR only"; DIR=$1; shift ;;
    esac
done
[ -n "$DIR" ] || usage_die "usage: cluster.sh DIR [options] (try --help)"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || usage_die "--rounds must be a positive whole number, not $ROUNDS"

need_tools jq awk valkey-server valkey-cli valkey-benchmark
kv_find_kvtest "$KV"
kv_find_ratioci
kv_prepare_out "$DIR" "$FORCE"
kv_scratch cluster

say "links database: $LINKS links"
DB=$SCR/links.db
kv_run cluster-init "$OUT/logs/cluster-init.txt" "$KVTEST" shortener init "$DB" --links "$LINKS" --seed 1
say "private valkey-server and a 3-primary cluster"
start_valkey "$SCR" "$OUT/logs/valkey.log" || die "could not start valkey-server"
start_cluster "$SCR/cluster" 3 0 || die "could not start the cluster; see $SCR/cluster"

CSV=$OUT/csv/cluster.csv
echo "round,config,lookups_per_s,p50_us,mean_us,hit_ratio" >"$CSV"
CONFIGS=("none|sqlite|none" "valkey|valkey|$VALKEY_URL" "cluster|valkey|$CLUSTER_URL")
n=${#CONFIGS[@]}
for ((r = 1; r <= ROUNDS; r++)); do
    for ((i = 0; i < n; i++)); do
        IFS='|' read -r name conf cache <<<"${CONFIGS[$(( (i + r - 1) % n ))]}"
        say "round $r/$ROUNDS: $name"
        tmp=$(mktemp "$SCR/bench.XXXXXX")
        kv_run cluster-bench "$tmp" "$KVTEST" shortener bench "$DB" --cache "$cache" \
            --configs "$conf" --lookups "$LOOKUPS" --repeat 1 --warmup 1 --seed "$r" --json
        jq -r --arg r "$r" --arg n "$name" '.result.configs[0] |
            [$r, $n, .lookups_per_s, .latency.p50, .latency.mean, (.hit_ratio // "")] | @csv' \
            "$tmp" | tr -d '"' >>"$CSV"
        rm -f "$tmp"
    done
done

# The raw round trip: one connection, GETs (of a key that does not exist:
# the reply size does not matter on loopback), as for one node in shortener.sh.
vb() { # vb CSVFILE ARGS...: GET/s from valkey-benchmark --csv
    local f=$1
    shift
    kv_run cluster-vbench "$f" valkey-benchmark -h 127.0.0.1 "$@" -c 1 -n 20000 -t get --csv
    awk -F'","' '/^"GET/ { gsub(/"/, "", $2); print $2; exit }' "$f"
}
say "valkey-benchmark -c 1 -t get: single node, then --cluster"
REF_ONE=$(vb "$OUT/logs/cluster-vbench-single.csv" -p "$VALKEY_PORT")
REF_CL=$(vb "$OUT/logs/cluster-vbench-cluster.csv" --cluster -p "${CLUSTER_PORTS[0]}")

SUM=$OUT/csv/cluster-summary.csv
echo "config,median_lookups_per_s,median_p50_us,reference_gets_per_s,lookup_us,round_trip_us,ratio" >"$SUM"
for name in none valkey cluster; do
    ref=""
    [ "$name" = valkey ] && ref=$REF_ONE
    [ "$name" = cluster ] && ref=$REF_CL
    awk -F, -v n="$name" -v ref="$ref" '
        function median(a, k,   i, j, t) {
            for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
        }
        NR > 1 && $2 == n { k++; rate[k] = $3; p50[k] = $4 }
        END {
            m = median(rate, k); p = median(p50, k)
            if (ref != "") printf "%s,%.0f,%.2f,%.0f,%.2f,%.2f,%.2f\n", n, m, p, ref, 1e6 / m, 1e6 / ref, ref / m
            else printf "%s,%.0f,%.2f,,%.2f,,\n", n, m, p, 1e6 / m
        }' "$CSV" >>"$SUM"
done
# Paired by round: each ratio of rates is the median of the per-round
# ratios, with its 95% interval.
awk -F, 'NR > 1 { v[$1, $2] = $3; r[$1] = 1 }
    END { for (i in r) {
        printf "cluster/valkey\t%s\t%s\n", v[i, "cluster"], v[i, "valkey"]
        printf "cluster/none\t%s\t%s\n", v[i, "cluster"], v[i, "none"]
        printf "valkey/none\t%s\t%s\n", v[i, "valkey"], v[i, "none"] } }' "$CSV" |
    kv_ci_table >"$OUT/csv/cluster-ci.json"
say "done: $CSV, $SUM, $OUT/csv/cluster-ci.json"
column -s, -t "$SUM"
awk -F, '$1 == "cluster" { printf "lookup through the cluster: %s us; valkey-benchmark --cluster -c 1 round trip: %s us; ratio %s (target: within 1.3)\n", $5, $6, $7 }
         $1 == "valkey" { printf "lookup through one Valkey: %s us; valkey-benchmark -c 1 round trip: %s us; ratio %s\n", $5, $6, $7 }' "$SUM"

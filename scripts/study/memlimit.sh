#!/usr/bin/env bash
# memlimit.sh: does a Valkey cache pay off once the links database outgrows
# memory? The in-process lookup bench (kvtest shortener bench, sqlite
# against valkey cache-aside, the configurations alternating in every
# round) on a database several times a memory limit (--mem-limit: the bench
# in a memory cgroup whose limit counts the page cache, so SQLite reads from
# storage), with uniform and Zipf 1.0 keys, and the same without the limit
# for contrast (a limit of 1024GiB: the database then fits in the OS file
# cache, as in every other figure).
#
#   scripts/study/memlimit.sh DIR [--links 1000000] [--limit 32MiB]
#       [--rounds 6] [--lookups 20000] [--kvtest PATH]
#
# Root only (a memory cgroup). Starts its own valkey-server on a free
# loopback port (outside the limit), flushed before each bench. Writes
# DIR/links.db (kept: remove it for another --links), DIR/raw/{limited,unlimited}-{uniform,zipf}.json (one bench
# each) and DIR/summary.tsv: per bench the median lookups/s of sqlite and
# valkey, valkey/sqlite as the median of the per-round ratios with its 95%
# interval (build/ratioci), the bytes the bench read from storage and the
# group's peak usage. Not part of make bench.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LINKS=1000000 LIMIT=32MiB ROUNDS=6 LOOKUPS=20000 KV="" DIR=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || usage_die "$1 needs a positive integer, not '$2'"; }
while [ $# -gt 0 ]; do
    case $1 in
        --links|--limit|--rounds|--lookups|--kvtest)
            [ $# -ge 2 ] || usage_die "$1 needs a value"
            case $1 in
                --links) posint "$1" "$2"; LINKS=$2 ;;
                --limit) LIMIT=$2 ;;
                --rounds) posint "$1" "$2"; ROUNDS=$2 ;;
                --lookups) posint "$1" "$2"; LOOKUPS=$2 ;;
                --kvtest) KV=$2 ;;
            esac
            shift 2 ;;
        -h|--help) usage 0 ;;
        -*) usage_die "unknown option '$1' (see --help)" ;;
        *) [ -z "$DIR" ] || usage_die "one DIR only"; DIR=$1; shift ;;
    esac
done
[ -n "$DIR" ] || usage_die "missing DIR (see --help)"
[ "$(id -u)" -eq 0 ] || usage_die "--mem-limit needs root"
need_tools jq valkey-server valkey-cli
kv_find_ratioci
kv_find_kvtest "$KV"
kv_has_opt "shortener bench" --mem-limit || die "$KVTEST has no shortener bench --mem-limit"
mkdir -p "$DIR/raw"
DIR=$(cd "$DIR" && pwd)
export SERVERS_DIR=$DIR

DB=$DIR/links.db
if [ ! -s "$DB" ]; then
    say "creating $DB with $LINKS links"
    "$KVTEST" shortener init "$DB" --links "$LINKS" --force >/dev/null
fi
say "$DB: $(stat -c %s "$DB") bytes; limit $LIMIT"
start_valkey "$DIR" || die "valkey-server did not start"

printf 'bench\tsqlite_per_s\tvalkey_per_s\tvalkey_over_sqlite\tlo\thi\tn\tread_bytes\tpeak_bytes\n' \
    >"$DIR/summary.tsv"
for keys in uniform zipf; do
    for mode in limited unlimited; do
        args=(--configs "sqlite,valkey" --cache "$VALKEY_URL" --repeat "$ROUNDS" --warmup 1
              --lookups "$LOOKUPS" --json)
        [ "$keys" = uniform ] || args+=(--zipf 1.0)
        # "unlimited" is a limit above the machine's memory: the same group,
        # eviction at the start and counters, only the budget differs.
        if [ "$mode" = limited ]; then args+=(--mem-limit "$LIMIT"); else args+=(--mem-limit 1024GiB); fi
        valkey-cli -p "$VALKEY_PORT" flushall >/dev/null
        out=$DIR/raw/$mode-$keys.json
        say "bench $mode $keys: ${args[*]}"
        "$KVTEST" shortener bench "$DB" "${args[@]}" >"$out"
        # Paired rounds: run m of valkey against run m of sqlite.
        ci=$(jq -r '[.result.configs[] | {(.config): [.runs[].lookups_per_s]}] | add
                    | [.valkey, .sqlite] | transpose[] | "\(.[0]) \(.[1])"' "$out" | "$KV_RATIOCI")
        jq -r --arg b "$mode-$keys" --arg ci "$ci" '
            ([.result.configs[] | {(.config): .lookups_per_s}] | add) as $r
            | ($ci | split(" ")) as $c
            | [$b, ($r.sqlite | round), ($r.valkey | round), $c[0], $c[1], $c[2], $c[3],
               (.result.mem_limit.read_bytes // "-"), (.result.mem_limit.peak_bytes // "-")]
            | @tsv' "$out" >>"$DIR/summary.tsv"
    done
done
column -t -s $'\t' "$DIR/summary.tsv"

#!/usr/bin/env bash
# post.sh: POST /link creates/s over HTTP for two builds of "kvtest
# shortener serve --cache none", beside SQLite's own insert rate in-process
# (scripts/tools/inserts.c, make build/inserts: the service's links_create, one thread), the
# method of NOTES.md (issue 22 item 1: HTTP within 1.5x of in-process).
#
#   scripts/study/http/post.sh OLD_KVTEST NEW_KVTEST INSERTS_BIN [--rounds 6]
#       [--duration 3] [--inserts 40000] [--raw FILE]
#
# Three copies of one 1000-link database (seed 1): one per service, one for
# the in-process inserts. Per round, old and new in ABBA order: "kvtest
# shortener load URL --duration D --create-ratio 1 --connections 30" (new
# links only), then the in-process inserts. Prints medians and the per-round
# ratios (build/ratioci) new/old, old/in-process and new/in-process.
set -euo pipefail
KV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck source=scripts/study/lib.sh
source "$KV_ROOT/scripts/study/lib.sh"

[ $# -ge 3 ] || usage_die "usage: post.sh OLD_KVTEST NEW_KVTEST INSERTS_BIN [options]"
OLD=$(realpath "$1") NEW=$(realpath "$2") INS=$(realpath "$3")
shift 3
ROUNDS=6 DURATION=3 NINS=40000 RAWOUT=""
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage_die "$1 needs a value"
    case $1 in
        --rounds) ROUNDS=$2 ;; --duration) DURATION=$2 ;; --inserts) NINS=$2 ;;
        --raw) RAWOUT=$2 ;;
        *) usage_die "unknown argument '$1'" ;;
    esac
    shift 2
done
need_tools jq
kv_find_ratioci
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-post.XXXXXX")
kv_track_dir "$WORK"
export SERVERS_DIR=$WORK
"$OLD" shortener init "$WORK/a.db" --links 1000 --seed 1 >/dev/null
cp "$WORK/a.db" "$WORK/b.db"
cp "$WORK/a.db" "$WORK/c.db"
{ KVTEST=$OLD start_service "$WORK/a.db" --cache none; } || die "OLD did not start"
A_URL=$SERVICE_URL
{ KVTEST=$NEW start_service "$WORK/b.db" --cache none; } || die "NEW did not start"
B_URL=$SERVICE_URL

http() {
    "$OLD" shortener load "$1" --duration "${DURATION}s" --create-ratio 1 --connections 30 \
        --json | jq -r 'if .result.requests_failed > 0 then error("failures")
                        else .result.requests_per_s end'
}
RAW=$WORK/raw
: >"$RAW"
for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
    for v in $order; do
        if [ "$v" = old ]; then x=$(http "$A_URL"); else x=$(http "$B_URL"); fi
        printf '%s\t%s\t%s\n' "$r" "$v" "$x" >>"$RAW"
        say "round $r $v: $x creates/s"
    done
    x=$("$INS" "$WORK/c.db" "$NINS") || die "inserts failed"
    printf '%s\tinproc\t%s\n' "$r" "$x" >>"$RAW"
    say "round $r in-process: $x inserts/s"
done
[ -z "$RAWOUT" ] || cp "$RAW" "$RAWOUT"
echo "raw (round variant creates_per_s):"
cat "$RAW"
for v in old new inproc; do
    printf '%s median: %s   raw: %s\n' "$v" \
        "$(awk -F'\t' -v v="$v" '$2 == v { print $3 }' "$RAW" | "$KV_RATIOCI" --median)" \
        "$(awk -F'\t' -v v="$v" '$2 == v { printf "%s ", $3 }' "$RAW")"
done
pair() { awk -F'\t' -v a="$1" -v b="$2" '{ x[$1 "," $2] = $3; r[$1] = 1 }
    END { for (i in r) print x[i "," a], x[i "," b] }' "$RAW" | "$KV_RATIOCI"; }
echo "new/old:        $(pair new old)"
echo "old/in-process: $(pair old inproc)"
echo "new/in-process: $(pair new inproc)"

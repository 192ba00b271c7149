#!/usr/bin/env bash
# testcost.sh: where does the CPU time of a test run go?
#   scripts/dev/testcost.sh [--out FILE] [-- COMMAND...]   (default: make test)
#
# Runs COMMAND under the kernel's process accounting (acct: accton, as
# root) and sums the CPU seconds (user + system) of every process that
# ended during it by command name: the count, the total and the CPU per
# process. The runner's per-suite times say which suite is long; this says
# what a suite spends it on (process start-ups, shells, jq, compilers...).
# kvtest appears twice: "kvtest-asan" (the sanitizer build, told apart by
# the shadow memory it reserves) and "kvtest" (the others). A process that
# forks without exec counts under its parent's name (LeakSanitizer's
# tracer at each sanitizer build's exit is one).
#
# Writes FILE (default bench-out/testcost-UTC.tsv): command, processes,
# CPU seconds, milliseconds per process, largest first; then a line
# "# wall W s, cpu C s (user U, sys S), exit E" for the whole COMMAND.
# Exit: COMMAND's status; 2 on bad arguments or without root or acct.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/study/mask.sh
source "$ROOT/scripts/study/mask.sh"   # kv_mask: the command is recorded, not its passwords
die() { echo "testcost.sh: $*" >&2; exit 2; }

OUT=""
while [ $# -gt 0 ]; do
    case $1 in
        --out) [ $# -ge 2 ] || die "--out needs a value"; OUT=$2; shift 2 ;;
        --) shift; break ;;
        -h | --help) sed -n '2,17s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) die "unknown option $1 (try --help)" ;;
    esac
done
[ $# -gt 0 ] || set -- make test
[ "$(id -u)" -eq 0 ] || die "needs root (process accounting)"
if ! command -v accton >/dev/null || ! command -v dump-acct >/dev/null; then
    die "needs the acct package (apt-get install acct)"
fi
[ -x /usr/bin/time ] || die "needs /usr/bin/time (apt-get install time)"
OUT=${OUT:-$ROOT/bench-out/testcost-$(date -u +%Y%m%d-%H%M%S).tsv}
mkdir -p "$(dirname "$OUT")" || exit 2

acct=$(mktemp)
trap 'accton off >/dev/null 2>&1; rm -f "$acct" "$acct.time"' EXIT
accton "$acct" >/dev/null || die "accton failed"
st=0
/usr/bin/time -f '%e %U %S' -o "$acct.time" "$@" || st=$?
accton off >/dev/null
read -r wall user sys <"$acct.time"

# dump-acct: name|version|user|sys|elapsed|uid|gid|memory (KiB)|...; times
# in clock ticks. AddressSanitizer reserves terabytes of shadow memory.
hz=$(getconf CLK_TCK)
dump-acct "$acct" | awk -F'|' -v hz="$hz" '
    { name = $1; gsub(/ +$/, "", name)
      if (name == "kvtest" && $8 + 0 > 1e9) name = "kvtest-asan"
      n[name]++; cpu[name] += $3 + $4 }
    END { for (k in n) printf "%s\t%d\t%.1f\t%.1f\n", k, n[k], cpu[k] / hz, cpu[k] / hz / n[k] * 1000 }' |
    sort -t$'\t' -k3,3gr >"$OUT.tmp"
{
    printf 'command\tprocesses\tcpu_s\tms_per_process\n'
    cat "$OUT.tmp"
    awk -v w="$wall" -v u="$user" -v s="$sys" -v st="$st" -v c="$(printf '%s' "$*" | kv_mask)" \
        'BEGIN { printf "# wall %s s, cpu %.1f s (user %s, sys %s), exit %s: %s\n", w, u + s, u, s, st, c }' 
} >"$OUT"
rm -f "$OUT.tmp"
head -n 16 "$OUT" | grep -v "^#"
tail -n 1 "$OUT"
echo "testcost.sh: wrote $OUT"
exit "$st"

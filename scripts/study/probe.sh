#!/usr/bin/env bash
# probe.sh: the machine's own pace, measured the same way at the start and
# the end of every make bench, so that two runs of one commit that disagree
# can be told apart by what the machine did rather than what kvtest did.
#
#   bash scripts/study/probe.sh OUTDIR LABEL
#
# Appends to OUTDIR/raw/probe.tsv (header: label time_utc metric value unit)
# one row per reference, none of which involves kvtest:
#   cpu_loop_ms      a fixed awk loop (3e7 additions), median of 3: CPU speed
#                    as this VM gets it (frequency, neighbours)
#   steal_pct        CPU time the hypervisor gave others over 2 s, idle here
#   steal_jiffies, total_jiffies   /proc/stat's counters, so that the
#                    share stolen over a whole run is the difference of its
#                    start and end rows
#   loopback_rtt_us  a round trip on loopback: a private valkey-server,
#                    valkey-benchmark -c 1 -t get (the service's cache hit
#                    pays one of these)
#   fsync_write_us   one 4 KiB write synced to the output directory's disk
#                    (dd oflag=dsync, 300 of them): what durable writes wait for
# A reference that cannot be measured (no valkey-benchmark, say) is left
# out and said on stderr; the others stand.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[ $# -eq 2 ] || usage_die "usage: probe.sh OUTDIR LABEL"
DIR=$1 LABEL=$2
[ -d "$DIR" ] || usage_die "no directory $DIR"
mkdir -p "$DIR/raw" "$DIR/scratch"
P=$DIR/raw/probe.tsv
[ -s "$P" ] || printf 'label\ttime_utc\tmetric\tvalue\tunit\n' >"$P"
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$LABEL" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$1" "$2" "$3" >>"$P"; }

# CPU: wall milliseconds of the same loop, three times.
ms=()
for i in 1 2 3; do
    t=$(date +%s%N)
    awk 'BEGIN { for (i = 0; i < 3e7; i++) s += i; if (s < 0) print s }'
    ms+=("$(( ($(date +%s%N) - t) / 1000000 ))")
    : "$i"
done
row cpu_loop_ms "$(printf '%s\n' "${ms[@]}" | sort -n | sed -n 2p)" ms

# Steal: /proc/stat's aggregate cpu line (user nice system idle iowait irq
# softirq steal ...), 2 s apart.
cpu() { awk '$1 == "cpu" { t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $9; exit }' /proc/stat; }
read -r t0 s0 < <(cpu)
sleep 2
read -r t1 s1 < <(cpu)
row steal_pct "$(awk -v dt=$((t1 - t0)) -v ds=$((s1 - s0)) 'BEGIN { printf "%.2f", (dt > 0 ? 100 * ds / dt : 0) }')" '%'
row steal_jiffies "$s1" jiffies
row total_jiffies "$t1" jiffies

# Loopback: a private Valkey on a free port, stopped by PID.
if command -v valkey-benchmark >/dev/null && command -v valkey-server >/dev/null; then
    if start_valkey "$DIR/scratch" "$DIR/scratch/probe-valkey.log" >/dev/null 2>&1; then
        rps=$(valkey-benchmark -h 127.0.0.1 -p "$VALKEY_PORT" -c 1 -n 20000 -t get --csv 2>/dev/null |
              awk -F'","' '/^"GET/ { gsub(/"/, "", $2); print $2; exit }')
        stop_valkey
        if [ -n "$rps" ]; then
            row loopback_rtt_us "$(awk -v r="$rps" 'BEGIN { printf "%.2f", 1e6 / r }')" us
        else
            say "valkey-benchmark gave no GET rate: loopback_rtt_us left out"
        fi
    else
        say "valkey-server did not start: loopback_rtt_us left out"
    fi
else
    say "no valkey-server or valkey-benchmark: loopback_rtt_us left out"
fi

# Disk: synced 4 KiB writes into the output directory's filesystem.
f=$DIR/scratch/probe-fsync.$$
if out=$(LC_ALL=C dd if=/dev/zero of="$f" bs=4k count=300 oflag=dsync 2>&1); then
    s=$(sed -n 's/.* copied, \([0-9.e+-]*\) s,.*/\1/p' <<<"$out")
    row fsync_write_us "$(awk -v s="$s" 'BEGIN { printf "%.1f", s * 1e6 / 300 }')" us
else
    say "dd with oflag=dsync failed here: fsync_write_us left out"
fi
rm -f "$f"

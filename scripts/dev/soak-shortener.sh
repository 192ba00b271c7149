#!/usr/bin/env bash
# soak-shortener.sh: reliability soak of "kvtest shortener serve".
#
# Starts a private service (and, with --cache valkey, a private valkey-server)
# on free loopback ports, drives it with wrk for --duration seconds from
# --clients concurrent keep-alive connections mixing creates (POST /link)
# and resolves (GET /link/<id> of preloaded and freshly created ids), samples
# the server's RSS every 2 s, then stops the service cleanly and checks that
# every link acknowledged with 201 is in the database and resolves.
#
# Reports failed requests (non-2xx, socket errors, timeouts, bad bodies),
# lost links, throughput, latency and the RSS curve. Exit 0 only with no
# failed request and no lost link.
#
#   scripts/dev/soak-shortener.sh [--duration 60] [--clients 30] [--threads 8]
#       [--create-ratio 0.1] [--cache none|valkey] [--sqlite-cache on|off]
#       [--kvtest ./kvtest] [--keep]
#
# Everything binds 127.0.0.1; everything started is stopped by PID on exit,
# also on Ctrl-C. Scratch data lives in a mktemp -d directory (kept with
# --keep).
set -euo pipefail

duration=60 clients=30 threads=8 ratio=0.1 cache=none sqlite_cache=on keep=0
root=$(cd "$(dirname "$0")/../.." && pwd)
KVTEST=$root/kvtest

die() { echo "soak-shortener: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
        --duration) duration=${2:?}; shift 2 ;;
        --clients) clients=${2:?}; shift 2 ;;
        --threads) threads=${2:?}; shift 2 ;;
        --create-ratio) ratio=${2:?}; shift 2 ;;
        --cache) cache=${2:?}; shift 2 ;;
        --sqlite-cache) sqlite_cache=${2:?}; shift 2 ;;
        --kvtest) KVTEST=${2:?}; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) die "unknown option $1" ;;
    esac
done
if ! [[ "$duration" =~ ^[0-9]+$ ]] || [ "$duration" -lt 5 ] || [ "$duration" -gt 3600 ]; then
    die "--duration must be 5..3600 seconds"
fi
if ! [[ "$clients" =~ ^[0-9]+$ ]] || [ "$clients" -lt 2 ] || [ "$clients" -gt 1000 ]; then
    die "--clients must be 2..1000"
fi
[[ "$ratio" =~ ^(0(\.[0-9]+)?|1(\.0*)?)$ ]] || die "--create-ratio must be in [0,1]"
case $cache in none|valkey) ;; *) die "--cache must be none or valkey" ;; esac
for tool in wrk curl jq awk; do
    command -v "$tool" >/dev/null || die "$tool is missing (run scripts/deps.sh)"
done
[ "$cache" = none ] || command -v valkey-server >/dev/null || die "valkey-server is missing"
KVTEST=$(cd "$(dirname "$KVTEST")" && pwd)/$(basename "$KVTEST")
[ -x "$KVTEST" ] || die "$KVTEST not built (run make)"
export KVTEST

scratch=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-soak.XXXXXX")
SERVERS_DIR=$scratch
export SERVERS_DIR
# shellcheck source=tests/lib/servers.bash
. "$root/tests/lib/servers.bash"

sampler=
cleanup() {
    [ -z "$sampler" ] || kill "$sampler" 2>/dev/null || true
    stop_all_servers
    if [ "$keep" = 1 ]; then
        echo "scratch kept in $scratch" >&2
    else
        rm -rf "$scratch"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

db=$scratch/links.db
"$KVTEST" shortener init "$db" --links 2000 >/dev/null
"$KVTEST" shortener keys "$db" >"$scratch/keys"

args=(--threads "$threads" --sqlite-cache "$sqlite_cache")
if [ "$cache" = valkey ]; then
    start_valkey "$scratch"
    args+=(--cache "$VALKEY_URL")
fi
start_service "$db" "${args[@]}"

# wrk script: a mix of creates and resolves; counts bad answers and keeps
# every id acknowledged with 201 (written out in done()).
cat >"$scratch/soak.lua" <<'LUA'
-- Globals on purpose: setup() sets tag with thread:set, done() reads the
-- counters with thread:get, and both only see globals.
keys, created, ncreated = {}, {}, 0
bad_status, bad_body, counter = 0, 0, 0
ratio, tag = 0.1, "t0"
local threads = {}

function setup(thread)
  thread:set("tag", "t" .. tostring(#threads))
  table.insert(threads, thread)
end

function init(args)
  ratio = tonumber(args[1])
  for line in io.lines(args[2]) do keys[#keys + 1] = line end
  math.randomseed(os.time() + (tonumber(tag:sub(2)) or 0) * 104729)
end

function request()
  counter = counter + 1
  if math.random() < ratio then
    local body = string.format('{"url":"https://soak.example/%s/%d?q=%d"}',
                               tag, counter, math.random(1000000))
    return wrk.format("POST", "/link", {["Content-Type"] = "application/json"}, body)
  end
  local id
  if ncreated > 0 and math.random() < 0.3 then
    id = created[math.random(ncreated)]
  else
    id = keys[math.random(#keys)]
  end
  return wrk.format("GET", "/link/" .. id)
end

function response(status, headers, body)
  if status == 201 then
    local id = body:match('"short_link":"(%w+)"')
    if id then ncreated = ncreated + 1; created[ncreated] = id
    else bad_body = bad_body + 1 end
  elseif status == 200 then
    if not body:find('"link":"https?://') then bad_body = bad_body + 1 end
  else
    bad_status = bad_status + 1
  end
end

function done(summary, latency, requests)
  local out = io.open(os.getenv("SOAK_IDS"), "w")
  local bs, bb, n = 0, 0, 0
  for _, t in ipairs(threads) do
    bs = bs + t:get("bad_status")
    bb = bb + t:get("bad_body")
    local c = t:get("created")
    for i = 1, t:get("ncreated") do out:write(c[i], "\n"); n = n + 1 end
  end
  out:close()
  io.write(string.format("SOAK created=%d bad_status=%d bad_body=%d\n", n, bs, bb))
  for _, p in ipairs({50, 90, 99, 99.9}) do
    io.write(string.format("SOAK p%s_us=%d\n", p, latency:percentile(p)))
  end
  io.write(string.format("SOAK max_us=%d requests=%d\n", latency.max, summary.requests))
end
LUA

# RSS sampler: one line "seconds KiB" every 2 s.
(
    t0=$SECONDS
    while kill -0 "$SERVICE_PID" 2>/dev/null; do
        rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$SERVICE_PID/status" 2>/dev/null) || break
        echo "$((SECONDS - t0)) $rss"
        sleep 2
    done
) >"$scratch/rss" &
sampler=$!

echo "Soak: ${duration}s, $clients clients, create ratio $ratio, cache $cache," \
     "sqlite-cache $sqlite_cache, server threads $threads" >&2
SOAK_IDS=$scratch/created wrk -t2 -c"$clients" -d"${duration}s" --timeout 5s --latency \
    -s "$scratch/soak.lua" "$SERVICE_URL" -- "$ratio" "$scratch/keys" >"$scratch/wrk.out" 2>&1 ||
    { cat "$scratch/wrk.out" >&2; die "wrk failed"; }

kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
sampler=
curl -s --max-time 10 "$SERVICE_URL/stats" >"$scratch/stats.json" || true
stop_service TERM
[ "${SERVICE_STATUS:-1}" -eq 0 ] || echo "service exited with status $SERVICE_STATUS" >&2

field() { sed -n "s/.*SOAK.*$1=\([0-9.]*\).*/\1/p" "$scratch/wrk.out" | head -n1; }
created=$(field created); bad_status=$(field bad_status); bad_body=$(field bad_body)
requests=$(field requests)
sockerr=$(awk '/Socket errors/ {gsub(",",""); print $4 + $6 + $8 + $10}' "$scratch/wrk.out")
sockerr=${sockerr:-0}
rps=$(awk '/^Requests\/sec/ {print $2}' "$scratch/wrk.out")
failed=$((bad_status + bad_body + sockerr))

# Lost links: acknowledged ids missing from the database after shutdown,
# plus a sample of 500 that must resolve over HTTP after a restart.
sort -u "$scratch/created" >"$scratch/created.sorted"
"$KVTEST" shortener keys "$db" | sort -u >"$scratch/stored.sorted"
lost=$(comm -23 "$scratch/created.sorted" "$scratch/stored.sorted" | wc -l)
start_service "$db" --threads 2
sample_bad=0
while read -r id; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$SERVICE_URL/link/$id")
    [ "$code" = 200 ] || sample_bad=$((sample_bad + 1))
done < <(shuf -n 500 "$scratch/created.sorted")
stop_service TERM

echo "Requests:        $requests ($rps req/s), links created (201): $created"
echo "Failed requests: $failed (bad status $bad_status, bad body $bad_body, socket errors/timeouts $sockerr)"
echo "Lost links:      $lost of $created acknowledged; sample resolved after restart: $((500 < created ? 500 : created)) checked, $sample_bad failed"
echo "Latency (us):    p50 $(field p50_us)  p90 $(field p90_us)  p99 $(field p99_us)  p99.9 $(field p99.9_us)  max $(field max_us)"
if [ -s "$scratch/stats.json" ]; then
    echo "Server counters: $(jq -c '{routes, cache: {hits: .cache.hits, misses: .cache.misses, errors: .cache.errors}, sqlite_errors: .sqlite.errors}' "$scratch/stats.json")"
fi
echo "Server RSS (KiB) every 2 s:"
awk '{printf "  %3ds %8d\n", $1, $2}' "$scratch/rss" | awk 'NR % 5 == 1'
awk -v warm=10 '$1 >= warm && !base {base = $2} {last = $2; if ($2 > max) max = $2}
     END {if (base) printf "RSS after warm-up (10 s): %d KiB, at end: %d KiB, max %d KiB, growth %+.1f%%\n",
          base, last, max, (last - base) * 100.0 / base}' "$scratch/rss"

[ "$failed" -eq 0 ] && [ "$lost" -eq 0 ] && [ "$sample_bad" -eq 0 ]

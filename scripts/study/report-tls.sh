#!/usr/bin/env bash
# shellcheck disable=SC2016  # $names inside single quotes are jq variables
# report-tls.sh [--headline|--findings] OUTDIR: the HTTPS and HTTP/2 part
# of REPORT.md, from what scripts/study/http/tlscost.sh wrote into
# OUTDIR/csv (tlscost.json, tlscost.md; the chart charts/tlscost.png) and,
# when there, what scripts/study/http/tls.sh wrote (tls.md: kvtest load
# against wrk and h2load). Prints markdown to stdout; report.sh appends it
# when csv/tlscost.json exists.
#
#   (no flag)   the section "### HTTPS and HTTP/2: what TLS, a new
#               connection and streams cost a GET"
#   --headline  one bullet for the report's Findings
#   --findings  lines for findings.tsv (id, label, estimate, lo, hi, kind:
#               "rate" for ratios of rates, "us" for time added)
#
# Every figure is a median over rounds with its 95% interval
# (build/ratioci): a time added is the median of the per-round
# differences 1e6/rate(way) - 1e6/rate(http kept-alive), a ratio that of
# the per-round ratios; a difference is called only where the interval
# excludes 0 (or 1).
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
kv_part_report "$0" "$@"
J=$C/tlscost.json
[ -s "$J" ] || die "no $J (run scripts/study/http/tlscost.sh --out $C first)"

PROG='
def r($n): . as $x | if $x == null then null else (pow(10; $n)) as $q | ($x * $q | round) / $q end;
def n0: if . == null then "n/a" else (round | tostring
        | if length > 3 then .[:-3] + "," + .[-3:] else . end) end;
def us: if . == null then "n/a" elif (. | fabs) >= 100 then r(0) | tostring
        elif (. | fabs) >= 10 then r(1) | tostring else r(2) | tostring end;
def c($k): .intervals[$k] // null;
def civ($c; f): if $c.covered then "95% CI \($c.lo | f)–\($c.hi | f)"
    else "range \($c.lo | f)–\($c.hi | f) over \($c.n) rounds, too few for a 95% CI" end;
def x: if . == null then "n/a" else r(2) | tostring | . + "x" end;
def usci($k): c($k) as $c | if $c == null then "n/a" else "\($c.est | us) µs (\(civ($c; us)))" end;
def xci($k): c($k) as $c | if $c == null then "n/a" else "\($c.est | x) (\(civ($c; x)))" end;
# NUM against DEN by a ratio of rates: more, fewer, or no difference.
def than($k; $what): c($k) as $c | if $c == null then "no figure"
    elif $c.lo > 1 then "\($c.est | x) the requests/s of \($what) (\(civ($c; x)))"
    elif $c.hi < 1 then "\($c.est | x) the requests/s of \($what), fewer (\(civ($c; x)))"
    else "no difference measurable from \($what) (\($c.est | x), \(civ($c; x)))" end;
'

if [ "$MODE" = findings ]; then
    jq -r '.intervals as $i
        | [["tls-keep", "https / http kept-alive GET, no cache: time added a request (us)", "us/none/https-keep", "us"],
           ["tls-new-full", "https, a new connection per GET with a full handshake, beyond http kept-alive (us)", "us/none/https-full", "us"],
           ["tls-h2", "h2 streams / https over as many connections, the same requests in flight, no cache (rate)", "x/none/h2/https-keep", "rate"],
           ["tls-pipe", "HTTP/1.1 pipelining / https over as many connections, no cache (rate)", "x/none/https-pipe/https-keep", "rate"]][]
        | . as [$id, $lab, $k, $kind] | $i[$k] // empty
        | [$id, $lab, .est, .lo, .hi, $kind] | map(tostring) | join("\t")' "$J"
    exit 0
fi
if [ "$MODE" = headline ]; then
    jq -r "$PROG"'
        "- **HTTPS and HTTP/2** (`scripts/study/http/tlscost.sh`, \(.rounds) rounds alternating, \(.connections) requests in flight, no cache): TLS adds \(usci("us/none/https-keep")) to a GET on a kept-alive connection; a new connection per request adds \(usci("us/none/http-new")) over http, \(usci("us/none/https-new")) over https with a resumed session and \(usci("us/none/https-full")) with a full handshake. HTTP/2 with \(.streams) streams on \(.connections / .streams) connections gives \(than("x/none/h2/https-keep"; "HTTP/1.1 over \(.connections) connections")); HTTP/1.1 pipelining as deep gives \(than("x/none/https-pipe/https-keep"; "them"))."' "$J"
    exit 0
fi

jq -r "$PROG"'
    "",
    "### HTTPS and HTTP/2: what TLS, a new connection and streams cost a GET",
    "",
    "`scripts/study/http/tlscost.sh`\(if .date_utc then ", run on its own on \(.date_utc[:10]) at commit \(.commit)" else "" end): four `kvtest shortener serve` processes on one database of \(.links) links (a copy each), `--cache none` and `--cache valkey://` (one valkey-server, walked once over every link first), each plain and with `--tls-cert` (a scratch CA and an ECDSA P-256 certificate made by `openssl`). `kvtest shortener load` GETs links picked uniformly, \(.workers) client threads, \(.duration_s) s a cell, seven cells per cache in ABBA order for \(.rounds) rounds: http and https over \(.connections) kept-alive connections; a new connection per request (`--reconnect`) over http, over https resuming the session, and over https with a full handshake each (`--no-resume`); and the same \(.connections) requests in flight as HTTP/1.1 pipelining (\(.connections / .streams) connections x `--pipeline \(.streams)`) and as HTTP/2 (\(.connections / .streams) connections x `--http2 --streams \(.streams)`). With `--reconnect` a request is timed from its connect, so its latency holds the handshake. \"µs a request beyond http kept-alive\" is the median over rounds of 1e6/rate(cell) - 1e6/rate(http kept-alive) in the same round: time of the two cores, client and server together, since both share them.",
    "",
    "- **TLS on a kept-alive connection** adds \(usci("us/none/https-keep")) to a GET without a cache, \(usci("us/valkey/https-keep")) with Valkey.",
    "- **A new connection per request** adds \(usci("us/none/http-new")) over http (TCP connect and close), \(usci("us/none/https-new")) over https with a resumed session, \(usci("us/none/https-full")) with a full handshake (no cache).",
    "- **The same \(.connections) requests in flight**: HTTP/2 on \(.connections / .streams) connections gives \(than("x/none/h2/https-keep"; "HTTP/1.1 over \(.connections) connections")) without a cache, \(than("x/valkey/h2/https-keep"; "them")) with Valkey; HTTP/1.1 pipelining gives \(than("x/none/https-pipe/https-keep"; "\(.connections) connections")) without a cache.",
    "- **Valkey against no cache**, over https kept alive: \(than("x/valkey/none/https-keep"; "no cache")); over h2: \(than("x/valkey/none/h2"; "no cache"))."' "$J"
if [ -s "$OUT/charts/tlscost.png" ]; then
    printf '\n![The service'"'"'s GET over TLS and HTTP/2](charts/tlscost.png)\n'
fi
echo
cat "$C/tlscost.md"
if [ -s "$C/tls.md" ]; then
    printf '\n%s\n\n' "The load generator against the usual ones (\`scripts/study/http/tls.sh\`): \`kvtest shortener load\` beside wrk over https and beside h2load over h2 (the same connections and streams), each against the service (\`--cache none\`) and against nginx returning a fixed body over TLS, twelve cells alternating by round. \"load / anchor\" is the median of the per-round ratios of requests/s with its 95% interval."
    cat "$C/tls.md"
fi
jq -r '
    "",
    "<details><summary>Commands</summary>",
    "",
    "```sh",
    "# OUT: this directory",
    "bash scripts/study/http/tlscost.sh --rounds \(.rounds) --duration \(.duration_s) --connections \(.connections) --streams \(.streams) --links \(.links) --workers \(.workers) --out $OUT/csv"' "$J"
if [ -s "$C/tls.md" ]; then
    # its settings, from its table's first cell: "R rounds, D s each, C connections, W threads, ..."
    head -n1 "$C/tls.md" | sed -nE 's/^\| ([0-9]+) rounds, ([0-9]+) s each, ([0-9]+) connections, ([0-9]+) threads,.*\(h2: ([0-9]+) streams.*/bash scripts\/study\/http\/tls.sh --rounds \1 --duration \2 --connections \3 --workers \4 --streams \5 --out $OUT\/csv/p'
fi
grep -F "charts/tlscost.png'" "$OUT/charts/commands.txt" 2>/dev/null | head -n1 || true
printf '%s\n' '```' "" "</details>"

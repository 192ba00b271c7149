#!/usr/bin/env bash
# shellcheck disable=SC2016  # $names inside single quotes are jq variables
# report-storetier.sh [--headline|--findings] OUTDIR: the store-tier part of
# REPORT.md, from the tables scripts/study/storetier.sh wrote into OUTDIR
# (csv/storetier-summary.csv, csv/storetier-ci.json, raw/storetier-params.tsv,
# logs/storetier-settings.txt). Prints markdown to stdout; report.sh appends
# it to its report when csv/storetier-summary.csv exists (and adds the
# commands block from commands.tsv).
#
#   (no flag)   the section "### The store tier: SQLite in-process vs
#               PostgreSQL across the network": settings, in-process,
#               references, HTTP, creates, replicas, break-even, and one
#               statement per store and key distribution on whether each
#               cache mode pays off, all generated from the numbers
#   --headline  one bullet for the report's Findings
#   --findings  lines for findings.tsv (id, label, estimate, lo, hi, kind
#               "rate": ratios of rates, above 1 the first is faster)
#
# A ratio is the median of the per-round ratios of two configurations
# measured in the same round, with its 95% interval (build/ratioci); a
# cache "pays off" where that interval lies above 1, "costs" where it lies
# below 1; otherwise there is no difference measurable here.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
kv_part_report "$0" "$@"
SUM=$C/storetier-summary.csv
[ -s "$SUM" ] || die "no $SUM (run scripts/study/storetier.sh first)"
PARAMS=$OUT/raw/storetier-params.tsv
SETTINGS=$OUT/logs/storetier-settings.txt

# The summary as JSON objects (numbers where the field is one), the
# intervals, the parameters and the PostgreSQL settings, for one jq program.
ci=$(cat "$C/storetier-ci.json" 2>/dev/null || true)
rows=$(jq -Rn '[inputs | split(",")] | .[0] as $h | [.[1:][] | [$h, .] | transpose
    | map({key: .[0], value: (.[1] as $v | if $v == "" then null else ($v | tonumber? // $v) end)}) | from_entries]' <"$SUM")
params=$(jq -Rn '[inputs | split("\t") | {key: .[0], value: .[1]}] | from_entries' <"$PARAMS" 2>/dev/null || echo '{}')
settings=$(jq -Rn '[inputs | capture("^(?<key>[^:]+): (?<value>.*)$")] | from_entries' <"$SETTINGS" 2>/dev/null || echo '{}')

jq -rn --argjson rows "$rows" --argjson ci "${ci:-"{}"}" --argjson p "$params" \
    --argjson s "$settings" --arg mode "$MODE" '
def r($n): . as $x | if $x == null then null else (pow(10; $n)) as $q | ($x * $q | round) / $q end;
def n0: if . == null then "n/a" else (round | tostring
        | if length > 3 then .[:-3] + "," + .[-3:] else . end
        | if length > 7 then .[:-7] + "," + .[-7:] else . end) end;
def us: if . == null then "n/a" elif . >= 100 then n0 elif . >= 10 then r(1) | tostring else r(2) | tostring end;
def x: if . == null then "n/a" else r(2) | tostring | . + "x" end;
def pct: if . == null then "–" else . * 100 | r(1) | tostring | . + "%" end;
def ci($k): ($ci[$k] // null);
def civ($c): if $c.covered then "95% CI \($c.lo | x)–\($c.hi | x)"
    else "range \($c.lo | x)–\($c.hi | x) over \($c.n) rounds, too few for a 95% CI" end;
def ratio($k): ci($k) as $c | if $c == null then "n/a" else "\($c.est | x) (\(civ($c)))" end;
def ratio_in($k): ci($k) as $c | if $c == null then "no figure" else "\($c.est | x), \(civ($c))" end;
# The verdict on a cache: its rate over the same store without it.
def verdict($k): ci($k) as $c | if $c == null then "–" elif $c.lo > 1 then "pays off"
    elif $c.hi < 1 then "costs" else "no difference measurable here" end;
def says($k): ci($k) as $c | if $c == null then "there is no figure" elif $c.lo > 1 then "it pays off"
    elif $c.hi < 1 then "it costs" else "no difference is measurable here" end;
# Two things compared by rate: NUM more, fewer or no difference.
def than($k; $num; $den): ci($k) as $c
    | if $c == null then "n/a"
      elif $c.lo > 1 then "\($num) \($c.est | x) the rate of \($den) (\(civ($c)))"
      elif $c.hi < 1 then "\($num) \($c.est | x) the rate of \($den), \(1 / $c.est | x) slower (\(civ($c)))"
      else "no difference measurable here (\($c.est | x), \(civ($c)))" end;
def row($part; $store; $dist; $config): ($rows | map(select(.part == $part and .store == $store
    and .dist == $dist and (.config | tostring) == ($config | tostring)))[0] // null);
def sname: if . == "sqlite" then "SQLite" elif . == "postgres" then "PostgreSQL" else . end;
def cname: if . == "none" then "no cache" elif . == "valkey" then "Valkey cache-aside" elif . == "valkey-track" then "valkey+track" else . end;
def stores: ["sqlite", "postgres"];
def dists: ["uniform", "zipf"];
def dname: if . == "zipf" then "Zipf \($p.zipf // "?")" else . end;
def dur: ($p.duration // "?") | if test("^[0-9]+$") then "\(.) s" elif test("^[0-9]+s$") then "\(.[:-1]) s" else sub("ms$"; " ms") end;
def nrounds: ([$rows[] | .rounds] | max);

# The statement per store and key distribution: does each cache mode pay off?
def payoff($st; $d): [("valkey", "valkey-track") as $c
    | "\($c | cname): in-process \(says("bench/\($st)/\($d)/\($c)/none")) (\(ratio_in("bench/\($st)/\($d)/\($c)/none"))), over HTTP \(says("http/\($st)/\($d)/\($c)/none")) (\(ratio_in("http/\($st)/\($d)/\($c)/none")))"]
    | join("; ");
def breakeven($st; $d): row("bench"; $st; $d; "none") as $n | row("bench"; $st; $d; "valkey") as $v
    | row("bench"; $st; $d; "valkey-track") as $t
    | if $n == null or $v == null then empty else
      "\($st | sname), \($d | dname) keys: a lookup in the store costs \($n.p50_us | us) µs (p50), a Valkey cache hit \($v.p50_us | us) µs: cache-aside \(if $n.p50_us > $v.p50_us then "can pay off (the store costs more than a hit)" else "cannot pay off (the store costs less than a hit)" end); a valkey+track lookup answered from process memory \($t.p50_us // null | us) µs." end;

if $mode == "findings" then
  ([stores[] as $st | dists[] as $d | ("valkey", "valkey-track") as $c
    | (if $c == "valkey" then "valkey" else "track" end) as $cid
    | (["store-\($st)-\($cid)-http-\($d)", "HTTP GET/s, \($st), \($d) keys, \($c) / no cache (rate)", "http/\($st)/\($d)/\($c)/none"],
       ["store-\($st)-\($cid)-inproc-\($d)", "in-process lookups, \($st), \($d) keys, \($c) / no cache (rate)", "bench/\($st)/\($d)/\($c)/none"])],
   [dists[] as $d | ["store-postgres-sqlite-http-\($d)", "HTTP GET/s without a cache, \($d) keys, postgres / sqlite (rate)", "http/postgres/sqlite/\($d)/none"],
                    ["store-postgres-sqlite-inproc-\($d)", "in-process lookups without a cache, \($d) keys, postgres / sqlite (rate)", "bench/postgres/sqlite/\($d)/none"]],
   [["store-postgres-pgbench", "in-process postgres lookups, kvtest / pgbench (rate)", "bench/postgres/pgbench"],
    ["store-creates-postgres-sqlite", "HTTP creates/s, postgres / sqlite (rate)", "post/postgres/sqlite"],
    ["store-replicas-1", "HTTP GET/s on postgres, 1 replica / primary alone (rate)", "replicas/1/0"],
    ["store-replicas-2", "HTTP GET/s on postgres, 2 replicas / primary alone (rate)", "replicas/2/0"]])
  | .[] | . as [$id, $lab, $k] | ci($k) as $c | select($c)
  | [$id, $lab, $c.est, $c.lo, $c.hi, "rate"] | map(tostring) | join("\t")
elif $mode == "headline" then
  "- **The store tier** (`scripts/study/storetier.sh`, \(nrounds) rounds): without a cache, over HTTP, PostgreSQL across loopback against SQLite in the process: "
  + ([dists[] as $d | "\($d | dname) keys \(than("http/postgres/sqlite/\($d)/none"; "PostgreSQL"; "SQLite"))"] | join("; "))
  + ". Does a cache pay off over HTTP (GET/s over the same store'"'"'s without it)? "
  + ([stores[] as $st | dists[] as $d
      | "\($st | sname), \($d | dname) keys: valkey \(ci("http/\($st)/\($d)/valkey/none").est // null | x), \(verdict("http/\($st)/\($d)/valkey/none")); valkey+track \(ci("http/\($st)/\($d)/valkey-track/none").est // null | x), \(verdict("http/\($st)/\($d)/valkey-track/none"))"] | join(". "))
  + ". Creates: PostgreSQL \(ci("post/postgres/sqlite").est // null | x) the rate of SQLite (each PostgreSQL commit waits for its WAL flush)."
else
  "", "### The store tier: SQLite in-process vs PostgreSQL across the network", "",
  "The same \($p.links // "?") links (`kvtest shortener init --seed 1`) in SQLite, a file the service opens itself (WAL, `synchronous=NORMAL`), and in PostgreSQL (`kvtest shortener init postgres://... --from links.db`: the same ids and URLs), a private server on this machine reached over loopback TCP, with two streaming replicas; in front of each, no cache, Valkey cache-aside (`valkey://`) or client-side caching (`valkey+track://`: links kept in the process, dropped on Valkey'"'"'s invalidations), with uniform keys and with Zipf \($p.zipf // "?") keys (a few links get most lookups). `scripts/study/storetier.sh`: \(nrounds) rounds, the configurations of every part in an order rotated per round. Each ratio is the median of the per-round ratios of two configurations measured in the same round, with its 95% interval; a cache **pays off** where the interval lies above 1, **costs** where it lies below 1, and otherwise there is no difference measurable here.",
  "",
  "PostgreSQL \($s.server_version // "?") with its default settings (`logs/storetier-settings.txt`): shared_buffers \($s.shared_buffers // "?"), synchronous_commit \($s.synchronous_commit // "?"), fsync \($s.fsync // "?"), max_connections \($s.max_connections // "?"); replicas: \($s.replicas // "?"). Data on \($s["filesystem of the PostgreSQL data"] // "?"), the SQLite files on \($s["filesystem of the SQLite databases"] // "?").",
  "",
  "**In-process lookups** (`kvtest shortener bench`, one thread, \($p.lookups // "?") lookups per configuration after a warm-up run that also fills the caches, Valkey flushed before each bench; \"vs no cache\": lookups/s over those of the same store without a cache in the same run):",
  "",
  "| store | keys | configuration | lookups/s (median) | p50 µs | mean µs | hit ratio | vs no cache (95% CI) | verdict |",
  "|---|---|---|---:|---:|---:|---:|---:|---|",
  (stores[] as $st | dists[] as $d | ("none", "valkey", "valkey-track") as $c | row("bench"; $st; $d; $c) | select(.)
   | "| \($st) | \($d) | \($c | cname) | \(.per_s | n0) | \(.p50_us | us) | \(.mean_us | us) | \(.hit_ratio | pct) | \(if $c == "none" then "–" else ratio("bench/\($st)/\($d)/\($c)/none") end) | \(if $c == "none" then "–" else verdict("bench/\($st)/\($d)/\($c)/none") end) |"),
  "",
  "Without a cache, in-process, PostgreSQL against SQLite: " + ([dists[] as $d | "\($d | dname) keys \(than("bench/postgres/sqlite/\($d)/none"; "PostgreSQL"; "SQLite"))"] | join("; ")) + ".",
  "",
  (row("ref"; "postgres"; "uniform"; "pgbench") as $pg | row("ref"; "valkey"; "uniform"; "valkey-benchmark") as $vb
   | row("bench"; "postgres"; "uniform"; "none") as $kp
   | "**References** (one connection, one request at a time, every round; µs per request = 1e6 / rate): `pgbench -n -M prepared -c 1 -T \($p.pgbench_s // "?")` with the script `\\set k random(1, \($p.pgbench_max_id // "N"))` / `SELECT link_target FROM links WHERE id = :k;` against the primary: \($pg.per_s | n0) queries/s (\($pg.mean_us | us) µs); kvtest'"'"'s in-process PostgreSQL lookups (uniform keys) \($kp.per_s | n0)/s (p50 \($kp.p50_us | us) µs, mean \($kp.mean_us | us) µs): kvtest / pgbench \(ratio("bench/postgres/pgbench")). pgbench looks links up by the integer primary key (it cannot draw random text ids) while kvtest looks them up by `link_hash` text: both are one index descent of the same table and one round trip. `valkey-benchmark -c 1 -n 20000 -t get`: \($vb.per_s | n0) GET/s (\($vb.mean_us | us) µs per round trip) against the same Valkey; a cache hit in the Valkey cache-aside rows above took \([$rows[] | select(.part == "bench" and .config == "valkey") | .p50_us] | "\(min | us)–\(max | us)") µs (p50)."),
  "",
  "**HTTP GETs** (a fresh `kvtest shortener serve` per run, its default 8 threads, Valkey flushed; \($p.threads // "?") connections of `kvtest shortener load` GETting existing ids for \(dur). Before a run with Valkey every id was GET once (`load --walk 1`: each link in Valkey), with valkey+track twice (`--walk 2`: the second fills the process'"'"'s map), so a cache is measured full; without a cache there is no walk: the store'"'"'s own caches outlive the service and were warmed at setup. \"vs no cache\": GET/s over the same store'"'"'s without a cache in the same round):",
  "",
  "| store | keys | cache | GET/s (median) | p50 µs | p99 µs | failed | vs no cache (95% CI) | verdict |",
  "|---|---|---|---:|---:|---:|---:|---:|---|",
  (stores[] as $st | dists[] as $d | ("none", "valkey", "valkey-track") as $c | row("http"; $st; $d; $c) | select(.)
   | "| \($st) | \($d) | \($c | cname) | \(.per_s | n0) | \(.p50_us | us) | \(.p99_us | us) | \(.failed // 0 | n0) | \(if $c == "none" then "–" else ratio("http/\($st)/\($d)/\($c)/none") end) | \(if $c == "none" then "–" else verdict("http/\($st)/\($d)/\($c)/none") end) |"),
  "",
  "PostgreSQL against SQLite over HTTP: " + ([dists[] as $d | ("none", "valkey", "valkey-track") as $c
      | "\($d | dname) keys, \($c | cname): \(than("http/postgres/sqlite/\($d)/\($c)"; "PostgreSQL"; "SQLite"))"] | join("; ")) + ".",
  "",
  "**Creates** (POSTs only, `load --create-ratio 1`, \($p.threads // "?") connections for \(dur), no cache; each run on a fresh copy of the links, the replicas stopped):",
  "",
  "| store | creates/s (median) | p50 µs | p99 µs | failed |",
  "|---|---:|---:|---:|---:|",
  (stores[] as $st | row("post"; $st; "-"; "none") | select(.)
   | "| \($st) | \(.per_s | n0) | \(.p50_us | us) | \(.p99_us | us) | \(.failed // 0 | n0) |"),
  "",
  "PostgreSQL against SQLite: \(than("post/postgres/sqlite"; "PostgreSQL"; "SQLite")). This is the durability each store gives a 201 by default, not the same work: PostgreSQL commits with synchronous_commit \($s.synchronous_commit // "?"), so every create waits for its WAL record to be flushed to storage (fsync; concurrent commits share a flush), while SQLite in WAL mode with `synchronous=NORMAL` does not sync at each commit (the WAL is synced at checkpoints: a create survives a crash of the service, but the last ones may be lost if the machine loses power).",
  "",
  "**Read replicas** (PostgreSQL, no cache, uniform keys as above; the service sends lookups round-robin to the replicas named by `--replicas`, creates to the primary):",
  "",
  "| replicas | GET/s (median) | p50 µs | p99 µs | lookups on replicas | on the primary | vs primary alone (95% CI) |",
  "|---:|---:|---:|---:|---:|---:|---:|",
  ((0, 1, 2) as $n | row("replicas"; "postgres"; "uniform"; $n) | select(.)
   | "| \($n) | \(.per_s | n0) | \(.p50_us | us) | \(.p99_us | us) | \(.replica_reads | n0) | \(.primary_reads | n0) | \(if $n == 0 then "–" else than("replicas/\($n)/0"; "\($n) replica\(if $n > 1 then "s" else "" end)"; "the primary alone") end) |"),
  "",
  "All three servers, the service and the load generator share this machine'"'"'s \($p.cpus // "") cores: a replica adds no hardware here, so this measures what routing lookups to replicas costs or saves (another server process, its own buffers), not how far replicas scale reads across machines.",
  "",
  "**Break-even** (in-process medians above: cache-aside can only pay off when a lookup in the store costs more than a cache hit): " + ([stores[] as $st | dists[] as $d | breakeven($st; $d)] | join(" ")),
  "",
  "**Does a cache pay off?**",
  "",
  (stores[] as $st | dists[] as $d
   | row("http"; $st; $d; "none") as $h
   | "- \($st | sname), \($d | dname) keys (no cache: \(row("bench"; $st; $d; "none").per_s | n0) lookups/s in-process, \($h.per_s | n0) GET/s over HTTP): \(payoff($st; $d))."),
  ""
end'

#!/usr/bin/env bash
# shellcheck disable=SC2016  # $names inside single quotes are jq variables
# report-capacity.sh [--headline|--findings] OUTDIR: the capacity part of
# REPORT.md, from what scripts/study/capacity.sh wrote into OUTDIR
# (raw/capacity.jsonl or .jsonl.gz, raw/capacity-params.tsv, its lines of
# logs/timings.tsv), with the closed-loop rate of each configuration: the
# closed-loop run capacity.sh made on the same service right after the
# search, and the study's closed-loop runs of the same configuration where
# OUTDIR has them: shortener.sh's (raw/shortener.jsonl, else
# csv/shortener-http.csv for uniform keys) for the SQLite configurations,
# storetier.sh's (csv/storetier-summary.csv) for PostgreSQL's. Writes
# csv/capacity.csv, one row per search:
#   config,experiment,keys,store,round,bound_us,unloaded_p99_us,outcome,
#   capacity_per_s,lo_per_s,hi_per_s,last_pass_per_s,first_fail_per_s,
#   steps,seconds,wall_s,closed_loop_per_s,closed_loop_p99_us,
#   closed_loop_from,capacity_over_closed_loop,study_closed_loop_per_s,
#   study_closed_loop_rounds,study_closed_loop_links
# (experiment: the study's closed-loop experiment of the configuration,
# http, http-zipf or storetier-http; hi_per_s empty when the interval is
# open above; seconds: the search's steps, wall_s: the whole load command;
# closed_loop_*: capacity.sh's own run (closed_loop_from "capacity.sh"),
# else the study's ("shortener.sh", "storetier.sh"); study_*: the study's
# median over its rounds), csv/capacity-steps.csv
# (every step of each search, for plot.sh's chart; below), and prints markdown to stdout:
#
#   (no flag)   the section "### Capacity at \(pctn) <= X": how X was chosen,
#               one row per configuration (its first search) with the rate,
#               its interval, the closed-loop requests/s and the ratio, how
#               long the searches took, and the second searches
#   --headline  one bullet for the report's Findings
#   --findings  lines for findings.tsv (id, label, estimate, lo, hi, kind
#               "per_s": requests/s; lo and hi the search's interval, not a
#               95% CI; "inf" where it is open above)
#
# Everything comes from the files in OUTDIR: the same data gives the same
# text.
set -euo pipefail
# shellcheck source=scripts/study/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
kv_part_report "$0" "$@"
RAWF=$OUT/raw/capacity.jsonl
[ -s "$RAWF" ] || RAWF=$RAWF.gz
[ -s "$RAWF" ] || die "no $OUT/raw/capacity.jsonl (run scripts/study/capacity.sh first)"
tsv_obj() { # tsv_obj FILE: a two-column TSV as one JSON object ({} if absent)
    if [ -s "$1" ]; then jq -Rn '[inputs | split("\t") | select(length >= 2) | {key: .[0], value: .[1]}] | from_entries' <"$1"
    else echo '{}'; fi
}

# The searches and unloaded runs, in the order they ran.
runs=$(gzip -cdf "$RAWF" | jq -cR 'fromjson? | objects | select(.bench.experiment == "capacity"
        and (.bench.phase == "search" or .bench.phase == "unloaded" or .bench.phase == "closed"))
    | {phase: .bench.phase, keys: .bench.keys, config: .bench.config, store: .bench.store,
       round: .bench.round, wall_s: .bench.wall_s}
      + if .bench.phase == "search" then
          {bound_us: .options.slo[0].bound_us, pct: .options.slo[0].percentile, rate_start: .options.rate_start,
           step_s: .options.step_min_seconds, cap: .result.capacity,
           repeats: ([.result.steps[] | select(.repeat > 1)] | length),
           stalls: ([.result.steps[] | select(.stall == true)] | length)}
        else {p50_us: .result.by_type.get.latency.p50, p99_us: .result.by_type.get.latency.p99,
              per_s: .result.by_type.get.requests_per_s, rate: .options.rate, secs: .result.seconds} end' | jq -s .)
params=$(tsv_obj "$OUT/raw/capacity-params.tsv")
# The part's durations: its lines in logs/timings.tsv, else the copies
# capacity.sh keeps in raw/capacity-params.tsv (time_setup, ...).
timings=$(jq -cn --argjson l "$(tsv_obj "$OUT/logs/timings.tsv")" --argjson p "$params" \
    '["setup", "unloaded", "search", "total"] | map({key: "capacity-\(.)", value: ($l["capacity-\(.)"] // $p["time_\(.)"])})
     | from_entries')

# The closed-loop figures: {experiment/config: {per_s, p99_us, rounds, links}}.
SH=$OUT/raw/shortener.jsonl
[ -s "$SH" ] || SH=$SH.gz
shlinks=$(awk -F'\t' '$1 == "links" { print $2; exit }' "$OUT/raw/shortener-params.tsv" 2>/dev/null || true)
stlinks=$(awk -F'\t' '$1 == "links" { print $2; exit }' "$OUT/raw/storetier-params.tsv" 2>/dev/null || true)
closed=$(
    {
        if [ -s "$SH" ]; then
            gzip -cdf "$SH" | jq -cR 'fromjson? | objects
                | select((.bench.experiment == "http" or .bench.experiment == "http-zipf") and (.bench.warmup | not))
                | {k: "\(.bench.experiment)/\(.bench.config)", v: .result.by_type.get.requests_per_s,
                   p99: .result.by_type.get.latency.p99}' |
                jq -sc --arg l "$shlinks" "$KV_JQ_DEFS"'group_by(.k)[]
                    | {k: .[0].k, per_s: (map(.v) | median), p99_us: (map(.p99) | median),
                       rounds: length, links: $l}'
        elif [ -s "$OUT/csv/shortener-http.csv" ]; then
            jq -Rnc --arg l "$shlinks" '[inputs | split(",")] | .[0] as $h | .[1:][] | [$h, .] | transpose
                | map({key: .[0], value: .[1]}) | from_entries
                | {k: "http/\(.config)", per_s: (.rps | tonumber), p99_us: ((.p99_ms | tonumber?) // null | if . then . * 1000 else . end),
                   rounds: null, links: $l}' <"$OUT/csv/shortener-http.csv"
        fi
        if [ -s "$OUT/csv/storetier-summary.csv" ]; then
            jq -Rnc --arg l "$stlinks" '[inputs | split(",")] | .[0] as $h | .[1:][] | [$h, .] | transpose
                | map({key: .[0], value: .[1]}) | from_entries
                | select(.part == "http" and .store == "postgres" and .dist == "uniform"
                         and (.config == "none" or .config == "valkey"))
                | {k: "storetier-http/\(if .config == "none" then "postgres" else "postgres+valkey" end)",
                   per_s: (.per_s | tonumber), p99_us: (.p99_us | tonumber?), rounds: (.rounds | tonumber?), links: $l}' \
                <"$OUT/csv/storetier-summary.csv"
        fi
    } | jq -sc 'map({key: .k, value: del(.k)}) | from_entries')

# One object per search with everything the CSV and the text need.
rows=$(jq -cn --argjson runs "$runs" --argjson closed "$closed" '
    def exp: if .store == "postgres" then "storetier-http" elif .keys == "zipf" then "http-zipf" else "http" end;
    [$runs[] | select(.phase == "unloaded")] as $u
    | [$runs[] | select(.phase == "closed")] as $own
    | [$runs[] | select(.phase == "search") | exp as $e
       | . as $s
       | ([$u[] | select(.keys == $s.keys and .config == $s.config)][0] // {}) as $un
       | ([$own[] | select(.keys == $s.keys and .config == $s.config and .round == $s.round)][0] // null) as $o
       | ($closed["\($e)/\(.config)"] // null) as $st
       | (if $o then {per_s: $o.per_s, p99_us: $o.p99_us, from: "capacity.sh"}
          elif $st then {per_s: $st.per_s, p99_us: $st.p99_us,
                         from: (if $e == "storetier-http" then "storetier.sh" else "shortener.sh" end)}
          else null end) as $cl
       | {config, experiment: $e, keys, store, round, pct, bound_us, unloaded_p99_us: $un.p99_us,
          outcome: .cap.outcome, capacity_per_s: .cap.rate_per_s, lo_per_s: .cap.lo_per_s,
          hi_per_s: .cap.hi_per_s, last_pass_per_s: .cap.last_pass_per_s,
          first_fail_per_s: .cap.first_fail_per_s, steps: .cap.steps, seconds: .cap.seconds, wall_s,
          repeats, stalls, rate_start, step_s, closed_wall_s: ($o.wall_s // null),
          closed_loop_per_s: ($cl.per_s // null), closed_loop_p99_us: ($cl.p99_us // null),
          closed_loop_from: ($cl.from // null),
          capacity_over_closed_loop: (if $cl.per_s and .cap.outcome == "found" then .cap.rate_per_s / $cl.per_s else null end),
          study_closed_loop_per_s: ($st.per_s // null), study_closed_loop_rounds: ($st.rounds // null),
          study_closed_loop_links: ($st.links // null)}]')

# csv/capacity.csv, built aside and renamed into place.
tmp=$(mktemp "$C/.capacity.csv.XXXXXX")
jq -r "$KV_JQ_DEFS"'def c: if . == null then "" elif type == "number" then (if . == (. | floor) then tostring else (r3 | tostring) end) else tostring end;
    ["config", "experiment", "keys", "store", "round", "bound_us", "unloaded_p99_us", "outcome",
     "capacity_per_s", "lo_per_s", "hi_per_s", "last_pass_per_s", "first_fail_per_s", "steps",
     "seconds", "wall_s", "closed_loop_per_s", "closed_loop_p99_us", "closed_loop_from",
     "capacity_over_closed_loop", "study_closed_loop_per_s", "study_closed_loop_rounds",
     "study_closed_loop_links"] as $h
    | ($h | join(",")), (.[] | . as $r | [$h[] | $r[.] | c] | join(","))' <<<"$rows" >"$tmp"
mv "$tmp" "$C/capacity.csv"

# csv/capacity-steps.csv, for the chart (plot/capacity.gp): one row per
# step of each search, its steps ordered by target rate (the line from
# rate to rate; step is the order they ran in), with the search's answer
# and bound beside: keys,config,round,search,step,target_per_s,
# achieved_per_s,p99_us,pass,bound_us,outcome,capacity_per_s (search:
# the configuration, CONFIG:roundN after the first round; pass 1 or 0).
tmp=$(mktemp "$C/.capacity-steps.csv.XXXXXX")
gzip -cdf "$RAWF" | jq -rR 'fromjson? | objects | select(.bench.experiment == "capacity" and .bench.phase == "search")
    | .bench as $b | .options.slo[0].bound_us as $bound | .result.capacity as $cap
    | [.result.steps | to_entries[] | .value + {step: (.key + 1)}] | sort_by(.target_per_s, .step)[]
    | [$b.keys, $b.config, $b.round, (if $b.round > 1 then "\($b.config):round\($b.round)" else $b.config end),
       .step, .target_per_s, .achieved_per_s, .judged_us.p99 // .p99_us, (if .pass then 1 else 0 end),
       $bound, $cap.outcome, (if $cap.outcome == "found" then $cap.rate_per_s else null end)]
    | map(if . == null then "" else tostring end) | join(",")' |
    { echo "keys,config,round,search,step,target_per_s,achieved_per_s,p99_us,pass,bound_us,outcome,capacity_per_s"; cat; } >"$tmp"
mv "$tmp" "$C/capacity-steps.csv"

jq -rn --argjson rows "$rows" --argjson p "$params" --argjson t "$timings" --argjson runs "$runs" \
    --arg mode "$MODE" '
def r($n): . as $x | if $x == null then null else (pow(10; $n)) as $q | ($x * $q | round) / $q end;
def n0: if . == null then "n/a" else (round | tostring
        | if length > 3 then .[:-3] + "," + .[-3:] else . end
        | if length > 7 then .[:-7] + "," + .[-7:] else . end) end;
# 0.9 -> "0.90x": two decimals always
def x: if . == null then "–" else (. * 100 | round) as $c
    | "\($c / 100 | floor).\($c % 100 | tostring | if length < 2 then "0" + . else . end)x" end;
def s1: if . == null then "?" else tonumber | r(1) | tostring end;
def median: sort | if length == 0 then null elif length % 2 == 1 then .[(length - 1) / 2]
    else (.[length / 2 - 1] + .[length / 2]) / 2 end;
# 10000 -> "10 ms", 1500 -> "1.5 ms", 500 -> "500 µs"
def dur: if . == null then "?" elif . >= 1e6 then "\(. / 1e6 | r(3)) s" elif . >= 1000 then "\(. / 1000 | r(3)) ms"
    else "\(. | r(1)) µs" end;
def kname: if . == "zipf" then "Zipf \($p.zipf // "?")" else . end;
# The answer; rate($u): with the unit $u after the number.
def rate($u): if .outcome == "found" then "\(.capacity_per_s | n0)\($u)"
    elif .outcome == "at_rate_max" then "≥ \(.lo_per_s | n0)\($u)"
    elif .outcome == "below_first_step" then "< \(.hi_per_s | n0)\($u)"
    elif .outcome == "generator_limit" then "≥ \(.lo_per_s | n0)\($u) (the load generator'"'"'s limit)"
    else "no answer (\(.outcome))" end;
def rate: rate("");
# p99 -> p99, p999 -> p99.9
def pname: if . == null then "p99" elif test("^p9{3,}$") then "p99." + .[3:] else . end;
def pctn: ($rows[0].pct | pname);
def secs: if . == null then "?" else tostring | if test("^[0-9]+$") then "\(.) s" elif test("^[0-9]+s$") then "\(.[:-1]) s" else sub("ms$"; " ms") end end;
def interval: if .outcome == "found" or .outcome == "at_rate_max" or .outcome == "generator_limit"
    then "\(.lo_per_s | n0)–\(if .hi_per_s == null then "open" else (.hi_per_s | n0) end)" else "–" end;
def first_rows: [$rows[] | select(.round == 1)];
def again_rows: [$rows[] | select(.round > 1)];
def bound: ([$rows[].bound_us] | max);
def range($v): ($v | map(select(. != null))) as $w
    | if ($w | length) == 0 then "?" else "\($w | min | s1)–\($w | max | s1) (median \($w | median | s1))" end;
def irange($v): ($v | map(select(. != null))) as $w
    | if ($w | length) == 0 then "?" else "\($w | min)–\($w | max) (median \($w | median))" end;
# The column of the study: where it is not the closed-loop column itself.
def has_study: any(first_rows[]; .study_closed_loop_per_s != null and .closed_loop_from == "capacity.sh");
def own: [first_rows[] | select(.closed_loop_from == "capacity.sh")];
# Where the closed-loop runs of the study came from.
def study_from: [first_rows[] | select(.study_closed_loop_per_s != null)] | group_by(.experiment == "storetier-http")
    | map(.[0] | if .experiment == "storetier-http"
        then "PostgreSQL from storetier.sh (\(.study_closed_loop_links // "?") links, median of \(.study_closed_loop_rounds // "?") rounds)"
        else "SQLite from shortener.sh (\(.study_closed_loop_links // "?") links\(if .study_closed_loop_rounds then ", median of \(.study_closed_loop_rounds) rounds" else "" end))" end);

if $mode == "findings" then
  first_rows[] | select(.outcome == "found" or .outcome == "at_rate_max")
  | ["capacity-\(.keys)-\(.config | gsub("\\+"; "-"))",
     "capacity at \(.pct | pname) <= \(.bound_us | dur), \(.keys) keys, \(.config) (requests/s; interval: the search'"'"'s bracket)",
     (.capacity_per_s // .lo_per_s | r(1)), (.lo_per_s | r(1)), (if .hi_per_s == null then "inf" else (.hi_per_s | r(1)) end), "per_s"]
  | map(tostring) | join("\t")
elif $mode == "headline" then
  if (first_rows | length) == 0 then empty else
  "- **Capacity at \(pctn) <= \(bound | dur)** (`scripts/study/capacity.sh`: the highest constant rate at which the \(pctn) latency stays within the bound, one search per configuration; the bound is \($p.bound_factor // "?") x the median unloaded p99, rounded up): "
  + ([first_rows | group_by(.keys == "zipf")[] | "\(.[0].keys | kname) keys: " + (map("\(.config) \(rate("/s"))\(if .capacity_over_closed_loop then " (\(.capacity_over_closed_loop | x) its closed-loop rate)" else "" end)") | join(", "))] | join("; "))
  + ". A search took \(irange(first_rows | map(.steps))) steps, \(range(first_rows | map(.wall_s))) s."
  end
elif (first_rows | length) == 0 then
  "", "### Capacity at a p99 bound", "", "No search of `scripts/study/capacity.sh` completed in this run (see `logs/stderr.log`).", ""
else
  "", "### Capacity at \(pctn) <= \(bound | dur)", "",
  "How many requests a second does each configuration serve with its \(pctn) latency at or under \(bound | dur)? `kvtest shortener load --slo \($rows[0].pct // "p99")=\(bound | tostring)us` runs constant-rate steps (as `--rate`: latency counts from each request'"'"'s scheduled send, so a stall shows as latency, not as fewer requests), doubling from \($rows[0].rate_start // "?" | n0)/s until a step breaks the bound or fails a request, then bisection until the last pass and the first fail are within 2%; a step lasts max(\($rows[0].step_s // "?") s, n / rate) for the n samples its percentile needs (20 / (1 - q): 2,000 for p99), and a step within 10% of the bound is run again (3 at most, the majority decides), as is a step that met its rate but broke the bound while the service'"'"'s median latency from each actual send stayed within 2x of its lowest in a passing step (a stall, not a queue). A step that fell short of its rate while the service answered at that ease was the load generator'"'"'s limit, not the service'"'"'s, and ends the search. The rate is the midpoint of the last pass and the first fail, its interval from the highest rate below which every step passed to the lowest rate that failed by majority at or above the highest rate at which any step passed (a rate whose repeats disagreed widens it). The services are shortener.sh'"'"'s (`scripts/study/capacity.sh`): \($p.links // "?") links, a fresh `kvtest shortener serve` per search, every id GET twice first (`load --walk 2`: the caches full), then \($p.threads // "?") connections GETting existing ids, uniform or Zipf \($p.zipf // "?").",
  "",
  (if $p.bound_rule == "set by --bound" then "**The bound**, \(bound | dur), was set by hand (`--bound`). Each configuration'"'"'s unloaded latency, measured first, is in the table for reference: \($p.unloaded_time | secs) of GETs at a constant \($p.unloaded_rate // "?") requests/s."
   else "**The bound.** First each configuration'"'"'s unloaded latency: \($p.unloaded_time | secs) of GETs at a constant \($p.unloaded_rate // "?") requests/s, latency from each scheduled send as the search judges it (column \"unloaded p99\"). The median of the configurations'"'"' unloaded p99s was \($p.bound_median_p99_us // null | tonumber? // null | dur); \($p.bound_factor // "?") x that is \(($p.bound_median_p99_us | tonumber) * ($p.bound_factor | tonumber) | dur), rounded up to 1, 2 or 5 x 10^k µs: **X = \(bound | dur)**, one bound for every row, so that their rates compare. (The median and not the largest, \($p.bound_max_p99_us // null | tonumber? // null | dur) (\($p.bound_max_config // "?" | sub("/"; " keys, "))): a p99 of 2,000 samples is their 20th largest, and one stall in one configuration'"'"'s run would move the bound for all.) (\($p.bound_factor // "?")x leaves room for queueing: at X a request may wait behind a few others; a bound at the unloaded p99 would fail at any load.)" end),
  "",
  ("| keys | configuration | unloaded p99 | capacity (requests/s) | interval | closed-loop requests/s | closed-loop p99 | capacity / closed-loop |\(if has_study then " the study'"'"'s closed-loop |" else "" end) steps | search s |"),
  ("|---|---|---:|---:|---|---:|---:|---:|\(if has_study then "---:|" else "" end)---:|---:|"),
  (first_rows[] | "| \(.keys | kname) | \(.config) | \(.unloaded_p99_us | dur) | \(rate) | \(interval) | \(.closed_loop_per_s | n0)\(if .closed_loop_from == "capacity.sh" or .closed_loop_from == null then "" else " (\(.closed_loop_from))" end) | \(if .closed_loop_p99_us then (.closed_loop_p99_us | dur) else "–" end) | \(.capacity_over_closed_loop | x) |\(if has_study then " \(.study_closed_loop_per_s | n0) |" else "" end) \(.steps) | \(.wall_s | s1) |"),
  "",
  ("**Closed-loop**: the same configuration driven by \($p.threads // "?") connections that each send their next request as soon as the last is answered, with no latency bound: the most the service and the load generator together sustain. "
   + (if (own | length) > 0 then "Measured right after each search on the same service (\($p.closed_time | secs) of the same GETs), so that the two figures are minutes apart at most. " else "" end)
   + (if (own | length) < (first_rows | length) and ([first_rows[] | select(.closed_loop_per_s != null and .closed_loop_from != "capacity.sh")] | length) > 0
      then "Where the row names shortener.sh or storetier.sh, the rate is the study'"'"'s (below). " else "" end)
   + "capacity / closed-loop is the share of that rate that is left when the \(pctn) must stay within \(bound | dur)."
   + (if ([first_rows[] | select(.closed_loop_p99_us != null)] | length) > 0 and all(first_rows[] | select(.closed_loop_p99_us != null); .closed_loop_p99_us <= .bound_us)
      then " Every closed-loop p99 was itself within the bound: a closed loop sends more slowly when the service slows (each connection waits for its answer), so its latency stays low at its full rate, while at a constant rate every request late behind a slow one counts from its scheduled send." else "" end)
   + (if has_study then " The study'"'"'s closed-loop: " + (study_from | join("; ")) + ", another service of the same configuration, measured by another part of the study"
        + (if [first_rows[] | select(.study_closed_loop_links != null and (.study_closed_loop_links | tostring) != ($p.links // "" | tostring))] | length > 0
           then ", some with another number of links than the search'"'"'s \($p.links // "?")" else "" end)
        + "." else "" end)),
  "",
  "**How long a search takes** at these settings: \(irange(first_rows | map(.steps))) steps, \(range(first_rows | map(.seconds))) s of steps, \(range(first_rows | map(.wall_s))) s for the whole `load --slo` command (each step opens its connections afresh); \(first_rows | map(.repeats) | add // 0 | if . == 1 then "1 step was a repeat" else "\(.) steps were repeats" end) of a step close to the bound or stalled (\(first_rows | map(.stalls // 0) | add // 0) stalled steps). The part took \($t["capacity-total"] // null | s1) s in all: setup \($t["capacity-setup"] // null | s1) s, unloaded runs \($t["capacity-unloaded"] // null | s1) s, searches \($t["capacity-search"] // null | s1) s (\($rows | length) searches, each after a fresh service and its walk\(if (own | length) > 0 then ", and followed by its closed-loop run" else "" end)).",
  (if (again_rows | length) > 0 then
     "",
     "**Searched twice** (the same configuration again at the end, a fresh service and walk): "
     + ([again_rows[] as $b | first_rows[] | select(.keys == $b.keys and .config == $b.config)
         | "\(.keys | kname) keys, \(.config): \(rate("/s")), then \($b | rate("/s"))\(if .outcome == "found" and $b.outcome == "found" then " (\($b.capacity_per_s / .capacity_per_s | x))" else "" end)"] | join("; "))
     + ". The interval says what one search resolved, not how far another search would land: that is what the second search shows. A step fails when the service saturates, and a stall of a few tens of milliseconds (the load generator'"'"'s, the service'"'"'s or the kernel'"'"'s, on this shared machine) that holds back more than 1% of its requests is run again, but a stall that also slows the service'"'"'s median, or two stalls in three steps, still fail a rate: a failure can be transient, a pass cannot (the bound held over every sample of the step), so of two searches the higher answer is the closer to what the service can take."
   else empty end),
  ""
end'

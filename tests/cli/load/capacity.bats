#!/usr/bin/env bats
# kvtest shortener load --slo: the capacity search, run over real HTTP
# against build/fixedcap (scripts/tools/fixedcap.c), which holds each
# request in one of W slots for exactly D, first come first served: a
# server of capacity W/D. Nothing here depends on how fast this machine
# runs: a loaded CPU delays when requests are sent and answered, which
# makes any step fail sooner, so where a search ends is not asserted: how
# close it lands to W/D is a measurement, not a verdict (issue 51), and
# tests/unit/load/test_load_search.c checks the search's answer against a
# modelled server, exactly. What is asserted holds whatever the speed:
#   - the search followed its rules: every step's verdict is the judge's on
#     the figures it reports, and the rates, repeats and outcome are the
#     ones those verdicts lead to (search_rules below);
#   - it never claims more than the server can serve: a step that passed at
#     R over T seconds had >= 98% of R T answers, a share q (the judged
#     percentile) of them within the bound B of their scheduled send, so
#     all answered by T + B, and fixedcap answers at most W/D (T + B) by
#     then: R <= W/D (T + B) / (0.98 q T). The interval's low end and the
#     answer follow from the rates that passed;
#   - where the test wants one outcome, the setup leaves no other: a
#     server slower than the bound, a generator that cannot send the rate,
#     a bound no answer comes near.

load '../../lib/common'

FIXEDCAP="$BATS_TEST_DIRNAME/../../../build/fixedcap"
# fixedcap's lifetime, s: far beyond any test (on a loaded machine one took
# minutes), not a deadline; teardown stops it
FC_LIFE=3600

setup() {
    common_setup
    [ -x "$FIXEDCAP" ] || skip "build/fixedcap is not built (make build/fixedcap)"
    FC_PID=
}

teardown() {
    [ -z "$FC_PID" ] || stop_pid "$FC_PID" TERM
}

jqo() { jq -r "$1" <<<"$output"; }

# search_rules CAPACITY: jq over one search's --json (stdin), an error naming
# the first rule broken, else true. CAPACITY: the server's, requests/s.
# The rules are load_search.c's (load_search.h says why each): a step lasts
# max(--step-time, 20 / (1 - q) / rate); it fell short below 98% of its
# rate; it passes with no failure, not short, every percentile within its
# bound; it is close within 10% of a bound; "at ease" is a median from send
# within 2x the lowest of the passing steps (before any passed: every
# percentile from send within its bound); short and at ease is the
# generator's limit, which ends the search; failed at its rate while at
# ease is a stall. A close or stalled step's rate runs again, up to 3 in
# all, the majority deciding. The ramp doubles from --rate-start (capped at
# --rate-max) while rates pass; then bisection at the geometric midpoint of
# the last pass and the first fail until they are within 2%.
search_rules() {
    jq -e --argjson C "$1" '
    def same($a; $b): ($a - $b | fabs) <= 1e-9 * ([$a, $b, 1] | map(fabs) | max);
    .options as $o | $o.slo as $slo | .result.steps as $st | .result.capacity as $c
    | ($slo | map(.q) | max) as $q | ($slo | map(.bound_us) | max / 1e6) as $B
    # the highest rate a step of $t seconds can pass at (the header says
    # why): 1.008 for the histogram (a percentile within 0.4% of a sample),
    # + 1 for the rounding of its rank
    | def most($t): ($C * ($t + 1.008 * $B) + 1) / (0.98 * $q * $t);
    # each step: its length, and its verdict from its own figures
    (reduce range(0; $st | length) as $i ({ease: 0};
        $st[$i] as $s | $s.target_per_s as $t | "step \($i + 1) (\($t)/s): " as $at
        | ($s.achieved_per_s < 0.98 * $t) as $short
        | [$slo[] | $s.judged_us[.percentile] / .bound_us] as $r
        | ($s.failed == 0 and $s.requests > 0 and all($r[]; . <= 1) and ($short | not)) as $pass
        | (if .ease > 0 then $s.from_send_us.p50 <= 2 * .ease
           else all($slo[]; $s.from_send_us[.percentile] <= .bound_us) end) as $at_ease
        | if same($s.seconds; [$o.step_min_seconds, 20 / (1 - $q) / $t] | max) | not
            then error("\($at)lasted \($s.seconds) s")
          elif $s.requests > $t * $s.seconds + 1 then error("\($at)more requests than scheduled")
          elif $s.generator_short != $short then error("\($at)generator_short wrong")
          elif $s.pass != $pass then error("\($at)pass wrong")
          elif $s.close != any($r[]; . - 1 | fabs <= 0.10) then error("\($at)close wrong")
          elif $s.generator_limit != ($short and $s.failed == 0 and $at_ease)
            then error("\($at)generator_limit wrong")
          elif $s.stall != (($short | not) and ($pass | not) and $s.failed == 0 and .ease > 0 and $at_ease)
            then error("\($at)stall wrong")
          elif $pass and $t > most($s.seconds)
            then error("\($at)passed above what the server serves in \($s.seconds) s: \(most($s.seconds))/s")
          else . end
        | if $pass and $s.from_send_us.p50 > 0 and (.ease == 0 or $s.from_send_us.p50 < .ease)
            then .ease = $s.from_send_us.p50 else . end)) as $_
    # the rates those verdicts lead to, and how the search ended
    | (reduce range(0; $st | length) as $i (
          {rate: $o.rate_start, pass: 0, fail: 0, ramp: true, k: 0, p: 0, f: 0, contested: false, done_as: null};
        $st[$i] as $s | "step \($i + 1): " as $at
        | if .done_as then error("\($at)after the search had ended (\(.done_as))")
          elif same($s.target_per_s; .rate) | not then error("\($at)at \($s.target_per_s)/s, not \(.rate)/s")
          elif $s.repeat != .k + 1 then error("\($at)repeat \($s.repeat), not \(.k + 1)")
          elif $s.generator_limit then .done_as = "generator_limit"
          else
            # go on from the rate as printed: cJSON prints 15 digits where
            # they read back within an epsilon, so a midpoint recomputed
            # here can differ from the one kvtest printed in its last digit
            .rate = $s.target_per_s
            | (if $s.pass then .p += 1 else .f += 1 end)
            | .contested = (.contested or $s.close or $s.stall)
            | if (.contested | not) or .p * 2 > 3 or .f * 2 > 3 then
                (.p > .f) as $ok
                | (if $ok then .pass = .rate else .fail = .rate end)
                | if .ramp and $ok and ($o.rate_max == null or .rate < $o.rate_max) then
                    .rate = ([.rate * 2, ($o.rate_max // infinite)] | min)
                  else
                    .ramp = false
                    | if .pass > 0 and .fail > 0 and .fail / .pass > 1.02 then .rate = (.pass * .fail | sqrt)
                      elif .pass == 0 then .done_as = "below_first_step"
                      elif .fail == 0 then .done_as = "at_rate_max"
                      else .done_as = "found" end
                  end
                | .k = 0 | .p = 0 | .f = 0 | .contested = false
              else .k += 1 end
          end)) as $run
    | ($run.done_as // (if ($st | length) == 64 then "too_many_steps" else "unfinished" end)) as $outcome
    | ([$st[] | select(.pass) | most(.seconds) * .seconds / (.seconds + $B)] | max // 0) as $lo_most
    | if $c.outcome != $outcome then error("outcome \($c.outcome), the steps lead to \($outcome)")
      elif $c.steps != ($st | length) then error("capacity.steps \($c.steps) of \($st | length)")
      elif ($c.last_pass_per_s != $run.pass) or ($c.first_fail_per_s != $run.fail)
        then error("last pass \($c.last_pass_per_s), first fail \($c.first_fail_per_s); the steps lead to \($run.pass) and \($run.fail)")
      elif same($c.rate_per_s; if $outcome == "generator_limit" then 0
                               elif $run.pass > 0 and $run.fail > 0 then $run.pass * $run.fail | sqrt
                               else $run.pass end) | not
        then error("rate \($c.rate_per_s) is not the midpoint")
      elif $outcome == "found" and ($c.lo_per_s > $c.rate_per_s or $c.rate_per_s > $c.hi_per_s)
        then error("rate \($c.rate_per_s) outside its interval")
      elif $c.lo_per_s > $lo_most then error("low end \($c.lo_per_s) above what the server serves: \($lo_most)")
      else true end'
}

# search_known W D_US SLO RATE_START: a search against fixedcap W D; the
# rules above, whatever the outcome, and its exit status and lines.
search_known() {
    local w=$1 d=$2 truth json outcome
    truth=$((w * 1000000 / d))
    start_fixedcap "$D" "$w" "$d" "$FC_LIFE"
    run "$KVTEST" shortener load "$FC_URL" --scenario get --path / --slo "$3" \
        --rate-start "$4" --step-time 1s --json
    json=$(grep '^{' <<<"$output")
    outcome=$(jq -r '.result.capacity.outcome' <<<"$json")
    echo "truth $truth/s: $(jq -c '.result.capacity' <<<"$json")"
    # each step's verdict, for the reader of a failure
    echo "steps: $(jq -c '[.result.steps[] | {target_per_s, repeat, pass, close, stall, generator_short}]' <<<"$json")"
    search_rules "$truth" <<<"$json"
    # exit 0 with an answer; 1 with one line saying why there is none
    case $outcome in
    found | too_many_steps) [ "$status" -eq 0 ] ;;
    below_first_step)
        [ "$status" -eq 1 ]
        [[ "${lines[-1]}" == *"the first step ($4.0 requests/s) already broke the objective"* ]] ;;
    generator_limit)
        [ "$status" -eq 1 ]
        [[ "${lines[-1]}" == *"generator's limit"* ]] ;;
    *) return 1 ;;
    esac
    # one progress line per step, and every step in the JSON
    [ "$(jq '.result.steps | length' <<<"$json")" -eq "$(grep -c '^kvtest shortener load: step ' <<<"$output")" ]
}

@test "capacity: 2 slots x 5 ms (400/s) at p90 <= 25 ms: the search keeps its rules and claims no more than the server serves" {
    # a pass at most 1.17x 400/s in a 1 s step
    search_known 2 5000 p90=25ms 100
}

@test "capacity: 4 slots x 4 ms (1000/s) at p99 <= 25 ms: the search keeps its rules and claims no more than the server serves" {
    # p99 bounds it tighter: a pass at most 1.05x 1000/s in a 1.9 s step,
    # the low end 1.03x, the answer 1.06x
    search_known 4 4000 p99=25ms 500
}

# A bound no answer comes near and one request per connection per step,
# chosen as the step starts: both steps run whole and pass, however slowly
# the machine sends and answers (up to a 10 s stall).
ATEASE=(--scenario get --path / --slo p90=10s --connections 200 --timeout 60000)

@test "capacity: --rate-max that passes answers 'at least', exit 0" {
    start_fixedcap "$D" 2 5000 "$FC_LIFE"
    run "$KVTEST" shortener load "$FC_URL" "${ATEASE[@]}" --rate-start 100 --rate-max 150 \
        --step-time 1s --json
    [ "$status" -eq 0 ]
    json=$(grep '^{' <<<"$output")
    search_rules 400 <<<"$json"
    jq -e '.result.capacity.outcome == "at_rate_max" and .result.capacity.rate_per_s == 150
           and ([.result.steps[].target_per_s] == [100, 150])
           and all(.result.steps[]; .requests == 200)' <<<"$json"
    run "$KVTEST" shortener load "$FC_URL" "${ATEASE[@]}" --rate-start 100 --rate-max 150 \
        --step-time 1s
    [ "$status" -eq 0 ]
    [[ "$output" == *"Capacity at p90 <= 10 s: at least 150.0 requests/s"* ]]
}

@test "capacity: a first step above the capacity ends the search, exit 1" {
    # every answer takes 30 ms, over the 25 ms bound, from its send as from
    # its schedule: the first step fails, and is not the generator's
    start_fixedcap "$D" 2 30000 "$FC_LIFE"
    run "$KVTEST" shortener load "$FC_URL" --scenario get --path / --slo p90=25ms \
        --rate-start 800 --step-time 1s --json
    [ "$status" -eq 1 ]
    [[ "${lines[-1]}" == *"the first step (800.0 requests/s) already broke the objective"* ]]
    json=$(grep '^{' <<<"$output")
    search_rules 66.7 <<<"$json"
    jq -e '.result.capacity.outcome == "below_first_step" and (.result.steps | length) == 1
           and (.result.steps[0] | (.pass or .generator_limit) | not)' <<<"$json"
}

@test "capacity: too few connections is the generator's limit, said, exit 1" {
    start_fixedcap "$D" 64 100000 "$FC_LIFE"
    # 3 connections, one request in flight each, over 100 ms a request: at
    # most 30 requests in the 1 s step, where the server takes 640/s and
    # answers each within the 10 s bound of its send
    run "$KVTEST" shortener load "$FC_URL" --scenario get --path / --slo p90=10s --timeout 60000 \
        --rate-start 500 --step-time 1s --connections 3 --workers 1 --json
    [ "$status" -eq 1 ]
    [[ "${lines[-1]}" == *"the load generator could not send 500.0 requests/s"*"generator's limit"* ]]
    json=$(grep '^{' <<<"$output")
    search_rules 640 <<<"$json"
    jq -e '.result.capacity.outcome == "generator_limit" and (.result.steps | length) == 1
           and .result.steps[0].generator_limit and .result.steps[0].generator_short
           and .result.steps[0].requests <= 30
           and .result.steps[0].from_send_us.p90 < 10000000' <<<"$json"
}

@test "capacity: bad --slo and conflicting options, exit 2, one line, no step run" {
    start_fixedcap "$D" 2 5000 "$FC_LIFE"
    local u=$FC_URL
    expect_error 2 "unknown percentile 'p98'" shortener load "$u" --scenario get --path / --slo p98=5ms
    expect_error 2 "carry a unit" shortener load "$u" --scenario get --path / --slo p99=5
    expect_error 2 "above zero" shortener load "$u" --scenario get --path / --slo p99=0ms
    expect_error 2 "empty item" shortener load "$u" --scenario get --path / --slo p99=5ms,
    expect_error 2 "not with --rate" shortener load "$u" --scenario get --path / --slo p99=5ms --rate 10
    expect_error 2 "not with --walk" shortener load "$u" --slo p99=5ms --walk 1
    expect_error 2 "not with --duration" shortener load "$u" --slo p99=5ms --duration 2
    expect_error 2 "not with --tasks" shortener load "$u" --slo p99=5ms --tasks 10
    expect_error 2 "--rate-max 50 is below the first step" shortener load "$u" --scenario get \
        --path / --slo p99=5ms --rate-max 50
    expect_error 2 "--rate-max needs --slo" shortener load "$u" --rate-max 50
    # nothing reached the server: a search would have sent hundreds
    run "$KVTEST" shortener load "$u" --scenario get --path / --tasks 1 --json
    [ "$status" -eq 0 ]
}

@test "capacity: kvtest compare reads the capacities of two searches" {
    start_fixedcap "$D" 2 5000 "$FC_LIFE"
    for side in old new; do
        run "$KVTEST" shortener load "$FC_URL" "${ATEASE[@]}" --rate-start 100 --rate-max 150 \
            --step-time 1s --json
        [ "$status" -eq 0 ]
        grep '^{' <<<"$output" >"$D/$side.json"
        jq -e '.result.capacity.outcome == "at_rate_max"' "$D/$side.json"
    done
    run "$KVTEST" compare "$D/old.json" "$D/new.json" --json
    [ "$status" -eq 0 ]
    # the low end of a pass at 150/s over a 200 / 150 s step, 10 s bound
    jq -e '(200 / 150) as $t | (150 * $t / ($t + 10)) as $lo
           | [.rows[] | select(.measurement == "load capacity p90<=1e+07us c=200")
              | {metric, o: .old.median, n: .new.median}]
           | length == 2 and .[0] == {"metric": "capacity", "o": 150, "n": 150}
             and .[1].metric == "capacity low end"
             and ([.[1].o, .[1].n] | all(. - $lo | fabs < 1e-9))' <<<"$output"
}

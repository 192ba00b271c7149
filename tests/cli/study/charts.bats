#!/usr/bin/env bats
# scripts/study/plot.sh's charts of capacity, the four stores, the store
# tier, the memory limit and the cluster (scripts/study/plot/*.gp), drawn
# from a copy of the committed results' CSVs (results/csv, no benchmark
# runs here), and the two CSVs made for them: csv/capacity-steps.csv
# (report-capacity.sh, one row per step of each search in
# raw/capacity.jsonl.gz) and csv/memlimit-ratios.csv (tables.sh, one row
# per leg, memory and keys of csv/memlimit.csv).
# In study/, so make test-repo runs it: the study's scripts (make bench),
# not kvtest.

load '../../lib/common'

NEW="capacity stores storetier memlimit cluster"

setup() {
    common_setup
    ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
    R=$ROOT/results
    command -v gnuplot >/dev/null || skip "no gnuplot"
    # A results directory with only what the five charts read.
    O=$D/out
    mkdir -p "$O/csv" "$O/raw" "$O/logs"
    cp -r "$R/env" "$O/"
    local f
    for f in capacity-steps.csv stores.csv storetier-summary.csv storetier-http.csv \
             memlimit-ratios.csv cluster.csv cluster-summary.csv cluster-ci.json; do
        cp "$R/csv/$f" "$O/csv/"
    done
    cp "$R"/raw/{blobs,capacity,storetier,memlimit}-params.tsv "$O/raw/"
}

# csv_of NAME: the CSV whose absence skips chart NAME
csv_of() {
    case $1 in
        capacity) echo capacity-steps.csv ;;
        stores) echo stores.csv ;;
        storetier) echo storetier-summary.csv ;;
        memlimit) echo memlimit-ratios.csv ;;
        cluster) echo cluster-summary.csv ;;
    esac
}

@test "plot.sh: the five charts are drawn from the committed CSVs, PNG and SVG, without a gnuplot warning" {
    run bash "$ROOT/scripts/study/plot.sh" "$O"
    assert_success
    local n
    for n in $NEW; do
        [ -s "$O/charts/$n.png" ] || fail "no $n.png"
        [ -s "$O/charts/$n.svg" ] || fail "no $n.svg"
        run file -b "$O/charts/$n.png"
        assert_output --partial "PNG image data, 960 x 540"
        # the command that redraws it alone, for each format
        run grep -c "scripts/study/plot/$n.gp\$" "$O/charts/commands.txt"
        assert_output 2
        [ ! -e "$O/logs/gnuplot-$n.log" ] || fail "gnuplot said: $(cat "$O/logs/gnuplot-$n.log")"
    done
    # the SVGs say what was measured and what the bars are
    run grep -c "95% CI" "$O/charts/stores.svg" "$O/charts/memlimit.svg"
    refute_output --partial ":0"
    run grep -F "bound 5000 µs" "$O/charts/capacity.svg"
    assert_success
    run grep -F "5 rounds" "$O/charts/storetier.svg" "$O/charts/cluster.svg" "$O/charts/memlimit.svg"
    assert_success
    [ "${#lines[@]}" -eq 3 ]
}

@test "plot.sh: a chart whose CSV is missing is skipped, the others drawn" {
    local n m
    for n in $NEW; do
        rm -rf "$O/charts" "$D/keep"
        mkdir -p "$D/keep"
        mv "$O/csv/$(csv_of "$n")" "$D/keep/"
        run bash "$ROOT/scripts/study/plot.sh" "$O"
        assert_success
        [ ! -e "$O/charts/$n.png" ] || fail "$n drawn without $(csv_of "$n")"
        for m in $NEW; do
            [ "$m" = "$n" ] || [ -s "$O/charts/$m.png" ] || fail "no $m.png when only $n's CSV is missing"
        done
        mv "$D/keep/"* "$O/csv/"
    done
    # a header alone is no data either
    head -n1 "$R/csv/capacity-steps.csv" >"$O/csv/capacity-steps.csv"
    rm -rf "$O/charts"
    run bash "$ROOT/scripts/study/plot.sh" "$O"
    assert_success
    [ ! -e "$O/charts/capacity.png" ]
}

@test "report-capacity.sh: csv/capacity-steps.csv has one row per step of each search in the raw runs, the committed one too" {
    mkdir -p "$D/c/raw" "$D/c/csv"
    cp "$R/raw/capacity.jsonl.gz" "$R/raw/capacity-params.tsv" "$D/c/raw/"
    run bash "$ROOT/scripts/study/report-capacity.sh" "$D/c"
    assert_success
    local steps
    steps=$(zcat "$R/raw/capacity.jsonl.gz" | jq -s '[.[] | select(.bench.phase == "search") | .result.steps | length] | add')
    [ "$steps" -gt 0 ]
    run awk 'NR > 1' "$D/c/csv/capacity-steps.csv"
    [ "${#lines[@]}" -eq "$steps" ] || fail "${#lines[@]} rows, $steps steps"
    # per search: its steps, its passes, its answer
    run bash -c "zcat '$R/raw/capacity.jsonl.gz' | jq -r 'select(.bench.phase == \"search\")
        | [.bench.keys, .bench.config, .bench.round, (.result.steps | length),
           ([.result.steps[] | select(.pass)] | length), .result.capacity.rate_per_s] | @tsv' | sort"
    assert_success
    local want=$output
    run bash -c "awk -F, 'NR > 1 { k = \$1 \"\t\" \$2 \"\t\" \$3; n[k]++; p[k] += \$9; c[k] = \$12 }
        END { for (k in n) print k \"\t\" n[k] \"\t\" p[k] \"\t\" c[k] }' '$D/c/csv/capacity-steps.csv' | sort"
    assert_output "$want"
    # the same code on the committed results made the committed CSV
    run diff "$R/csv/capacity-steps.csv" "$D/c/csv/capacity-steps.csv"
    assert_success
}

@test "tables.sh: csv/memlimit-ratios.csv has one row per leg, memory and keys of memlimit.csv, the committed one too" {
    local ratioci=${KV_RATIOCI:-$ROOT/build/ratioci}
    [ -x "$ratioci" ] || fail "no $ratioci (make build/ratioci; make test builds it)"
    mkdir -p "$D/m/csv" "$D/m/raw"
    cp "$R/csv/memlimit.csv" "$R/csv/memlimit-http-hits.csv" "$D/m/csv/"
    run bash "$ROOT/scripts/study/tables.sh" "$D/m"
    assert_success
    run bash -c "awk -F, 'NR > 1 && !s[\$1 \",\" \$2 \",\" \$4]++ { print \$1 \",\" \$2 \",\" \$4 }' '$R/csv/memlimit.csv' | sort"
    local want=$output
    run bash -c "awk -F, 'NR > 1 { print \$1 \",\" \$2 \",\" \$3 }' '$D/m/csv/memlimit-ratios.csv' | sort"
    assert_output "$want"
    # the ratios are memlimit.json's
    run jq -r '.[] | select(.config == "valkey-track") | [.leg, .mem, .keys, .ratio_to_sqlite, .ratio_lo, .ratio_hi] | join(",")' "$D/m/csv/memlimit.json"
    want=$output
    run awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $8 "," $9 "," $10 }' "$D/m/csv/memlimit-ratios.csv"
    assert_output "$want"
    run diff "$R/csv/memlimit-ratios.csv" "$D/m/csv/memlimit-ratios.csv"
    assert_success
}

@test "memlimit chart: the axis reaches down to the lowest ratio or interval end, never cutting a bar at 0.1x" {
    # every ratio at or above 0.1: the floor stays 0.1x
    printf '%s\n' 'leg,mem,keys,sqlite_per_s,valkey_ratio,valkey_lo,valkey_hi,track_ratio,track_lo,track_hi' \
        'inproc,24MiB,uniform,10000,1.3,1.1,1.8,120,100,200' >"$O/csv/memlimit-ratios.csv"
    run bash "$ROOT/scripts/study/plot.sh" "$O"
    assert_success
    run grep -c '>0.05x<' "$O/charts/memlimit.svg"
    assert_output 0
    run grep -c '>0.1x<' "$O/charts/memlimit.svg"
    assert_output 1
    # a cache 50x slower (its interval from 0.018): the floor 0.01x, tick shown
    printf '%s\n' 'inproc,unlimited,zipf,200000,0.02,0.018,0.03,8,7,9' >>"$O/csv/memlimit-ratios.csv"
    run bash "$ROOT/scripts/study/plot.sh" "$O"
    assert_success
    run grep -c '>0.01x<' "$O/charts/memlimit.svg"
    assert_output 1
    # no interval at all (too few rounds): still drawn, the floor 0.1x
    printf '%s\n' 'leg,mem,keys,sqlite_per_s,valkey_ratio,valkey_lo,valkey_hi,track_ratio,track_lo,track_hi' \
        'inproc,24MiB,uniform,10000,1.3,,,120,,' >"$O/csv/memlimit-ratios.csv"
    rm -f "$O/charts/memlimit.svg"
    run bash "$ROOT/scripts/study/plot.sh" "$O"
    assert_success
    run grep -c '>0.1x<' "$O/charts/memlimit.svg"
    assert_output 1
}

#!/usr/bin/env bats
# scripts/study/http/tlscost.sh, what TLS, a new connection per request and
# HTTP/2 streams cost the service's GET, and report-tls.sh, its section of
# REPORT.md: one tiny run (2 rounds of 1 s) must measure the fourteen cells
# in ABBA order, each the way its name says (read back from load's own
# counts: handshakes per connection kept alive, one per request with
# --reconnect, none resumed with --no-resume, none over http), write its
# tables, and leave no server running; the report section and its
# findings must carry the run's own figures. No figure is compared with
# another: the machine is noisy. Misuse exits 2 with one line. The
# release binary runs (KVTEST_REL).
# In study/, so make test-repo runs it: the study's scripts (make bench),
# not kvtest.

load '../../lib/common'

setup() {
    study_setup http/tlscost
    command -v valkey-server >/dev/null || skip "no valkey-server (sudo bash scripts/deps.sh)"
}

@test "tlscost.sh: a tiny run measures the fourteen cells in ABBA order, each as named; the report section carries its figures" {
    mkdir -p "$D/tmp"
    TMPDIR=$D/tmp run timeout -k 5 240 bash "$SCRIPT" --rounds 2 --duration 1 \
        --connections 4 --streams 2 --links 200 --workers 1 --kvtest "$BIN" --out "$D/o/csv"
    assert_success
    run cat "$D/o/csv/tlscost.tsv"
    assert_line --index 0 "$(printf 'round\tcache\tcell\trequests_per_s\tp50_us\tp99_us\thandshakes\tresumed\thandshake_p50_us')"
    # each cell as its name says: 4 connections kept alive (4 handshakes
    # over https); 2 with --pipeline or h2; a handshake per request with
    # --reconnect (about rate x 1 s of them), none resumed with --no-resume,
    # some without it; over http none at all
    run awk -F'\t' 'NR > 1 {
            if (!($4 + 0 > 0) || !($5 + 0 > 0) || !($6 + 0 >= $5)) { print "rate/latency: " $0; exit 1 }
            n = $4 * 1       # requests in the 1 s
            if ($3 ~ /^http-/ && ($7 != 0 || $9 != "-")) { print "http: " $0; exit 1 }
            if ($3 == "https-keep" && ($7 != 4 || $8 != 0)) { print "keep: " $0; exit 1 }
            if (($3 == "https-pipe" || $3 == "h2") && ($7 != 2 || $8 != 0)) { print "few: " $0; exit 1 }
            if ($3 == "https-new" && !($7 > 0.5 * n && $8 > 0.5 * $7)) { print "new: " $0; exit 1 }
            if ($3 == "https-full" && !($7 > 0.5 * n && $8 == 0)) { print "full: " $0; exit 1 }
            printf "%s:%s/%s ", $1, $2, $3 }' "$D/o/csv/tlscost.tsv"
    assert_success
    local one="" want="" c
    for c in none valkey; do
        for x in http-keep https-keep http-new https-new https-full https-pipe h2; do one+="$c/$x "; done
    done
    for c in $one; do want+="1:$c "; done
    for c in $(tr ' ' '\n' <<<"$one" | tac); do want+="2:$c "; done
    assert_output "$want"
    # the chart's table: seven cells, both caches' rates and intervals
    run awk -F, 'NR > 1 && $2 > 0 && $3 <= $2 && $2 <= $4 && $5 > 0 && $6 <= $5 && $5 <= $7 { n++ }
        END { print n }' "$D/o/csv/tlscost.csv"
    assert_output 7
    # the time https adds, as the report says it, is the json's
    local est
    est=$(jq -r '.intervals["us/none/https-keep"].est' "$D/o/csv/tlscost.json")
    assert_regex "$est" '^-?[0-9.]+$'
    run bash "$BATS_TEST_DIRNAME/../../../scripts/study/report-tls.sh" "$D/o"
    assert_success
    assert_line "### HTTPS and HTTP/2: what TLS, a new connection and streams cost a GET"
    assert_output --partial "- **TLS on a kept-alive connection** adds $(jq -r '.intervals["us/none/https-keep"].est
        | if (. | fabs) >= 100 then round elif (. | fabs) >= 10 then (. * 10 | round) / 10
          else (. * 100 | round) / 100 end' "$D/o/csv/tlscost.json") µs"
    assert_output --partial "tlscost.sh --rounds 2 --duration 1 --connections 4 --streams 2 --links 200 --workers 1 --out \$OUT/csv"
    run bash "$BATS_TEST_DIRNAME/../../../scripts/study/report-tls.sh" --findings "$D/o"
    assert_success
    assert_line --regexp "^tls-keep	[^	]+	$est	"
    run find "$D/tmp" -mindepth 1
    assert_output ""
    run pgrep -f "$D/tmp"
    assert_failure 1
}

@test "tlscost.sh: misuse is one line, exit 2" {
    run bash "$SCRIPT" --rounds 0
    assert_failure 2
    assert_output --partial "not a positive whole number: 0"
    run bash "$SCRIPT" --connections 25 --streams 10
    assert_failure 2
    assert_output --partial "--connections (25) must be a multiple of --streams (10)"
    run bash "$SCRIPT" --bogus
    assert_failure 2
    assert_output --partial "unknown argument '--bogus'"
}

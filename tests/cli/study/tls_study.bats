#!/usr/bin/env bats
# scripts/study/http/tls.sh, kvtest load over https against wrk and over
# HTTP/2 against h2load, and what TLS costs a GET: one tiny run (2 rounds
# of 1 s) must measure all twelve cells (service and nginx; http, https and
# h2; the anchor and load) in ABBA order with positive figures, load's
# handshake time on its TLS cells only, write tls.tsv and tls.md, and
# leave no server running. No figure is compared
# with another: the machine is noisy. Misuse exits 2 with one line. The
# release binary runs (KVTEST_REL).
# In study/, so make test-repo runs it: the study's scripts (make bench),
# not kvtest.

load '../../lib/common'

setup() {
    study_setup http/tls
    command -v nginx >/dev/null || skip "no nginx (sudo bash scripts/deps.sh)"
    command -v wrk >/dev/null || skip "no wrk"
    command -v h2load >/dev/null || skip "no h2load (sudo bash scripts/deps.sh)"
}

@test "tls.sh: a tiny run measures the twelve cells in ABBA order, writes the tables, stops every server" {
    mkdir -p "$D/tmp"
    TMPDIR=$D/tmp run timeout -k 5 180 bash "$SCRIPT" --rounds 2 --duration 1 \
        --connections 4 --workers 1 --streams 4 --kvtest "$BIN" --out "$D/o"
    assert_success
    run cat "$D/o/tls.tsv"
    assert_line --index 0 "$(printf 'round\ttarget\tscheme\tclient\trequests_per_s\thandshake_p50_us')"
    # every rate > 0; a handshake time on load's TLS cells and on no other
    run awk -F'\t' 'NR > 1 {
            if (!($5 + 0 > 0)) exit 1
            hs = ($3 != "http" && $4 == "load")
            if (hs != ($6 != "-") || (hs && !($6 + 0 > 0))) exit 2
            printf "%s:%s/%s/%s ", $1, $2, $3, $4 }' "$D/o/tls.tsv"
    assert_success
    local one="service/http/wrk service/http/load service/https/wrk service/https/load service/h2/h2load service/h2/load nginx/http/wrk nginx/http/load nginx/https/wrk nginx/https/load nginx/h2/h2load nginx/h2/load"
    local want="" c
    for c in $one; do want+="1:$c "; done
    for c in $(tr ' ' '\n' <<<"$one" | tac); do want+="2:$c "; done
    assert_output "$want"
    for row in "service, http | wrk" "service, https | wrk" "service, h2 | h2load" \
        "nginx, http | wrk" "nginx, https | wrk" "nginx, h2 | h2load"; do
        run grep -c "^| $row | [0-9]* \[[^|]* | [0-9]* \[[^|]* | [0-9.]* \[[0-9.]*, [0-9.]*\] (n<95%) |\$" "$D/o/tls.md"
        assert_output 1
    done
    run grep -c '^| \(service\|nginx\), \(h2load / wrk\|load --http2 / load\) | [0-9.]* \[[^|]* |$' "$D/o/tls.md"
    assert_output 4
    run grep -c '^| service, load | [0-9.]* \[[^|]* | -\{0,1\}[0-9.]* \[[^|]* | [0-9.]* \[[^|]* |$' "$D/o/tls.md"
    assert_output 1
    run grep -c '^| nginx, wrk | [0-9.]* \[[^|]* | -\{0,1\}[0-9.]* \[[^|]* | - |$' "$D/o/tls.md"
    assert_output 1
    run find "$D/tmp" -mindepth 1
    assert_output ""
    run pgrep -f "$D/tmp"
    assert_failure 1
}

@test "tls.sh: misuse is one line, exit 2" {
    run bash "$SCRIPT" --rounds 0
    assert_failure 2
    assert_output --partial "not a positive whole number: 0"
    run bash "$SCRIPT" --bogus
    assert_failure 2
    assert_output --partial "unknown argument '--bogus'"
}

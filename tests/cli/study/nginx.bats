#!/usr/bin/env bats
# scripts/study/nginx.sh, the HTTP ceiling reference: one tiny run (2
# rounds of 1 s) must measure both servers in alternating order, write
# nginx.tsv and nginx.md with positive figures and the ratio row, and leave
# no nginx or service running (the script checks itself that nginx returns
# the service's body and Content-Type byte for byte, and fails otherwise).
# No figure is compared with another: the machine is noisy. Misuse exits 2
# with one line. The release binary runs (KVTEST_REL).
# In study/, so make test-repo runs it: the study's scripts (make bench),
# not kvtest.

load '../../lib/common'

setup() {
    study_setup nginx
    command -v nginx >/dev/null || skip "no nginx (sudo bash scripts/deps.sh)"
    command -v wrk >/dev/null || skip "no wrk"
}

@test "nginx.sh: a tiny run measures both, alternating, writes the tables and stops both" {
    mkdir -p "$D/tmp"
    TMPDIR=$D/tmp run timeout -k 5 120 bash "$SCRIPT" --repeat 2 --duration 1 \
        --connections 4 --wrk-threads 1 --threads 2 --kvtest "$BIN" --out "$D/o"
    assert_success
    run cat "$D/o/nginx.tsv"
    assert_line --index 0 "$(printf 'round\tserver\trequests_per_s')"
    # ABBA: round 1 service first, round 2 nginx first; every figure > 0
    run awk -F'\t' 'NR > 1 { if (!($3 + 0 > 0)) exit 1; printf "%s:%s ", $1, $2 }' "$D/o/nginx.tsv"
    assert_success
    assert_output "1:service 1:nginx 2:nginx 2:service "
    run grep -c '^| kvtest shortener serve --cache none --threads 2 | [0-9]' "$D/o/nginx.md"
    assert_output 1
    run grep -c '^| nginx, fixed body (worker_processes auto, [0-9]* cores) | [0-9]' "$D/o/nginx.md"
    assert_output 1
    run grep -c '^| service / nginx (per-round ratios) | [0-9.]* \[[0-9.]*, [0-9.]*\] (n<95%) |$' "$D/o/nginx.md"
    assert_output 1
    # the scratch dir (nginx's prefix) is gone and nothing runs from it
    run find "$D/tmp" -mindepth 1
    assert_output ""
    run pgrep -f "$D/tmp"
    assert_failure 1
}

@test "nginx.sh --track: a third server, the tracking service, between the two; its GETs from process memory" {
    command -v valkey-server >/dev/null || skip "no valkey-server"
    mkdir -p "$D/tmp"
    TMPDIR=$D/tmp run timeout -k 5 120 bash "$SCRIPT" --repeat 2 --duration 1 \
        --connections 4 --wrk-threads 1 --threads 2 --track --kvtest "$BIN" --out "$D/o"
    assert_success
    assert_output --regexp 'track: [1-9][0-9]* of [1-9][0-9]* GETs from process memory'
    run awk -F'\t' 'NR > 1 { if (!($3 + 0 > 0)) exit 1; printf "%s:%s ", $1, $2 }' "$D/o/nginx.tsv"
    assert_success
    assert_output "1:service 1:track 1:nginx 2:nginx 2:track 2:service "
    run grep -c '^| kvtest shortener serve --cache valkey+track --threads 2, from process memory | [0-9]' "$D/o/nginx.md"
    assert_output 1
    run grep -c '^| track / nginx (per-round ratios) | [0-9.]* \[' "$D/o/nginx.md"
    assert_output 1
    run grep -c '^| service / track (per-round ratios) | [0-9.]* \[' "$D/o/nginx.md"
    assert_output 1
    run find "$D/tmp" -mindepth 1
    assert_output ""
    run pgrep -f "$D/tmp"
    assert_failure 1
}

@test "nginx.sh: an unknown option or a bad count exits 2 with one line" {
    run bash "$SCRIPT" --bogus
    assert_failure 2
    assert_output "nginx: unknown argument '--bogus' (see --help)"
    run bash "$SCRIPT" --repeat 0
    assert_failure 2
    assert_output "nginx: not a positive whole number: 0"
    run bash "$SCRIPT" --out
    assert_failure 2
    assert_output "nginx: --out needs a value"
}

#!/usr/bin/env bash
# Run the test suites and end with one line "N passed, N failed, N skipped".
#   tests/run.sh [UNIT_TEST_BINARY ...]          (make test)
#   KVTEST_TEST_SET=servers tests/run.sh         (make test-servers)
#   KVTEST_TEST_SET=repo tests/run.sh            (make test-repo)
# Environment: KVTEST = binary under test for command-line suites
# (make test passes the AddressSanitizer + UBSan build);
# KVTEST_TEST_JOBS = how many suites run at once (default 4);
# KVTEST_TEST_SET = which suites, chosen by the folder of tests/cli/ a
# suite sits in (the table at suite_set below): "main" (default: the unit
# binaries given, and the suites of blobs/, shortener/, load/, commands/
# and source/), "servers" (servers/, and every suite's PostgreSQL run) or
# "repo" (repo/ and study/, and shellcheck: checks of the repository's
# scripts, CI, packaging, documentation and the study's scripts rather than
# of kvtest; run by CI and make test-repo);
# KVTEST_TEST_LIST=1 = print the set's jobs, one label a line in the order
# of the output, and run nothing.
# The server suites start private PostgreSQL servers with replicas, Valkey
# Clusters and trees of service processes: a third of the CPU time of all
# suites, more than make test's five minutes on two cores leave, so they
# are a step of their own (make test-servers; .ci/run runs both).
#
# Suites run side by side (each unit binary, each bats file, the PostgreSQL
# runs of the store suites and the shellcheck pass are one job each), four
# at a time on two CPUs, so that one suite's waits on servers, sleeps and
# timeouts overlap another's work (the main set as a whole is bound by CPU:
# scripts/dev/testcost.sh says on what). Every suite is independent of the others: its own scratch
# directories, free loopback ports, private servers. A suite whose
# assertions rest on timing or counts that other processes disturb (a
# line "# serial: WHY" in the .bats file) runs alone once the others have
# ended. The longest suites
# start first (their times from the last run, build/test-times-SET.tsv), so the
# run is not left waiting on one long suite at the end. Each suite's lines
# are printed when all have ended, in a fixed order, so two runs' outputs
# can be compared line by line.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
export KVTEST="${KVTEST:-./kvtest}"
KVTEST="$(cd "$(dirname "$KVTEST")" && pwd)/$(basename "$KVTEST")"
# AddressSanitizer's quarantine (the freed memory it keeps poisoned to catch
# a use after free) at 16 MiB, not 256: the blob commands free megabytes a
# second, and with the full quarantine every new buffer is a fresh page to
# fault in (a 3,000-blob random run: 0.71x the CPU, 15 paired runs, min
# 0.63, max 0.93; 12,000 page faults instead of 17,800). A use after free is
# still caught while the block is among the last 16 MiB freed.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:quarantine_size_mb=16}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
JOBS=${KVTEST_TEST_JOBS:-4}
case $JOBS in '' | *[!0-9]* | 0) echo "run.sh: KVTEST_TEST_JOBS must be a positive number" >&2; exit 2 ;; esac
SET=${KVTEST_TEST_SET:-main}
case $SET in main | servers | repo) ;; *) echo "run.sh: KVTEST_TEST_SET must be main, servers or repo" >&2; exit 2 ;; esac
TIMES=build/test-times-$SET.tsv

passed=0
failed=0
skipped=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# python3 is found once, not on every call: where PATH reaches it through a
# version manager's shim (pyenv's is a bash script that looks the version
# up each time, a third of a second a call on this machine), the suites
# call the interpreter it resolves to, the same one.
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ] &&
    [ "$py" != "$(command -v python3)" ]; then
    mkdir "$log/bin" && ln -s "$py" "$log/bin/python3" && export PATH="$log/bin:$PATH"
fi

# count NAME RC PLAN P F S [SECS]: add one suite's figures to the totals
# (SECS, its wall time, is printed after them). A suite
# that exits non-zero, prints no plan, or reports fewer tests than it
# planned fails, whatever its own pass/fail lines say: the tests it never
# ran count as failed (at least one).
count() {
    local name=$1 rc=$2 plan=$3 p=$4 f=$5 s=$6 secs=${7:-} why=""
    if [ -z "$plan" ]; then
        why="no plan (the suite died before it started)"
        [ "$f" -gt 0 ] || f=1
    elif [ $((p + f + s)) -lt "$plan" ]; then
        why="ran $((p + f + s)) of $plan planned tests"
        f=$((plan - p - s))
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        why="exited with status $rc"   # e.g. a sanitizer report at exit
        f=1
    fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    echo "$name: $p passed, $f failed, $s skipped${why:+ ($why)}${secs:+, ${secs} s}"
    [ "$f" -eq 0 ]
}

# ---------------------------------------------------------------- the jobs
# A job is a label (its line in the output), a command and a kind; job_run
# runs it with its output in $log/ID.out, its exit status in ID.rc and its
# wall time in ID.secs, where the counting below reads them.
LABELS=() KINDS=() CMDS=() SERIAL=()
add_job() {   # LABEL KIND COMMAND...
    LABELS+=("$1"); KINDS+=("$2"); SERIAL+=(0)
    local q
    printf -v q '%q ' "${@:3}"
    CMDS+=("$q")
}
job_run() {   # ID (in a subshell of its own, so that its CPU time is its own)
    local id=$1 t0=$SECONDS rc
    eval "${CMDS[$id]}" >"$log/$id.out" 2>&1
    rc=$?
    echo "$rc" >"$log/$id.rc"
    echo "$((SECONDS - t0))" >"$log/$id.secs"
    # the CPU seconds (user + system) of what the job ran: the second line
    # of times, written by this shell (in a pipe it would speak of a subshell)
    times >"$log/$id.times"
    awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } }
        END { printf "%.0f\n", t }' "$log/$id.times" >"$log/$id.cpu"
}

# cmocka unit tests. A binary is named by its path below tests/
# (build/asan/tests/measure/test_stats is "measure/test_stats", as
# tests/unit/ and mutants.txt name it).
for t in "$@"; do
    add_job "unit ${t##*/tests/}" unit "$t"
done
# Command-line and integration suites (bats, TAP output), one folder of
# tests/cli/ below: the folder decides the set (docs/developing.md says what
# goes where). A suite in tests/cli/ itself, in a folder this table does not
# name or one folder deeper is in no set: it is counted as failed in every
# set, so that no suite drops out of all of them unseen.
folder_set() {   # FOLDER: sets fset to the set of tests/cli/FOLDER/'s suites
    case $1 in
    blobs | shortener | load | commands | source) fset=main ;;
    servers) fset=servers ;;   # private PostgreSQL replicas, Valkey Clusters, process trees
    repo | study) fset=repo ;; # the tooling around kvtest; the study's scripts
    failnth) fset=step ;;      # make failnth, a step of its own (minutes), in no set
    *) fset="" ;;
    esac
}
while IFS= read -r -d '' b; do
    rel=${b#tests/cli/} folder=${rel%%/*}
    folder_set "$folder"
    why=""
    if [ "$rel" = "$folder" ]; then why="a suite sits in a folder of tests/cli/, not in tests/cli/ itself"
    elif [ "${rel#*/}" != "${rel##*/}" ]; then why="a suite sits one folder below tests/cli/, not deeper"
    elif [ -z "$fset" ]; then why="tests/run.sh gives the folder tests/cli/$folder/ no set"
    fi
    if [ -n "$why" ]; then
        add_job "cli ${rel%.bats}" stray echo "in no set: $why"
        continue
    fi
    [ "$fset" = "$SET" ] || continue
    add_job "cli ${rel%.bats}" bats bats --tap "$b"
    ! grep -q '^# serial: ' "$b" || SERIAL[-1]=1
done < <(find tests/cli -name '*.bats' -print0 | LC_ALL=C sort -z)
# The store suites again on PostgreSQL: a suite that names both stores in a
# line "# stores: sqlite postgres" runs its tests on a private PostgreSQL
# server too (KVTEST_STORE=postgres; tests/lib/common.bash), the same tests
# and assertions, counted as "cli FOLDER/NAME (postgres)"; these are server
# suites, whatever folder the suite sits in.
for b in tests/cli/*/*.bats; do
    [ "$SET" = servers ] || break
    rel=${b#tests/cli/}
    folder_set "${rel%%/*}"
    if [ -n "$fset" ] && [ -e "$b" ] && grep -q '^# stores: .*postgres' "$b"; then
        add_job "cli ${rel%.bats} (postgres)" bats env KVTEST_STORE=postgres bats --tap "$b"
        ! grep -q '^# serial: ' "$b" || SERIAL[-1]=1
    fi
done
# Every shell script passes shellcheck; the bats helpers in tests/lib are
# sourced, not run, so their dialect is given (-s bash). One job; each file
# is one test (lint_all prints "ok FILE" or "not ok FILE" and the output).
# A file that passed is not linted again while nothing shellcheck reads
# has changed: the passes are kept in build/shellcheck-ok/STATE/, STATE a
# hash of shellcheck's version and every file under scripts/, tests/lib/
# and .ci/ (any file it could source: a change to one lints them all
# again, and the other states are removed). A failure is never kept;
# without a writable build/ every file is linted.
lint_all() {
    local s state cache
    state=$( { shellcheck --version; find scripts tests/lib tests/*.sh .ci -type f -print0 | sort -z |
        xargs -0 sha256sum; } | sha256sum | cut -c1-16)
    cache=build/shellcheck-ok/$state
    if mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ]; then
        find build/shellcheck-ok -mindepth 1 -maxdepth 1 ! -name "$state" -exec rm -rf {} +
    else
        cache=""
    fi
    for s in $(find scripts -name '*.sh' | sort) tests/*.sh .ci/run; do
        [ -e "$s" ] || continue
        lint_one "$cache" -x "$s"
    done
    for s in tests/lib/*.bash tests/lib/*.sh; do
        [ -e "$s" ] || continue
        lint_one "$cache" -x -s bash "$s"
    done
}
lint_one() {   # CACHE_DIR FLAGS... FILE: "ok FILE", or "not ok FILE" and why
    local cache=$1 f=${*: -1} out mark
    shift
    mark=$cache/$(printf '%s\n' "$*" | sha256sum | cut -c1-16)
    if [ -n "$cache" ] && [ -e "$mark" ]; then echo "ok $f"; return; fi
    if out=$(shellcheck "$@" 2>&1); then
        echo "ok $f"
        [ -z "$cache" ] || : >"$mark"
    else
        echo "not ok $f"
        echo "$out"
    fi
}
[ "$SET" != repo ] || add_job "shellcheck" lint lint_all

# KVTEST_TEST_LIST=1: the jobs, in the order of their lines, and no run;
# exit 1 if a suite is in no set.
if [ "${KVTEST_TEST_LIST:-0}" = 1 ]; then
    st=0
    for i in "${!LABELS[@]}"; do
        if [ "${KINDS[$i]}" = stray ]; then
            echo "${LABELS[$i]} ($(eval "${CMDS[$i]}"))"
            st=1
        else
            echo "${LABELS[$i]}"
        fi
    done
    exit "$st"
fi

# ------------------------------------------------------------ the schedule
# Longest first, by the last run's times; a job with no time yet (a new
# suite, a fresh clone) goes first, since it may be long.
order=$(for i in "${!LABELS[@]}"; do
    secs=$(awk -F'\t' -v l="${LABELS[$i]}" '$1 == l { s = $2 } END { print s == "" ? 1e9 : s }' \
        "$TIMES" 2>/dev/null || echo 1e9)
    printf '%s\t%s\n' "$secs" "$i"
done | sort -t$'\t' -k1,1gr -k2,2n | cut -f2)
running=0
for i in $order; do
    [ "${SERIAL[$i]}" = 0 ] || continue
    if [ "$running" -ge "$JOBS" ]; then
        wait -n
        running=$((running - 1))
    fi
    job_run "$i" &
    running=$((running + 1))
done
wait
for i in $order; do
    [ "${SERIAL[$i]}" = 0 ] || (job_run "$i")
done

# ------------------------------------------------------------ the counting
for i in "${!LABELS[@]}"; do
    out="$log/$i.out" rc=$(cat "$log/$i.rc") secs=$(cat "$log/$i.secs") label=${LABELS[$i]}
    case ${KINDS[$i]} in
    unit)
        # "[==========] Running N test(s)." is the plan, then
        # "[  PASSED  ] N test(s)." / "[  FAILED  ] N test(s)..." / "[  SKIPPED ] N test(s)...".
        plan=$(sed -n 's/^\[==========\] Running \([0-9][0-9]*\) test.*/\1/p' "$out" | head -n1)
        p=$(sed -n 's/.*\[  PASSED  \] \([0-9][0-9]*\) test.*/\1/p' "$out" | tail -n1)
        f=$(sed -n 's/.*\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' "$out" | tail -n1)
        s=$(sed -n 's/.*\[  SKIPPED \] \([0-9][0-9]*\) test.*/\1/p' "$out" | tail -n1)
        count "$label" "$rc" "$plan" "${p:-0}" "${f:-0}" "${s:-0}" || cat "$out"
        # a skipped unit test prints its reason as "skip: ..." before skip()
        sed -n "s|^skip: |  ${label#unit } skipped: |p" "$out"
        ;;
    bats)
        # TAP: "1..N" is the plan
        plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$out" | head -n1)
        p=$(grep '^ok ' "$out" | grep -vc '# skip')
        s=$(grep '^ok ' "$out" | grep -c '# skip')
        f=$(grep -c '^not ok ' "$out")
        count "$label" "$rc" "$plan" "$p" "$f" "$s" "$secs" || grep -v '^ok ' "$out"
        # a skipped test, and why: "ok N NAME # skip WHY"
        sed -n "s|^ok [0-9]* \(.*\) # skip *\(.*\)$|  ${label#cli } skipped: \1: \2|p" "$out"
        ;;
    stray)
        # a suite in no set: one failure, in every set, until it is moved
        failed=$((failed + 1))
        echo "$label: 0 passed, 1 failed, 0 skipped ($(cat "$out"))"
        ;;
    lint)
        p=$(grep -c '^ok ' "$out")
        f=$(grep -c '^not ok ' "$out")
        passed=$((passed + p)); failed=$((failed + f))
        [ "$f" -eq 0 ] || grep -v '^ok ' "$out" | sed 's/^not ok /shellcheck /'
        ;;
    esac
done

# This run's times, for the next run's schedule: label, wall seconds, CPU
# seconds (what a suite costs the others running beside it).
# (Not where build/ cannot be written: a tree mounted read-only after its
# build runs its tests all the same.)
if [ -d build ] && [ -w build ]; then
    for i in "${!LABELS[@]}"; do
        printf '%s\t%s\t%s\n' "${LABELS[$i]}" "$(cat "$log/$i.secs")" "$(cat "$log/$i.cpu")"
    done >"$TIMES.tmp" && mv "$TIMES.tmp" "$TIMES"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

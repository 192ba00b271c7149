#!/usr/bin/env bash
# mutants.sh: show that the test suites catch real faults.
#   scripts/dev/mutants.sh [LIST]        (make mutants; LIST: scripts/dev/mutants.txt)
#
# Copies the tree once into a scratch directory (with build/, so SQLite and
# the unchanged objects are not recompiled), then for each fault of LIST
# ("FILE | ORIGINAL | FAULTY [| SUITES]", see that file): puts the faulty
# text in place of the original (which must occur exactly once, or the
# fault is BROKEN: neither killed nor survived), rebuilds incrementally,
# runs the named suites until the first failure, and restores the file.
# Prints "killed" or "SURVIVED" per fault, then "killed K of N" and the
# survivors. Exit status 0 only when every fault was killed. A survivor
# means a missing test. The scratch directory is removed on exit and on
# Ctrl-C/SIGTERM.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LIST=$(cd "$(dirname "${1:-$ROOT/scripts/dev/mutants.txt}")" && pwd)/$(basename "${1:-mutants.txt}")
[ -f "$LIST" ] || { echo "mutants.sh: no list at $LIST" >&2; exit 2; }
[ -f "$ROOT/build/sqlite3.o" ] || { echo "mutants.sh: build/sqlite3.o missing: run make first" >&2; exit 2; }

SCR=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-mutants.XXXXXX")
CHILD=""
cleanup() {
    # The suite under way runs in its own process group: stop it by PID.
    if [ -n "$CHILD" ]; then kill -TERM -- "-$CHILD" 2>/dev/null; wait "$CHILD" 2>/dev/null; fi
    rm -rf "$SCR"
}
trap cleanup EXIT
trap 'echo "mutants.sh: interrupted" >&2; exit 130' INT
trap 'echo "mutants.sh: terminated" >&2; exit 143' TERM

# Tracked and new files as they are in the work tree, plus build/ and the
# binaries; tar keeps modification times, so make rebuilds nothing at first.
(cd "$ROOT" && { git ls-files -co --exclude-standard; echo build; [ -e kvtest ] && echo kvtest; } |
    tar -cf - --exclude=build/fuzz -T -) | tar -C "$SCR" -xf - || { echo "mutants.sh: copy failed" >&2; exit 1; }
cd "$SCR" || exit 1
cp "$LIST" "$SCR/mutants.list"   # read from a copy: the list may be edited meanwhile
UNITS=$(find tests/unit -name 'test_*.c' | sort | sed 's|^tests/unit/|build/asan/tests/|; s|\.c$||' | tr '\n' ' ')
# build [SUITES]: both binaries and the unit tests the suites name (all of
# them without SUITES). Each unit binary links every object, so relinking
# only those a fault's suites run keeps a fault's build short; one left
# stale is relinked when a later fault names it (make sees its objects).
build() {
    local targets=$UNITS s
    if [ $# -gt 0 ]; then
        targets=""
        for s in "$@"; do
            case $s in unit:*) targets+=" build/asan/tests/${s#unit:}" ;; esac
        done
    fi
    # shellcheck disable=SC2086  # targets is a list of make targets
    make -j2 kvtest build/asan/kvtest build/ratioci $targets >"$SCR/build.log" 2>&1
}
build || { tail -n 20 "$SCR/build.log" >&2; echo "mutants.sh: the unchanged tree does not build" >&2; exit 1; }

export KVTEST="$SCR/build/asan/kvtest" KVTEST_REL="$SCR/kvtest"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# cli_suite NAME: the one tests/cli/FOLDER/NAME.bats (suites are named
# without their folder, which says which set runs them, not what they test)
cli_suite() {
    local m=(tests/cli/*/"$1".bats)
    [ "${#m[@]}" -eq 1 ] && [ -e "${m[0]}" ] && echo "${m[0]}"
}

# run_suite SPEC: 0 when the suite passes. Runs in its own process group
# (setsid) so an interruption can stop all of it by the group's id.
run_suite() {
    local spec=$1 kind name filter cmd
    kind=${spec%%:*}
    name=${spec#*:}
    filter=""
    if [ "$kind" = cli ] && [[ $name == *:* ]]; then
        filter=${name#*:}
        name=${name%%:*}
    fi
    case $kind in
        unit) cmd=("build/asan/tests/$name") ;;
        cli) local file
             file=$(cli_suite "$name") || { VOID="$spec: not one tests/cli/*/$name.bats"; return 2; }
             cmd=(bats --tap)
             [ -z "$filter" ] || cmd+=(--filter "$filter")
             cmd+=("$file") ;;
        *) echo "mutants.sh: unknown suite $spec" >&2; return 2 ;;
    esac
    setsid timeout 1200 "${cmd[@]}" >"$SCR/suite.log" 2>&1 &
    CHILD=$!
    local rc=0
    wait "$CHILD" || rc=$?
    CHILD=""
    # A suite that ran no test at all decides nothing (the filter is wrong),
    # nor one whose every test skipped (a tool or build file missing): the
    # fault is then BROKEN, whatever the exit status (VOID says why).
    if [ "$kind" = cli ] && grep -q '^1\.\.0$' "$SCR/suite.log"; then
        VOID="$spec selects no test"
    elif [ "$kind" = cli ] && ! grep -q '^\(not \)\?ok [0-9]* [^#]*$' "$SCR/suite.log"; then
        VOID="$spec skipped every test: $(grep -m1 -o '# skip.*' "$SCR/suite.log")"
    fi
    return "$rc"
}

all_suites() {
    local t
    for t in $UNITS; do printf "unit:%s " "${t#*/asan/tests/}"; done
    for t in tests/cli/*/*.bats; do t=${t##*/}; printf 'cli:%s ' "${t%.bats}"; done
}

n=0 killed=0
survivors=() broken=()
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; printf '%s' "${s%"${s##*[![:space:]]}"}"; }
while IFS= read -r line || [ -n "$line" ]; do
    case $line in ''|'#'*) continue ;; esac
    n=$((n + 1))
    rest=$line
    f=$(trim "${rest%% | *}"); rest=${rest#* | }
    orig=$(trim "${rest%% | *}"); rest=${rest#* | }
    if [[ $rest == *" | "* ]]; then
        faulty=$(trim "${rest%% | *}"); suites=$(trim "${rest#* | }")
    else
        faulty=$(trim "$rest"); suites=""
    fi
    [ -n "$suites" ] || suites=$(all_suites)
    label="$f: $orig -> $faulty"
    if [ ! -f "$f" ] || [ -z "$orig" ] || [ "$orig" = "$faulty" ]; then
        echo "[$n] BROKEN   $label (no such file, or empty or unchanged text)"
        broken+=("$label"); continue
    fi
    found=$(ORIG=$orig perl -0777 -ne 'my $o = $ENV{ORIG}; my $c = () = /\Q$o\E/g; print $c' "$f")
    if [ "$found" != 1 ]; then
        echo "[$n] BROKEN   $label (original text found $found times, not once)"
        broken+=("$label"); continue
    fi
    cp -p "$f" "$SCR/orig.bak"
    ORIG=$orig NEW=$faulty perl -0777 -pi -e 'my $o = $ENV{ORIG}; my $n = $ENV{NEW}; s/\Q$o\E/$n/' "$f"
    verdict=SURVIVED by=""
    # shellcheck disable=SC2086  # suites is a list of words
    if ! build $suites; then
        verdict=BROKEN by="(does not compile: $(grep -m1 'error' "$SCR/build.log"))"
    else
        for s in $suites; do
            VOID=""
            if ! run_suite "$s"; then verdict=killed by="(by $s)"; fi
            [ -z "$VOID" ] || { verdict=BROKEN by="($VOID)"; break; }
            [ "$verdict" != killed ] || break
        done
    fi
    # Restore with a new modification time, so the next build recompiles it.
    cat "$SCR/orig.bak" >"$f"
    touch "$f"
    case $verdict in
        killed) killed=$((killed + 1)); echo "[$n] killed   $label $by" ;;
        SURVIVED) survivors+=("$label"); echo "[$n] SURVIVED $label (suites: $suites)" ;;
        BROKEN) broken+=("$label"); echo "[$n] BROKEN   $label $by" ;;
    esac
done <"$SCR/mutants.list"

echo "killed $killed of $n"
for s in "${survivors[@]}"; do echo "survived: $s"; done
for s in "${broken[@]}"; do echo "broken: $s"; done
[ "$killed" -eq "$n" ]

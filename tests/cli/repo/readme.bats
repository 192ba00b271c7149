#!/usr/bin/env bats
# README.md is the front page and docs/*.md the topic pages. This suite
# checks that what they point at is there and that the README's tour runs:
#
# - every relative Markdown link [text](path) resolves to a file or folder
#   of the checkout, and every #anchor to a heading of the target page
#   (GitHub's rule: lower case, punctuation dropped, spaces to hyphens);
# - every repository path named in backticks outside code blocks, a word
#   that starts with docs/, results/, scripts/, src/, tests/ or .ci/,
#   exists. Rule for placeholders: the path is checked up to its first
#   component that holds *, <, [, {, $ or is an upper-case name (FILE.tsv,
#   DIR). Output paths (bench-out/..., build/...) start with none of the
#   prefixes and are not checked: they exist only after a command ran;
# - every page the README names exists: each docs/*.md is linked from the
#   README (and each link there exists), the manual pages it names have
#   their sources src/doc/NAME.scd, and the README stays a front page (at
#   most 300 lines);
# - each command of the tour (the ```sh block between <!-- tour --> and
#   <!-- /tour --> in README.md) runs, exit status 0 and a line of its
#   expected output, in a scratch directory. Rules: ./kvtest is $KVTEST;
#   counts are scaled down, 100k -> 2k and --duration 5 -> --duration 1,
#   so the tour takes seconds under ASAN; the ports 5000 (the service) and
#   6390 (Valkey) become free loopback ports; "sleep" becomes a wait until
#   both ports accept connections; a "make" line is not run (the suite
#   tests the binary in $KVTEST). Every background process the tour starts
#   is stopped by the tour's own kill, checked, and stopped by PID in
#   teardown if it is still running.
# In repo/, so make test-repo runs it: the documentation's links, paths and
# tour.

load '../../lib/common'

setup() {
    common_setup
    ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
    PAGES=("$ROOT/README.md" "$ROOT"/docs/*.md)
}

teardown() {
    local pid
    if [ -f "$D/tour/pids" ]; then
        while read -r pid; do
            kill -0 "$pid" 2>/dev/null && stop_pid "$pid" TERM 5
        done <"$D/tour/pids"
    fi
    return 0
}

# The page's text outside fenced code blocks.
prose() {
    awk '/^```/ { fence = !fence; next } !fence' "$1"
}

# The anchors of a page's headings, GitHub's way (a repeated heading gets
# -1, -2 ...).
anchors() {
    prose "$1" | sed -n 's/^#\{1,6\} \{1,\}//p' |
        sed -E 's/[A-Z]/\L&/g; s/[^a-z0-9 _-]//g; s/ /-/g' |
        awk '{ n = seen[$0]++; print (n ? $0 "-" n : $0) }'
}

# check_links PAGE: one line per broken link.
check_links() {
    local page=$1 dir target path frag
    dir=$(dirname "$page")
    prose "$page" | grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\(//; s/\)$//' |
        while read -r target; do
            case $target in http://* | https://* | mailto:*) continue ;; esac
            path=${target%%#*}
            frag=
            [[ $target == *#* ]] && frag=${target#*#}
            if [ -n "$path" ]; then
                path=$dir/$path
                [ -e "$path" ] || { echo "${page#"$ROOT"/}: link to a missing path: $target"; continue; }
            else
                path=$page
            fi
            if [ -n "$frag" ]; then
                anchors "$path" | grep -qxF -- "$frag" ||
                    echo "${page#"$ROOT"/}: no heading for the anchor: $target"
            fi
        done
}

# check_paths PAGE: one line per repository path named in backticks that
# does not exist.
check_paths() {
    local page=$1 word path part out
    prose "$page" | grep -oE '`[^`]+`' | tr -d '`' | tr ' ' '\n' |
        grep -E '^(docs|results|scripts|src|tests|\.ci)/' | sed -E 's/[,;:.)]+$//' | sort -u |
        while read -r word; do
            path=
            IFS=/ read -ra parts <<<"$word"
            for part in "${parts[@]}"; do
                if [[ $part == *[*\<\[\{\$]* || $part =~ ^[A-Z][A-Z0-9_]*(\.[a-z]+)?$ ]]; then
                    break
                fi
                path=${path:+$path/}$part
            done
            out=$ROOT/$path
            [ -e "$out" ] || echo "${page#"$ROOT"/}: no such path in the checkout: $word"
        done
}

# each_page CHECK: CHECK on README.md and every docs page, all reports.
each_page() {
    local page
    for page in "${PAGES[@]}"; do
        "$1" "$page"
    done
}

@test "readme: every relative link and #anchor in README.md and docs/*.md resolves" {
    run each_page check_links
    assert_success
    assert_output ""
    # The check sees links at all (a broken extraction would pass vacuously).
    [ "$(prose "$ROOT/README.md" | grep -cE '\]\(docs/[a-z-]+\.md\)')" -ge 7 ]
}

@test "readme: every repository path named in backticks exists" {
    run each_page check_paths
    assert_success
    assert_output ""
}

@test "readme: the link and path checks catch a broken link, anchor and path" {
    printf '# T\n\n## A heading: `x`\n\n[a](docs/gone.md) [b](#a-heading-x) [c](#nowhere) `src/no/such.c` `results/mutants-auto/FILE.tsv`\n' >"$D/p.md"
    ROOT=$D
    run check_links "$D/p.md"
    assert_output "p.md: link to a missing path: docs/gone.md
p.md: no heading for the anchor: #nowhere"
    run check_paths "$D/p.md"
    assert_output "p.md: no such path in the checkout: results/mutants-auto/FILE.tsv
p.md: no such path in the checkout: src/no/such.c"
}

@test "readme: README links every docs page, names man pages that have sources, and stays a front page" {
    local page name
    for page in "$ROOT"/docs/*.md; do
        name=docs/$(basename "$page")
        grep -qF "]($name)" "$ROOT/README.md" || fail "README.md does not link $name"
    done
    run bash -c "grep -oE '\\bkvtest(-[a-z]+)?\\([0-9]\\)' '$ROOT/README.md' | sort -u"
    assert_success
    [ "${#lines[@]}" -ge 2 ]
    for name in "${lines[@]}"; do
        name=${name/(/.}
        name=${name%)}
        [ -f "$ROOT/src/doc/$name.scd" ] || fail "README names $name, but src/doc/$name.scd is missing"
    done
    run wc -l <"$ROOT/README.md"
    [ "$output" -le 300 ] || fail "README.md has $output lines, over the front page's 300"
}

# The tour's fenced block, as in README.md.
tour_block() {
    awk '/^<!-- tour -->$/ { on = 1; next } /^<!-- \/tour -->$/ { on = 0 } on' "$ROOT/README.md" |
        sed '/^```/d'
}

# tour_script SPORT VPORT: the tour as a script by the rules above. Step N
# writes its output to out.N, its command to cmd.N and "N STATUS" to
# status; background commands append their PID to pids.
tour_script() {
    local sport=$1 vport=$2 line n=0
    echo ". '$ROOT/tests/lib/servers.bash'"
    while IFS= read -r line; do
        line=${line%%  #*}
        line=$(sed -E 's/[[:space:]]+$//' <<<"$line")
        [[ -z $line || $line == \#* || $line == make || $line == make\ * ]] && continue
        line=${line//100k/2k}
        line=${line//--duration 5/--duration 1}
        line=${line//:5000/:$sport}
        line=${line//--port 5000/--port $sport}
        line=${line//:6390/:$vport}
        line=${line//--port 6390/--port $vport}
        line=${line//.\/kvtest /\"\$KVTEST\" }
        n=$((n + 1))
        printf '%s\n' "$line" >"cmd.$n"
        if [[ $line =~ ^sleep\  ]]; then
            echo "{ wait_for_port $vport 30 && wait_for_port $sport 30; } >out.$n 2>&1; echo \"$n \$?\" >>status"
        elif [[ $line =~ ^(.*)\ \&\ ([A-Z_]+)=\$\!$ ]]; then
            echo "${BASH_REMATCH[1]} >out.$n 2>&1 & ${BASH_REMATCH[2]}=\$!; echo \$! >>pids; echo \"$n bg\" >>status"
        else
            echo "{ $line ; } >out.$n 2>&1; echo \"$n \$?\" >>status"
        fi
    done < <(tour_block)
}

# The expected output of a tour step: "FILE<TAB>REGEX", FILE being the
# step's output or the file it redirects to. Empty: the status is enough.
tour_expect() {
    case $1 in
        *'" init x1.db'*) printf 'out\t^Created x1\\.db: 2000 blobs' ;;
        *'" stat x1.db'*) printf 'out\t^Number of entries: +2000$' ;;
        *'" export x1.db x1'*) printf 'out\t^Exported 2000 blobs' ;;
        *'" run '*) printf 'out\t^Microseconds per BLOB read: [0-9.]+$' ;;
        *'" space '*) printf 'out\t^flat +2000 ' ;;
        *'" shortener init '*) printf 'out\t^Created links\\.db with 2000 links$' ;;
        *'" shortener bench '*) printf 'out\t^Median lookups/s, valkey: [0-9]+ ' ;;
        *'" shortener keys '*'> keys.txt') printf 'keys.txt\t^[A-Za-z0-9]{1,64}$' ;;
        *'" shortener load '*) printf 'out\t^Failed: 0$' ;;
        valkey-server* | *'" shortener serve '* | sleep* | kill*) ;;
        *) return 1 ;;
    esac
}

@test "readme: each command of the five-minute tour runs (100k -> 2k, free ports)" {
    command -v valkey-server >/dev/null || skip "no valkey-server"
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
    export KVTEST
    local sport vport n st cmd exp file re pid
    sport=$(free_port)
    vport=$(free_port)
    while [ "$vport" = "$sport" ]; do vport=$(free_port); done
    mkdir -p "$D/tour"
    cd "$D/tour"
    tour_script "$sport" "$vport" >tour.sh
    # The tour has the article's walk-through and the shortener's four.
    for cmd in 'init x1.db' 'export x1.db' 'run x1.db' 'run x1 ' 'shortener init' \
        'shortener serve' 'shortener bench' 'shortener load' 'kill '; do
        grep -qF -- "$cmd" tour.sh || fail "the tour has no '$cmd'"
    done
    run timeout 300 bash tour.sh
    assert_success
    [ "$(wc -l <status)" -ge 14 ] || fail "only $(wc -l <status) tour steps ran"
    while read -r n st; do
        cmd=$(cat "cmd.$n")
        if [ "$st" != bg ]; then
            [ "$st" = 0 ] || fail "tour step $n exited $st: $cmd
$(cat "out.$n")"
        fi
        exp=$(tour_expect "$cmd") || fail "tour step $n has no expected output in this suite: $cmd"
        [ -n "$exp" ] || continue
        file=${exp%%$'\t'*}
        re=${exp#*$'\t'}
        [ "$file" = out ] && file=out.$n
        grep -qE -- "$re" "$file" || fail "tour step $n: no line matching /$re/ in $file: $cmd
$(cat "$file")"
    done <status
    # The tour's kill stopped what it started: every background PID ends,
    # and the service printed its counters on the way out.
    while read -r pid; do
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        run kill -0 "$pid"
        assert_failure
    done <pids
    [ "$(wc -l <pids)" -eq 2 ]
    n=$(grep -l 'shortener serve' cmd.* | sed 's/^cmd\.//')
    run grep -E '^Cache: hits [0-9]+' "out.$n"
    assert_success
}

#!/usr/bin/env bats
# stderr is set by bats' run --separate-stderr (SC2154).
# shellcheck disable=SC2154
# Bash completion (src/doc/kvtest.bash) driven as bash drives it: the real
# bash-completion package and our script sourced in a fresh bash, the binary
# under test first in PATH as "kvtest", COMP_WORDS/COMP_CWORD/COMP_LINE/
# COMP_POINT set and _kvtest called; COMPREPLY is what Tab would offer.
# And the tie between the option tables and the help: every option the
# binary lists from its tables ("kvtest __options CMD") is in its help, so a
# table row added without help text fails here.

load '../../lib/common'

setup_file() {
    : "${KVTEST:?KVTEST must name the binary under test}"
    [ -f /usr/share/bash-completion/bash_completion ] ||
        skip "bash-completion is not installed (scripts/deps.sh)"
    export S="$BATS_FILE_TMPDIR"
    mkdir -p "$S/bin"
    ln -s "$KVTEST" "$S/bin/kvtest"
    export COMPLETION="$BATS_TEST_DIRNAME/../../../src/doc/kvtest.bash"
    # complete LINE: COMPREPLY for the cursor at the end of LINE, one word
    # a line, sorted. A trailing space starts a new, empty word.
    cat >"$S/complete.bash" <<'EOF'
source /usr/share/bash-completion/bash_completion
source "$COMPLETION"
PATH="$S/bin:$PATH"
COMP_LINE=$1
COMP_POINT=${#COMP_LINE}
read -ra COMP_WORDS <<<"$COMP_LINE"
[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMPREPLY=()
_kvtest kvtest "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort
EOF
}

setup() {
    common_setup
}

# The words Tab offers after LINE, space-separated and sorted, in $output;
# stderr in $stderr (completion must never print there).
complete_line() {
    run --separate-stderr bash "$S/complete.bash" "$1"
    assert_success
    output=$(tr '\n' ' ' <<<"$output" | sed 's/ $//')
}

@test "the commands, and after help the commands it explains" {
    complete_line "kvtest "
    assert_output "--version compare export help history init run shortener space stat sweep"
    complete_line "kvtest s"
    assert_output "shortener space stat sweep"
    complete_line "kvtest help "
    assert_output "compare export history init run shortener space stat sweep"
}

@test "the shortener's subcommands" {
    complete_line "kvtest shortener "
    assert_output "bench init keys load load-merge serve"
    complete_line "kvtest shortener l"
    assert_output "load load-merge"
    complete_line "kvtest shortener load-merge a.json --l"
    assert_output "--latency-spectrum"
}

@test "options of each command, from its table" {
    complete_line "kvtest run --j"
    assert_output "--jmode --json"
    complete_line "kvtest run x.db --jmode wal --sy"
    assert_output "--synchronous"
    complete_line "kvtest shortener load http://127.0.0.1:1 --sc"
    assert_output "--scenario"
    complete_line "kvtest stat --"
    assert_output "--csv --json --vacuum"
}

@test "an enum's choices, also after = and after a single dash" {
    complete_line "kvtest run x.db --jmode "
    assert_output "delete memory off persist truncate wal"
    complete_line "kvtest run x.db --jmode=t"
    assert_output "truncate"
    complete_line "kvtest run x.db -synchronous "
    assert_output "extra full normal off"
    complete_line "kvtest run x.db --fadvise "
    assert_output "normal random"
    complete_line "kvtest init x.db --method "   # hidden: not offered
    assert_output ""
    complete_line "kvtest shortener load URL --scenario "
    assert_output "get shortener"
    complete_line "kvtest shortener init l.db --schema "
    assert_output "covering seed"
    complete_line "kvtest shortener serve l.db --sqlite-cache "
    assert_output "off on"
}

@test "--cache: the URL schemes" {
    complete_line "kvtest shortener serve l.db --cache v"
    assert_output "valkey+track:// valkey-cluster+track:// valkey-cluster:// valkey://"
    complete_line "kvtest shortener bench l.db --cache "
    assert_output "none redis:// valkey+track:// valkey-cluster+track:// valkey-cluster:// valkey://"
    complete_line "kvtest shortener bench l.db --cache valkey-c"
    assert_output "valkey-cluster+track:// valkey-cluster://"
}

@test "files where a path goes: positional arguments and path options" {
    mkdir "$D/w" "$D/w/photos"
    touch "$D/w/a.db" "$D/w/keys.txt"
    cd "$D/w"
    complete_line "kvtest run "
    assert_output "a.db keys.txt photos"
    complete_line "kvtest export a.db p"
    assert_output "photos"
    complete_line "kvtest init x.db --from p"
    assert_output "photos"
    complete_line "kvtest shortener load URL --keys k"
    assert_output "keys.txt"
    complete_line "kvtest shortener bench l.db --compare-db a"
    assert_output "a.db"
    complete_line "kvtest compare a"
    assert_output "a.db"
}

@test "unknown context: no suggestions, and nothing on stderr" {
    mkdir "$D/w" && touch "$D/w/a.db" && cd "$D/w"
    for line in "kvtest bogus " "kvtest bogus --" "kvtest shortener bogus --" \
                "kvtest shortener load " "kvtest run x.db --count " "kvtest run --nope " \
                "kvtest run --nope=" "kvtest --version " "kvtest help run " \
                "kvtest shortener serve l.db --port " "kvtest shortener serve l.db --bind "; do
        complete_line "$line"
        assert_output ""
        assert_equal "$stderr" ""
    done
}

@test "__options lists a table and does nothing else: exit 0, no stderr, no file" {
    mkdir "$D/w" && cd "$D/w"
    for cmd in init stat export run space sweep compare "shortener init" "shortener keys" \
               "shortener serve" "shortener bench" "shortener load" "shortener load-merge"; do
        # shellcheck disable=SC2086
        run --separate-stderr timeout 20 "$KVTEST" __options $cmd
        assert_success
        assert_equal "$stderr" ""
        assert_line --index 0 --regexp '^--[a-z][a-z-]* (flag|int|double|str|path|enum( [^ ]+)+)$'
        refute_line --regexp '^[^-]'
    done
    run ls -A
    assert_output ""
    run --separate-stderr "$KVTEST" __options bogus
    assert_failure 2
    assert_output ""
}

@test "kvtest help is unchanged by the hidden listing command" {
    run "$KVTEST" help
    assert_success
    refute_output --partial "__options"
    run "$KVTEST" __options
    assert_success
    assert_line "run command"
    assert_line "shortener command"
}

# The tie: a row in a table (what completion offers, what the parser takes)
# without a line in the help fails here, naming the command and option.
@test "every option in a command's table is in its help" {
    local cmd sub opt helptext n=0
    for cmd in $("$KVTEST" __options | awk '$2 == "command" && $1 != "help" {print $1}'); do
        local -a scopes=("$cmd")
        if "$KVTEST" __options "$cmd" | grep -q ' command$'; then
            scopes=()
            for sub in $("$KVTEST" __options "$cmd" | awk '{print $1}'); do
                scopes+=("$cmd $sub")
            done
        fi
        local scope
        for scope in "${scopes[@]}"; do
            # shellcheck disable=SC2086
            # a newline each side, so the option may start or end a line
            helptext=$'\n'$("$KVTEST" $scope --help)$'\n'
            # shellcheck disable=SC2086
            for opt in $("$KVTEST" __options $scope | awk '{print $1}'); do
                n=$((n + 1))
                # the option as a whole word (a match in bash, not a grep
                # per option: there are over a hundred)
                [[ $helptext =~ [^a-z-]"$opt"[^a-z-] ]] ||
                    fail "kvtest $scope: $opt is in the option table but not in the help"
            done
        done
    done
    [ "$n" -gt 100 ] || fail "only $n options checked"
}

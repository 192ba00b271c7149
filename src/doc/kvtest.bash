# bash completion for kvtest                                  -*- shell-script -*-
#
# Installed by make install as .../bash-completion/completions/kvtest; in a
# checkout: source src/doc/kvtest.bash (and complete -F _kvtest ./kvtest).
#
# Nothing here lists an option: every word comes from the binary itself.
# "kvtest __options" prints the commands, "kvtest __options CMD [SUB]" the
# rows of the option table CMD really parses with ("--jmode enum delete ...",
# "--keys path", "--count int"), so a new option, or a new choice of an enum,
# completes without an edit here. What the tables do not say is written
# below: the --cache URL schemes, and that shortener load's positional
# argument is a URL while every other command's is a file or directory.
# Unknown context (an unknown command, a number's value): no suggestions,
# and never a word on stderr.

# COMPREPLY: the words of $1 that begin with $cur.
_kvtest_reply()
{
    mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}

_kvtest()
{
    local cur prev words cword split
    _init_completion -s -n : || return

    local bin=${1:-kvtest}
    # What "kvtest __options ARGS" lists; nothing (and no stderr) on failure.
    local -a scope=()
    local table
    if ((cword == 1)); then
        table=$("$bin" __options 2>/dev/null) || return
        _kvtest_reply "$(awk '{print $1}' <<<"$table")"
        return
    fi
    case ${words[1]} in
        help)
            ((cword == 2)) || return
            table=$("$bin" __options 2>/dev/null) || return
            _kvtest_reply "$(awk '$2 == "command" && $1 != "help" {print $1}' \
                <<<"$table")"
            return
            ;;
        -*) return ;;
    esac
    scope=("${words[1]}")
    table=$("$bin" __options "${scope[@]}" 2>/dev/null) || return
    # A dispatcher (shortener) lists subcommands: complete one, or descend.
    if grep -q ' command$' <<<"$table"; then
        if ((cword == 2)); then
            _kvtest_reply "$(awk '$2 == "command" {print $1}' <<<"$table")"
            return
        fi
        scope+=("${words[2]}")
        table=$("$bin" __options "${scope[@]}" 2>/dev/null) || return
    fi

    # The value of an option: its type says what fits. -opt is --opt too.
    if [[ $prev == -?* && $prev != -- ]]; then
        local opt=${prev#-} row
        opt=--${opt#-}
        row=$(awk -v o="$opt" '$1 == o' <<<"$table")
        if [[ $row ]]; then
            local name type
            read -r name type _ <<<"$row"
            case $type in
                flag) ;;   # takes no value: complete as if after it
                enum)
                    _kvtest_reply "$(cut -d' ' -f3- <<<"$row")"
                    return
                    ;;
                path)
                    _filedir
                    return
                    ;;
                str)
                    if [[ $name == --cache ]]; then
                        _kvtest_reply "none valkey:// valkey+track:// valkey-cluster:// valkey-cluster+track:// redis://"
                        [[ ${COMPREPLY[*]} == *// ]] && compopt -o nospace 2>/dev/null
                        __ltrim_colon_completions "$cur"
                    fi
                    return
                    ;;
                *) return ;;   # a number: nothing to offer
            esac
        else
            return   # an option we do not know (a hidden one): its value neither
        fi
    fi
    $split && return

    if [[ $cur == -* ]]; then
        _kvtest_reply "$(awk '$1 ~ /^--/ {print $1}' <<<"$table")"
        return
    fi
    # A positional argument: a URL for shortener load, otherwise a DBFILE,
    # DIR or PATH (compare's OLD and NEW and load-merge's FILEs are result
    # files).
    [[ ${scope[*]} == "shortener load" ]] && return
    _filedir
} &&
    complete -F _kvtest kvtest

# ex: filetype=sh

# shellcheck shell=bash
# layers.bash: check a source tree's #include "..." lines against the map in
# its src/README.md (the table whose rows read
# | `FOLDER/` | what it owns | `A/`, `B/`, `sqlite3.h` |).
# A file may include from its own folder, from the folders its row (the
# longest FOLDER/ that is a prefix of its folder) names, and nothing else.
#   layers_check ROOT   prints one line per include the map does not allow
#                       ("src/x/y.c: includes "z/w.h" (x/ may include: ...)"),
#                       a line for a folder of code with no row, and one for a
#                       row naming no folder; exit 1 if any.

layers_rules() {   # ROOT -> lines "FOLDER<TAB>ALLOWED..." from the table
    # shellcheck disable=SC2016  # the backquotes are the table's, not a command
    sed -n 's/^| *`\([a-z_/]*\)\/` *|[^|]*| *\(.*\) *|$/\1\t\2/p' "$1/src/README.md" |
        sed 's/`//g; s/,/ /g; s/(nothing)//'
}

layers_check() {
    local root=$1 rules bad=0 f dir inc idir rule allowed ok a names
    rules=$(layers_rules "$root")
    [ -n "$rules" ] || { echo "layers: no map rows in $root/src/README.md"; return 1; }
    while IFS=$'\t' read -r dir _; do
        [ -d "$root/src/$dir" ] || { echo "src/README.md: row $dir/ names no folder"; bad=1; }
    done <<<"$rules"
    while IFS= read -r f; do
        dir=${f#"$root"/src/}; dir=${dir%/*}
        [ "$dir" != "${f#"$root"/src/}" ] || dir=.
        # the longest rule whose folder is this folder or one above it
        rule=$(awk -F'\t' -v d="$dir" '
            { if (d == $1 || index(d, $1 "/") == 1) if (length($1) > best) { best = length($1); r = $0 } }
            END { if (best) print r }' <<<"$rules")
        if [ -z "$rule" ]; then
            echo "src/$dir/: no row in src/README.md"; bad=1; continue
        fi
        allowed=${rule#*$'\t'}
        read -r -a names <<<"$allowed"
        allowed="${names[*]}"   # one space between names
        while IFS= read -r inc; do
            case $inc in */*) idir=${inc%/*} ;; *) idir=. ;; esac
            ok=0
            [ "$idir" = "$dir" ] && ok=1
            for a in $allowed; do
                a=${a%/}
                if [ "$a" = "$inc" ] || [ "$a" = "$idir" ] || [[ $idir == "$a"/* ]]; then ok=1; fi
            done
            if [ $ok = 0 ]; then
                echo "${f#"$root"/}: includes \"$inc\" (${rule%%$'\t'*}/ may include: ${allowed:-nothing})"
                bad=1
            fi
        done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
    done < <(find "$root/src" -name '*.[ch]' | sort)
    return $bad
}

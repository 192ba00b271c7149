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
    local root=$1 rules bad=0 dir out
    rules=$(layers_rules "$root")
    [ -n "$rules" ] || { echo "layers: no map rows in $root/src/README.md"; return 1; }
    while IFS=$'\t' read -r dir _; do
        [ -d "$root/src/$dir" ] || { echo "src/README.md: row $dir/ names no folder"; bad=1; }
    done <<<"$rules"
    # One awk over every file (a few hundred of them): a process or two per
    # file made this check take seconds.
    out=$(find "$root/src" -name '*.[ch]' | sort | awk -v root="$root" -v rules="$rules" '
        BEGIN {
            n = split(rules, rows, "\n")
            for (i = 1; i <= n; i++) {
                split(rows[i], f, "\t")
                folder[i] = f[1]
                m = split(f[2], names, /[ \t]+/)
                allowed[i] = ""
                for (k = 1; k <= m; k++) if (names[k] != "") allowed[i] = allowed[i] (allowed[i] == "" ? "" : " ") names[k]
            }
        }
        {   # a file name a line; its includes read below (an empty file too)
            file = $0
            rel = substr(file, length(root) + 2)           # src/x/y.c
            dir = substr(rel, 5)
            if (index(dir, "/")) sub(/\/[^\/]*$/, "", dir); else dir = "."
            # the longest row whose folder is this folder or one above it
            rule = 0; best = 0
            for (i = 1; i <= n; i++)
                if ((dir == folder[i] || index(dir, folder[i] "/") == 1) && length(folder[i]) > best) {
                    best = length(folder[i]); rule = i
                }
            if (!rule) {
                if (!(dir in norow)) print "src/" dir "/: no row in src/README.md"
                norow[dir] = 1
                next
            }
            while ((getline line < file) > 0) {
                if (line !~ /^#include "/) continue
                check(line)
            }
            close(file)
        }
        function check(line,    inc, idir, ok, m, k, a, names) {
            inc = line; sub(/^#include "/, "", inc); sub(/".*/, "", inc)
            idir = inc; if (index(idir, "/")) sub(/\/[^\/]*$/, "", idir); else idir = "."
            ok = (idir == dir)
            m = split(allowed[rule], names, " ")
            for (k = 1; k <= m; k++) {
                a = names[k]; sub(/\/$/, "", a)
                if (a == inc || a == idir || index(idir, a "/") == 1) ok = 1
            }
            if (!ok) {
                printf "%s: includes \"%s\" (%s/ may include: %s)\n", rel, inc, folder[rule],
                    (allowed[rule] == "" ? "nothing" : allowed[rule])
            }
        }')
    [ -z "$out" ] || { echo "$out"; bad=1; }
    return $bad
}

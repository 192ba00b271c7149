#!/usr/bin/env bats
# make install / make uninstall (PREFIX, DESTDIR) and make deb: the exact
# files installed and removed, the package's fields and contents, lintian,
# and the walk-through run from the package unpacked in a scratch root.
# Runs make in this worktree (make test-repo has built ./kvtest already; make
# man builds the pages). make deb is run once per suite (setup_file).
# In repo/, so make test-repo runs it: the packaging and install rules, not
# kvtest itself.

load '../../lib/common'

REPO=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)

setup_file() {
    local repo
    repo=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
    # Its status is kept, not returned: a failed make deb fails the tests
    # that need the package (with its log), not the whole file.
    local st=0
    make -s -C "$repo" deb >"$BATS_FILE_TMPDIR/deb.log" 2>&1 || st=$?
    echo "$st" >"$BATS_FILE_TMPDIR/deb.status"
}

setup() {
    D="$BATS_TEST_TMPDIR"
}

# What make install writes below PREFIX, one path a line, sorted.
installed_list() {
    printf '%s\n' bin/kvtest share/bash-completion/completions/kvtest \
        share/doc/kvtest/README.md share/man/man1/kvtest-shortener.1 \
        share/man/man1/kvtest.1
}

# The package make deb built (its path from make deb's log); fails the test
# with that log if make deb failed.
deb_path() {
    if [ "$(cat "$BATS_FILE_TMPDIR/deb.status")" != 0 ]; then
        cat "$BATS_FILE_TMPDIR/deb.log"
        return 1
    fi
    DEB=$(sed -n 's/^deb.sh: wrote //p' "$BATS_FILE_TMPDIR/deb.log")
    DEB="$REPO/$DEB"
    [ -f "$DEB" ] || { echo "no package: $DEB"; return 1; }
}

@test "install: PREFIX and DESTDIR, exactly the binary, both man pages, completion, README" {
    run make -s -C "$REPO" install DESTDIR="$D/stage" PREFIX=/opt/kv
    assert_success
    run bash -c 'cd "$1/opt/kv" && find . -type f -o -type l | sed "s|^\./||" | sort' _ "$D/stage"
    assert_output "$(installed_list)"
    run find "$D/stage" -mindepth 1 -maxdepth 1
    assert_output "$D/stage/opt"
    run stat -c '%a %n' "$D/stage/opt/kv/bin/kvtest" "$D/stage/opt/kv/share/man/man1/kvtest.1" \
        "$D/stage/opt/kv/share/doc/kvtest/README.md" "$D/stage/opt/kv/share/bash-completion/completions/kvtest"
    assert_output "755 $D/stage/opt/kv/bin/kvtest
644 $D/stage/opt/kv/share/man/man1/kvtest.1
644 $D/stage/opt/kv/share/doc/kvtest/README.md
644 $D/stage/opt/kv/share/bash-completion/completions/kvtest"
    cmp "$REPO/build/man/kvtest-shortener.1" "$D/stage/opt/kv/share/man/man1/kvtest-shortener.1"
    cmp "$REPO/src/doc/kvtest.bash" "$D/stage/opt/kv/share/bash-completion/completions/kvtest"
    run "$D/stage/opt/kv/bin/kvtest" --version
    assert_success
    assert_line --index 0 --regexp '^kvtest [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "install: PREFIX defaults to /usr/local" {
    run make -s -C "$REPO" install DESTDIR="$D/stage"
    assert_success
    run bash -c 'cd "$1/usr/local" && find . -type f | sed "s|^\./||" | sort' _ "$D/stage"
    assert_output "$(installed_list)"
}

@test "uninstall: removes exactly what install wrote, and leaves what is not ours" {
    make -s -C "$REPO" install DESTDIR="$D/stage" PREFIX=/usr
    # Someone else's files in the shared directories, and in ours.
    echo other >"$D/stage/usr/bin/other"
    echo other >"$D/stage/usr/share/man/man1/other.1"
    run make -s -C "$REPO" uninstall DESTDIR="$D/stage" PREFIX=/usr
    assert_success
    run bash -c 'cd "$1" && find . -type f -o -type l | sort' _ "$D/stage"
    assert_output "./usr/bin/other
./usr/share/man/man1/other.1"
    # Our doc directory goes once it is empty; shared ones stay.
    [ ! -e "$D/stage/usr/share/doc/kvtest" ]
    [ -d "$D/stage/usr/share/doc" ]
    # Uninstalling again (nothing there) is not an error.
    run make -s -C "$REPO" uninstall DESTDIR="$D/stage" PREFIX=/usr
    assert_success
}

@test "make deb: builds the package and lintian reports no errors" {
    deb_path
    run cat "$BATS_FILE_TMPDIR/deb.log"
    assert_line "deb.sh: lintian: no errors"
    refute_line --regexp '^E: '
    run dpkg-deb --info "$DEB"
    assert_success
}

@test "make deb: fields: version, architecture, library packages, those opened on demand recommended, Valkey suggested" {
    deb_path
    run dpkg-deb -f "$DEB" Package Version Architecture Suggests Section Priority
    assert_output "Package: kvtest
Version: $("$REPO/kvtest" --version | sed -n '1s/^kvtest //p')
Architecture: $(dpkg --print-architecture)
Suggests: valkey-server
Section: utils
Priority: optional"
    run dpkg-deb -f "$DEB" Depends
    # Debian 12's packages of the libraries the binary links (a Debian
    # version may hold letters, + and ~: libh2o-evloop0.13's is 2.2.5+dfsg2).
    for p in libc6 libhiredis0.14 libh2o-evloop0.13 libhttp-parser2.9 libcjson1; do
        assert_output --regexp "(^|, )$p \(>= [0-9][0-9A-Za-z.+~-]*\)(,|$)"
    done
    refute_output --regexp 'librocksdb|libpq'
    # the libraries opened only when their store is used: recommended
    run dpkg-deb -f "$DEB" Recommends
    for p in 'librocksdb[0-9.]+' libpq5; do
        assert_output --regexp "(^|, )$p \(>= [0-9][0-9A-Za-z.+~-]*\)(,|$)"
    done
}

@test "make deb: contents: stripped binary, gzipped man pages, copyright, changelog, root-owned" {
    deb_path
    run bash -c 'dpkg-deb -c "$1" | awk "{print \$1, \$2, \$6}"' _ "$DEB"
    assert_output "drwxr-xr-x root/root ./
drwxr-xr-x root/root ./usr/
drwxr-xr-x root/root ./usr/bin/
-rwxr-xr-x root/root ./usr/bin/kvtest
drwxr-xr-x root/root ./usr/share/
drwxr-xr-x root/root ./usr/share/bash-completion/
drwxr-xr-x root/root ./usr/share/bash-completion/completions/
-rw-r--r-- root/root ./usr/share/bash-completion/completions/kvtest
drwxr-xr-x root/root ./usr/share/doc/
drwxr-xr-x root/root ./usr/share/doc/kvtest/
-rw-r--r-- root/root ./usr/share/doc/kvtest/README.md
-rw-r--r-- root/root ./usr/share/doc/kvtest/changelog.gz
-rw-r--r-- root/root ./usr/share/doc/kvtest/copyright
drwxr-xr-x root/root ./usr/share/man/
drwxr-xr-x root/root ./usr/share/man/man1/
-rw-r--r-- root/root ./usr/share/man/man1/kvtest-shortener.1.gz
-rw-r--r-- root/root ./usr/share/man/man1/kvtest.1.gz"
    dpkg-deb -x "$DEB" "$D/root"
    # Stripped: no symbol table, no debug sections.
    run readelf -S -W "$D/root/usr/bin/kvtest"
    assert_success
    assert_output --partial ".dynsym"
    refute_output --partial ".symtab"
    refute_output --partial ".debug_"
    run bash -c 'gzip -dc "$1" | cmp - "$2"' _ "$D/root/usr/share/man/man1/kvtest.1.gz" "$REPO/build/man/kvtest.1"
    assert_success
}

@test "deb.sh: refuses a version the package changelog has no entry for (exit 2, one line)" {
    mkdir -p "$D/root/usr/bin"
    printf '#!/bin/sh\n' >"$D/root/usr/bin/kvtest"
    chmod 755 "$D/root/usr/bin/kvtest"
    run bash "$REPO/scripts/pkg/deb.sh" "$D/root" 99.0.0 "$D/out"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    assert_output --regexp "^deb.sh: scripts/pkg/changelog's latest entry is .*, not 99.0.0"
    [ ! -e "$D/out" ]
}

@test "package: the walk-through runs from the unpacked package (binary, man page, completion)" {
    deb_path
    dpkg-deb -x "$DEB" "$D/root"
    K="$D/root/usr/bin/kvtest"
    cd "$D"
    run "$K" init x.db --count 2000 --size 10k --variance 2k
    assert_success
    run "$K" stat x.db
    assert_line "Number of entries:      2000"
    run "$K" export x.db x
    assert_success
    run "$K" export x.db xt --tree
    assert_success
    run "$K" run x.db --count 2000 --random --blob-api --verify
    assert_success
    assert_output --partial "Microseconds per BLOB read:"
    run "$K" run xt --count 2000 --random --verify
    assert_success
    run "$K" shortener init links.db --links 500 --seed 7
    assert_success
    run "$K" shortener keys links.db --limit 7
    assert_success
    [ "${#lines[@]}" -eq 7 ]
    # man finds both pages through the unpacked tree's man directory.
    run env MANPATH="$D/root/usr/share/man" man -w kvtest kvtest-shortener
    assert_output "$D/root/usr/share/man/man1/kvtest.1.gz
$D/root/usr/share/man/man1/kvtest-shortener.1.gz"
    # The completion file defines a completion for kvtest.
    run bash -c 'bc=/usr/share/bash-completion/bash_completion
                 if [ -f "$bc" ]; then source "$bc"; fi
                 source "$1" && complete -p kvtest' _ \
        "$D/root/usr/share/bash-completion/completions/kvtest"
    assert_success
}

@test "licence: LICENSE is MIT, the package's copyright grants the same text; the version has its entries" {
    run head -n1 "$REPO/LICENSE"
    assert_output "MIT License"
    # The grant, from "Permission" to the end, word for word in both.
    lic=$(sed -n '/^Permission/,$p' "$REPO/LICENSE" | tr -s ' \n' ' ')
    cop=$(awk '/^License: Expat/ { on = 1; next } on && /^[^ ]/ { on = 0 } on' "$REPO/scripts/pkg/copyright" |
          sed 's/^ //; s/^\.$//' | tr -s ' \n' ' ')
    assert_equal "$cop" "$lic"
    run grep -c '^License: not stated' "$REPO/scripts/pkg/copyright"
    assert_output 0
    # The version the binary reports: in CHANGELOG.md, the package's
    # changelog (its latest entry) and CITATION.cff.
    v=$("$KVTEST_REL" --version | sed -n 's/^kvtest //p')
    [ -n "$v" ] || fail "no version in kvtest --version"
    run grep -c "^## $v — " "$REPO/CHANGELOG.md"
    assert_output 1
    run sed -n '1s/^kvtest (\([^)]*\)).*/\1/p' "$REPO/scripts/pkg/changelog"
    assert_output "$v"
    run grep -c "^version: \"$v\"$" "$REPO/CITATION.cff"
    assert_output 1
    run grep -c '^license: MIT$' "$REPO/CITATION.cff"
    assert_output 1
    # The commit it names is the one the reference run in results/ measured.
    run sed -n 's/^commit: "\(.*\)"$/\1/p' "$REPO/CITATION.cff"
    assert_output "$(awk -F'\t' '$1 == "commit" { print $2 }' "$REPO/results/raw/bench.tsv")"
}

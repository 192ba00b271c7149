#!/usr/bin/env bats
# The manual pages kvtest(1) and kvtest-shortener(1) (src/doc/*.scd, built
# by make into build/man/): both format without a warning, and the help
# texts and the pages cannot drift apart: every --option a command's help
# prints must be in the right page, and every option the help defines (a
# line that starts with it) must be an entry of that command's own section
# (.SS).
# In repo/, so make test-repo runs it: the manual pages against the help
# texts.

load '../../lib/common'

setup_file() {
    ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
    export ROOT
    # The pages of the sources as they are now (make test builds them
    # already; a suite run on its own must not check stale pages).
    make -s -C "$ROOT" man >/dev/null
}

setup() {
    common_setup
    PAGE1="$ROOT/build/man/kvtest.1"
    PAGE2="$ROOT/build/man/kvtest-shortener.1"
}

# The text of a page's roff without font changes and escapes, so that
# "\fB--count\fR" reads "--count".
page_text() {
    sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\&//g' "$1"
}

# Section NAME of a page: from ".SS NAME" to the next .SS or .SH.
page_section() {
    page_text "$1" | awk -v name="$2" '
        /^\.S[SH] / { on = ($1 == ".SS" && substr($0, 5) == name); next }
        on'
}

# The terms a section defines: scdoc writes an entry "*--opt* _N_" +
# indented text as the term's line followed by ".RS", so an option only
# mentioned in passing (in another option's text) is not a term.
section_terms() {
    awk '/^\.RS/ && prev != "" { print prev } { prev = $0 }'
}

# Every --option anywhere in the help text on stdin, one per line.
help_all_options() {
    grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

# The options the help text on stdin defines: lines that start (after
# their indentation) with --option, read up to the description column
# (two spaces), so "--asc | --desc | --random   access order" gives three.
help_defined_options() {
    sed -nE 's/^[[:space:]]+(--[a-z][^ ]*( [^ ][^ ]*)*).*/\1/p' |
        grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

# missing_in TEXTFILE: the options (stdin) that TEXTFILE does not name as
# a whole word ("--cold" is not found in "--cold-start").
missing_in() {
    local opt
    while read -r opt; do
        grep -qE -- "(^|[^a-z0-9-])${opt}([^a-z0-9-]|\$)" "$1" || echo "$opt"
    done
}

# check_command PAGE SECTION HELPCMD...: run the help command; its options
# must all be in PAGE and those it defines entries of PAGE's SECTION. Prints what
# is missing (nothing when all is well).
check_command() {
    local page=$1 section=$2
    shift 2
    local help
    help=$("$KVTEST" "$@") || { echo "help failed: kvtest $*"; return 1; }
    [ -n "$help" ] || { echo "no help: kvtest $*"; return 1; }
    page_text "$page" >"$D/page.txt"
    page_section "$page" "$section" | section_terms >"$D/section.txt"
    [ -s "$D/section.txt" ] || { echo "no entries in section .SS $section of $page"; return 1; }
    printf '%s\n' "$help" | help_all_options | missing_in "$D/page.txt" |
        sed "s|^|not in $(basename "$page"): |"
    printf '%s\n' "$help" | help_defined_options | missing_in "$D/section.txt" |
        sed "s|^|no entry in section $section of $(basename "$page"): |"
}

# Lint: mandoc's own errors, groff's warnings (all of them), and mandoc's
# warnings except one kind scdoc writes into every page and its source
# cannot avoid: the paragraph macro (.P) it emits after every heading and
# every blank line, which mandoc reports as "skipping paragraph macro".
lint_page() {
    mandoc -T lint -W error "$1"
    mandoc -T lint -W warning "$1" | grep -v ': WARNING: skipping paragraph macro: PP ' || true
    LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$1" 2>&1 >/dev/null
}

@test "manpages: make man builds both pages from their scdoc sources" {
    assert [ -s "$PAGE1" ]
    assert [ -s "$PAGE2" ]
    for s in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" FILES ENVIRONMENT EXAMPLES "SEE ALSO"; do
        run grep -qx ".SH $s" "$PAGE1"
        assert_success
    done
    for s in NAME SYNOPSIS COMMANDS "REST API" "CACHE URLS" "EXIT STATUS" EXAMPLES "SEE ALSO"; do
        run grep -qx ".SH $s" "$PAGE2"
        assert_success
    done
}

@test "manpages: kvtest(1) formats without an error or warning (mandoc, groff)" {
    run lint_page "$PAGE1"
    assert_success
    assert_output ""
}

@test "manpages: kvtest-shortener(1) formats without an error or warning (mandoc, groff)" {
    run lint_page "$PAGE2"
    assert_success
    assert_output ""
}

@test "manpages: the lint sees a roff error and a groff warning" {
    # A broken copy of a real page: an unknown macro and a bad font.
    { cat "$PAGE1"; printf '.foo\n\\fXbad\n'; } >"$D/bad.1"
    run lint_page "$D/bad.1"
    assert_output --partial 'ERROR: skipping unknown macro: .foo'
    assert_output --partial "warning: macro 'foo' not defined"
}

@test "manpages: the option check sees an option missing from a page" {
    # The real help of run plus one option the page does not have.
    printf '#!/bin/sh\n"%s" "$@"\necho "  --no-such-option   made up"\n' "$KVTEST" >"$D/fake"
    chmod +x "$D/fake"
    KVTEST="$D/fake" run check_command "$PAGE1" run help run
    assert_output "not in kvtest.1: --no-such-option
no entry in section run of kvtest.1: --no-such-option"
}

@test "manpages: kvtest help lists nothing kvtest(1) lacks" {
    run check_command "$PAGE1" --version help
    assert_success
    assert_output ""
}

@test "manpages: every option of each blob command is in its section of kvtest(1)" {
    for cmd in init stat export run space sweep compare; do
        run check_command "$PAGE1" "$cmd" help "$cmd"
        assert_success
        assert_output ""
    done
}

@test "manpages: kvtest help shortener lists nothing kvtest-shortener(1) lacks" {
    # Its one-line summaries define no option of their own: each
    # subcommand's --help is checked against its section below.
    run check_command "$PAGE2" init help shortener
    assert_success
    assert_output ""
}

@test "manpages: every option of each shortener subcommand is in its section of kvtest-shortener(1)" {
    for cmd in init keys serve bench load load-merge; do
        run check_command "$PAGE2" "$cmd" shortener "$cmd" --help
        assert_success
        assert_output ""
    done
}

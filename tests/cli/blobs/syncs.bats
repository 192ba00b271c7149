#!/usr/bin/env bats
# What --nosync, --multitrans, --synchronous and --fsync really do to the
# disk: the sync system calls (fsync, fdatasync, msync, sync_file_range,
# syncfs, sync) that kvtest run --update, init and export make on each
# store, counted with strace and set against kvtest(1): one transaction
# synced at the end by default, every write synced with --multitrans, no
# sync of the writes with --nosync; files: one fsync per file written with
# --fsync; reads never sync. Counts are bounds derived from the number of
# writes (never times), so a sync dropped or multiplied is seen, whatever
# the engine does besides. strace counts one process tree: no "# serial:".
# The release binary runs (KVTEST_REL): LeakSanitizer does not work under
# ptrace.

# $o holds options, split into words on purpose (SC2086).
# shellcheck disable=SC2086

load '../../lib/common'

# Writes per traced run; what a run syncs besides them (an open's, a mode
# switch's, a checkpoint's) is far less.
W=40

setup_file() {
    : "${KVTEST:?KVTEST must name the binary under test}"
    export S="$BATS_FILE_TMPDIR"
    # absolute: the traced runs may start anywhere
    BIN=$(realpath "${KVTEST_REL:-$KVTEST}")
    export BIN
    # 120 blobs of 2..4 KB; the writes go to keys 1..W.
    "$BIN" init "$S/x.db" --count 120 --size 3000 --variance 1000 >/dev/null
    "$BIN" export "$S/x.db" "$S/flat" >/dev/null
    "$BIN" export "$S/x.db" "$S/tree" --tree >/dev/null
    if "$BIN" --version | grep -q '^Stores:.* lmdb [0-9]'; then
        "$BIN" export "$S/x.db" "lmdb:$S/l" >/dev/null
    fi
    if "$BIN" --version | grep -q '^Stores:.* rocksdb [0-9]'; then
        "$BIN" export "$S/x.db" "rocksdb:$S/r" >/dev/null
    fi
}

setup() {
    common_setup
    command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh installs it)"
    strace -f -qq -o /dev/null true 2>"$D/strace.err" ||
        skip "strace cannot trace here: $(head -n1 "$D/strace.err")"
    # the paths strace names, symbolic links resolved
    R=$(realpath "$D")
}

# ---- helpers -------------------------------------------------------------

# need STORE: skip unless this build has the store (lmdb, rocksdb).
need() {
    [ -e "$S/${1:0:1}" ] || skip "this build has no $1 ($("$BIN" --version | grep '^Stores:'))"
}

# The sync calls counted (as strace names them).
SYNC_CALLS='f(data)?sync|msync|sync_file_range2?|syncfs|sync'

# traced NAME ARGS...: kvtest ARGS must succeed under strace (every thread
# and child followed); every sync call it made, one line "CALL PATH" each,
# in $D/NAME.syncs (PATH: the file or directory synced, absolute; empty
# for sync), and every sync and rename, in order, in $D/NAME.trace. A
# sync_file_range with flags 0 syncs nothing (RocksDB asks so whether the
# call works) and is not counted.
traced() {
    local name=$1
    shift
    echo "kvtest $*" >"$D/$name.cmd"
    run strace -f -qq -y -e signal=none -o "$D/$name.trace" -e trace="/^($SYNC_CALLS|rename|renameat2?)\$" \
        env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$BIN" "$@"
    [ "$status" -eq 0 ] || fail "kvtest $*: status $status under strace: $output"
    grep -Ev '^[0-9]+ +sync_file_range2?\(.*, 0, 0, 0( <unfinished|\))' "$D/$name.trace" |
        sed -nE "s/^[0-9]+ +($SYNC_CALLS)\\(([0-9]+<([^>]*)>)?.*/\\1 \\4/p" >"$D/$name.syncs"
}

# count NAME [ERE]: how many syncs of run NAME were on a path matching ERE
# (default: all of them).
count() {
    RE=${2:-.} awk '{ p = $0; sub(/^[^ ]+ ?/, "", p) } p ~ ENVIRON["RE"] { n++ } END { print n + 0 }' \
        "$D/$1.syncs"
}

# syncs NAME MIN MAX [ERE]: run NAME made MIN..MAX syncs (on paths matching
# ERE); otherwise fail, naming the command and listing its syncs.
syncs() {
    local n
    n=$(count "$1" "${4:-.}")
    [ "$n" -ge "$2" ] && [ "$n" -le "$3" ] && return 0
    fail "$(cat "$D/$1.cmd"): $n syncs${4:+ of paths matching $4}, wanted $2..$3; they were:
$(sed "s|$R/||" "$D/$1.syncs" | sort | uniq -c)"
}

# order NAME ERE...: in run NAME's trace, a line matching each ERE, in this
# order (each after the one before).
order() {
    local name=$1
    shift
    PATS=$(printf '%s\n' "$@") awk 'BEGIN { n = split(ENVIRON["PATS"], p, "\n"); i = 1 }
        i <= n && $0 ~ p[i] { i++ } END { exit !(i > n) }' "$D/$name.trace" ||
        fail "$(cat "$D/$name.cmd"): not in this order: $*; the trace:
$(cat "$D/$name.trace")"
}

# ---- SQLite ----------------------------------------------------------------

@test "database --update: one transaction synced at its end; --multitrans: each write; --nosync: none" {
    for o in "" --multitrans --nosync "--nosync --multitrans" "--jmode wal --nosync --multitrans"; do
        rm -f "$D"/c.db*
        cp "$S/x.db" "$D/c.db"
        traced "db${o// /}" run "$D/c.db" --update --count "$W" $o
    done
    # the default journal (delete): the database synced at the commit, a
    # handful of syncs in all (journal, database, directory)
    syncs db 1 5
    syncs db 1 2 '/c\.db$'
    # a transaction per write: each commit syncs the database file
    syncs db--multitrans "$W" $((5 * W)) '/c\.db$'
    # PRAGMA synchronous=OFF: not one sync, one transaction or W, WAL too
    syncs db--nosync 0 0
    syncs db--nosync--multitrans 0 0
    syncs db--jmodewal--nosync--multitrans 0 0
}

@test "database --update --synchronous: off none; WAL mode: normal at the checkpoint, full each commit" {
    for o in "--synchronous off" "--jmode wal --synchronous normal" "--jmode wal --synchronous full"; do
        rm -f "$D"/c.db*
        cp "$S/x.db" "$D/c.db"
        traced "${o//[ -]/}" run "$D/c.db" --update --count "$W" --multitrans $o
    done
    syncs synchronousoff 0 0
    # W commits: the WAL synced at none of them (its checkpoint at close,
    # and the switch to WAL mode, sync a few times), or at each
    syncs jmodewalsynchronousnormal 1 8
    syncs jmodewalsynchronousnormal 0 2 '/c\.db-wal$'
    syncs jmodewalsynchronousfull "$W" $((2 * W)) '/c\.db-wal$'
}

# --blob-api is left out: its handle, reopened from key to key (as in
# SQLite's kvtest), holds one transaction open for the whole run, so
# --multitrans makes no transaction per write there (4 syncs for 40 writes).

# ---- files -----------------------------------------------------------------

@test "files --update: no sync; --fsync: one fsync per file written, on it; --nosync, --multitrans: same" {
    cp -a "$S/flat" "$S/tree" "$D/"
    traced flat run "$D/flat" --update --count "$W"
    traced flat-all run "$D/flat" --update --count "$W" --fsync --nosync --multitrans
    syncs flat 0 0
    syncs flat-all "$W" "$W"
    for t in flat tree; do
        traced "$t-fsync" run "$D/$t" --update --count "$W" --fsync
        syncs "$t-fsync" "$W" "$W"
        # an fsync of each of the W files written (keys 1..W), once
        if [ "$t" = flat ]; then
            want=$(for k in $(seq "$W"); do printf 'fsync %s/flat/%06d\n' "$R" "$k"; done)
        else
            want=$(for k in $(seq "$W"); do
                printf 'fsync %s/tree/%02d/%02d/%02d\n' "$R" $((k / 10000)) $((k / 100 % 100)) $((k % 100))
            done)
        fi
        run sort "$D/$t-fsync.syncs"
        assert_output "$(sort <<<"$want")"
    done
}

# ---- LMDB ------------------------------------------------------------------

@test "lmdb --update: one sync at the end of each run; --multitrans: one per write; --nosync: none" {
    need lmdb
    for o in "" --multitrans --nosync "--nosync --multitrans" --fsync "--repeat 3"; do
        rm -rf "$D/l"
        cp -a "$S/l" "$D/l"
        traced "l${o// /}" run "lmdb:$D/l" --update --count "$W" $o
    done
    syncs l 1 3
    syncs l 1 3 '/l/data\.mdb$'
    # each write its own transaction, committed and synced
    syncs l--multitrans "$W" $((3 * W)) '/l/data\.mdb$'
    # MDB_NOSYNC: nothing at all
    syncs l--nosync 0 0
    syncs l--nosync--multitrans 0 0
    # --fsync is ignored
    syncs l--fsync 1 3
    # three runs of W writes: one transaction, one sync, each
    syncs l--repeat3 3 9
}

# ---- RocksDB ---------------------------------------------------------------

@test "rocksdb --update: the WAL synced once at the end of a run; --multitrans: each write; --nosync: none" {
    need rocksdb
    for o in "" --multitrans --nosync "--nosync --multitrans" "--repeat 3"; do
        rm -rf "$D/r"
        cp -a "$S/r" "$D/r"
        traced "r${o// /}" run "rocksdb:$D/r" --update --count "$W" $o
    done
    wal='/r/[0-9]+\.log$'
    syncs r 1 3 "$wal"
    # WriteOptions sync: each write syncs the WAL
    syncs r--multitrans "$W" $((3 * W)) "$wal"
    syncs r--nosync 0 0 "$wal"
    syncs r--nosync--multitrans 0 0 "$wal"
    # each run opens the database again: a new WAL each, synced once
    syncs r--repeat3 3 9 "$wal"
    # Besides the WAL, an open for writing syncs the MANIFEST, CURRENT,
    # OPTIONS and the directory: a few, never one per write.
    syncs r 1 8
    syncs r--multitrans "$W" $((W + 8))
    syncs r--nosync 0 8
    syncs r--nosync--multitrans 0 8
}

# ---- reads -----------------------------------------------------------------

@test "reads sync nothing, in any store, --multitrans and --fsync or not" {
    stores=("$S/x.db" "$S/flat" "$S/tree")
    [ ! -e "$S/l" ] || stores+=("lmdb:$S/l")
    [ ! -e "$S/r" ] || stores+=("rocksdb:$S/r")
    for p in "${stores[@]}"; do
        traced read run "$p" --count "$W"
        syncs read 0 0
        traced read run "$p" --count "$W" --random --multitrans --fsync
        syncs read 0 0
    done
}

# ---- init and export -------------------------------------------------------

@test "init: the new database synced once before its rename into place, then its directory; no more" {
    traced init init "$D/y.db" --count 200 --size 3000
    syncs init 2 2
    syncs init 1 1 '/y\.db\.kvtest-tmp-[^/]*$'
    syncs init 1 1 "^$R\$"
    order init '^[0-9]+ +fsync\([0-9]+<.*/y\.db\.kvtest-tmp-' \
        '^[0-9]+ +rename(at2?)?\(.*y\.db\.kvtest-tmp-.*"[^"]*/y\.db"' "^[0-9]+ +fsync\\([0-9]+<$R>\\)"
    # over an earlier one: the same
    traced init2 init "$D/y.db" --count 200 --size 3000 --seed 2
    syncs init2 2 2
}

@test "export: lmdb synced once at the end, before it is put in place; rocksdb: SSTs synced, never a WAL" {
    [ -e "$S/l" ] || [ -e "$S/r" ] || skip "this build has neither lmdb nor rocksdb"
    if [ -e "$S/l" ]; then
        traced el export "$S/x.db" "lmdb:$D/el"
        syncs el 1 1
        syncs el 1 1 '/el\.kvtest-tmp-[^/]*/data\.mdb$'
        order el '^[0-9]+ +fdatasync\(.*/el\.kvtest-tmp-[^/]*/data\.mdb>' \
            '^[0-9]+ +rename(at2?)?\(.*"[^"]*/el"\)'
    fi
    if [ -e "$S/r" ]; then
        # written without its WAL, flushed and compacted at the end
        traced er export "$S/x.db" "rocksdb:$D/er"
        syncs er 0 0 '\.log$'
        syncs er 1 4 '/er\.kvtest-tmp-[^/]*/[0-9]+\.sst$'
        order er '^[0-9]+ +fdatasync\(.*/er\.kvtest-tmp-[^/]*/[0-9]+\.sst>' \
            '^[0-9]+ +rename(at2?)?\(.*"[^"]*/er"\)'
    fi
}

# shellcheck shell=bash disable=SC2034  # variables here are used by the scripts that source it
# lib.sh: helpers shared by the experiment scripts (scripts/study/) and the
# CI performance check (scripts/ci/ci-perf.sh). Sourced, never run.
#
# What it gives a script: one-line errors, progress on stderr, a check for
# required tools, an output directory that is never clobbered by accident,
# a log of every command run (so the report can print the exact command
# behind each figure), JSON Lines capture of "kvtest ... --json" output
# tagged with the experiment it belongs to, a private valkey-server, and a
# cleanup trap that stops every process the script started, by PID.

KV_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)   # scripts/study
KV_ROOT=$(cd "$KV_SCRIPTS/../.." && pwd)
KV_PROG=$(basename "$0" .sh)
KV_RMDIRS=()
OUT=${OUT:-}

die() { printf '%s: %s\n' "$KV_PROG" "$*" >&2; exit 1; }
usage_die() { printf '%s: %s\n' "$KV_PROG" "$*" >&2; exit 2; }
say() { printf '[%s] %s: %s\n' "$(date -u +%H:%M:%S)" "$KV_PROG" "$*" >&2; }

# kv_common_flag ARG: the flags every experiment script takes (--force,
# --keep, --no-report, --help); 1 when ARG is not one of them.
kv_common_flag() {
    case $1 in
        --force) FORCE=1 ;;
        --keep) KEEP=1 ;;
        --no-report) REPORT=0 ;;
        -h|--help) usage 0 ;;
        *) return 1 ;;
    esac
}

# need_tools TOOL... : fail with one line naming every missing tool.
need_tools() {
    local missing=() t
    for t in "$@"; do
        command -v "$t" >/dev/null 2>&1 || missing+=("$t")
    done
    [ ${#missing[@]} -eq 0 ] ||
        die "missing tools: ${missing[*]} (install them with: sudo bash scripts/deps.sh)"
}

# The kvtest binary: --kvtest PATH, $KVTEST, or ./kvtest at the repo root.
kv_find_kvtest() {
    local k=${1:-${KVTEST:-$KV_ROOT/kvtest}}
    [ -x "$k" ] || die "no kvtest binary at $k (build it with: make)"
    KVTEST=$(cd "$(dirname "$k")" && pwd)/$(basename "$k")
    export KVTEST
}

# kv_provenance: what $KVTEST says it was built from (kvtest --version's
# "Commit:" line, src/measure/provenance.h): KV_COMMIT (a hash, or
# "unknown") and KV_BUILT ("clean", "changes" or "unknown"); and the
# checkout the scripts run from: KV_HEAD (its commit, "" outside git) and
# KV_TREE ("clean", "changes" or "" outside git).
kv_provenance() {
    local line
    line=$("$KVTEST" --version 2>/dev/null | sed -n 's/^Commit: //p')
    KV_COMMIT=${line%% *}
    KV_COMMIT=${KV_COMMIT:-unknown}
    case $line in
        *"with changes"*) KV_BUILT=changes ;;
        *unknown*|"") KV_BUILT=unknown ;;
        *) KV_BUILT=clean ;;
    esac
    KV_HEAD=$(git -C "$KV_ROOT" rev-parse --verify -q HEAD 2>/dev/null || true)
    KV_TREE=""
    if [ -n "$KV_HEAD" ]; then
        if [ -n "$(git -C "$KV_ROOT" status --porcelain 2>/dev/null | head -1)" ]; then
            KV_TREE=changes
        else
            KV_TREE=clean
        fi
    fi
}

# kv_reference_check: a reference run is of one commit: the scripts' tree
# clean, and the binary built from that same commit with no changes. Dies
# (status 2) naming what differs; nothing to check outside a git checkout.
kv_reference_check() {
    kv_provenance
    [ -n "$KV_HEAD" ] || return 0
    local why=""
    if [ "$KV_TREE" != clean ]; then
        why="the tree has uncommitted changes ($(git -C "$KV_ROOT" status --porcelain | wc -l) paths)"
    elif [ "$KV_BUILT" != clean ]; then
        why="$KVTEST was built from a tree with changes (or one of unknown state)"
    elif [ "$KV_COMMIT" != "$KV_HEAD" ]; then
        why="$KVTEST was built from ${KV_COMMIT:0:12}, the tree is at ${KV_HEAD:0:12} (run make)"
    fi
    [ -z "$why" ] || usage_die "a reference run must be of one commit, and $why: commit and rebuild, or pass --allow-dirty (make bench ALLOW_DIRTY=1)"
}

# kv_has_opt "run" "--cold": does the help text of a subcommand mention an
# option? Lets the scripts use features as they land and say what they skip.
kv_has_opt() {
    local cmd=$1 opt=$2
    # Not grep -q: it stops reading at the first match, and kvtest, still
    # writing a help longer than a pipe's buffer, dies of SIGPIPE, which
    # pipefail turns into "no such option" (seen with serve's help).
    # shellcheck disable=SC2086  # cmd may be "shortener bench"
    "$KVTEST" $cmd --help 2>/dev/null | grep -- "$opt" >/dev/null
}

# ---------------------------------------------------------------- cleanup
# Free port, private valkey-server, the service, stop by PID: one copy,
# shared with the integration tests.
# shellcheck source=tests/lib/servers.bash
source "$KV_ROOT/tests/lib/servers.bash"
kv_track_pid() { SERVERS_PIDS+=("$1"); }
kv_track_dir() { KV_RMDIRS+=("$1"); }
# kv_reuse_sqlite COMMIT DIR: DIR holds COMMIT's sources (git archive); when
# its sqlite3.c, sqlite3.h and SQLite flags are this checkout's, copy our
# build/sqlite3.o into DIR/build so that make does not spend a minute on
# the amalgamation again. 0 when reused, 1 when DIR must compile it.
kv_reuse_sqlite() {
    local c=$1 dir=$2 f
    for f in sqlite3.c sqlite3.h; do
        [ "$(git -C "$KV_ROOT" hash-object "$KV_ROOT/$f")" = "$(git -C "$KV_ROOT" rev-parse "$c:$f" 2>/dev/null)" ] || return 1
    done
    [ "$(grep -A1 '^SQLITE_FLAGS' "$KV_ROOT/Makefile")" = "$(grep -A1 '^SQLITE_FLAGS' "$dir/Makefile" 2>/dev/null)" ] || return 1
    [ -f "$KV_ROOT/build/sqlite3.o" ] || return 1
    mkdir -p "$dir/build"
    cp "$KV_ROOT/build/sqlite3.o" "$dir/build/sqlite3.o"
    touch "$dir/build/sqlite3.o"
}
# kv_tls_scratch NAME: a scratch directory WORK for a TLS study (removed at
# exit; SERVERS_DIR too), with a CA and a certificate for 127.0.0.1 and
# localhost made by openssl as the tests make them (tests/lib/tls.bash);
# CA: the CA's PEM.
kv_tls_scratch() {
    # shellcheck source=tests/lib/tls.bash
    source "$KV_ROOT/tests/lib/tls.bash"
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvtest-$1.XXXXXX")
    kv_track_dir "$WORK"
    export SERVERS_DIR=$WORK
    make_test_certs "$WORK/certs" || die "openssl could not make the certificates"
    CA=$WORK/certs/ca.pem
}
# kv_abba ROUND ITEM...: the items one a line, in their order on odd
# rounds and reversed on even ones (ABBA: a drift over a round falls on
# every item alike).
kv_abba() {
    local r=$1
    shift
    if [ $((r % 2)) -eq 1 ]; then printf '%s\n' "$@"; else printf '%s\n' "$@" | tac; fi
}
kv_cleanup() {
    local rc=$? p d
    trap - EXIT
    for p in "${SERVERS_PIDS[@]}"; do stop_pid "$p"; done
    for d in "${KV_RMDIRS[@]}"; do rm -rf -- "$d"; done
    exit "$rc"
}
trap kv_cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM

# ------------------------------------------------------------- output dir
# kv_prepare_out DIR FORCE: use DIR for results. An existing non-empty DIR
# is refused unless FORCE=1 (then only the files this script writes are
# replaced; nothing else in DIR is touched).
kv_prepare_out() {
    local dir=$1 force=$2
    if [ -e "$dir" ] && [ ! -d "$dir" ]; then
        die "$dir exists and is not a directory"
    fi
    if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && [ "$force" != 1 ]; then
        die "$dir exists and is not empty; pass --force to write into it, or --out NEWDIR"
    fi
    mkdir -p "$dir"/raw "$dir"/csv "$dir"/charts "$dir"/logs "$dir"/env
    OUT=$(cd "$dir" && pwd)
    export OUT
}

# kv_part_start NAME: a part run into a shared results directory (after
# kv_prepare_out): only this part's files are replaced (--force), its
# csv/NAME*, logs/NAME-*, raw/NAME* and its NAME- lines of commands.tsv and
# logs/timings.tsv; the environment is captured if no part has yet, and
# SCR is the part's scratch directory (kv_scratch NAME).
kv_part_start() {
    local f
    rm -f "$OUT"/csv/"$1"* "$OUT"/logs/"$1"-* "$OUT"/raw/"$1"*
    for f in "$OUT/commands.tsv" "$OUT/logs/timings.tsv"; do
        [ ! -e "$f" ] || sed -i "/^$1-/d" "$f"
    done
    [ -s "$OUT/env/environment.txt" ] || kv_env_capture
    kv_scratch "$1"
}

# kv_scratch NAME: sets SCR to a new scratch directory under $OUT/scratch,
# removed on exit unless KEEP=1. Databases and exports live there, never in
# the results. (Not a $(...) function: the cleanup list must be this shell's.)
kv_scratch() {
    mkdir -p "$OUT/scratch"
    SCR=$(mktemp -d "$OUT/scratch/$1.XXXXXX")
    [ "${KEEP:-0}" = 1 ] || kv_track_dir "$SCR"
}

# kv_mask (mask.sh): passwords out of a command line or a message.
# shellcheck source=scripts/study/mask.sh
source "$KV_SCRIPTS/mask.sh"

# ------------------------------------------------------------ command log
# The command as a user would type it: the repo's binary shows as ./kvtest
# and paths under the output directory as relative ones.
kv_show_cmd() {
    local s
    s=$(printf '%q ' "$@" | kv_mask)
    s=${s% }
    s=${s//"$KVTEST"/./kvtest}
    [ -z "$OUT" ] || s=${s//"$OUT"\//\$OUT/}
    s=${s//"$KV_ROOT"\//}
    printf '%s\n' "$s"
}

# kv_run TAG STDOUT_FILE CMD...: run CMD, log "TAG<TAB>command" in
# $OUT/commands.tsv, append its stdout to STDOUT_FILE, its stderr to
# $OUT/logs/stderr.log. On failure print the tail of stderr and return 1.
kv_run() {
    local tag=$1 outf=$2 rc=0 errf
    shift 2
    printf '%s\t%s\n' "$tag" "$(kv_show_cmd "$@")" >>"$OUT/commands.tsv"
    errf=$(mktemp "$OUT/logs/.err.XXXXXX")
    if [ "${KV_PROGRESS:-0}" = 1 ] && [ -t 2 ]; then
        # A long step on a terminal: let kvtest draw its progress line.
        "$@" >>"$outf" || rc=$?
    else
        "$@" >>"$outf" 2>"$errf" || rc=$?
    fi
    { printf '== %s\n' "$(kv_show_cmd "$@")"; cat "$errf"; } >>"$OUT/logs/stderr.log"
    if [ "$rc" -ne 0 ]; then
        say "command failed (exit $rc): $(kv_show_cmd "$@")"
        tail -n 5 "$errf" | sed 's/^/    /' >&2
    fi
    rm -f "$errf"
    return "$rc"
}

# kv_json TAG META RAWFILE CMD...: run CMD (which prints JSON objects, one
# per line), add {"bench": META} to each and append them to RAWFILE.
# Non-JSON lines are kept in $OUT/logs/TAG.txt.
kv_json() {
    local tag=$1 meta=$2 raw=$3 tmp rc=0
    shift 3
    tmp=$(mktemp "$OUT/logs/.json.XXXXXX")
    kv_run "$tag" "$tmp" "$@" || rc=$?
    if [ "$rc" -eq 0 ]; then
        jq -cR --argjson m "$meta" 'fromjson? | objects | . + {bench: $m}' "$tmp" >>"$raw"
        jq -R 'select((fromjson? | objects) == null)' -r "$tmp" >>"$OUT/logs/$tag.txt"
    fi
    rm -f "$tmp"
    return "$rc"
}

# kv_part_report SCRIPT "$@": the start of a part's report script
# (report-storetier.sh, report-capacity.sh): MODE is section, or headline
# or findings after --headline / --findings; --help prints SCRIPT's header;
# then OUT and C as kv_results_dir sets them.
kv_part_report() {
    local self=$1
    shift
    MODE=section
    case ${1:-} in
        --headline|--findings) MODE=${1#--}; shift ;;
        -h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    esac
    need_tools jq awk
    kv_results_dir "$@"
}

# kv_results_dir "$@": the one argument of tables.sh, plot.sh and report.sh,
# an existing results directory; sets OUT (absolute) and C (its csv/).
kv_results_dir() {
    [ $# -eq 1 ] || usage_die "usage: $KV_PROG.sh OUTDIR"
    [ -d "$1" ] || die "no such directory: $1"
    OUT=$(cd "$1" && pwd)
    C=$OUT/csv
}
# ------------------------------------------------------------- intervals
# The report's 95% intervals come from build/ratioci (scripts/tools/
# ratioci.c, built by make; KV_RATIOCI names another copy): a seeded
# bootstrap over paired rounds is no job for jq or awk.
kv_find_ratioci() {
    KV_RATIOCI=${KV_RATIOCI:-$KV_ROOT/build/ratioci}
    [ -x "$KV_RATIOCI" ] || die "no $KV_RATIOCI (build it with: make build/ratioci)"
}

# kv_ci_table: stdin lines "KEY<TAB>NUM<TAB>DEN", one per paired round, or
# "KEY<TAB>VALUE", one per round, keys in any order; stdout one JSON object
# {KEY: {est, lo, hi, n, covered}}: the median ratio NUM/DEN of each paired
# key, the median of each single-valued one, and its 95% interval. A key
# ratioci refuses (a zero, a missing figure) is left out and named on stderr.
kv_ci_table() {
    local tmp key mode i=0 r
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/kvci.XXXXXX")
    awk -F'\t' -v d="$tmp" 'NF >= 2 && $1 != "" {
            if (!($1 in id)) { id[$1] = ++n; print $1 "\t" (NF >= 3 ? "" : "--median") > (d "/keys") }
            f = d "/" id[$1]
            if (NF >= 3) print $2, $3 > f; else print $2 > f
        }'
    touch "$tmp/keys"
    while IFS=$'\t' read -r key mode; do
        i=$((i + 1))
        # shellcheck disable=SC2086  # mode is empty or --median
        if r=$("$KV_RATIOCI" $mode <"$tmp/$i" 2>"$tmp/err"); then
            printf '%s\t%s\n' "$key" "$r"
        else
            say "no interval for $key: $(cat "$tmp/err")"
        fi
    done <"$tmp/keys" | jq -Rn '[inputs | split("\t") | .[1] |= (split(" ") | map(tonumber))
        | {key: .[0], value: {est: .[1][0], lo: .[1][1], hi: .[1][2], n: .[1][3],
                              covered: (.[1][4] == 1)}}] | from_entries'
    rm -rf "$tmp"
}

# kv_envl KEY: one value from OUT/env/environment.txt (empty if absent).
kv_envl() { sed -n "s/^$1: //p" "$OUT/env/environment.txt" 2>/dev/null | head -n1 || true; }

# kv_report OUT: CSV tables, charts and REPORT.md from the raw results in OUT.
kv_report() {
    bash "$KV_SCRIPTS/tables.sh" "$1"
    bash "$KV_SCRIPTS/plot.sh" "$1"
    bash "$KV_SCRIPTS/report.sh" "$1"
    say "report: $1/REPORT.md"
}

# Elapsed wall time of a shell step, in seconds with milliseconds.
kv_now() { date +%s.%N; }
kv_since() { awk -v a="$1" -v b="$(kv_now)" 'BEGIN { printf "%.3f", b - a }'; }

# -------------------------------------------------------------- networking
# kv_serve_start TAG LOG DB ARGS...: "kvtest shortener serve DB ARGS" on a
# free port (start_service), logged in commands.tsv under TAG; its output is
# appended to LOG by kv_serve_stop. Sets SERVICE_PORT, SERVICE_PID, SERVICE_URL.
kv_serve_start() {
    local tag=$1 log=$2 db=$3
    shift 3
    SERVERS_DIR=$OUT/logs
    KV_SERVE_LOG=$log
    if ! start_service "$db" "$@" 2>>"$log"; then
        say "kvtest shortener serve did not start (see $log)"
        return 1
    fi
    printf '%s\t%s\n' "$tag" "$(kv_show_cmd "$KVTEST" shortener serve "$db" \
        --port "$SERVICE_PORT" "$@")" >>"$OUT/commands.tsv"
}
kv_serve_stop() {
    stop_service TERM
    cat "$SERVICE_OUT" "$SERVICE_ERR" >>"$KV_SERVE_LOG" 2>/dev/null || true
    rm -f "$SERVICE_OUT" "$SERVICE_ERR"
}

# kv_nginx_id DB URL: ID and BODY of the first of DB's first 20 links whose
# body (GET URL/link/ID) nginx can return verbatim: inside a quoted nginx
# string "$" starts a variable and has no escape.
kv_nginx_id() {
    local id b ids
    mapfile -t ids < <("$KVTEST" shortener keys "$1" | head -n 20)
    for id in "${ids[@]}"; do
        b=$(curl -fsS --max-time 5 "$2/link/$id") || die "GET /link/$id failed"
        case $b in *'$'*) continue ;; esac
        ID=$id BODY=$b
        return 0
    done
    die "no link among the first 20 whose body nginx can return"
}

# kv_nginx_start DIR URLPATH CTYPE BODY [CERT KEY]: nginx returning BODY with
# Content-Type CTYPE for GET URLPATH from its own configuration (no file,
# no upstream: the HTTP ceiling of the machine), with its prefix, config,
# logs and temp paths in DIR (Debian's compiled-in ones are under /var and
# /run and need root), on a free loopback port, tracked for kv_cleanup.
# Sets NGINX_PORT, NGINX_PID, NGINX_URL and checks that the body comes
# back verbatim. BODY must hold no "$": inside a quoted nginx string it
# starts a variable and has no escape. With CERT and KEY (PEM files) it
# also listens for https, HTTP/2 offered by ALPN, on a second free port:
# NGINX_TLS_PORT, NGINX_TLS_URL (curl checks it against CURL_CA_BUNDLE).
kv_nginx_start() {
    local ngx=$1 urlpath=$2 ctype=$3 body=$4 cert=${5:-} key=${6:-} qbody tls=""
    case $body in *'$'*) die "nginx cannot return a body holding \$ verbatim" ;; esac
    mkdir -p "$ngx/logs" "$ngx/tmp"
    NGINX_PORT=$(free_port) || die "no free port for nginx"
    if [ -n "$cert" ]; then
        NGINX_TLS_PORT=$(free_port) || die "no free port for nginx's https"
        tls="listen 127.0.0.1:$NGINX_TLS_PORT ssl http2;
        ssl_certificate $cert;
        ssl_certificate_key $key;"
    fi
    qbody=${body//\\/\\\\}
    qbody=${qbody//\'/\\\'}
    cat >"$ngx/nginx.conf" <<EOF
daemon off;
worker_processes auto;
pid $ngx/nginx.pid;
error_log $ngx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 100000000;
    keepalive_timeout 60s;
    client_body_temp_path $ngx/tmp/body;
    proxy_temp_path $ngx/tmp/proxy;
    fastcgi_temp_path $ngx/tmp/fastcgi;
    uwsgi_temp_path $ngx/tmp/uwsgi;
    scgi_temp_path $ngx/tmp/scgi;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        $tls
        location = $urlpath {
            default_type $ctype;
            return 200 '$qbody';
        }
    }
}
EOF
    nginx -p "$ngx" -c "$ngx/nginx.conf" -t >"$ngx/logs/check.log" 2>&1 ||
        die "nginx refused the configuration: $(tail -n 1 "$ngx/logs/check.log")"
    nginx -p "$ngx" -c "$ngx/nginx.conf" >>"$ngx/logs/error.log" 2>&1 3>&- &
    NGINX_PID=$!
    kv_track_pid "$NGINX_PID"
    NGINX_URL=http://127.0.0.1:$NGINX_PORT
    wait_http "$NGINX_URL$urlpath" "$NGINX_PID" ||
        die "nginx did not start: $(tail -n 2 "$ngx/logs/error.log")"
    [ "$(curl -fsS "$NGINX_URL$urlpath")" = "$body" ] || die "nginx's body differs from the server's"
    [ -z "$cert" ] || {
        NGINX_TLS_URL=https://127.0.0.1:$NGINX_TLS_PORT
        [ "$(curl -fsS "$NGINX_TLS_URL$urlpath")" = "$body" ] ||
            die "nginx's body over https differs (curl verifies against CURL_CA_BUNDLE)"
    }
}

# ------------------------------------------------------------- environment
# kv_env_capture: what the figures were measured on, as text and JSON.
kv_env_capture() {
    local txt=$OUT/env/environment.txt fs cpu
    fs=$(findmnt -n -o FSTYPE -T "$OUT" 2>/dev/null || echo unknown)
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
    {
        echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "kvtest: $("$KVTEST" --version 2>/dev/null | tr '\n' ' ')"
        echo "git: $(git -C "$KV_ROOT" rev-parse --short HEAD 2>/dev/null || echo none)$(git -C "$KV_ROOT" diff --quiet HEAD 2>/dev/null || echo ' (uncommitted changes)')"
        echo "kernel: $(uname -srm)"
        echo "os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
        echo "cpu: ${cpu:-unknown} x $(nproc)"
        echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
        echo "filesystem of output dir: $fs ($(findmnt -n -o SOURCE,OPTIONS -T "$OUT" 2>/dev/null | head -n1))"
        echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "valkey-server: $({ valkey-server --version 2>/dev/null || echo none; } | head -n1)"
        echo "wrk: $({ wrk -v 2>&1 || true; } | head -n1)"
        echo "gnuplot: $(gnuplot --version 2>/dev/null || echo none)"
        echo "jq: $(jq --version 2>/dev/null)"
    } >"$txt"
    jq -Rn '[inputs | capture("^(?<key>[^:]+): (?<value>.*)$")] | from_entries' \
        <"$txt" >"$OUT/env/environment.json"
}

# ------------------------------------------------------------- jq helpers
# Shared jq definitions: median over an array, and the normalisation of one
# "kvtest run --json" object into the flat record every CSV is built from.
# Only this function knows kvtest's JSON field names.
KV_JQ_DEFS='
def median: map(select(. != null)) | sort |
  if length == 0 then null
  elif length % 2 == 1 then .[(length - 1) / 2]
  else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def num: if type == "number" then . elif type == "string" then (tonumber? // null) else null end;
def r3: if . == null then null else (. * 1000 | round) / 1000 end;
'

# kv_count 10k -> 10000: kvtest's count suffixes (K/M/G = 1000^n), so the
# scripts can do arithmetic on the values they pass to kvtest.
kv_count() {
    awk -v s="$1" 'BEGIN {
        n = s + 0; u = s; sub(/^[0-9.]+/, "", u)
        m = (u == "" ) ? 1 : (u == "k" || u == "K") ? 1e3 : (u == "M") ? 1e6 : (u == "G") ? 1e9 : -1
        if (m < 0 || s !~ /^[0-9.]+/) { exit 1 }
        printf "%d\n", n * m }' || usage_die "not a count: $1"
}

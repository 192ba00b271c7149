#!/usr/bin/env bash
# Install what kvtest needs to build, test and benchmark on Debian 12.
#   bash scripts/deps.sh            what make, make test and make bench need
#   bash scripts/deps.sh portable   only what the portable builds add: musl
#                                   (make static), the arm64 cross compiler
#                                   and qemu-user (make arm64-test)
# Idempotent: installs only what is missing. As root it installs; otherwise it
# prints the command to run. Valkey 8 lives in bookworm-backports; that suite
# is added by reusing the mirror URI already configured for Debian on this
# machine, so no host name is hard-coded here.
set -euo pipefail

PKGS=(build-essential clang libclang-rt-14-dev pkg-config
      libhiredis-dev libhttp-parser-dev libcjson-dev
      libcmocka-dev bats bats-assert bats-support shellcheck gnuplot-nox wrk curl jq strace)
PKGS+=(bash-completion)   # tests/cli/commands/completion.bats drives src/doc/kvtest.bash with it
PKGS+=(scdoc)     # man pages: build/man/*.1 from src/doc/*.scd (make man)
PKGS+=(mandoc)    # man pages: mandoc -T lint in tests/cli/repo/manpages.bats
PKGS+=(man-db)    # man pages: man --warnings -l in tests/cli/repo/manpages.bats
PKGS+=(lintian)   # make deb checks the package it builds (tests/cli/repo/package.bats)
PKGS+=(nginx-light)   # scripts/study/nginx.sh: the HTTP ceiling reference (runs its own nginx; Debian's service is not needed)
PKGS+=(libh2o-evloop-dev)   # the shortener's HTTP server library (src/shortener/http/service_http.c)
PKGS+=(libnghttp2-dev nghttp2-client python3-h2)   # load --http2 (src/load/load_h2.c); h2load, the anchor; a broken HTTP/2 server in the tests (tests/lib/h2_server.py)
PKGS+=(libssl-dev openssl)   # serve --tls-cert: OpenSSL 3 (src/shortener/http/service_tls.c); the openssl command makes the test certificates (tests/cli/shortener/shortener_tls.bats)
PKGS+=(libcsv-dev)   # kvtest history reads CSV series with libcsv (src/commands/history/history_csv.c)
PKGS+=(liburiparser-dev)   # RFC 3986: percent-decoding a cache URL's credentials (src/shortener/cache/cache_url.c)
PKGS+=(libpq-dev postgresql-15 postgresql-client-15)   # the PostgreSQL link store: libpq (linked), a private server for tests and the study (initdb, postgres, pg_basebackup), pgbench (the round-trip reference)
PKGS+=(liblmdb-dev librocksdb-dev lmdb-utils rocksdb-tools)   # the LMDB and RocksDB blob stores (linked), mdb_stat and db_bench: their own tools, checked against ours (scripts/study/anchors.sh)
PKGS+=(python3-jsonschema)   # the JSON Schemas of every command's --json output, checked against real output (docs/json/, tests/cli/commands/json_schema.bats; Debian's /usr/bin/python3)
PKGS+=(python3)   # tests/lib/*.py (probe and stub servers), scripts/dev/mutagen.py (make mutants-auto, tests/cli/repo/mutagen.bats)
PKGS+=(valgrind)  # scripts/ci/ci-perf.sh: instructions per operation (cachegrind), the deterministic layer
BACKPORTS_PKGS=(valkey-server valkey-tools)

case "${1:-}" in
    "") ;;
    portable)
        PKGS=(musl-tools gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user file)
        BACKPORTS_PKGS=() ;;
    *)
        echo "deps.sh: unknown argument '$1' (expected nothing or 'portable')" >&2
        exit 2 ;;
esac

missing=()
for p in "${PKGS[@]}" ${BACKPORTS_PKGS[@]+"${BACKPORTS_PKGS[@]}"}; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: missing packages: ${missing[*]}" >&2
    echo "deps.sh: run as root: sudo bash scripts/deps.sh" >&2
    exit 1
fi

# Find the mirror URI the machine already uses for the main Debian archive
# (deb822 .sources or one-line .list), excluding the security archive.
mirror_uri() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk '/^URIs:/ {u=$2} /^Suites:/ && / bookworm( |$)/ {print u; exit}' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        awk '$1=="deb" && $0 ~ / bookworm / && $0 !~ /security/ {
               for (i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit} }' "$f"
    done
}

bp_file=/etc/apt/sources.list.d/kvtest-backports.sources
if [ ${#BACKPORTS_PKGS[@]} -gt 0 ] && ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    uri=$(mirror_uri | head -n1)
    if [ -z "$uri" ]; then
        echo "deps.sh: no Debian bookworm mirror found in the apt sources; add bookworm-backports by hand" >&2
        exit 1
    fi
    printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$uri" > "$bp_file"
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${PKGS[@]}" >/dev/null
if [ ${#BACKPORTS_PKGS[@]} -gt 0 ]; then
    apt-get install -y -qq --no-install-recommends -t bookworm-backports "${BACKPORTS_PKGS[@]}" >/dev/null
fi
# nginx-light's package starts and enables a system nginx on port 80 where
# init allows it; kvtest only runs its own (scripts/study/nginx.sh). Undo
# that only when this run installed it.
case " ${missing[*]} " in
    *" nginx-light "*)
        if command -v systemctl >/dev/null 2>&1; then
            systemctl disable --now nginx >/dev/null 2>&1 || true
        fi ;;
esac
echo "deps.sh: installed ${missing[*]}" >&2

#!/usr/bin/env bash
# Turn a staging tree into a Debian package and check it with lintian:
#   bash scripts/pkg/deb.sh ROOT VERSION OUTDIR [SONAME...]
# ROOT is what "make install DESTDIR=ROOT PREFIX=/usr" wrote (make deb does
# that first, then calls this). Writes OUTDIR/kvtest_VERSION_ARCH.deb and
# prints lintian's findings; exits 1 if lintian reports an error, 2 on
# misuse. SONAME...: the libraries kvtest opens only when a store needs
# them (dlopen: librocksdb, libpq), which dpkg-shlibdeps cannot see in the
# binary; their packages are Recommends. Plain dpkg-deb rather than debhelper: one binary package from a
# tree make already lays out, so this script is the whole recipe.
set -euo pipefail

die() { echo "deb.sh: $2" >&2; exit "$1"; }

[ $# -ge 3 ] || die 2 "usage: deb.sh ROOT VERSION OUTDIR [SONAME...]"
root=$1 version=$2 out=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$root/usr/bin/kvtest" ] || die 2 "$root/usr/bin/kvtest missing: run make install DESTDIR=$root PREFIX=/usr first"
# The package's changelog must have an entry for the version it ships.
top=$(sed -n '1s/^kvtest (\([^)]*\)).*/\1/p' "$here/changelog")
[ "$top" = "$version" ] ||
    die 2 "scripts/pkg/changelog's latest entry is $top, not $version: add an entry for $version"

arch=$(dpkg --print-architecture)
doc=$root/usr/share/doc/kvtest
maintainer=$(sed -n 's/^ -- \(.*>\)  .*/\1/p' "$here/changelog" | head -n1)

# What dh_strip and dh_installman/dh_installchangelogs would do: a stripped
# binary, man pages and changelog compressed reproducibly (-n: no name or
# time stamp), the copyright file in the package's doc directory.
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/kvtest"
gzip -9nf "$root"/usr/share/man/man1/*.1
install -m 644 "$here/copyright" "$doc/copyright"
gzip -9n <"$here/changelog" >"$doc/changelog.gz"
chmod 644 "$doc/changelog.gz"

# Depends: the packages of the shared libraries the binary links, with the
# minimum versions their symbols need, as dpkg-shlibdeps finds them. It
# runs from a source tree (a debian/control naming the package) on a binary
# in a package tree (below a DEBIAN directory): a scratch debian/control,
# and the staging tree's DEBIAN made first.
mkdir -p "$root/DEBIAN"
abs_root=$(cd "$root" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/debian"
printf 'Source: kvtest\n\nPackage: kvtest\nArchitecture: any\n' >"$tmp/debian/control"
depends=$(cd "$tmp" && dpkg-shlibdeps -O "$abs_root/usr/bin/kvtest" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || die 1 "dpkg-shlibdeps found no dependencies for $root/usr/bin/kvtest"

# Recommends: each opened-on-demand library's package, with the minimum
# version its shlibs file states (as dpkg-shlibdeps would have written it).
recommends=""
for so in "$@"; do
    pkg=$(dpkg -S "*/$so" 2>/dev/null | head -n1 | cut -d: -f1)
    [ -n "$pkg" ] || die 1 "$so: no installed package holds it"
    # "libpq.so.5" is library libpq, version 5 in the shlibs file
    dep=$(awk -v l="${so%%.so.*}" -v v="${so#*.so.}" '$1 == l && $2 == v { $1 = $2 = ""; print substr($0, 3); exit }' \
        "$(dpkg-query --control-path "$pkg" shlibs 2>/dev/null)" 2>/dev/null || true)
    recommends="${recommends:+$recommends, }${dep:-$pkg}"
done

find "$root" -type d -exec chmod 755 {} +
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
size=$(du -sk --apparent-size "$root/usr" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: kvtest
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
${recommends:+Recommends: $recommends
}Suggests: valkey-server
Section: utils
Priority: optional
Description: benchmark: blobs in SQLite or files, and a Valkey cache
 kvtest re-creates the experiment of SQLite's article "35% Faster Than
 The Filesystem" (the same subcommands and result lines as SQLite's own
 kvtest program) and adds latency percentiles, spread over repetitions,
 cold caches, concurrent readers, verification and the blob size where
 files start to win.
 .
 "kvtest shortener" runs a URL-shortener REST service backed by SQLite,
 with an optional Valkey cache-aside (hence the suggestion of
 valkey-server), benchmarks its lookups in-process and drives it over
 HTTP with a load generator that times every request.
EOF
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

mkdir -p "$out"
deb="$out/kvtest_${version}_${arch}.deb"
dpkg-deb --build --root-owner-group "$root" "$deb" >/dev/null
echo "deb.sh: wrote $deb"
echo "deb.sh: Depends: $depends"
[ -z "$recommends" ] || echo "deb.sh: Recommends: $recommends"
# lintian prints its findings (E: error, W: warning, I: info); only errors
# fail the build.
lintian --fail-on error --info "$deb" || die 1 "lintian reports errors in $deb"
echo "deb.sh: lintian: no errors"

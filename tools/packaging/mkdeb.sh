#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkdeb.sh: 'make deb'. Builds the Debian packages gpsphc-dkms (arch all:
# the module's source, built by DKMS on the target), gpsphc-plot (all) and
# gpsphcd (the helper) for each architecture of GPSPHC_DEB_ARCHS (default
# "amd64 arm64 armhf") into tools/packaging/build/ (GPSPHC_DEB_BUILD=...
# for elsewhere), as gpsphcd_VERSION_ARCH.deb (and its -dbgsym).
#
# This machine's own architecture is built here, with the arch all
# packages (dpkg-buildpackage -b; just -A if GPSPHC_DEB_ARCHS leaves it
# out). Every other one is cross built in the Debian 13 chroot that
# 'make deps' makes (tools/testing/vm/trixie.sh), by Debian's cross build,
# dpkg-buildpackage -a ARCH -B, against that architecture's multiarch -dev
# packages installed there: dpkg-shlibdeps then gives the package the
# Depends of that architecture's libraries. That needs root (chroot).
# GPSPHC_DEB_KEEP_CROSS=1 leaves each cross build's tree in the chroot,
# its directory there named in build-ARCH.tree (for
# tools/testing/packaging/test_packaging.sh, which builds gpsphcd's tests
# on the package's objects there, then removes it).
#
# The source tree is exported (export.sh) to build/gpsphc-VERSION,
# tools/packaging/debian becomes its debian/, and debian/changelog is
# written for VERSION, the PACKAGE_VERSION of dkms.conf: the packages carry
# the version that 'gpsphcd --version' and 'modinfo -F version gpsphc'
# print.
set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${GPSPHC_DEB_BUILD:-$TOP/tools/packaging/build}
ARCHS=${GPSPHC_DEB_ARCHS:-amd64 arm64 armhf}
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
T=$CACHE/trixie
ROOT=$T/root

die() { echo "mkdeb: $*" >&2; exit 1; }

version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
[ -n "$version" ] || die "no PACKAGE_VERSION=\"...\" line in $TOP/dkms.conf"
command -v dpkg-buildpackage >/dev/null && [ -x /usr/bin/dh ] ||
	die "dpkg-buildpackage or debhelper missing: run 'make deps' (as root) or apt-get install dpkg-dev debhelper dh-dkms"
native=$(dpkg --print-architecture)
foreign=
for a in $ARCHS; do
	case $a in
	"$native") ;;
	arm64|armhf)
		t=$(dpkg-architecture -a "$a" -qDEB_HOST_MULTIARCH 2>/dev/null)
		[ -x "$ROOT/usr/bin/dpkg-buildpackage" ] &&
			[ -f "$ROOT/usr/lib/$t/pkgconfig/libnl-genl-3.0.pc" ] ||
			die "no Debian 13 chroot with $a's -dev packages in $ROOT, for gpsphcd_${version}_$a.deb: run 'make deps' (as root), or GPSPHC_DEB_ARCHS=$native"
		[ "$(id -u)" -eq 0 ] ||
			die "gpsphcd for $a is built in the chroot $ROOT: needs root, or GPSPHC_DEB_ARCHS=$native"
		foreign="$foreign $a" ;;
	*) die "GPSPHC_DEB_ARCHS: no cross build for '$a' (known: $native arm64 armhf)" ;;
	esac
done

src=$OUT/gpsphc-$version
rm -rf "$OUT"
sh "$TOP/tools/packaging/export.sh" "$src"
from=$(git -C "$TOP" describe --always --dirty 2>/dev/null) ||
	from="a source tree without git"
cp -R "$src/tools/packaging/debian" "$src/debian"

# SOURCE_DATE_EPOCH, and so gpsphcd's build date (the lowest pivot of its
# era resolver), comes from this date.
maint=$(sed -n 's/^Maintainer: //p' "$src/debian/control")
{
	printf 'gpsphc (%s) unstable; urgency=medium\n\n' "$version"
	printf '  * Built by make deb from %s.\n\n' "$from"
	printf ' -- %s  %s\n' "$maint" "$(date -R ${SOURCE_DATE_EPOCH:+-d @$SOURCE_DATE_EPOCH})"
} >"$src/debian/changelog"

# This machine's architecture, or only the arch all packages.
which=-b
case " $ARCHS " in *" $native "*) ;; *) which=-A ;; esac
log=$OUT/build.log
if ! (cd "$src" && dpkg-buildpackage $which -us -uc -jauto) >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "dpkg-buildpackage $which failed (whole log: $log)"
fi

# The others, each from a copy of the source tree in the chroot (which
# sees only its own tree), one directory per build: make check's lanes
# use the chroot too. A shared lock keeps trixie.sh's refresh (apt-get)
# out meanwhile.
work=
trap '[ -z "$work" ] || rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
if [ -n "$foreign" ]; then
	exec 9>"$T/lock"
	flock -s 9 || die "cannot lock $T/lock"
fi
for a in $foreign; do
	work=$(mktemp -d "$ROOT/tmp/gpsphc-deb.XXXXXX")
	cp -a "$src" "$work/"
	log=$OUT/build-$a.log
	if ! chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
			HOME=/root DEB_BUILD_OPTIONS=nocheck \
			sh -c 'cd "$1" && dpkg-buildpackage -a "$2" -B -Pcross,nocheck -us -uc -jauto' \
			sh "${work#"$ROOT"}/${src##*/}" "$a" >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "dpkg-buildpackage -a $a -B in $ROOT failed (whole log: $log)"
	fi
	cp "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$OUT/" ||
		die "copying the $a packages from $work failed"
	if [ "${GPSPHC_DEB_KEEP_CROSS:-0}" = 1 ]; then
		echo "${work#"$ROOT"}" >"$OUT/build-$a.tree"
	else
		rm -rf "$work"
	fi
	work=
done
for deb in "$OUT"/*.deb; do
	echo "$deb"
done

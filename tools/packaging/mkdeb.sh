#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkdeb.sh: 'make deb'. Builds the Debian packages gpsphc-dkms (arch all:
# the module's source, built by DKMS on the target) and gpsphcd (the
# helper) into tools/packaging/build/ (GPSPHC_DEB_BUILD=... for elsewhere).
#
# The source tree is exported (export.sh) to build/gpsphc-VERSION,
# tools/packaging/debian becomes its debian/, and debian/changelog is
# written for VERSION, the PACKAGE_VERSION of dkms.conf: the packages carry
# the version that 'gpsphcd --version' and 'modinfo -F version gpsphc'
# print.
set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${GPSPHC_DEB_BUILD:-$TOP/tools/packaging/build}

die() { echo "mkdeb: $*" >&2; exit 1; }

version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
[ -n "$version" ] || die "no PACKAGE_VERSION=\"...\" line in $TOP/dkms.conf"
command -v dpkg-buildpackage >/dev/null && [ -x /usr/bin/dh ] ||
	die "dpkg-buildpackage or debhelper missing: run 'make deps' (as root) or apt-get install dpkg-dev debhelper dh-dkms"

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

log=$OUT/build.log
if ! (cd "$src" && dpkg-buildpackage -b -us -uc -jauto) >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "dpkg-buildpackage failed (whole log: $log)"
fi
for deb in "$OUT"/*.deb; do
	echo "$deb"
done

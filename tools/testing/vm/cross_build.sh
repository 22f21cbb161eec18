#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cross_build.sh: gpsphc.ko for armhf, against Debian 12's 6.1 armmp-lpae
# kernel headers, with W=1. It must build with no warning, and modpost
# must find no call to libgcc's 64-bit division (__aeabi_uldivmod and
# the like, from a plain u64 '/' or '%'): the kernel exports none, so
# such a module would not load. TAP on stdout; the build's log stays in
# GPSPHC_CACHE/armhf/build.log.
#
# Nothing is installed but the cross compiler (gcc-arm-linux-gnueabihf,
# installed here if missing). The headers are downloaded once, with an
# apt state of their own for armhf in GPSPHC_CACHE/armhf/apt (this
# machine's apt and dpkg stay as they are), and unpacked into
# GPSPHC_CACHE/armhf/root. Their kbuild tools (fixdep, modpost, ...) are
# armhf programs: the amd64 linux-kbuild-6.1 that 'make deps' unpacked
# stands in for them (Debian's headers take any linux-kbuild-6.1 at
# least as new as themselves). The module builds from a copy of the
# working tree (tools/packaging/export.sh), as DKMS would build it.
#
# The build, as run (KDIR the armhf headers, M the copy):
#   make -C KDIR M=DIR ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf- W=1 modules
set -u

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
FLAVOUR=${GPSPHC_ARMHF_FLAVOUR:-armmp-lpae}
CROSS=arm-linux-gnueabihf-
A=$CACHE/armhf
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

DESC="armhf build of gpsphc.ko: no warnings, no 64-bit division helpers"
skip() { echo "ok 1 $DESC # SKIP $*"; exit 0; }
fail() { echo "not ok 1 $DESC"; printf '%s\n' "$@" | sed 's/^/# /'; exit 1; }

KVER_61=$(sed -n 's/^KVER_61 := //p' "$CACHE/kernels.mk" 2>/dev/null)
KBUILD=$CACHE/kernel-$KVER_61/usr/lib/linux-kbuild-6.1
[ -n "$KVER_61" ] && [ -x "$KBUILD/scripts/mod/modpost" ] ||
	skip "no amd64 linux-kbuild-6.1 in $CACHE: run 'make deps'"

# Debian's headers name the compiler by version: CC = CROSS_COMPILE gcc-12.
if ! command -v "${CROSS}gcc-12" >/dev/null; then
	[ "$(id -u)" -eq 0 ] || skip "${CROSS}gcc-12 missing: apt-get install gcc-arm-linux-gnueabihf"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		gcc-arm-linux-gnueabihf >/dev/null 2>&1 ||
		fail "apt-get install gcc-arm-linux-gnueabihf failed"
fi

# apt for armhf alone, in a state of its own.
apt_armhf() {
	cmd=$1; shift
	"$cmd" -q -o APT::Architecture=armhf -o APT::Architectures::=armhf \
		-o Dir::State::Lists="$A/apt/lists" -o Dir::State::status="$A/apt/status" \
		-o Dir::Cache="$A/apt/cache" "$@"
}
# depends PKG PATTERN: the package PKG depends on whose name matches PATTERN.
depends() {
	apt_armhf apt-cache depends "$1" 2>/dev/null |
		sed -n "s/^ *|\{0,1\}Depends: \($2\)$/\1/p" | head -n 1
}

ROOT=$A/root
if [ ! -f "$ROOT/.unpacked" ]; then
	[ "$(id -u)" -eq 0 ] || skip "the armhf headers are not in $A yet: run as root once"
	mkdir -p "$A/apt/lists/partial" "$A/apt/cache/archives/partial"
	: >"$A/apt/status"
	# An index that fails (a mirror mid-sync) is left out, not fatal:
	# what matters is that the headers resolve below.
	apt_armhf apt-get update >"$A/apt.log" 2>&1
	hdr=$(depends "linux-headers-$FLAVOUR" "linux-headers-.*-$FLAVOUR")
	common=$(depends "$hdr" 'linux-headers-.*-common')
	[ -n "$hdr" ] && [ -n "$common" ] ||
		fail "linux-headers-$FLAVOUR (armhf) does not resolve: see $A/apt.log"
	tmp=$(mktemp -d)
	(cd "$tmp" && apt_armhf apt-get download "$hdr" "$common") >>"$A/apt.log" 2>&1 ||
		{ rm -rf "$tmp"; fail "apt-get download $hdr $common failed: see $A/apt.log"; }
	rm -rf "$ROOT"; mkdir -p "$ROOT"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$ROOT" || { rm -rf "$tmp"; fail "unpacking $deb failed"; }
	done
	rm -rf "$tmp"
	kver=${hdr#linux-headers-}
	mk=$ROOT/usr/src/$hdr/Makefile
	[ -f "$mk" ] || fail "no build tree in $hdr"
	# Debian's build tree includes the common headers by absolute path.
	sed -i "s|^include /usr/src/|include $ROOT/usr/src/|" "$mk"
	echo "$kver" >"$ROOT/.unpacked"
fi
KVER=$(cat "$ROOT/.unpacked")
KDIR=$ROOT/usr/src/linux-headers-$KVER
# The headers' scripts and tools links point here.
mkdir -p "$ROOT/usr/lib"
ln -sfn "$KBUILD" "$ROOT/usr/lib/linux-kbuild-6.1"

SRC=$A/src
LOG=$A/build.log
rm -rf "$SRC"
sh "$TOP/tools/packaging/export.sh" "$SRC" || fail "copying the source tree to $SRC failed"
echo "# make -C $KDIR M=$SRC ARCH=arm CROSS_COMPILE=$CROSS W=1 modules"
make -C "$KDIR" M="$SRC" ARCH=arm CROSS_COMPILE="$CROSS" W=1 modules >"$LOG" 2>&1
rc=$?

HELPERS='__aeabi_uldivmod|__aeabi_ldivmod|__udivdi3|__divdi3|__umoddi3|__moddi3'
problems=
[ $rc -eq 0 ] || problems="make exited with status $rc"
warnings=$(grep -E 'warning:|WARNING:|error:|ERROR:' "$LOG")
[ -z "$warnings" ] || problems="$problems
$warnings"
for o in "$SRC"/kmod/*.o; do
	[ -f "$o" ] || continue
	called=$("${CROSS}nm" -u "$o" | awk '{ print $2 }' | grep -xE "$HELPERS" | tr '\n' ' ')
	[ -z "$called" ] || problems="$problems
kmod/${o##*/} calls $called"
done
[ -f "$SRC/gpsphc.ko" ] || problems="$problems
no gpsphc.ko"
if [ -n "$problems" ]; then
	echo "not ok 1 $DESC"
	echo "# against linux-headers-$KVER (armhf): see $LOG"
	printf '%s\n' "$problems" | grep . | sed 's/^/# /'
	exit 1
fi
echo "ok 1 $DESC (linux-headers-$KVER, ${CROSS}gcc $(${CROSS}gcc-12 -dumpfullversion))"

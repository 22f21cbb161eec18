#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# debug_kernel.sh: build the debug test kernel (KASAN, lockdep, kmemleak,
# UBSAN, debug objects, ...) once from Debian's linux-source-6.12 with the
# config fragment tools/testing/vm/debug.config and the kernel fixes in
# tools/testing/vm/patches/ (bugs of the kernel's own that the tests
# reach, each with its write-up), and install it into the
# cache in the Debian kernels' layout:
#   $GPSPHC_CACHE/kernel-KVER/boot/vmlinuz-KVER
#   $GPSPHC_CACHE/kernel-KVER/usr/src/linux-headers-KVER  -> the build tree
# then add `KVER_DEBUG := KVER` to $GPSPHC_CACHE/kernels.mk so that
# `make check` boots it as a third kernel. KVER is its kernelrelease,
# e.g. 6.12.118-gpsphc-debug.
#
# Idempotent: a second run with the same fragment and the same
# linux-source-6.12 version only makes sure kernels.mk names the kernel
# (deps.sh rewrites that file once a day). A changed fragment rebuilds
# incrementally; a new source version re-extracts and rebuilds from
# scratch: 16 minutes on 2 cores beside a running test VM, 18.5 minutes
# of CPU time. The build runs at nice 19 (test VMs on the same machine
# are timing-sensitive) with GPSPHC_DEBUG_JOBS jobs (default 2).
set -eu

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
FRAG=$TOP/tools/testing/vm/debug.config
SRC=$CACHE/debug-src
BLD=$CACHE/debug-build
STAMP=$CACHE/debug-kernel.stamp
KMK=$CACHE/kernels.mk
# Bump when the way the kernel is built changes (not the fragment).
RECIPE=2

die() { echo "debug_kernel.sh: $*" >&2; exit 1; }
say() { echo "debug_kernel.sh: $*" >&2; }

[ -f "$FRAG" ] || die "config fragment $FRAG missing"
tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)
[ -n "$tarball" ] || die "no /usr/src/linux-source-6.12.tar.*: install linux-source-6.12 (make deps)"
command -v flock >/dev/null || die "flock (util-linux) not found"

mkdir -p "$CACHE"
# One build at a time, however many `make check` run.
exec 9>"$CACHE/debug-kernel.lock"
flock 9 || die "cannot lock $CACHE/debug-kernel.lock"

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	srcver=$(stat -c '%s-%Y' "$tarball")
fraghash=$(sha256sum <"$FRAG" | cut -c1-64)
PATCHES=$(ls "$TOP"/tools/testing/vm/patches/*.patch 2>/dev/null || true)
patchhash=$(cat $PATCHES </dev/null | sha256sum | cut -c1-64)
want="recipe=$RECIPE source=$srcver fragment=$fraghash patches=$patchhash"

# register KVER: name the kernel in kernels.mk, keeping the other lines and
# the file's time (deps.sh re-resolves the Debian kernels by that time).
register() {
	line="KVER_DEBUG := $1"
	if [ -f "$KMK" ] && grep -qxF "$line" "$KMK"; then
		return 0
	fi
	{ [ -f "$KMK" ] && grep -v '^KVER_DEBUG :=' "$KMK"; echo "$line"; } >"$KMK.dbg.tmp" ||
		die "cannot write $KMK.dbg.tmp"
	[ -f "$KMK" ] && touch -r "$KMK" "$KMK.dbg.tmp"
	mv "$KMK.dbg.tmp" "$KMK"
}

# Fast path: built from this fragment and this source, and still installed.
if [ -f "$STAMP" ] && [ "$(sed -n 1p "$STAMP")" = "$want" ]; then
	kver=$(sed -n 2p "$STAMP")
	if [ -n "$kver" ] && [ -s "$CACHE/kernel-$kver/boot/vmlinuz-$kver" ] &&
	   [ -f "$CACHE/kernel-$kver/usr/src/linux-headers-$kver/Module.symvers" ]; then
		register "$kver"
		exit 0
	fi
fi
rm -f "$STAMP"

start=$(date +%s)
if [ ! -f "$SRC/.gpsphc-extracted" ] || [ "$(cat "$SRC/.gpsphc-extracted")" != "$srcver" ]; then
	say "extracting $tarball ($srcver) into $SRC"
	rm -rf "$SRC" "$BLD"
	mkdir -p "$SRC"
	tar -C "$SRC" --strip-components=1 -xf "$tarball" ||
		die "extracting $tarball into $SRC failed"
	echo "$srcver" >"$SRC/.gpsphc-extracted"
fi

# The kernel fixes, each applied once (a tree from an earlier recipe may
# hold some of them already).
for p in $PATCHES; do
	if patch -d "$SRC" -p1 -R --dry-run -s -f <"$p" >/dev/null 2>&1; then
		continue
	fi
	patch -d "$SRC" -p1 -s -f <"$p" >/dev/null ||
		die "patch $p does not apply to $SRC ($srcver): refresh it"
	say "applied $(basename "$p")"
done

mkdir -p "$BLD"
log=$BLD/gpsphc-build.log
# allnoconfig with the fragment forced on: everything not named is off.
make -s -C "$SRC" O="$BLD" allnoconfig KCONFIG_ALLCONFIG="$FRAG" >"$log" 2>&1 || {
	tail -n 30 "$log" >&2
	die "configuring the debug kernel failed (log: $log)"
}
# Kconfig silently drops what it cannot satisfy: every line must survive.
bad=
while IFS= read -r l; do
	case $l in
	CONFIG_*=*)
		grep -qxF "$l" "$BLD/.config" || bad="$bad $l" ;;
	"# CONFIG_"*" is not set")
		n=${l#\# }; n=${n%% *}
		grep -q "^$n=" "$BLD/.config" && bad="$bad $n=n" ;;
	esac
done <"$FRAG"
[ -z "$bad" ] || die "Kconfig did not keep these lines of $FRAG (a dependency is missing):$bad"

say "building the debug kernel in $BLD at nice 19 (log: $log)"
# bzImage, and modules for Module.symvers, which out-of-tree builds need.
nice -n 19 make -C "$SRC" O="$BLD" -j"${GPSPHC_DEBUG_JOBS:-2}" bzImage modules >>"$log" 2>&1 || {
	tail -n 40 "$log" >&2
	die "building the debug kernel failed (log: $log)"
}
[ -s "$BLD/arch/x86/boot/bzImage" ] || die "no bzImage in $BLD after the build"
[ -f "$BLD/Module.symvers" ] || die "no Module.symvers in $BLD after the build"
kver=$(make -s -C "$SRC" O="$BLD" kernelrelease) || die "make kernelrelease failed"
case $kver in *-gpsphc-debug) ;; *) die "unexpected kernelrelease '$kver'" ;; esac

# Install in the Debian kernels' layout; the headers are the build tree.
for old in "$CACHE"/kernel-*-gpsphc-debug; do
	[ -e "$old" ] && [ "$old" != "$CACHE/kernel-$kver" ] && rm -rf "$old"
done
root=$CACHE/kernel-$kver
rm -rf "$root"
mkdir -p "$root/boot" "$root/usr/src" "$root/lib/modules/$kver"
cp "$BLD/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$kver"
cp "$BLD/.config" "$root/boot/config-$kver"
cp "$BLD/System.map" "$root/boot/System.map-$kver"
ln -s "$BLD" "$root/usr/src/linux-headers-$kver"

printf '%s\n%s\n' "$want" "$kver" >"$STAMP"
register "$kver"
say "built $kver in $(( $(date +%s) - start )) s"

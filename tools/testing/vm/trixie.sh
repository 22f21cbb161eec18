#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# trixie.sh: the Debian 13 (trixie) build environment and test kernels,
# made once and cached in $GPSPHC_CACHE (issue 25). Debian 13's kernels
# are built with gcc 14, which Debian 12 does not have, so their modules
# are built inside a trixie chroot, never with the host's compiler:
#
#   trixie/root      debootstrap --variant=minbase of trixie, from the
#                    Debian mirrors this machine's apt sources name, up to
#                    date with trixie-updates and trixie-security; in it
#                    make, gcc-14, libelf-dev, the cross compilers
#                    gcc-aarch64-linux-gnu and gcc-arm-linux-gnueabihf,
#                    libc6-dev-arm64-cross and libc6-dev-armhf-cross (the
#                    arm guests' static programs), dpkg-dev, debhelper
#                    and gpsphcd's -dev packages for arm64 and armhf
#                    (its arm packages), linuxptp, and the headers of
#                    the newest 6.12.x+deb13 kernel for amd64 and rt-amd64,
#                    installed. The same version's arm64 and armmp-lpae
#                    headers are unpacked into it with dpkg -x
#                    (installing them would pull in gcc-14:arm64, which
#                    amd64 cannot have): the amd64 linux-kbuild tools
#                    serve them, as Debian's cross builds do.
#   kernel-KVER/     per kernel: 'chroot', a link to trixie/root (build.sh
#                    then builds KVER's modules inside it, against its
#                    /usr/src/linux-headers-KVER); for each also the
#                    image's boot/vmlinuz-KVER and usr/lib/modules,
#                    unpacked from linux-image-KVER-unsigned (armhf has
#                    no signed image: linux-image-KVER) for the guests;
#                    for arm64 and armmp-lpae also usr/bin/busybox, from
#                    busybox-static:arm64 or :armhf, the arm guests'
#                    shell and tools.
#   kernels.mk       KVER_DEB13, KVER_DEB13_RT, KVER_DEB13_ARM64 and
#                    KVER_DEB13_ARMHF, all booted by make check.
#
# Idempotent. Warm, it only checks that every piece is in place (well
# under a second). Once a day, like deps.sh, it updates the chroot and
# follows Debian's newest 6.12.x+deb13 kernel; if the mirror cannot be
# reached then, the cached kernels stay in use with a warning. Cold: a
# debootstrap and some 800 MB of packages (the time is printed). Needs
# root (debootstrap, chroot). GPSPHC_TRIXIE_REFRESH=1 refreshes now.
set -eu

CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
T=$CACHE/trixie
ROOT=$T/root
KMK=$CACHE/kernels.mk
LOG=$T/trixie.log
# Bump when the recipe below changes: the chroot is then made again. A
# changed PKGS only installs what it adds.
RECIPE=1
SUITE=trixie
# perl: W=1 runs scripts/kernel-doc, which needs Pod::Usage.
# libc6-dev-arm64-cross, libc6-dev-armhf-cross: the arm guests' static
# selftests (build.sh).
# build-essential ... pkg-config:armhf: gpsphcd's arm64 and armhf
# packages, by dpkg-buildpackage -a ARCH -B (tools/packaging/mkdeb.sh),
# with its Build-Depends as Debian's multiarch -dev packages of that
# architecture (their libraries, with libc6:ARCH, also serve qemu-user as
# the sysroot of gpsphcd's unit tests: test_packaging.sh).
# dpkg-checkbuilddeps asks for build-essential (:native); the cross gcc
# above is all else the C build needs: no crossbuild-essential (g++).
# linuxptp: Debian 13's ptp4l, phc2sys and ts2phc (amd64), copied from
# here into the Debian 13 guests.
PKGS="make gcc-14 libc6-dev libelf-dev bc kmod xz-utils zstd perl
	gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf libc6-dev-arm64-cross
	libc6-dev-armhf-cross
	build-essential dpkg-dev debhelper dh-dkms
	libnl-genl-3-dev:arm64 libsystemd-dev:arm64 libjson-c-dev:arm64
	nettle-dev:arm64 pkg-config:arm64
	libnl-genl-3-dev:armhf libsystemd-dev:armhf libjson-c-dev:armhf
	nettle-dev:armhf pkg-config:armhf
	linuxptp"
WANT="recipe=$RECIPE pkgs=$(echo $PKGS | cksum | cut -d' ' -f1)"

die() { echo "trixie.sh: $*" >&2; exit 1; }
say() { echo "trixie.sh: $*" >&2; }

# The images the guests boot, FLAVOUR:ARCH; the last two are the arm
# guests', whose busybox comes from busybox-static:ARCH.
IMAGES="amd64:amd64 rt-amd64:amd64 arm64:arm64 armmp-lpae:armhf"
ARM="arm64:arm64 armmp-lpae:armhf"

# in_place K: every piece for the kernels of ABI K (e.g. 6.12.57+deb13) is
# in place; names the first missing one on stdout otherwise.
in_place() {
	for f in usr/bin/gcc-14 usr/bin/make usr/bin/aarch64-linux-gnu-gcc-14 \
			usr/bin/arm-linux-gnueabihf-gcc-14 usr/aarch64-linux-gnu/lib/libc.a \
			usr/arm-linux-gnueabihf/lib/libc.a \
			usr/src/linux-headers-$1-amd64/Makefile \
			usr/src/linux-headers-$1-rt-amd64/Makefile \
			usr/src/linux-headers-$1-arm64/Makefile \
			usr/src/linux-headers-$1-armmp-lpae/Makefile; do
		[ -e "$ROOT/$f" ] || { echo "$ROOT/$f"; return 1; }
	done
	for i in $IMAGES; do
		d=$1-${i%:*}
		for f in "$d/boot/vmlinuz-$d" "$d/chroot/usr"; do
			[ -e "$CACHE/kernel-$f" ] || { echo "$CACHE/kernel-$f"; return 1; }
		done
	done
	for i in $ARM; do
		for f in usr/bin/busybox usr/sbin/phc_ctl; do
			f=$CACHE/kernel-$1-${i%:*}/$f
			[ -e "$f" ] || { echo "$f"; return 1; }
		done
	done
}

# register K: name the four kernels in kernels.mk, keeping its other lines
# and its time (deps.sh re-resolves Debian 12's kernels by that time).
register() {
	new=$(printf 'KVER_DEB13 := %s-amd64\nKVER_DEB13_RT := %s-rt-amd64\nKVER_DEB13_ARM64 := %s-arm64\nKVER_DEB13_ARMHF := %s-armmp-lpae\n' "$1" "$1" "$1" "$1")
	if [ -f "$KMK" ] && [ "$(grep '^KVER_DEB13' "$KMK")" = "$new" ]; then
		return 0
	fi
	{ [ -f "$KMK" ] && grep -v '^KVER_DEB13' "$KMK"; echo "$new"; } >"$KMK.trixie.tmp" ||
		die "cannot write $KMK.trixie.tmp"
	[ -f "$KMK" ] && touch -r "$KMK" "$KMK.trixie.tmp"
	mv "$KMK.trixie.tmp" "$KMK"
}

stamp_ok() {
	[ -f "$T/stamp" ] && [ "$(sed -n 1p "$T/stamp")" = "$WANT" ] &&
		[ -n "$(sed -n 2p "$T/stamp")" ]
}

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot): try sudo $0"
mkdir -p "$T"
# One at a time, however many make check or make deps run.
exec 9>"$T/lock"
flock 9 || die "cannot lock $T/lock"

# Fast path: made by this recipe, refreshed within a day, all in place.
if stamp_ok && [ -z "$(find "$T/stamp" -mmin +1440)" ] && [ "${GPSPHC_TRIXIE_REFRESH:-0}" != 1 ]; then
	k=$(sed -n 2p "$T/stamp")
	if in_place "$k" >/dev/null; then
		register "$k"
		exit 0
	fi
fi

command -v debootstrap >/dev/null || die "debootstrap missing: apt-get install debootstrap (make deps)"
command -v dpkg-deb >/dev/null || die "dpkg-deb missing"
# The Debian mirrors of this machine's deb822 sources (or the default).
mirror=$(sed -n 's|^URIs: *\(.*/debian\)/*$|\1|p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1)
secmirror=$(sed -n 's|^URIs: *\(.*/debian-security\)/*$|\1|p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}
secmirror=${secmirror:-http://deb.debian.org/debian-security}

start=$(date +%s)
in_root() { chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
	DEBIAN_FRONTEND=noninteractive "$@"; }

# 1. The chroot, once per recipe.
if [ ! -f "$ROOT/.gpsphc-recipe" ] || [ "$(cat "$ROOT/.gpsphc-recipe")" != "$RECIPE" ]; then
	say "debootstrapping Debian 13 ($SUITE) into $ROOT from $mirror (log: $LOG)"
	rm -rf "$ROOT" "$T/stamp"
	mkdir -p "$ROOT"
	debootstrap --variant=minbase "$SUITE" "$ROOT" "$mirror" >"$LOG" 2>&1 ||
		{ tail -n 20 "$LOG" >&2; die "debootstrap $SUITE from $mirror failed (log: $LOG)"; }
	cat >"$ROOT/etc/apt/sources.list" <<-SRC
	deb $mirror $SUITE main
	deb $mirror $SUITE-updates main
	deb $secmirror $SUITE-security main
	SRC
	# No daemon may start inside the chroot.
	printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
	chmod 0755 "$ROOT/usr/sbin/policy-rc.d"
	# The foreign architectures, for their headers and gpsphcd's
	# multiarch -dev packages (PKGS).
	in_root dpkg --add-architecture arm64 >>"$LOG" 2>&1 &&
		in_root dpkg --add-architecture armhf >>"$LOG" 2>&1 ||
		die "dpkg --add-architecture in the chroot failed (log: $LOG)"
	echo "$RECIPE" >"$ROOT/.gpsphc-recipe"
fi

# 2. Up to date, and the newest 6.12.x+deb13 kernel's headers. An
# unreachable mirror leaves a complete cache in use.
old=
[ -f "$T/stamp" ] && old=$(sed -n 2p "$T/stamp")
fallback() {
	if [ -n "$old" ] && in_place "$old" >/dev/null; then
		say "warning: $*; keeping the cached $old kernels (log: $LOG)"
		register "$old"
		exit 0
	fi
	tail -n 20 "$LOG" >&2
	die "$* (log: $LOG)"
}
{ in_root apt-get update -q && in_root apt-get dist-upgrade -y -q; } >>"$LOG" 2>&1 ||
	fallback "apt-get update/dist-upgrade in the $SUITE chroot failed (is $mirror reachable?)"
hdr=$(in_root apt-cache depends linux-headers-amd64 2>/dev/null |
	sed -n 's/^ *|\{0,1\}Depends: \(linux-headers-6\.12\..*+deb13.*-amd64\)$/\1/p' | head -n1)
k=${hdr#linux-headers-}
k=${k%-amd64}
[ -n "$k" ] || fallback "linux-headers-amd64 in $SUITE does not name a 6.12.x+deb13 kernel"
say "Debian 13's kernel: $k"
in_root apt-get install -y -q --no-install-recommends $PKGS \
	"linux-headers-$k-amd64" "linux-headers-$k-rt-amd64" >>"$LOG" 2>&1 ||
	fallback "apt-get install of $PKGS linux-headers-$k-amd64 linux-headers-$k-rt-amd64 in the chroot failed"

# 3. Downloads, inside the chroot (its apt knows trixie and the foreign
# architectures), of what is missing: the foreign headers, the booted
# kernels' images, and busybox-static and linuxptp for arm64 and armhf,
# for the arm guests (whose userspace cannot be this machine's). An image is unpacked into a
# new directory, which then replaces the kernel's: an interrupted unpack
# is done again. busybox goes into the arm kernel's directory after its
# image (with it when both are new).
dl=/var/cache/gpsphc-download
if ! in_place "$k" >/dev/null; then
	pkgs='' images=''
	for h in $ARM; do
		[ -e "$ROOT/usr/src/linux-headers-$k-${h%:*}/Makefile" ] ||
			pkgs="$pkgs linux-headers-$k-$h"
	done
	for i in $IMAGES; do
		flavour=${i%:*}
		[ -s "$CACHE/kernel-$k-$flavour/boot/vmlinuz-$k-$flavour" ] && continue
		images="$images $flavour"
		case $flavour in
		armmp-lpae) pkgs="$pkgs linux-image-$k-$i" ;;
		*) pkgs="$pkgs linux-image-$k-$flavour-unsigned:${i#*:}" ;;
		esac
	done
	for i in $ARM; do
		bb=$CACHE/kernel-$k-${i%:*}/usr/bin/busybox
		case " $images " in *" ${i%:*} "*) rm -f "$bb" ;; esac
		[ -x "$bb" ] || pkgs="$pkgs busybox-static:${i#*:}"
		[ -x "${bb%/bin/busybox}/sbin/phc_ctl" ] || pkgs="$pkgs linuxptp:${i#*:}"
	done
	say "downloading$pkgs"
	rm -rf "$ROOT$dl"; mkdir -p "$ROOT$dl"
	in_root sh -c "cd $dl && apt-get download -q $pkgs" >>"$LOG" 2>&1 ||
		fallback "apt-get download of$pkgs failed"
	for deb in "$ROOT$dl"/linux-headers-*.deb; do
		[ -e "$deb" ] || continue
		dpkg-deb -x "$deb" "$ROOT" || die "unpacking $deb into the chroot failed"
	done
	for flavour in $images; do
		kroot=$CACHE/kernel-$k-$flavour
		rm -rf "$kroot.new"; mkdir -p "$kroot.new"
		for deb in "$ROOT$dl/linux-image-$k-$flavour"-unsigned_*.deb \
				"$ROOT$dl/linux-image-$k-$flavour"_*.deb; do
			[ -e "$deb" ] && break
		done
		dpkg-deb -x "$deb" "$kroot.new" ||
			die "unpacking linux-image-$k-$flavour into $kroot.new failed"
		[ -s "$kroot.new/boot/vmlinuz-$k-$flavour" ] ||
			die "no boot/vmlinuz-$k-$flavour in ${deb##*/}"
		rm -rf "$kroot"; mv "$kroot.new" "$kroot"
	done
	for i in $ARM; do
		bb=$CACHE/kernel-$k-${i%:*}/usr/bin/busybox a=${i#*:}
		[ -x "$bb" ] && continue
		rm -rf "$ROOT$dl/busybox"
		dpkg-deb -x "$ROOT$dl"/busybox-static_*_"$a".deb "$ROOT$dl/busybox" ||
			die "unpacking busybox-static:$a failed"
		[ -x "$ROOT$dl/busybox/usr/bin/busybox" ] || die "no usr/bin/busybox in busybox-static:$a"
		mkdir -p "${bb%/*}"
		if ! cp "$ROOT$dl/busybox/usr/bin/busybox" "$bb.new" || ! mv "$bb.new" "$bb"; then
			die "cannot copy busybox-static:$a's busybox to $bb"
		fi
	done
	# linuxptp:arm64 and :armhf (Debian 13's 4.2), the same way: the arm
	# guests' phc_ctl, phc2sys, ptp4l, pmc and ts2phc, with the chroot's
	# libc6 of that architecture (build.sh).
	for i in $ARM; do
		sbin=$CACHE/kernel-$k-${i%:*}/usr/sbin a=${i#*:}
		[ -x "$sbin/phc_ctl" ] && continue
		rm -rf "$ROOT$dl/linuxptp"
		dpkg-deb -x "$ROOT$dl"/linuxptp_*_"$a".deb "$ROOT$dl/linuxptp" ||
			die "unpacking linuxptp:$a failed"
		mkdir -p "$sbin"
		for p in ptp4l phc2sys pmc ts2phc phc_ctl; do
			cp "$ROOT$dl/linuxptp/usr/sbin/$p" "$sbin/$p.new" && mv "$sbin/$p.new" "$sbin/$p" ||
				die "cannot copy linuxptp:$a's $p to $sbin"
		done
	done
	rm -rf "$ROOT$dl"
	for i in $IMAGES; do
		mkdir -p "$CACHE/kernel-$k-${i%:*}"
		ln -sfn ../trixie/root "$CACHE/kernel-$k-${i%:*}/chroot"
	done
fi

# 4. Kernels that Debian has replaced: headers, unpacked trees, images.
if [ -n "$old" ] && [ "$old" != "$k" ]; then
	say "replacing the $old kernels by $k"
	in_root apt-get purge -y -q "linux-headers-$old-*" "linux-headers-$old-common*" \
		"linux-kbuild-${old%%+*}*" >>"$LOG" 2>&1 || true
	rm -rf "$ROOT/usr/src/linux-headers-$old-arm64" "$ROOT/usr/src/linux-headers-$old-armmp-lpae" \
		"$CACHE/kernel-$old-amd64" "$CACHE/kernel-$old-rt-amd64" \
		"$CACHE/kernel-$old-arm64" "$CACHE/kernel-$old-armmp-lpae"
fi
in_root apt-get clean >>"$LOG" 2>&1 || true

missing=$(in_place "$k") || die "after the set-up, $missing is missing (log: $LOG)"
printf '%s\n%s\n' "$WANT" "$k" >"$T/stamp.tmp"
mv "$T/stamp.tmp" "$T/stamp"
register "$k"
say "Debian 13 build environment and $k kernels ready in $(( $(date +%s) - start )) s"

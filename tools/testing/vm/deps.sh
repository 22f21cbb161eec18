#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package the build and the tests need, idempotently.
# Runs apt-get update only when something is missing, so a warm machine
# takes well under a second. Needs root (apt-get) on Debian 12 (bookworm).
#
# The two test kernels are Debian 12's current ones, chosen by Debian's
# own meta-packages: linux-headers-amd64 (6.1) and linux-headers-6.12-amd64
# (6.12, from bookworm-security). Their headers and images are downloaded
# and unpacked into $GPSPHC_CACHE/kernel-KVER, never installed: the headers
# packages depend on the image, and installing an image would change how
# this machine boots. Their ABI names are written to
# $GPSPHC_CACHE/kernels.mk.
set -eu

CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
# qemu-system-arm: qemu-system-aarch64 and qemu-system-arm, for the arm64
# and armhf guests. Their programs are built in the trixie chroot
# (trixie.sh): Debian 12's cross compilers and gcc-multilib (the host
# tests' 32-bit builds) exclude each other.
# qemu-user: qemu-aarch64 and qemu-arm run gpsphcd's arm64 and armhf unit
# tests (tools/testing/packaging/test_packaging.sh), the trixie chroot
# their sysroot (-L); qemu-i386 the host tests' 32-bit builds on a
# machine whose kernel runs no 32-bit x86 program (tools/testing/host). Its Recommends qemu-user-binfmt stays out: nothing
# changes how this machine runs foreign programs.
PACKAGES="build-essential make gcc gcc-12 pkg-config kmod cpio busybox-static
	qemu-system-x86 libnl-3-dev libnl-genl-3-dev linux-source-6.1
	linux-source-6.12 linuxptp iproute2 sparse tzdata clang libclang-rt-14-dev
	xz-utils python3 python3-yaml python3-jsonschema perl bc flex bison
	libelf-dev libssl-dev dwarves rsync debhelper dh-dkms dkms lintian
	libsystemd-dev systemd udev debootstrap nettle-dev libjson-c-dev python3-matplotlib
	gcc-multilib qemu-system-arm qemu-user"

die() { echo "deps: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root to install packages (try: sudo $0)"
command -v apt-get >/dev/null || die "apt-get not found: gpsphc's tests need Debian 12"

updated=0
apt_update() {
	[ $updated -eq 1 ] && return 0
	apt-get update -q >/dev/null || die "apt-get update failed: check the Debian mirror in /etc/apt/sources.list.d"
	updated=1
}

missing() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
	done
}

# newest_dep META PATTERN: the versioned package META depends on.
newest_dep() {
	apt-cache depends "$1" 2>/dev/null | sed -n "s/^ *|\{0,1\}Depends: \($2\)\$/\1/p" | head -n1
}

mkdir -p "$CACHE"
KMK="$CACHE/kernels.mk"
# Re-resolve once a day, so the cache follows Debian's security updates.
if [ ! -s "$KMK" ] || [ -n "$(find "$KMK" -mmin +1440)" ]; then
	apt-cache show linux-headers-6.12-amd64 >/dev/null 2>&1 || apt_update
	k61=$(newest_dep linux-headers-amd64 'linux-headers-6\.1\..*-amd64' | sed 's/^linux-headers-//')
	k612=$(newest_dep linux-headers-6.12-amd64 'linux-headers-6\.12\..*-amd64' | sed 's/^linux-headers-//')
	if [ -z "$k61" ] || [ -z "$k612" ]; then
		apt_update
		k61=$(newest_dep linux-headers-amd64 'linux-headers-6\.1\..*-amd64' | sed 's/^linux-headers-//')
		k612=$(newest_dep linux-headers-6.12-amd64 'linux-headers-6\.12\..*-amd64' | sed 's/^linux-headers-//')
	fi
	[ -n "$k61" ] && [ -n "$k612" ] ||
		die "cannot resolve the 6.1/6.12 kernel ABI names from linux-headers-amd64 and linux-headers-6.12-amd64 (is bookworm-security in /etc/apt/sources.list.d?)"
	printf 'KVER_61 := %s\nKVER_612 := %s\n' "$k61" "$k612" > "$KMK.tmp"
	mv "$KMK.tmp" "$KMK"
fi
k61=$(sed -n 's/^KVER_61 := //p' "$KMK")
k612=$(sed -n 's/^KVER_612 := //p' "$KMK")

need=$(missing $PACKAGES)
if [ -n "$need" ]; then
	apt_update
	echo "deps: installing:" $need >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need >/dev/null ||
		die "apt-get install failed for: $need"
fi
# gpsphcd's leap-second data is tzdata's leap-seconds.list: keep it current.
if [ "$(dpkg-query -W -f='${Version}' tzdata)" != "$(apt-cache policy tzdata | sed -n 's/^ *Candidate: //p')" ]; then
	apt_update
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --only-upgrade tzdata >/dev/null ||
		die "apt-get could not bring tzdata up to date"
fi
# Nothing above may pull in a kernel image: that would change the boot.
case $need in *linux-image*) die "refusing: a kernel image was about to be installed" ;; esac

# Headers, kbuild tools and image of one kernel, unpacked side by side in
# $CACHE/kernel-KVER so the headers' relative links resolve:
#   usr/src/linux-headers-KVER   the module build tree (KDIR)
#   boot/vmlinuz-KVER            the test VM's kernel
#   lib/modules/KVER             its modules (pps_core, ptp, ...)
for k in "$k61" "$k612"; do
	root="$CACHE/kernel-$k"
	[ -f "$root/.unpacked" ] && continue
	hdr=linux-headers-$k
	pkgs="$hdr $(apt-cache depends "$hdr" 2>/dev/null |
		sed -n 's/^ *|\{0,1\}Depends: \(linux-headers-.*-common\|linux-kbuild-.*\|linux-image-.*-unsigned\)$/\1/p' | sort -u)"
	case $pkgs in *linux-image-*) ;; *) pkgs="$pkgs linux-image-$k" ;; esac
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -q $pkgs >/dev/null 2>&1) ||
		(apt_update && cd "$tmp" && apt-get download -q $pkgs >/dev/null) ||
		die "apt-get download $pkgs failed"
	rm -rf "$root"; mkdir -p "$root"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$root" || die "unpacking $deb failed"
	done
	rm -rf "$tmp"
	mk="$root/usr/src/linux-headers-$k/Makefile"
	[ -f "$mk" ] || die "no build tree in the headers of $k"
	# Debian's build tree includes the common headers by absolute path.
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$mk"
	[ -s "$root/boot/vmlinuz-$k" ] || die "no vmlinuz in the image of $k"
	touch "$root/.unpacked"
done

# kselftest harness and checkpatch.pl from Debian's linux-source-6.1 tarball.
SRCDIR="$CACHE/linux-source-6.1"
if [ ! -f "$SRCDIR/.extracted" ]; then
	tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n1)
	[ -n "$tarball" ] || die "linux-source-6.1 tarball missing in /usr/src"
	rm -rf "$SRCDIR"; mkdir -p "$SRCDIR"
	tar -C "$SRCDIR" --strip-components=1 -xf "$tarball" --wildcards \
		'*/tools/testing/selftests/kselftest*' '*/scripts/checkpatch.pl' \
		'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' ||
		die "extracting the kselftest harness and checkpatch from $tarball failed"
	touch "$SRCDIR/.extracted"
fi

# The kernel's YNL tools (ynl-gen-c, the cli.py client), the netlink specs
# with their genetlink*.yaml schemas, and the kselftest harness the
# selftests and host tests build with (6.12's takes -t and -l), from
# linux-source-6.12. The stamp names what was extracted.
YNLDIR="$CACHE/linux-source-6.12"
if [ ! -f "$YNLDIR/.extracted-ynl-ksft" ]; then
	tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)
	[ -n "$tarball" ] || die "linux-source-6.12 tarball missing in /usr/src"
	rm -rf "$YNLDIR"; mkdir -p "$YNLDIR"
	tar -C "$YNLDIR" --strip-components=1 -xf "$tarball" --wildcards \
		'*/tools/net/ynl' '*/Documentation/netlink' \
		'*/tools/testing/selftests/kselftest*' ||
		die "extracting tools/net/ynl, Documentation/netlink and the kselftest harness from $tarball failed"
	touch "$YNLDIR/.extracted-ynl-ksft"
fi

# Debian 13's 6.12 kernels and the trixie chroot that builds for them.
sh "$(dirname "$0")/trixie.sh" || die "the Debian 13 build environment is not ready (tools/testing/vm/trixie.sh)"

# Last, the debug test kernel (KASAN, lockdep, kmemleak, UBSAN): built once
# from linux-source-6.12, then only named again in kernels.mk, which the
# daily refresh above rewrites. GPSPHC_DEBUG_KERNEL=0 skips it.
[ "${GPSPHC_DEBUG_KERNEL:-1}" = 0 ] || sh "$(dirname "$0")/debug_kernel.sh" ||
	die "the debug test kernel did not build (tools/testing/vm/debug_kernel.sh)"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package the build and the tests need, idempotently.
# Runs apt-get update only when something is missing, so a warm machine
# takes well under a second. Needs root (apt-get) on Debian 12 (bookworm).
#
# The two test kernels are chosen by Debian's own meta-packages: the
# bookworm linux-headers-amd64 (6.1) and the bookworm-backports one (6.12).
# Their ABI names are written to $GPSPHC_CACHE/kernels.mk for the Makefile.
set -eu

CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
BPO_LIST=/etc/apt/sources.list.d/gpsphc-bookworm-backports.sources
PACKAGES="build-essential make gcc pkg-config kmod cpio busybox-static
	qemu-system-x86 libnl-3-dev libnl-genl-3-dev linux-source-6.1
	linuxptp sparse tzdata clang libclang-rt-14-dev xz-utils python3 perl bc
	flex bison libelf-dev"

die() { echo "deps: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root to install packages (try: sudo $0)"
command -v apt-get >/dev/null || die "apt-get not found: gpsphc's tests need Debian 12"

updated=0
apt_update() {
	[ $updated -eq 1 ] && return 0
	apt-get update -q >/dev/null || die "apt-get update failed: check the Debian mirror in /etc/apt/sources.list.d"
	updated=1
}

# 6.12 comes from bookworm-backports; add it unless some source already has it.
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	cat > "$BPO_LIST" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt_update
fi

missing() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
	done
}

mkdir -p "$CACHE"
KMK="$CACHE/kernels.mk"
if [ ! -s "$KMK" ]; then
	# 'apt-cache depends' needs package lists; make sure they exist.
	apt-cache show linux-headers-amd64 >/dev/null 2>&1 || apt_update
	bpo=$(apt-cache madison linux-headers-amd64 | awk '$3 ~ /bpo12/ {print $3; exit}')
	std=$(apt-cache madison linux-headers-amd64 | awk '$3 !~ /bpo/ {print $3; exit}')
	if [ -z "$bpo" ] || [ -z "$std" ]; then
		apt_update
		bpo=$(apt-cache madison linux-headers-amd64 | awk '$3 ~ /bpo12/ {print $3; exit}')
		std=$(apt-cache madison linux-headers-amd64 | awk '$3 !~ /bpo/ {print $3; exit}')
	fi
	[ -n "$bpo" ] && [ -n "$std" ] || die "cannot find linux-headers-amd64 in bookworm and bookworm-backports"
	k61=$(apt-cache depends "linux-headers-amd64=$std" | sed -n 's/.*Depends: linux-headers-\(6\.1\..*-amd64\)$/\1/p' | head -n1)
	k612=$(apt-cache depends "linux-headers-amd64=$bpo" | sed -n 's/.*Depends: linux-headers-\(6\.12\..*-amd64\)$/\1/p' | head -n1)
	[ -n "$k61" ] && [ -n "$k612" ] || die "cannot resolve the 6.1/6.12 kernel ABI names from linux-headers-amd64"
	printf 'KVER_61 := %s\nKVER_612 := %s\n' "$k61" "$k612" > "$KMK.tmp"
	mv "$KMK.tmp" "$KMK"
fi
k61=$(sed -n 's/^KVER_61 := //p' "$KMK")
k612=$(sed -n 's/^KVER_612 := //p' "$KMK")

need=$(missing $PACKAGES "linux-headers-$k61" "linux-headers-$k612")
if [ -n "$need" ]; then
	apt_update
	echo "deps: installing:" $need >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need >/dev/null ||
		die "apt-get install failed for: $need"
fi

# Kernel images for the test VM: downloaded, never installed.
for k in "$k61" "$k612"; do
	img="$CACHE/vmlinuz-$k"
	[ -s "$img" ] && continue
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -q "linux-image-$k" >/dev/null 2>&1) ||
		(apt_update && cd "$tmp" && apt-get download -q "linux-image-$k" >/dev/null) ||
		die "apt-get download linux-image-$k failed"
	dpkg-deb -x "$tmp"/linux-image-*.deb "$tmp/x"
	cp "$tmp/x/boot/vmlinuz-$k" "$img.tmp"
	# Keep the modules the tests need (pps_core, ptp) next to the image.
	rm -rf "$CACHE/modules-$k"
	mv "$tmp/x/lib/modules/$k" "$CACHE/modules-$k"
	mv "$img.tmp" "$img"
	rm -rf "$tmp"
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

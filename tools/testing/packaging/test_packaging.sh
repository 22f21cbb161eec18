#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# test_packaging.sh: gpsphc as an administrator installs it, checked
# without installing anything on this machine. TAP on stdout.
#
#  - a source tree without .git (tools/packaging/export.sh) builds
#    gpsphc.ko; make install and make uninstall in a DESTDIR of their own
#    and over a kernel's module tree: the files, depmod, modprobe's view,
#    and nothing left behind;
#  - make deb: gpsphc-dkms (all) and gpsphcd (this machine's arch),
#    without a lintian error;
#  - make deb's gpsphcd for arm64 and armhf (cross built in the Debian 13
#    chroot, tools/packaging/mkdeb.sh): lintian clean (this machine's
#    lintian, as for amd64), their Architecture, Depends on that
#    architecture's packages of the libraries the program links, an ARM
#    program; gpsphcd's tests (make check-build) built there for both,
#    and their C tests run under qemu-user, the chroot as their sysroot;
#  - one version string, dkms.conf's, in gpsphcd --version, modinfo and
#    both packages;
#  - DKMS with Debian's 6.1 and 6.12 kernels: dkms add/build/install by
#    hand against the second kernel's headers (while both have theirs);
#    then the packages, installed where only the first kernel has its
#    headers, and the module built for the second by the kernel's own
#    hook once its headers come after gpsphc. (Each kernel gets two
#    builds, not three: the packages' path builds for both.)
#
# The DKMS part runs in a chroot of this machine's own root under a tmpfs
# overlay that only a private mount namespace sees: /lib/modules, /boot,
# /usr/src and dpkg's database outside it never change, and no kernel
# package is installed. A kernel is "installed" as its image package
# leaves it (/lib/modules/KVER with its build link, /boot/config-KVER);
# "installing its headers" links the headers 'make deps' unpacked into
# the cache where linux-headers-KVER puts them, then runs what that
# package's postinst runs: run-parts /etc/kernel/header_postinst.d.
# Whatever headers of the two kernels this machine has installed, the
# chroot starts without them: they are removed from its overlay.
# Needs root and 'make deps'. GPSPHC_VERBOSE=1 shows every command's output.
#
# GPSPHC_PACKAGING_HOST_LAYER=DIR lays DIR over / under the overlay, as if
# this machine held DIR's files: how this test is tested on a machine
# that has what it must cope with (e.g. DIR/usr/src/linux-headers-KVER
# and its build link, laid out as / is: usr/lib/modules where /lib is a
# link). DIR must be on a filesystem of its own, e.g. a tmpfs: overlayfs
# refuses a layer inside another.
set -u
start=$(date +%s)

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

n=0
failed=0
# result ok|fail DESC
result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}
# check DESC CMD...: one test; what CMD printed shows when it fails.
check() {
	desc=$1; shift
	if out=$("$@" 2>&1); then
		result ok "$desc"
		[ -z "${GPSPHC_VERBOSE:-}" ] || printf '%s\n' "$out" | sed 's/^/# /'
	else
		result fail "$desc"
		printf '%s\n' "$out" | tail -n 30 | sed 's/^/# /'
	fi
}
# same DESC WANT GOT
same() {
	if [ "$2" = "$3" ]; then result ok "$1"; else
		result fail "$1"
		printf '%s\n' "$2" | sed 's/^/# want: /'
		printf '%s\n' "$3" | sed 's/^/# got:  /'
	fi
}
skip_all() { echo "ok 1 packaging # SKIP $*"; exit 0; }

[ "$(id -u)" -eq 0 ] || skip_all "needs root (mount namespace, chroot, dpkg)"
for c in dkms dpkg-buildpackage dh_dkms lintian unshare nsenter depmod modinfo; do
	command -v $c >/dev/null || skip_all "$c missing: run 'make deps'"
done
KA=$(sed -n 's/^KVER_61 := //p' "$CACHE/kernels.mk" 2>/dev/null)
KB=$(sed -n 's/^KVER_612 := //p' "$CACHE/kernels.mk" 2>/dev/null)
[ -n "$KA" ] && [ -n "$KB" ] || skip_all "no kernels in $CACHE/kernels.mk: run 'make deps'"
V=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
ARCH=$(dpkg --print-architecture)

T=$(mktemp -d /tmp/gpsphc-packaging.XXXXXX)
holder=
cleanup() {
	# The overlay and its mounts die with the namespace's last process.
	[ -z "$holder" ] || { kill "$holder"; wait "$holder"; } 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# --- the source tree, as a tarball holds it -----------------------------
PRISTINE=$T/share/gpsphc-$V	# for dkms add; SRC is built in
SRC=$T/src
sh "$TOP/tools/packaging/export.sh" "$PRISTINE"
cp -a "$PRISTINE" "$SRC"
check "gpsphc.ko builds for $KA from a source tree without .git" \
	make -s -j2 -C "$SRC" KVER="$KA"
same "modinfo -F version gpsphc.ko is dkms.conf's PACKAGE_VERSION" \
	"$V" "$(modinfo -F version "$SRC/gpsphc.ko" 2>&1)"

# --- make install / make uninstall --------------------------------------
# What make install should put in a DESTDIR, besides depmod's index.
{
	echo "/lib/modules/$KA/updates/gpsphc.ko"
	echo /usr/sbin/gpsphcd
	echo /usr/bin/gpsphc-plot
	echo /usr/share/man/man8/gpsphcd.8
	echo /usr/share/man/man5/gpsphc.conf.5
	for f in "$SRC"/userspace/systemd/*.in; do
		[ -f "$f" ] && { f=${f##*/}; echo "/usr/lib/systemd/system/${f%.in}"; }
	done
	for f in "$SRC"/userspace/udev/*.rules; do
		[ -f "$f" ] && echo "/usr/lib/udev/rules.d/${f##*/}"
	done
	for f in "$SRC"/userspace/modules-load.d/*.conf; do
		[ -f "$f" ] && echo "/usr/lib/modules-load.d/${f##*/}"
	done
	for f in "$SRC"/userspace/examples/*; do
		[ -f "$f" ] && echo "/usr/share/doc/gpsphcd/examples/${f##*/}"
	done
} | sort >"$T/want"
# files DIR: every file and link under DIR, as absolute paths inside it.
files() { (cd "$1" && find . ! -type d | sed 's|^\.||' | sort); }

D=$T/destdir
check "make install DESTDIR=... KVER=$KA" make -s -C "$SRC" install KVER="$KA" DESTDIR="$D"
files "$D" >"$T/got"
echo "# make install put:" $(grep -v "^/lib/modules/$KA/modules\." "$T/got") "and depmod's index"
check "make install put gpsphc's files in place, and depmod's index" \
	sh -c "grep -v '^/lib/modules/$KA/modules\.' '$T/got' | diff -u '$T/want' - &&
		grep -qx '/lib/modules/$KA/modules.dep' '$T/got'"
check "modprobe gpsphc finds it: modprobe -d DESTDIR -S $KA --show-depends gpsphc" \
	sh -c "modprobe -d '$D' -S '$KA' --show-depends gpsphc | tee /dev/stderr |
		grep -qx 'insmod $D/lib/modules/$KA/updates/gpsphc.ko *'"
same "installed gpsphcd --version" "gpsphcd $V" "$("$D/usr/sbin/gpsphcd" --version 2>&1)"
check "make install: the service, rules and config example are there" \
	test -f "$D/usr/lib/systemd/system/gpsphcd@.service" -a \
	-f "$D/usr/lib/udev/rules.d/60-gpsphc.rules" -a \
	-f "$D/usr/share/doc/gpsphcd/examples/gpsphc.conf"
same "make install: the unit runs the gpsphcd it installed" \
	"ExecStart=/usr/sbin/gpsphcd --config /etc/gpsphc/%i.conf --state /var/lib/gpsphc/%i.state /dev/%I" \
	"$(grep '^ExecStart=' "$D/usr/lib/systemd/system/gpsphcd@.service")"
check "make uninstall DESTDIR=... KVER=$KA" make -s -C "$SRC" uninstall KVER="$KA" DESTDIR="$D"
same "make uninstall left no file in the DESTDIR" "" "$(files "$D")"

# Over a kernel's module tree (a few of its modules and its lists, as
# depmod left them at the kernel's installation): uninstall restores it.
K=$T/kernel
KM=$K/lib/modules/$KA
mkdir -p "$KM/kernel/drivers"
cp -a "$CACHE/kernel-$KA/lib/modules/$KA"/modules.builtin* \
	"$CACHE/kernel-$KA/lib/modules/$KA"/modules.order "$KM/"
cp -a "$CACHE/kernel-$KA/lib/modules/$KA/kernel/drivers/pps" "$KM/kernel/drivers/"
depmod -b "$K" "$KA"
files "$K" >"$T/before"
cp "$KM/modules.dep" "$T/modules.dep.before"
check "make install over a kernel's module tree" make -s -C "$SRC" install KVER="$KA" DESTDIR="$K"
check "depmod indexed gpsphc.ko with the kernel's modules" grep -q "^updates/gpsphc.ko:" "$KM/modules.dep"
check "make uninstall over a kernel's module tree" make -s -C "$SRC" uninstall KVER="$KA" DESTDIR="$K"
files "$K" >"$T/after"
check "the kernel's module tree and its modules.dep are as before" \
	sh -c "diff -u '$T/before' '$T/after' && cmp '$T/modules.dep.before' '$KM/modules.dep'"

# --- make deb ------------------------------------------------------------
DEB=$T/share/deb
# The arm builds' trees stay, for gpsphcd's tests (below).
check "make deb (from the tree without .git)" \
	env GPSPHC_DEB_BUILD="$DEB" GPSPHC_DEB_KEEP_CROSS=1 make -s -C "$SRC" deb
TROOT=$CACHE/trixie/root
KEPT=
for a in arm64 armhf; do
	[ -s "$DEB/build-$a.tree" ] && KEPT="$KEPT $TROOT$(cat "$DEB/build-$a.tree")"
done
trap 'rm -rf $KEPT; cleanup' EXIT
DKMS_DEB=$DEB/gpsphc-dkms_${V}_all.deb
HELPER_DEB=$DEB/gpsphcd_${V}_$ARCH.deb
PLOT_DEB=$DEB/gpsphc-plot_${V}_all.deb
check "make deb built gpsphc-dkms_${V}_all.deb, gpsphcd_${V}_$ARCH.deb and gpsphc-plot_${V}_all.deb" \
	test -f "$DKMS_DEB" -a -f "$HELPER_DEB" -a -f "$PLOT_DEB"
for deb in "$DKMS_DEB" "$HELPER_DEB" "$PLOT_DEB"; do
	[ -f "$deb" ] || continue
	pkg=$(dpkg-deb -f "$deb" Package)
	same "$pkg: Version is dkms.conf's PACKAGE_VERSION" "$V" "$(dpkg-deb -f "$deb" Version)"
	same "$pkg: Architecture" "$([ "$pkg" = gpsphcd ] && echo "$ARCH" || echo all)" \
		"$(dpkg-deb -f "$deb" Architecture)"
	lint=$(lintian --no-cfg "$deb" 2>&1 | grep -v '^running with root privileges')
	printf '%s\n' "$lint" | grep . | sed "s/^/# /"
	same "$pkg: lintian reports no error" "" "$(printf '%s\n' "$lint" | grep '^E:')"
done
if [ -f "$HELPER_DEB" ]; then
	dpkg-deb -x "$HELPER_DEB" "$T/helper"
	same "gpsphcd --version from the package" "gpsphcd $V" \
		"$("$T/helper/usr/sbin/gpsphcd" --version 2>&1)"
	# Where bookworm's systemd and udev put theirs (debian/rules).
	same "gpsphcd: the unit, the udev rules, both man pages, the config example" \
		"/lib/systemd/system/gpsphcd@.service
/lib/udev/rules.d/60-gpsphc.rules
/usr/share/doc/gpsphcd/examples/gpsphc.conf
/usr/share/man/man5/gpsphc.conf.5.gz
/usr/share/man/man8/gpsphcd.8.gz" \
		"$(files "$T/helper" | grep -E 'systemd/system/|rules\.d/|examples/gpsphc\.conf|man[58]/')"
	same "gpsphcd: the packaged unit runs /usr/sbin/gpsphcd" \
		"ExecStart=/usr/sbin/gpsphcd --config /etc/gpsphc/%i.conf --state /var/lib/gpsphc/%i.state /dev/%I" \
		"$(grep '^ExecStart=' "$T/helper/lib/systemd/system/gpsphcd@.service")"
fi

if [ -f "$DKMS_DEB" ]; then
	dpkg-deb -x "$DKMS_DEB" "$T/dkmspkg"
	check "gpsphc-dkms: /usr/src/gpsphc-$V holds dkms.conf, Kbuild and kmod/" \
		test -f "$T/dkmspkg/usr/src/gpsphc-$V/dkms.conf" -a \
		-f "$T/dkmspkg/usr/src/gpsphc-$V/Kbuild" -a -d "$T/dkmspkg/usr/src/gpsphc-$V/kmod"
	check "gpsphc-dkms: gpsphc.ko loads at boot (modules-load.d)" \
		grep -qx gpsphc "$T/dkmspkg/usr/lib/modules-load.d/gpsphc.conf"
fi

# --- gpsphcd for arm64 and armhf ----------------------------------------
# The packages, as make deb cross built them in the Debian 13 chroot.
QEMU_OK=1
command -v qemu-aarch64 >/dev/null && command -v qemu-arm >/dev/null || QEMU_OK=0
# Debian 13's arm64 programs sign their return addresses (PAC): QEMU's
# default algorithm for that (QARMA5) makes them 6 times slower to run
# than its own hash does.
QEMU_arm64="qemu-aarch64 -cpu max,pauth-impdef=on"
QEMU_armhf=qemu-arm
for a in arm64 armhf; do
	deb=$DEB/gpsphcd_${V}_$a.deb
	check "make deb built gpsphcd_${V}_$a.deb" test -f "$deb"
	[ -f "$deb" ] || continue
	t=$(dpkg-architecture -a "$a" -qDEB_HOST_MULTIARCH 2>/dev/null)
	same "gpsphcd ($a): Architecture" "$a" "$(dpkg-deb -f "$deb" Architecture)"
	same "gpsphcd ($a): Version is dkms.conf's PACKAGE_VERSION" "$V" "$(dpkg-deb -f "$deb" Version)"
	lint=$(lintian --no-cfg "$deb" 2>&1 | grep -v '^running with root privileges')
	printf '%s\n' "$lint" | grep . | sed "s/^/# /"
	same "gpsphcd ($a): lintian reports no error or warning" "" \
		"$(printf '%s\n' "$lint" | grep '^[EW]:')"
	rm -rf "$T/helper-$a"
	dpkg-deb -x "$deb" "$T/helper-$a"
	bin=$T/helper-$a/usr/sbin/gpsphcd
	case $a in arm64) want="ARM aarch64" ;; armhf) want="ARM, EABI5" ;; esac
	check "gpsphcd ($a): file says $want" sh -c 'file -b "$1" | tee /dev/stderr | grep -qF "$2"' \
		sh "$bin" "$want"
	# Depends: the chroot's package of every library the program links,
	# of this architecture (what dpkg-shlibdeps found there).
	paths=$(readelf -d "$bin" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' |
		while read -r so; do
			if [ -e "$TROOT/usr/lib/$t/$so" ]; then echo "/usr/lib/$t/$so"; else echo "/usr/lib/$so"; fi
		done)
	same "gpsphcd ($a): Depends names the $a packages of the libraries it links" \
		"$(chroot "$TROOT" dpkg -S $paths 2>&1 | sed 's/: .*//' | sort -u)" \
		"$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/^ *//; s/[ (].*//; s/$/:'"$a"'/' | sort -u)"
	if [ $QEMU_OK = 1 ]; then
		eval "q=\$QEMU_$a"
		same "gpsphcd --version from the $a package (${q%% *})" "gpsphcd $V" \
			"$($q -L "$TROOT" "$bin" --version 2>&1)"
	fi
done

# gpsphcd's tests for arm64 and armhf: everything make check runs, built
# in the chroot with 6.12's kselftest harness (whose -T leaves a test
# out), in make deb's build tree there: on the objects that went into the
# package. The C tests then run under qemu-user (not qemu-user-static and
# binfmt: this machine runs foreign programs as it did), against a
# sysroot of the chroot's /usr and that tree only: the tests' /dev/ptmx
# and /tmp stay this machine's. The test programs are dynamically linked,
# as gpsphcd is (libsystemd has no static library). Left out under TCG,
# which runs them 10 to 20 times slower (some 45 s an architecture): the
# sweeps over decades of dates and over random devices, which
# make -C userspace check runs natively.
SWEEPS="exhaustive_sentences build_slack_30_days_before_to_19_years_after
	random_devices_always_valid_exposition"
mkdir -p "$T/sysroot/tmp"
ln -s "$TROOT/usr" "$T/sysroot/usr"
ln -s usr/lib "$T/sysroot/lib"
for a in arm64 armhf; do
	t=$(dpkg-architecture -a "$a" -qDEB_HOST_MULTIARCH 2>/dev/null)
	tree=$(cat "$DEB/build-$a.tree" 2>/dev/null)
	if [ -z "$tree" ] || [ ! -d "$TROOT$tree/gpsphc-$V/userspace" ]; then
		result fail "gpsphcd's tests build for $a: make deb left no $a build tree in $TROOT"
		continue
	fi
	mkdir -p "$TROOT$tree/ksft"
	cp "$CACHE"/linux-source-6.12/tools/testing/selftests/kselftest*.h "$TROOT$tree/ksft/"
	ln -s "$TROOT$tree" "$T/sysroot$tree"
	check "gpsphcd's tests build for $a (make check-build, in the Debian 13 chroot)" \
		flock -s "$CACHE/trixie/lock" chroot "$TROOT" env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 \
		make -s -j2 -C "$tree/gpsphc-$V/userspace" check-build CC="$t-gcc" AR="$t-ar" \
		PKG_CONFIG="$t-pkg-config" KSFT_DIR="$tree/ksft"
	eval "q=\$QEMU_$a"
	for prog in "$TROOT$tree/gpsphc-$V"/userspace/build/test_*; do
		[ -f "$prog" ] && [ -x "$prog" ] || continue
		name=${prog##*/}
		if [ $QEMU_OK = 0 ]; then
			echo "ok $((n += 1)) $a: $name under ${q%% *} # SKIP qemu-user missing: run 'make deps'"
			continue
		fi
		check "$a: $name passes under ${q%% *}" $q -L "$T/sysroot" "$prog" \
			$(for x in $SWEEPS; do printf -- '-T %s ' "$x"; done)
	done
done
rm -rf $KEPT

# --- DKMS, in a chroot under a throwaway overlay -------------------------
ROOT=$T/root
mkdir -p "$ROOT" "$T/ovl"
LOWER=/
[ -z "${GPSPHC_PACKAGING_HOST_LAYER:-}" ] || LOWER=$(cd "$GPSPHC_PACKAGING_HOST_LAYER" && pwd):/
unshare --mount --propagation private sh -e -c '
	T=$1 ROOT=$2 CACHE=$3 LOWER=$4
	mount -t tmpfs gpsphc-test "$T/ovl"
	mkdir "$T/ovl/upper" "$T/ovl/work"
	mount -t overlay gpsphc-test -o "lowerdir=$LOWER,upperdir=$T/ovl/upper,workdir=$T/ovl/work" "$ROOT"
	mount -t proc proc "$ROOT/proc"
	mount --rbind /dev "$ROOT/dev"
	# The cache read-only, the test files writable, whatever fs they are on.
	mkdir -p "$ROOT$CACHE" "$ROOT$T/share"
	mount --bind "$CACHE" "$ROOT$CACHE"
	mount -o remount,bind,ro "$ROOT$CACHE"
	mount --bind "$T/share" "$ROOT$T/share"
	exec sleep 3600' sh "$T" "$ROOT" "$CACHE" "$LOWER" &
holder=$!
i=0
until nsenter -t "$holder" -m mountpoint -q "$ROOT$T/share" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$holder" 2>/dev/null; then
		result fail "a chroot under an overlay of / in a mount namespace"
		exit 1
	fi
	sleep 0.1
done
export CACHE
in_root() { nsenter -t "$holder" -m chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive "$@"; }

# Kernels as their image packages leave them, with no headers: those this
# machine has (the headers' trees and links in /usr/src, the build link)
# go from the overlay first. Then headers as linux-headers installs them,
# hook included.
check "$KA and $KB as their images leave them, without headers (in the chroot)" \
	in_root sh -e -c '
	for k in "$@"; do
		for d in "$CACHE/kernel-$k/usr/src"/*; do rm -rf "/usr/src/${d##*/}"; done
		rm -rf "/lib/modules/$k/build"
		mkdir -p "/lib/modules/$k"
		ln -s "/usr/src/linux-headers-$k" "/lib/modules/$k/build"
		cp "$CACHE/kernel-$k/lib/modules/$k"/modules.builtin* \
			"$CACHE/kernel-$k/lib/modules/$k/modules.order" "/lib/modules/$k/"
		cp "$CACHE/kernel-$k/boot/config-$k" "$CACHE/kernel-$k/boot/System.map-$k" /boot/
	done
	rm -f /var/lib/man-db/auto-update	# no man-db trigger: faster' \
	sh "$KA" "$KB"
install_headers() {
	in_root sh -e -c '
		for d in "$CACHE/kernel-$1/usr/src"/*; do ln -s "$d" /usr/src/; done
		run-parts --report --exit-on-error --arg="$1" /etc/kernel/header_postinst.d' sh "$1"
}
remove_headers() {
	in_root sh -e -c 'for d in "$CACHE/kernel-$1/usr/src"/*; do rm "/usr/src/${d##*/}"; done' sh "$1"
}
# has_module KVER: dkms says gpsphc/V is installed for KVER, and the
# module depmod indexed there is version V, built for KVER.
has_module() {
	in_root dkms status -m gpsphc -v "$V" -k "$1" | grep -q ": installed" &&
	[ "$(in_root modinfo -k "$1" -F version gpsphc)" = "$V" ] &&
	in_root modinfo -k "$1" -F vermagic gpsphc | grep -q "^$1 "
}
# no_modules KVER...: neither dkms nor modinfo knows gpsphc for any KVER.
no_modules() {
	for k in "$@"; do
		! in_root dkms status -m gpsphc -k "$k" | grep -F ", $k," &&
		! in_root modinfo -k "$k" -n gpsphc || return 1
	done
}

# 1. By hand, from the source tree: dkms add, build, install for the
# second kernel, with both kernels' headers there.
check "headers of $KA installed (in the chroot)" install_headers "$KA"
check "headers of $KB installed" install_headers "$KB"
check "dkms add (a source tree without .git)" in_root dkms add "$PRISTINE"
for k in "$KB"; do
	check "dkms build -m gpsphc -v $V -k $k" in_root dkms build -m gpsphc -v "$V" -k "$k"
	check "dkms install -m gpsphc -v $V -k $k" in_root dkms install -m gpsphc -v "$V" -k "$k"
	check "gpsphc.ko $V built for $k, where modprobe finds it" has_module "$k"
done
[ -z "${GPSPHC_VERBOSE:-}" ] || in_root dkms status 2>&1 | sed 's/^/# /'
check "dkms remove -m gpsphc -v $V --all" in_root dkms remove -m gpsphc -v "$V" --all
check "no gpsphc.ko left for $KA or $KB" no_modules "$KA" "$KB"
in_root rm -rf "/usr/src/gpsphc-$V"
remove_headers "$KB"

# 2. The packages, where only the first kernel has its headers; then the
# second kernel's headers come.
check "dpkg -i gpsphc-dkms gpsphcd, where only $KA has its headers" \
	in_root dpkg -i "$DKMS_DEB" "$HELPER_DEB"
check "gpsphc-dkms built and installed gpsphc.ko $V for $KA" has_module "$KA"
check "and nothing for $KB, whose headers are not installed" no_modules "$KB"
check "modprobe gpsphc on $KA loads the DKMS module" sh -c \
	"nsenter -t $holder -m chroot '$ROOT' modprobe -S '$KA' --show-depends gpsphc |
		grep -qx 'insmod /lib/modules/$KA/updates/dkms/gpsphc.ko *'"
same "gpsphcd --version, installed" "gpsphcd $V" "$(in_root gpsphcd --version 2>&1)"
check "systemd-analyze verify gpsphcd@ttyS0.service, as the package installed it" \
	in_root sh -c 'mkdir -p /tmp/u && cp /lib/systemd/system/gpsphcd@.service "/tmp/u/gpsphcd@ttyS0.service" &&
		out=$(systemd-analyze verify /tmp/u/gpsphcd@ttyS0.service 2>&1); echo "$out"; [ -z "$out" ]'
check "headers of $KB installed after gpsphc, and the kernel's hook run" \
	install_headers "$KB"
check "gpsphc.ko $V rebuilt for $KB by that hook" has_module "$KB"
check "dpkg -r gpsphc-dkms gpsphcd" in_root dpkg -r gpsphc-dkms gpsphcd
check "and gpsphc.ko is gone from $KA and $KB" no_modules "$KA" "$KB"
echo "# packaging tests: $(( $(date +%s) - start )) s"
exit $failed

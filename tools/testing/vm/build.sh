#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build.sh KVER: build gpsphc.ko and the fake UART for one Debian kernel,
# and the initramfs that boots it with every test inside.
# Output: tools/testing/vm/build/KVER/initramfs.cpio.gz ($GPSPHC_VM_BUILD
# instead of tools/testing/vm/build, for a second build beside the first).
# GPSPHC_TESTS="prog ..." puts only those test programs in the guest's
# run list (while working on one of them); a word PROG:ARGS gives PROG
# ARGS, commas for blanks, and a last argument "&" runs it beside the
# next word's (guest/run_tests.sh). GPSPHC_TESTS_SKIP="prog ..." leaves
# those programs out of it (make check runs some on one kernel only).
# GPSPHC_TEST_ENV="VAR=value ..." puts those variables in the environment
# of every program the guest runs (guest/run_tests.sh), e.g. the cases a
# program reads from one: GPSPHC_STRESS_ONLY, GPSPHC_EXPLORE_SEED.
# GPSPHC_TEST_ARGS="..." gives those arguments to every program in the
# run list: the kselftest harness's -t TEST, -f FIXTURE, -v VARIANT, -l.
#
# Kernel code must build without a single warning (W=1 for our files):
# any compiler warning fails the build.
#
# Debian 13's kernels (trixie.sh) have a link kernel-KVER/chroot to the
# trixie chroot: their modules are built inside it, with Debian 13's gcc
# 14 against its /usr/src/linux-headers-KVER (whose Makefile sets ARCH
# and CROSS_COMPILE for arm64 and armmp-lpae: the chroot's cross gcc 14).
# GPSPHC_MODULES_ONLY=1 builds the modules and stops (make check, for
# the kernels it boots no test guest on). $OUT/compiler then holds the
# compiler the kernel names (CONFIG_CC_VERSION_TEXT); kbuild refuses
# another with a warning, which fails the build.
#
# The guest's architecture comes from the kernel's name: Debian's arm64
# kernels end in -arm64 (run.sh boots them under qemu-system-aarch64),
# its armhf ones in -armmp or -armmp-lpae (qemu-system-arm), the others
# are amd64. An arm guest cannot run this machine's programs: its
# selftests are built in the trixie chroot by its cross gcc
# (aarch64-linux-gnu-gcc, arm-linux-gnueabihf-gcc), static; its busybox
# is busybox-static:arm64 or :armhf and its linuxptp Debian 13's of its
# architecture (trixie.sh unpacks both beside the kernel); its gpsphcd is
# cross built in the chroot, dynamic, and staged with the chroot's
# libraries of that architecture. The shell tests that need Python,
# bash or iproute2 stay out of its run list.
set -eu

KVER=$1
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
VMBUILD=${GPSPHC_VM_BUILD:-$TOP/tools/testing/vm/build}
OUT=$VMBUILD/$KVER
KROOT=$CACHE/kernel-$KVER
KDIR=$KROOT/usr/src/linux-headers-$KVER
STAGE=$OUT/root
CHROOT=
if [ -e "$KROOT/chroot" ]; then
	CHROOT=$(cd "$KROOT/chroot" && pwd -P)
	KDIR=/usr/src/linux-headers-$KVER
fi

ARCH=amd64 BUSYBOX=/bin/busybox CROSS=
case $KVER in
*-arm64) ARCH=arm64 CROSS=aarch64-linux-gnu ;;
*-armmp|*-armmp-lpae) ARCH=armhf CROSS=arm-linux-gnueabihf ;;
esac
[ -z "$CROSS" ] || BUSYBOX=$KROOT/usr/bin/busybox

die() { echo "build.sh: $*" >&2; exit 1; }
[ -d "$CHROOT$KDIR" ] || die "no headers for $KVER in $CHROOT$KDIR: run 'make deps'"
if [ "${GPSPHC_MODULES_ONLY:-0}" != 1 ]; then
	[ -s "$KROOT/boot/vmlinuz-$KVER" ] ||
		die "no kernel image $KROOT/boot/vmlinuz-$KVER: run 'make deps'"
	[ -x "$BUSYBOX" ] || die "no busybox for the $ARCH guest at $BUSYBOX: run 'make deps'"
	if [ -n "$CROSS" ]; then
		if [ -z "$CHROOT" ] || [ ! -e "$CHROOT/usr/$CROSS/lib/libc.a" ]; then
			die "no chroot with libc6-dev-$ARCH-cross for $KVER's programs: run 'make deps'"
		fi
		[ "${GPSPHC_VM_USB_SERIAL:-0}" != 1 ] ||
			die "GPSPHC_VM_USB_SERIAL=1: the $ARCH guest has no second UART to feed the adapter"
	fi
fi
mkdir -p "$OUT"
sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$CHROOT$KDIR/.config" >"$OUT/compiler"

# kbuild_module NAME SRC...: copy sources into a private directory so the
# two kernels' builds never share objects, then build warning-free.
kbuild_module() {
	name=$1; shift
	dir=$OUT/$name
	rm -rf "$dir"; mkdir -p "$dir"
	cp -r "$@" "$dir/"
	log=$dir/build.log
	set -- make -s -C "$KDIR" W=1 CONFIG_DEBUG_INFO_BTF_MODULES= modules
	rc=0
	if [ -n "$CHROOT" ]; then
		# The chroot sees only its own tree: build in a copy there,
		# one per $dir (both of make check's lanes build each kernel).
		cdir=/tmp/gpsphc-build-$(echo "$dir" | cksum | cut -d' ' -f1)
		rm -rf "$CHROOT$cdir"; mkdir -p "$CHROOT$cdir"
		cp -r "$dir/." "$CHROOT$cdir/"
		chroot "$CHROOT" env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 "$@" M="$cdir" >"$log" 2>&1 || rc=$?
		cp -r "$CHROOT$cdir/." "$dir/"
		rm -rf "$CHROOT$cdir"
	else
		"$@" M="$dir" >"$log" 2>&1 || rc=$?
	fi
	if [ $rc -ne 0 ]; then
		cat "$log" >&2
		die "building $name.ko for $KVER failed"
	fi
	# modpost's warnings (section mismatches, ...) count too.
	if grep -q 'warning:\|WARNING:' "$log"; then
		cat "$log" >&2
		die "$name.ko has compiler or modpost warnings against $KVER"
	fi
}

# GPSPHC_VM_MODULES_FROM=DIR: the modules another build directory built
# for KVER from the same tree (make check's second build of a kernel,
# whose guest runs other tests), copied instead of built again.
MODULES_FROM=${GPSPHC_VM_MODULES_FROM:+$GPSPHC_VM_MODULES_FROM/$KVER}
if [ -n "$MODULES_FROM" ]; then
	for name in gpsphc gpsphc_sim gpsphc_8250emu gpsphc_gpioemu; do
		[ -d "$TOP/tools/testing/$name" ] || [ $name = gpsphc ] || continue
		[ -f "$MODULES_FROM/$name/$name.ko" ] || die "no $name.ko in $MODULES_FROM"
		rm -rf "$OUT/$name"; mkdir -p "$OUT/$name"
		cp "$MODULES_FROM/$name/$name.ko" "$MODULES_FROM/$name/build.log" "$OUT/$name/"
	done
else
	kbuild_module gpsphc "$TOP/Kbuild" "$TOP/kmod"
	[ ! -d "$TOP/tools/testing/gpsphc_sim" ] ||
		kbuild_module gpsphc_sim "$TOP"/tools/testing/gpsphc_sim/*.[ch] "$TOP"/tools/testing/gpsphc_sim/Kbuild
	# The kernel's own 8250 driver on an emulated 16550A (gpsphc_8250_test.sh).
	[ ! -d "$TOP/tools/testing/gpsphc_8250emu" ] ||
		kbuild_module gpsphc_8250emu "$TOP"/tools/testing/gpsphc_8250emu/*.[ch] "$TOP"/tools/testing/gpsphc_8250emu/Kbuild
	# A GPIO controller with a PPS on a line (gpsphc_gpio_test.sh).
	[ ! -d "$TOP/tools/testing/gpsphc_gpioemu" ] ||
		kbuild_module gpsphc_gpioemu "$TOP"/tools/testing/gpsphc_gpioemu/*.[ch] "$TOP"/tools/testing/gpsphc_gpioemu/Kbuild
fi
[ "${GPSPHC_MODULES_ONLY:-0}" = 1 ] && exit 0
# The guest loads nothing of the image's before ours: Debian builds PPS,
# PTP, the DPLL core and the serial core in, on amd64, arm64 and armhf
# alike.
deps=$(for m in "$OUT"/gpsphc/gpsphc.ko "$OUT"/gpsphc_sim/gpsphc_sim.ko; do
	[ -f "$m" ] && /sbin/modinfo -F depends "$m"; done | tr ',' '\n' | sort -u | tr '\n' ' ')
[ -z "${deps% }" ] || die "our modules need $deps from $KVER, which the guest does not load"

# Userspace programs are the same for all kernels of an architecture;
# build them once. An arm guest's in the chroot, from a copy of their
# sources, the uAPI header and the kselftest harness (the selftests'
# Makefile's KSFT_DIR), laid out as in the tree.
USR=$VMBUILD/user
if [ -n "$CROSS" ]; then
	USR=$VMBUILD/user-$ARCH
	cdir=/tmp/gpsphc-selftests-$(echo "$USR" | cksum | cut -d' ' -f1)
	sdir=$cdir/tools/testing/selftests/gpsphc
	rm -rf "$CHROOT$cdir"; mkdir -p "$CHROOT$sdir" "$CHROOT$cdir/kmod" "$CHROOT$cdir/ksft"
	for f in "$TOP"/tools/testing/selftests/gpsphc/*; do
		[ -f "$f" ] && cp "$f" "$CHROOT$sdir/"
	done
	cp -r "$TOP/kmod/uapi" "$CHROOT$cdir/kmod/"
	cp -r "${KSFT_DIR:-$CACHE/linux-source-6.12/tools/testing/selftests}/." "$CHROOT$cdir/ksft/"
	rc=0
	chroot "$CHROOT" env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 make -s -C "$sdir" \
		CC=$CROSS-gcc LDFLAGS=-static KSFT_DIR="$cdir/ksft" \
		OUTPUT="$cdir/out" >&2 || rc=$?
	rm -rf "$USR/selftests"; mkdir -p "$USR"
	[ $rc -ne 0 ] || cp -r "$CHROOT$cdir/out" "$USR/selftests"
	rm -rf "$CHROOT$cdir"
	[ $rc -eq 0 ] || die "building the $ARCH selftests failed"
else
	mkdir -p "$USR"
	make -s -C "$TOP/tools/testing/selftests/gpsphc" OUTPUT="$USR/selftests" >&2 ||
		die "building the selftests failed"
fi
GPSPHCD=
if [ $ARCH = amd64 ] && [ -f "$TOP/userspace/Makefile" ]; then
	make -s -C "$TOP/userspace" >&2 || die "building gpsphcd failed"
	[ -x "$TOP/userspace/build/gpsphcd" ] && GPSPHCD=$TOP/userspace/build/gpsphcd
elif [ -f "$TOP/userspace/Makefile" ]; then
	# An arm guest's gpsphcd: cross built in the chroot against its
	# multiarch libraries (libnl-genl-3-dev:arm64 and the like, as
	# 'make deb' builds the arm packages), dynamic, with those
	# libraries and the loader staged below.
	cdir=/tmp/gpsphc-userspace-$(echo "$USR" | cksum | cut -d' ' -f1)
	# (Not userspace/build, which the amd64 build may be writing now.)
	rm -rf "$CHROOT$cdir"; mkdir -p "$CHROOT$cdir/kmod" "$CHROOT$cdir/userspace"
	(cd "$TOP/userspace" && tar cf - --exclude=./build .) | (cd "$CHROOT$cdir/userspace" && tar xf -) ||
		die "copying userspace/ into the chroot failed"
	cp -r "$TOP/kmod/uapi" "$CHROOT$cdir/kmod/"
	cp "$TOP/dkms.conf" "$CHROOT$cdir/"
	rc=0
	chroot "$CHROOT" env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 make -s -C "$cdir/userspace" \
		CC=$CROSS-gcc AR=$CROSS-ar PKG_CONFIG=$CROSS-pkg-config build/gpsphcd >&2 || rc=$?
	[ $rc -ne 0 ] || cp "$CHROOT$cdir/userspace/build/gpsphcd" "$USR/gpsphcd"
	rm -rf "$CHROOT$cdir"
	[ $rc -eq 0 ] || die "building gpsphcd for $ARCH in the chroot failed"
	GPSPHCD=$USR/gpsphcd
fi

# pack: the initramfs of what is in $STAGE.
pack() {
	(cd "$STAGE" && find . | cpio -o -H newc --quiet | gzip -1) >"$OUT/initramfs.cpio.gz.tmp"
	mv "$OUT/initramfs.cpio.gz.tmp" "$OUT/initramfs.cpio.gz"
}
rm -rf "$STAGE"
mkdir -p "$STAGE/bin" "$STAGE/sbin" "$STAGE/lib/gpsphc" "$STAGE/tests" \
	"$STAGE/proc" "$STAGE/sys" "$STAGE/dev" "$STAGE/tmp" "$STAGE/etc" \
	"$STAGE/run" "$STAGE/var/lib/gpsphc"
cp "$BUSYBOX" "$STAGE/bin/busybox"
cp "$OUT/gpsphc/gpsphc.ko" "$STAGE/lib/gpsphc/"
[ -f "$OUT/gpsphc_sim/gpsphc_sim.ko" ] && cp "$OUT/gpsphc_sim/gpsphc_sim.ko" "$STAGE/lib/gpsphc/"
[ -f "$OUT/gpsphc_8250emu/gpsphc_8250emu.ko" ] && cp "$OUT/gpsphc_8250emu/gpsphc_8250emu.ko" "$STAGE/lib/gpsphc/"
[ -f "$OUT/gpsphc_gpioemu/gpsphc_gpioemu.ko" ] && cp "$OUT/gpsphc_gpioemu/gpsphc_gpioemu.ko" "$STAGE/lib/gpsphc/"
install -m 0755 "$TOP/tools/testing/vm/guest/init" "$STAGE/init"
cp "$TOP"/tools/testing/vm/guest/*.sh "$STAGE/tests/"
cp -r "$USR/selftests/." "$STAGE/tests/"
# A word PROG:ARGS of GPSPHC_TESTS runs PROG with ARGS, commas for
# blanks (phc_test:-f,lock: the harness's lock fixture only).
[ -z "${GPSPHC_TESTS:-}" ] || echo "$GPSPHC_TESTS" | tr ' ' '\n' | sed '/:/{s/:/ /;s/,/ /g}' >"$STAGE/tests/run.list"
[ -z "${GPSPHC_TEST_ENV:-}" ] || echo "$GPSPHC_TEST_ENV" >"$STAGE/tests/run.env"
[ -z "${GPSPHC_TEST_ARGS:-}" ] || echo "$GPSPHC_TEST_ARGS" >"$STAGE/tests/run.args"
# A line's program: its first word that sets no environment variable.
PROG_AWK='function prog(  i) { for (i = 1; i < NF && $i ~ /=/; i++); return $i }'
for t in ${GPSPHC_TESTS_SKIP:-}; do
	t=${t%%:*}
	awk -v t="$t" "$PROG_AWK"' prog() != t' "$STAGE/tests/run.list" >"$STAGE/tests/run.list.new"
	mv "$STAGE/tests/run.list.new" "$STAGE/tests/run.list"
done
if [ -n "$CROSS" ]; then
	# An arm guest has gpsphcd and linuxptp but no Python, bash or
	# iproute2: the shell tests that need only those.
	arm_ok='^(gpsphcd_test|gpsphcd_fdstore_test|gpsphcd_robust_test|phc2sys_test|ts2phc_test)\.sh$'
	bad=$(awk -v ok="$arm_ok" "$PROG_AWK"' prog() ~ /\.sh$/ && prog() !~ ok { print prog() }' \
		"$STAGE/tests/run.list" | tr '\n' ' ')
	[ -z "$bad" ] || [ -z "${GPSPHC_TESTS:-}" ] ||
		die "the $ARCH guest cannot run $bad(no Python, bash or iproute2 for $ARCH)"
	awk -v ok="$arm_ok" "$PROG_AWK"' prog() !~ /\.sh$/ || prog() ~ ok' \
		"$STAGE/tests/run.list" >"$STAGE/tests/run.list.new"
	mv "$STAGE/tests/run.list.new" "$STAGE/tests/run.list"
fi
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$STAGE/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$STAGE/etc/group"
echo "$KVER" >"$STAGE/etc/kver"
# gpsphcd's leap-second data, as tzdata installs it.
if [ -f /usr/share/zoneinfo/leap-seconds.list ]; then
	mkdir -p "$STAGE/usr/share/zoneinfo"
	cp /usr/share/zoneinfo/leap-seconds.list "$STAGE/usr/share/zoneinfo/"
fi

# An arm guest has what is above: busybox and static programs; and
# gpsphcd and Debian 13's linuxptp of its architecture (trixie.sh put it
# beside the kernel) with the libraries they need (their NEEDED,
# recursively, from the chroot's multiarch directories) and the loader.
if [ $ARCH != amd64 ]; then
	cp "$GPSPHCD" "$STAGE/sbin/gpsphcd"
	ln -s ../run "$STAGE/var/run"
	cp "$TOP/userspace/examples/ts2phc-gpsphc.conf" "$STAGE/tests/"
	todo=$STAGE/sbin/gpsphcd
	for p in ptp4l phc2sys pmc ts2phc phc_ctl; do
		[ -x "$KROOT/usr/sbin/$p" ] || die "no $KROOT/usr/sbin/$p (linuxptp:$ARCH): run 'make deps'"
		cp "$KROOT/usr/sbin/$p" "$STAGE/sbin/$p"
		todo="$todo $STAGE/sbin/$p"
	done
	interp=$(readelf -l "$GPSPHCD" | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
	[ -n "$interp" ] || die "gpsphcd for $ARCH names no loader"
	mkdir -p "$STAGE${interp%/*}"
	cp -L "$CHROOT$interp" "$STAGE$interp"
	triplet=$CROSS
	[ $ARCH = arm64 ] && triplet=aarch64-linux-gnu
	done_libs=
	while [ -n "$todo" ]; do
		set -- $todo; f=$1; shift; todo=$*
		for so in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			case " $done_libs " in *" $so "*) continue ;; esac
			done_libs="$done_libs $so"
			src=$CHROOT/usr/lib/$triplet/$so
			[ -e "$src" ] || die "gpsphcd for $ARCH needs $so, not in $CHROOT/usr/lib/$triplet"
			mkdir -p "$STAGE/usr/lib/$triplet"
			cp -L "$src" "$STAGE/usr/lib/$triplet/$so"
			todo="$todo $STAGE/usr/lib/$triplet/$so"
		done
	done
	pack
	exit 0
fi

# The kernel's YNL client, the specs and a Python for them (ynl_cli_test.sh).
sh "$TOP/tools/testing/vm/ynl.sh" guest "$STAGE" >&2 || die "staging the YNL client failed"

# Programs with their shared libraries, found with ldd. linuxptp is the
# kernel's Debian release's: Debian 12's 3.1.1 on this machine, Debian
# 13's 4.2 from the trixie chroot for Debian 13's kernels (issue 25: the
# recipes run against both), with the chroot's glibc, which the programs
# built here run on too (glibc is backward compatible, not forward).
LPTP=
if [ -n "$CHROOT" ]; then
	LPTP=$CHROOT
	[ -x "$LPTP/usr/sbin/ptp4l" ] || die "no linuxptp in the trixie chroot $CHROOT: run 'make deps'"
fi
progs="$LPTP/usr/sbin/phc2sys $LPTP/usr/sbin/phc_ctl $LPTP/usr/sbin/ts2phc $LPTP/usr/sbin/ptp4l $LPTP/usr/sbin/pmc"
[ -n "$GPSPHCD" ] && { cp "$GPSPHCD" "$STAGE/sbin/gpsphcd"; progs="$progs $STAGE/sbin/gpsphcd"; }
# gm_chain_test.sh: bash; iproute2's ip in /bin, before busybox's (which
# has no netns); veth, a module in Debian's kernels (uncompressed: the
# guest's insmod is busybox's); /var/run for pmc's, phc2sys's and
# gpsphcd's sockets; the grandmaster's and ts2phc's config files.
cp /bin/bash "$STAGE/bin/bash"
cp "$(command -v ip)" "$STAGE/bin/ip"
progs="$progs $STAGE/bin/bash $STAGE/bin/ip"
# The debug kernel has no veth (nor runs that test, which skips without).
# Debian 13's images have their modules in /usr/lib/modules.
veth=$(find "$KROOT/lib/modules/$KVER" "$KROOT/usr/lib/modules/$KVER" -name 'veth.ko*' 2>/dev/null | head -n 1)
mkdir -p "$STAGE/lib/modules/$KVER"
case $veth in
'') echo "build.sh: no veth module for $KVER: gm_chain_test.sh will skip" >&2 ;;
*.xz) xz -dc "$veth" >"$STAGE/lib/modules/$KVER/veth.ko" ;;
*.zst) zstd -qdc "$veth" >"$STAGE/lib/modules/$KVER/veth.ko" ;;
*) cp "$veth" "$STAGE/lib/modules/$KVER/veth.ko" ;;
esac
# GPSPHC_VM_USB_SERIAL=1 (with run.sh's): the USB host and serial modules,
# decompressed, and their load order, for gpsphc_usb_serial_test.sh.
if [ "${GPSPHC_VM_USB_SERIAL:-0}" = 1 ]; then
	mkdir -p "$STAGE/lib/modules/$KVER/usb"
	order="usb-common usbcore xhci-hcd xhci-pci usbserial ftdi_sio"
	for m in $order; do
		f=$(find "$KROOT/lib/modules/$KVER" "$KROOT/usr/lib/modules/$KVER" -name "$m.ko*" 2>/dev/null | head -n 1)
		case $f in
		'') die "no $m module for $KVER (GPSPHC_VM_USB_SERIAL=1)" ;;
		*.xz) xz -dc "$f" ;;
		*.zst) zstd -qdc "$f" ;;
		*) cat "$f" ;;
		esac >"$STAGE/lib/modules/$KVER/usb/$m.ko"
	done
	echo "$order" >"$STAGE/lib/modules/$KVER/usb/order"
fi
ln -s ../run "$STAGE/var/run"
cp "$TOP/userspace/examples/ptp4l-gm.conf" "$TOP/userspace/examples/ts2phc-gpsphc.conf" "$STAGE/tests/"
for p in $progs; do
	case $p in "$STAGE"/*) ;; *) cp "$p" "$STAGE/sbin/" ;; esac
done
for f in $progs "$STAGE"/tests/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true
done | sort -u | while read -r lib; do
	mkdir -p "$STAGE$(dirname "$lib")"
	cp -L "$lib" "$STAGE$lib"
done
# glibc's libraries (libc, libm, the loader, ...) from the chroot, all of
# them: they must be of one release.
if [ -n "$LPTP" ]; then
	# (libc6:amd64: the chroot has arm64 and armhf installed too.)
	libs=$(chroot "$LPTP" dpkg-query -L libc6:amd64) || die "no libc6:amd64 in the chroot $LPTP"
	for lib in $(echo "$libs" | grep '\.so'); do
		for f in "$STAGE"/lib/*/"${lib##*/}" "$STAGE"/lib64/"${lib##*/}"; do
			[ ! -f "$f" ] || cp -L "$LPTP$lib" "$f"
		done
	done
	cmp -s "$LPTP/usr/lib/x86_64-linux-gnu/libc.so.6" "$STAGE/lib/x86_64-linux-gnu/libc.so.6" ||
		die "the guest's libc.so.6 is not the chroot's"
	[ "$(chroot "$STAGE" /bin/busybox sh -c '/sbin/ptp4l -v' 2>&1)" = \
		"$(chroot "$LPTP" /usr/sbin/ptp4l -v 2>&1)" ] ||
		die "the guest's ptp4l does not run with the chroot's glibc"
fi
pack

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh KVER MODE [TIMEOUT]: boot the initramfs of KVER under QEMU (TCG;
# KVM hangs on these machines) and stream the guest's serial console to
# stdout. MODE (check or demo) tells the guest's init what to run. The
# guest prints GPSPHC-DONE before it powers off; a guest that does not
# within TIMEOUT seconds is killed and reported as hung. GPSPHC_VM_BUILD:
# as for build.sh.
# Single-threaded TCG: multi-threaded TCG occasionally mis-executes the
# kernel's live code patching (seen: "Oops: int3" in get_random_u32 on
# 6.12, about one boot in 15).
# A kernel whose name ends in -arm64 (build.sh) boots under
# qemu-system-aarch64 on QEMU's virt board, its console on the board's
# PL011 (ttyAMA0); qemu -kernel takes the vmlinuz of Debian's unsigned
# image package as it is, an uncompressed arm64 Image. The CPU is 'max',
# so that the kernel and our module run as on today's arm64 servers
# (return addresses signed with pointer authentication, LSE atomics),
# with QEMU's own signing algorithm (pauth-impdef=on) rather than the
# architected QARMA5, which TCG computes slowly. cortex-a57 (ARMv8.0)
# exercises neither; it runs ldisc_test in 8 to 9 s instead of 12 to 13.
# An armhf kernel (-armmp, -armmp-lpae) boots under qemu-system-arm on
# the same board, console ttyAMA0, its vmlinuz a zImage, on a Cortex-A15
# (ARMv7 with LPAE, as the -lpae flavour needs), in multi-threaded TCG,
# QEMU's default for an ARM guest: with one thread for both CPUs, each
# page of a kernel TLB flush broadcast to the other CPU (TLBIMVAAIS)
# waits for the round-robin to come back to this one, and the boot spends
# minutes in free_initmem's flush of the kernel's sections
# (v7wbi_flush_kern_tlb_range, while the other CPU waits in stop_machine).
# The threads on one host core (make check's lanes) make the guest wait
# on the host's scheduler: ldisc_test takes 73 s, against 13 s with one
# CPU, which would leave the races (stress_test, ptp_race_test) no
# second CPU.
set -eu

KVER=$1
MODE=$2
TIMEOUT=${3:-600}
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
OUT=${GPSPHC_VM_BUILD:-$TOP/tools/testing/vm/build}/$KVER

log=$OUT/console.log
# One timing-sensitive guest at a time on this machine: wait for the
# others (a developer's, a helper's) to finish before booting.
# GPSPHC_VM_UNTIMED=1 says this guest's tests measure no time, or none
# finer than a millisecond (make check's untimed lane): it may run beside
# a timed guest, one such at a time.
lock=gpsphc-vm.lock
[ "${GPSPHC_VM_UNTIMED:-0}" = 1 ] && lock=gpsphc-vm-untimed.lock
# GPSPHC_VM_CPUS: the host CPUs the guest may run on (make check gives
# each lane a core of its own).
# GPSPHC_VM_ONLY, GPSPHC_VM_SKIP: programs of the initramfs's list (blank
# separated names, e.g. capture_latency_test) to run alone, or to leave
# out, in this boot (the guest's run_tests.sh reads them from the kernel's
# command line): make check measures the capture latency in a boot of its
# own, before anything else runs on the machine.
only=$(echo ${GPSPHC_VM_ONLY:-} | tr ' ' ',')
skip=$(echo ${GPSPHC_VM_SKIP:-} | tr ' ' ',')
# GPSPHC_VM_USB_SERIAL=1: QEMU's USB serial adapter (an FTDI, which the
# guest's ftdi_sio drives) on an xHCI controller, its data crossed over a
# socket with a second 16550 (the guest's ttyS1): what the guest writes to
# ttyS1 arrives on ttyUSB0 (gpsphc_usb_serial_test.sh; build.sh stages
# the modules with the same switch).
usb=
if [ "${GPSPHC_VM_USB_SERIAL:-0}" = 1 ]; then
	sock=$OUT/usb-serial.sock
	rm -f "$sock"
	usb="-device qemu-xhci,id=xhci -chardev socket,id=usbser,path=$sock,server=on,wait=off"
	usb="$usb -device usb-serial,bus=xhci.0,chardev=usbser"
	usb="$usb -chardev socket,id=s1,path=$sock,reconnect=1 -serial chardev:s1"
fi
tcg=single
case $KVER in
*-arm64) qemu="qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on" console=ttyAMA0 ;;
*-armmp|*-armmp-lpae) qemu="qemu-system-arm -M virt -cpu cortex-a15" console=ttyAMA0 tcg=multi ;;
*) qemu="qemu-system-x86_64 -cpu max" console=ttyS0 ;;
esac
[ -z "$usb" ] || [ $console = ttyS0 ] ||
	{ echo "run.sh: GPSPHC_VM_USB_SERIAL=1: amd64 guests only" >&2; exit 1; }
command -v "${qemu%% *}" >/dev/null || { echo "run.sh: no ${qemu%% *}: run 'make deps'" >&2; exit 1; }
exec 9>"${TMPDIR:-/tmp}/$lock"
flock 9
set +e
# shellcheck disable=SC2086 # $qemu and $usb are several arguments
timeout -k 5 "$TIMEOUT" ${GPSPHC_VM_CPUS:+taskset -c "$GPSPHC_VM_CPUS"} \
	$qemu -accel tcg,thread=$tcg -smp 2 -m 1024 \
	-nographic -no-reboot -nodefaults -serial stdio $usb \
	-kernel "$CACHE/kernel-$KVER/boot/vmlinuz-$KVER" -initrd "$OUT/initramfs.cpio.gz" \
	-append "console=$console slub_debug=FZPU loglevel=3 panic=-1 oops=panic gpsphc.mode=$MODE${only:+ gpsphc.only=$only}${skip:+ gpsphc.skip=$skip}" \
	</dev/null | stdbuf -oL tr -d '\r' | tee "$log"
rc=$?
set -e
if ! grep -q '^GPSPHC-DONE' "$log"; then
	echo "not ok vm-$KVER: guest did not finish within ${TIMEOUT}s (hung or crashed); console log: $log"
	# What killed it, for a CI log that only keeps "# " lines.
	grep -n -A25 -E 'Oops|BUG:|general protection|Kernel panic|WARNING:|stall' "$log" |
		grep -v 'attached to' | head -n 60 | sed 's/^/# console: /'
	exit 1
fi
exit $rc

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs every gpsphc test and ends with the line "N passed, N failed, N
# skipped". Each Debian kernel's guest, then the booted appliance on the
# first, one at a time on one core, then the host tests, the packaging,
# the kernel style and static checks; beside them, on the other core,
# gpsphcd's tests and the guests whose tests measure no time or only
# loosely (the debug kernel's, one more per amd64 Debian kernel, the
# arm64 and armhf ones). Each TAP result line
# counts once, prefixed with where it ran; exits non-zero on any failure.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
VM_TIMEOUT=${VM_TIMEOUT:-900}
results=$(mktemp) latency=$(mktemp)
trap 'rm -f "$results" "$latency"' EXIT

# tally WHERE: read TAP on stdin, echo it with WHERE prefixed to results.
# (awk, not sed: WHERE may hold any character, e.g. the '/' of a path.)
tally() {
	awk -v where="$1" '
		/^ok / { print "ok [" where "] " substr($0, 4); next }
		/^not ok / { print "not ok [" where "] " substr($0, 8) }
	' | tee -a "$results"
}

# step WHERE CMD...: run CMD; its TAP is counted, and a command that fails
# without printing a failure of its own becomes one failed test.
step() {
	where=$1; shift
	out=$(mktemp)
	"$@" >"$out" 2>&1
	rc=$?
	grep -v '^\(ok\|not ok\) ' "$out" | sed -n '/^# \|error\|Error\|warning\|FAIL/p' | head -n 40
	tally "$where" <"$out"
	# Each guest program's run time and a crashed guest's last words
	# (run.sh), past the 40 lines above; capture_latency_test's figures
	# are kept for after the timed lane.
	grep '^# ---- .* took \|^# console: ' "$out"
	# What each failed test said (its '#' lines since the result before),
	# past the 40 lines above: a CI log shows only this output.
	awk -v where="$where" '
		/^(ok|not ok) / {
			if ($0 ~ /^not ok / && $0 !~ /# TODO/) {
				print "# ---- why [" where "] " substr($0, 8) ":"
				for (i = (n > 40 ? n - 40 : 0); i < n; i++)
					print buf[i % 40]
			}
			n = 0
			next
		}
		/^# / { buf[n % 40] = $0; n++ }
	' "$out"
	grep '^# capture latency ' "$out" >>"$latency"
	if [ $rc -ne 0 ] && ! grep -q '^not ok ' "$out"; then
		echo "not ok [$where] $* exited with status $rc" | tee -a "$results"
		tail -n 30 "$out"
	fi
	rm -f "$out"
}

start=$(date +%s)
# kmk NAME...: the kernels kernels.mk names so (deps.sh, trixie.sh,
# debug_kernel.sh); a missing one is a failed test.
kmk1() { sed -n "s/^$1 := //p" "$CACHE/kernels.mk" 2>/dev/null; }
kmk() {
	for v in "$@"; do
		k=$(kmk1 "$v")
		[ -n "$k" ] && echo "$k" && continue
		[ "$v" = KVER_DEBUG ] ||
			echo "not ok [kernels.mk] no $v in $CACHE/kernels.mk: run 'make deps'" >>"$results"
	done
}
# The booted kernels: Debian 12's 6.1; Debian 13's 6.12 for amd64 and
# PREEMPT_RT (rt-amd64), whose modules the trixie chroot builds with
# Debian 13's gcc 14 (trixie.sh): they replace Debian 12's 6.12, the same
# upstream series (issue 25); the debug kernel. Debian 13's arm64 and
# armhf (armmp-lpae) kernels boot in the untimed lane only (ARM_TESTS
# below). Debian 12's 6.12 no guest boots any more: its module is only
# built (Debian 13's guests replace its appliance run, issue 25).
KVERS=$(kmk KVER_61 KVER_DEB13 KVER_DEB13_RT KVER_DEBUG)
ARM_KVERS=$(kmk KVER_DEB13_ARM64 KVER_DEB13_ARMHF)
MODULE_KVERS=$(kmk KVER_612)
# The kernel the Debian 12 appliance boots, in the timed lane.
APPLIANCE_TIMED=$(kmk1 KVER_61)

# timed STEP...: run STEP and say how long it took, for make check's budget.
timed() {
	t0=$(date +%s)
	"$@"
	echo "# $1 $2: $(( $(date +%s) - t0 )) s"
}

# The timed guests' initramfs first, one after the other: they build
# gpsphcd, which the two lanes below then only read, and share the
# selftests' build directory. Tests that measure no time, or none finer
# than a millisecond, run in the untimed lane, in a guest of their own
# per Debian kernel: the attach/detach cycles, the concurrency stress,
# attach and detach against PTP and PPS readers (ptp_race_test), the
# seeded random explorer of every way in (explore_test), the hostile
# input (the clock within 1 ms of the truth after a storm), gpsphcd's
# recovery (labels again, the servo locked again within 30 s) and the
# DPLL device (dpll_test.sh: lock status changes within seconds; it
# skips on 6.1, which has no DPLL core).
# That guest has a core of its own as the timed one has (a TCG guest is
# one thread); what it must not have is the timed guest's precision
# bounds, as builds in either lane may share its core for a while. The
# debug kernel's guest runs there too. The
# debug kernel runs what it can see and TCG can time on it (module,
# framing, netlink, the GPIO line's PPS and the 8250 driver's DCD, under
# lockdep with PROVE_RAW_LOCK_NESTING: PREEMPT_RT's rules for the GPIO
# line's hard interrupt handler and the UART's, the stress, the two races
# above, the YNL client): on a kernel that much
# slower, ldisc_test's 1000 cycles outlast their timeout and
# hangup_test's event windows close early, and kmemleak checks the leaks
# they would. The YNL client (a Python program, 70 s of TCG per guest)
# needs one kernel that has the family, and the debug kernel is the one
# that sees its locking too.
UNTIMED_TESTS="module_test ldisc_test stress_test ptp_race_test explore_test hostile_test gpsphcd_robust_test.sh dpll_test.sh"
DEBUG_TESTS="module_test framing_test netlink_test gpio_test stress_test ptp_race_test explore_test gpsphc_8250_test.sh ynl_cli_test.sh"
# What runs in no timed guest: the untimed lists, the PPS from a GPIO line
# without gpsphcd (gpio_test: counts, stamps within 50 ms; the timed
# guests run gpsphcd's GPIO test), the YNL client and the USB adapter.
TIMED_SKIP="$UNTIMED_TESTS gpio_test ynl_cli_test.sh gpsphc_usb_serial_test.sh"
# The arm guests (Debian 13's arm64 kernel under qemu-system-aarch64,
# its armhf one under qemu-system-arm; static programs: see build.sh) run
# what the debug kernel's does but the YNL client, and ldisc_test: no
# gpsphcd, Python or linuxptp there. On armhf, 32-bit ARM, u64 tearing,
# 64-bit division and 32-bit time_t show. hostile_test passes on arm64
# too but would add 130 s to a guest of about 200 s (armhf: 250 s). On
# armhf, by hand: hostile_test (128 s), pps_test and hangup_test pass,
# and phc_test but for its four cases that run phc_ctl or phc2sys.
ARM_TESTS="module_test ldisc_test framing_test netlink_test gpio_test stress_test ptp_race_test explore_test"
UNTIMED_BUILD=$TOP/tools/testing/vm/build/untimed
# QEMU's USB serial adapter (an FTDI: ftdi_sio) is plugged into one guest,
# Debian 13's amd64 untimed one: gpsphc_usb_serial_test.sh (NMEA through
# a real USB serial driver, coarse mode, gpsphcd's message) measures no
# time, and elsewhere it skips.
USB_KVER=$(kmk1 KVER_DEB13)
usb_serial() { [ "$1" = "$USB_KVER" ] && [ "$2" = "$UNTIMED_BUILD" ] && echo 1 || echo 0; }
timed_built=
# build KVER VMBUILD TESTS SKIP WHAT: one guest's initramfs (WHAT: which
# tests); its name on success. No WHAT: gpsphc.ko alone.
build() {
	log=$2/build-$1.log
	mkdir -p "$2"
	what="gpsphc.ko and the test initramfs ($5; " only=0
	[ -n "$5" ] || what="gpsphc.ko (" only=1
	if GPSPHC_VM_BUILD=$2 GPSPHC_TESTS=$3 GPSPHC_TESTS_SKIP=$4 GPSPHC_TEST_ENV= GPSPHC_TEST_ARGS= GPSPHC_MODULES_ONLY=$only \
			GPSPHC_VM_USB_SERIAL=$(usb_serial "$1" "$2") \
			sh "$TOP/tools/testing/vm/build.sh" "$1" >"$log" 2>&1; then
		# The kernel's compiler, e.g. "x86_64-linux-gnu-gcc-14 (Debian
		# 14.2.0-19) 14.2.0": its version.
		cc=$(sed 's/.* //' "$2/$1/compiler" 2>/dev/null)
		echo "ok [$1] build ${what}gcc ${cc:-?}, W=1, no warnings)" >>"$results"
		echo "$1"
	else
		echo "not ok [$1] build ${what}W=1, no warnings)" >>"$results"
		tail -n 30 "$log" >&2
	fi
}
# PREEMPT_RT's timed guest leaves out the grandmaster chain (gm_chain_test,
# 1.7 min): gpsphcd, ptp4l and phc2sys over the same 6.12 module as Debian
# 13 amd64's guest, which runs it; RT's own path, the capture in the
# UART's interrupt thread, is what phc_test, pps_test, coarse_test,
# capture_latency_test and the 8250 test there measure.
RT_TIMED_SKIP="gm_chain_test.sh"
for kver in $KVERS; do
	skip=$TIMED_SKIP
	case $kver in
	*-gpsphc-debug) continue ;;
	*-rt-*) skip="$TIMED_SKIP $RT_TIMED_SKIP" ;;
	esac
	timed_built="$timed_built $(build "$kver" "$TOP/tools/testing/vm/build" "" \
		"$skip" "timed tests")"
done
grep ' build gpsphc.ko' "$results"

# Two lanes, one per core. This one measures no time: gpsphcd's tests
# and the untimed guests, niced and
# kept to the second core, so that the timed guests keep the first to
# themselves: sharing a core now and then with the untimed lane's guest
# (its DCD storms) gave the timed guest milliseconds of interrupt latency
# for a minute. Its output is shown after the timed lane's, so that each
# step's lines stay together.
untimed_log=$(mktemp); untimed_results=$(mktemp)
trap 'rm -f "$results" "$latency" "$untimed_log" "$untimed_results"' EXIT
TIMED_CPU= UNTIMED_CPU=
if [ "$(nproc)" -ge 2 ] && taskset -c 0,1 true 2>/dev/null; then
	TIMED_CPU=0 UNTIMED_CPU=1
fi
(
	lane=$(sh -c 'echo $PPID')
	renice -n 10 -p "$lane" >/dev/null
	[ -z "$UNTIMED_CPU" ] || taskset -p -c "$UNTIMED_CPU" "$lane" >/dev/null
	results=$untimed_results
	timed step host:userspace make -s -C "$TOP/userspace" check
	# The kernel no guest boots: gpsphc.ko alone, in the timed lane's
	# build directory.
	for kver in $MODULE_KVERS; do
		build "$kver" "$TOP/tools/testing/vm/build" "" "" "" >/dev/null
	done
	# The untimed guests' builds have a build directory of their own,
	# and gpsphcd is built already: they share nothing with the timed
	# lane's.
	untimed_built=
	for kver in $KVERS $ARM_KVERS; do
		case $kver in
		*-gpsphc-debug) untimed_built="$untimed_built $(build "$kver" "$UNTIMED_BUILD" \
			"$DEBUG_TESTS" "" "debug kernel")" ;;
		*-arm64|*-armmp*) arch=arm64
			case $kver in *-armmp*) arch=armhf ;; esac
			untimed_built="$untimed_built $(build "$kver" "$UNTIMED_BUILD" \
			"$ARM_TESTS" "" "$arch guest")" ;;
		# PREEMPT_RT's untimed guest leaves out the explorer, the
		# hostile input and gpsphcd's recovery (5 min, for make
		# check's 40): on the same 6.12 code as Debian 13's amd64
		# guest, they walk sysfs, netlink and gpsphcd's restarts, not
		# the threaded interrupt that RT changes. It runs gpio_test,
		# whose line's primary handler stays a hard interrupt on RT.
		*-rt-*) untimed_built="$untimed_built $(build "$kver" "$UNTIMED_BUILD" \
			"$UNTIMED_TESTS gpio_test" "explore_test hostile_test gpsphcd_robust_test.sh" "untimed tests")" ;;
		"$USB_KVER") untimed_built="$untimed_built $(build "$kver" "$UNTIMED_BUILD" \
			"$UNTIMED_TESTS gpsphc_usb_serial_test.sh" "" "untimed tests, USB serial")" ;;
		*) untimed_built="$untimed_built $(build "$kver" "$UNTIMED_BUILD" \
			"$UNTIMED_TESTS" "" "untimed tests")" ;;
		esac
	done
	for kver in $untimed_built; do
		case $kver in *-gpsphc-debug|*-arm64|*-armmp*) where=$kver ;; *) where="$kver untimed" ;; esac
		GPSPHC_VM_BUILD=$UNTIMED_BUILD GPSPHC_VM_UNTIMED=1 GPSPHC_VM_CPUS=$UNTIMED_CPU \
			GPSPHC_VM_USB_SERIAL=$(usb_serial "$kver" "$UNTIMED_BUILD") timed step "$where" sh "$TOP/tools/testing/vm/run.sh" "$kver" check "$VM_TIMEOUT"
	done
) >"$untimed_log" 2>&1 </dev/null &
untimed=$!

# The timed lane: one guest at a time, as a guest is one single-threaded
# TCG process and the clock tests measure its PPS edges.
for kver in $timed_built; do
	GPSPHC_VM_CPUS=$TIMED_CPU \
		timed step "$kver" sh "$TOP/tools/testing/vm/run.sh" "$kver" check "$VM_TIMEOUT"
done
# The DCD capture latency of each timed kernel, side by side (issue 25):
# idle, under a real-time load, and on PREEMPT_RT with the UART's
# interrupt thread raised (capture_latency_test).
cat "$latency"

# The appliance test (issue 9): Debian 12 booted with systemd as init,
# gpsphcd's package, chrony (tools/testing/vm/appliance.sh; the root
# filesystem is made once, cached), on Debian 12's 6.1. (Its run on
# Debian 12's 6.12 made way for the arm guests, issue 25: the timed and
# untimed guests run the same module on Debian 13's 6.12.)
[ -z "$APPLIANCE_TIMED" ] || GPSPHC_VM_CPUS=$TIMED_CPU timed step "appliance-$APPLIANCE_TIMED" \
	sh "$TOP/tools/testing/vm/appliance.sh" "$APPLIANCE_TIMED" "$VM_TIMEOUT"

# The host's own tests, the packaging, style and static checks measure
# no time and touch no guest's build: on the timed lane's core once its
# guests are done, which takes them off the untimed lane, the longer one
# (2.4 min of its 38).
pin=${TIMED_CPU:+taskset -c $TIMED_CPU}
timed step host:tools/testing/host $pin make -s -C "$TOP/tools/testing/host" check
timed step host:packaging $pin sh "$TOP/tools/testing/packaging/test_packaging.sh"
timed step lint $pin sh "$TOP/tools/testing/vm/lint.sh" all

echo "# timed lane done after $(( $(date +%s) - start )) s; the untimed lane:"
wait $untimed
cat "$untimed_log"
cat "$untimed_results" >>"$results"
echo "# total time $(( $(date +%s) - start )) s"
awk '
	/^not ok / { if ($0 ~ /# TODO/) skip++; else fail++; next }
	/^ok / { if ($0 ~ /# SKIP/) skip++; else pass++ }
	END { printf "%d passed, %d failed, %d skipped\n", pass, fail, skip; exit(fail > 0) }
' "$results"

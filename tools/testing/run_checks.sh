#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs every gpsphc test and ends with the line "N passed, N failed, N
# skipped". Three lanes:
#  - timed, on one core: each timed Debian kernel's capture latency in a
#    boot of its own, then each one's guest, then the booted appliances
#    of Debian 13 and Debian 12, one at a time;
#  - untimed, on the other core: the guests whose tests measure no time
#    or only loosely (the arm64 and armhf ones, one more per amd64 Debian
#    kernel, the debug kernel's);
#  - host, on either core at the lowest priority (SCHED_IDLE), so that it
#    only takes what the guests leave idle: a timed guest mostly waits
#    for its pulses (phc_test keeps the guest's CPUs busy less than 1 s
#    of its 3.5 min). What boots no guest: the other lanes' builds but
#    the first ones, gpsphcd's tests, the appliances' root filesystems
#    (made once, cached) and disk images, the packaging, the kernel style
#    and static checks, the host's tests. It starts after the capture
#    latency boots, whose figures are of a machine with nothing else on
#    that core. (A guest there, tried, had its pulses stamped up to a
#    second late whenever both other lanes kept their cores busy.)
# Each TAP result line counts once, prefixed with where it ran; exits
# non-zero on any failure.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
VM_TIMEOUT=${VM_TIMEOUT:-900}
results=$(mktemp) latency=$(mktemp) whys=$(mktemp)
trap 'rm -f "$results" "$latency" "$whys"' EXIT

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
	' "$out" | tee -a "$whys"
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
# The kernels the Debian 12 and Debian 13 appliances boot, in the timed
# lane.
APPLIANCE_TIMED=$(kmk1 KVER_61)
APPLIANCE_DEB13=$(kmk1 KVER_DEB13)

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
# above): on a kernel that much
# slower, ldisc_test's 1000 cycles outlast their timeout and
# hangup_test's event windows close early, and kmemleak checks the leaks
# they would. The YNL client (a Python program, 70 s of TCG per guest,
# 102 s on the debug kernel) needs one kernel that has the family:
# Debian 13 amd64's untimed guest (the debug kernel sees the same
# netlink paths' locking in netlink_test, stress_test and explore_test).
# hostile_test's storms (port 1) run beside its labels and capabilities
# (ports 0 and 2): all three wait on pulses. Its netlink fuzz, which may
# name any port's device, runs alone.
HOSTILE_TESTS="hostile_test:-f,storm,& hostile_test:-f,labels,-f,caps hostile_test:-f,fuzz"
UNTIMED_TESTS="module_test ldisc_test stress_test ptp_race_test explore_test $HOSTILE_TESTS gpsphcd_robust_test.sh dpll_test.sh"
# The debug kernel frames one paced and one burst stream of random chunks
# (75 s for all eight there): the same receive path as the others, under
# lockdep and KASAN; the timed guests and armhf run all eight.
DEBUG_FRAMING="framing_test:-V,paced_seed_2,-V,paced_seed_3,-V,paced_seed_1000,-V,paced_seed_99999,-V,burst_seed_7,-V,burst_seed_424242"
DEBUG_TESTS="module_test $DEBUG_FRAMING netlink_test gpio_test stress_test ptp_race_test explore_test gpsphc_8250_test.sh"
# What runs in no timed guest: the untimed lists, the PPS from a GPIO line
# without gpsphcd (gpio_test: counts, stamps within 50 ms; the timed
# guests run gpsphcd's GPIO test), the YNL client and the USB adapter.
TIMED_SKIP="$UNTIMED_TESTS gpio_test ynl_cli_test.sh gpsphc_usb_serial_test.sh"
# The arm guests (Debian 13's arm64 kernel under qemu-system-aarch64,
# its armhf one under qemu-system-arm; static selftests, gpsphcd cross
# built and Debian 13's linuxptp of the architecture: see build.sh) run
# what the debug kernel's does, and ldisc_test, the PPS source
# (pps_test), hangups (hangup_test), the servo's lock and labels
# (phc_test's lock fixture, 44 s; the whole of it passes on armhf in
# 206 s), gpsphcd end to end (gpsphcd_test.sh: labels, record and
# replay, coarse mode, servo off, a jump) and phc2sys on the clock. On
# armhf, 32-bit ARM, u64 tearing, 64-bit division and 32-bit time_t show:
# it alone runs the framing (the character time's arithmetic, 17 s).
# Both run the hostile input's labels (1024 weeks off, TAI - UTC),
# capabilities and netlink fuzz, not its storms (59 s on armhf): the
# servo's C code and the sim's DCD path, which the amd64 untimed guests
# and the host's explorer run. No Python, bash or iproute2 there:
# no YNL client, DPLL or grandmaster chain. ts2phc 4.2 on armhf stops
# after its first sentence (not investigated; ts2phc runs on the amd64
# kernels).
# Beside each other, all waiting on pulses: gpio_test (fake UART ports 2
# and 3) and pps_test (port 1), on arm64 only; phc_test's lock fixture on
# port 3 and hostile_test's labels and capabilities (ports 0 and 2). The
# armhf guest's two vCPUs are two host threads on the lane's one core:
# with gpio_test busy beside it, pps_test once saw an edge stamped 5.7 ms
# after the UART's read (its bound: 2 ms), so there they run in turn.
ARM_FIRST="module_test ldisc_test netlink_test stress_test ptp_race_test explore_test"
ARM_LAST="hangup_test GPSPHC_PHC_PORT=3,phc_test:-f,lock,& hostile_test:-f,labels,-f,caps hostile_test:-f,fuzz gpsphcd_test.sh phc2sys_test.sh"
ARM_TESTS="$ARM_FIRST gpio_test:& pps_test $ARM_LAST"
ARMHF_TESTS="$ARM_FIRST gpio_test pps_test $ARM_LAST framing_test"
UNTIMED_BUILD=$TOP/tools/testing/vm/build/untimed
# The random soaks run for a set time, not a set count: the concurrency
# stress and hostile input (5 s a case by default), the attach/detach
# race against clock readers (20 s a variant) and the explorer (12 s a
# seed). The debug kernel, whose lockdep and KASAN see the most in them,
# runs them so; the other untimed guests a little over half as long, each
# case and seed still (make check's 40 minutes: about 45 s a guest).
SOAK_ENV="GPSPHC_STRESS_SECONDS=3 GPSPHC_PTP_RACE_SECONDS=12 GPSPHC_EXPLORE_SECONDS=8"
# QEMU's USB serial adapter (an FTDI: ftdi_sio) is plugged into one guest,
# Debian 13's amd64 untimed one: gpsphc_usb_serial_test.sh (NMEA through
# a real USB serial driver, coarse mode, gpsphcd's message) measures no
# time, and elsewhere it skips.
USB_KVER=$(kmk1 KVER_DEB13)
usb_serial() { [ "$1" = "$USB_KVER" ] && [ "$2" = "$UNTIMED_BUILD" ] && echo 1 || echo 0; }
timed_built=
# build KVER VMBUILD TESTS SKIP WHAT [ENV]: one guest's initramfs (WHAT:
# which tests; ENV: VAR=value words in each test's environment); its
# name on success. No WHAT: gpsphc.ko alone. A kernel the
# timed lane built takes its modules from there (the same tree: the
# untimed lane builds only its initramfs).
build() {
	log=$2/build-$1.log
	mkdir -p "$2"
	what="gpsphc.ko and the test initramfs ($5; " only=0
	[ -n "$5" ] || what="gpsphc.ko (" only=1
	from=
	case " $timed_built " in
	*" $1 "*) [ "$2" = "$TOP/tools/testing/vm/build" ] || from=$TOP/tools/testing/vm/build
		what="the test initramfs ($5; gpsphc.ko of the timed build, " ;;
	esac
	if GPSPHC_VM_BUILD=$2 GPSPHC_TESTS=$3 GPSPHC_TESTS_SKIP=$4 GPSPHC_TEST_ENV=${6:-} GPSPHC_TEST_ARGS= GPSPHC_MODULES_ONLY=$only \
			GPSPHC_VM_USB_SERIAL=$(usb_serial "$1" "$2") GPSPHC_VM_MODULES_FROM=$from \
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
# What build() writes to the results, which the log prints once per lane.
BUILD_LINE='^\(not \)\{0,1\}ok \[[^]]*\] build '
# build_for PATTERN VMBUILD TESTS WHAT KVER...: build, with the soaks'
# SOAK_ENV, the guests of the kernels whose name matches PATTERN; the
# names of those built.
build_for() {
	bf_pat=$1 bf_dir=$2 bf_tests=$3 bf_what=$4
	shift 4
	for bf_kver in "$@"; do
		# shellcheck disable=SC2254 # PATTERN is a pattern
		case $bf_kver in
		$bf_pat) build "$bf_kver" "$bf_dir" "$bf_tests" "" "$bf_what" "$SOAK_ENV" ;;
		esac
	done
}
# untimed_guest KVER WHERE: boot KVER's untimed guest (of UNTIMED_BUILD)
# on the untimed lane's core, as step WHERE.
untimed_guest() {
	GPSPHC_VM_BUILD=$UNTIMED_BUILD GPSPHC_VM_UNTIMED=1 GPSPHC_VM_CPUS=$UNTIMED_CPU \
		GPSPHC_VM_USB_SERIAL=$(usb_serial "$1" "$UNTIMED_BUILD") \
		timed step "$2" sh "$TOP/tools/testing/vm/run.sh" "$1" check "$VM_TIMEOUT"
}
# Three lanes (see the top). The untimed one: its guests, niced and kept
# to the second core, so that the timed guests keep the first to
# themselves: sharing a core now and then with the untimed lane's guest
# (its DCD storms) gave the timed guest milliseconds of interrupt latency
# for a minute. The untimed and host lanes' output is shown after the
# timed lane's, so that each step's lines stay together.
untimed_log=$(mktemp); untimed_results=$(mktemp)
host_log=$(mktemp); host_results=$(mktemp)
TIMED_CPU= UNTIMED_CPU=
if [ "$(nproc)" -ge 2 ] && taskset -c 0,1 true 2>/dev/null; then
	TIMED_CPU=0 UNTIMED_CPU=1
fi
# What one lane waits for of another: the timed builds (their names), the
# capture latency boots, the arm64 guest's build, the armhf guest's and
# the other untimed guests' builds (their names).
timed_done=$(mktemp -u) quiet_done=$(mktemp -u) arm_done=$(mktemp -u) untimed_done=$(mktemp -u)
armhf_done=$(mktemp -u)
trap 'rm -f "$results" "$latency" "$whys" "$untimed_log" "$untimed_results" "$host_log" "$host_results" \
	"$timed_done" "$quiet_done" "$arm_done" "$untimed_done" "$armhf_done"' EXIT
(
	lane=$(sh -c 'echo $PPID')
	renice -n 10 -p "$lane" >/dev/null
	[ -z "$UNTIMED_CPU" ] || taskset -p -c "$UNTIMED_CPU" "$lane" >/dev/null
	results=$untimed_results
	# The arm64 guest's build first, while the timed lane builds its
	# own: it takes its sources from the tree into the trixie chroot and
	# shares nothing with the timed builds, which the rest waits for
	# (gpsphcd, the timed modules of the same kernels). Its guest next,
	# while the host lane builds the armhf guest's.
	arm_built=$(build_for '*-arm64' "$UNTIMED_BUILD" "$ARM_TESTS" "arm64 guest" $ARM_KVERS)
	touch "$arm_done"
	for kver in $arm_built; do
		untimed_guest "$kver" "$kver"
	done
	# The other guests' builds are the host lane's.
	while [ ! -s "$armhf_done" ]; do sleep 1; done
	for kver in $(cat "$armhf_done"); do
		untimed_guest "$kver" "$kver"
	done
	while [ ! -s "$untimed_done" ]; do sleep 1; done
	untimed_built=$(cat "$untimed_done")
	for kver in $untimed_built; do
		case $kver in *-gpsphc-debug) where=$kver ;; *) where="$kver untimed" ;; esac
		untimed_guest "$kver" "$where"
	done
	echo "# untimed lane done after $(( $(date +%s) - start )) s"
) >"$untimed_log" 2>&1 </dev/null &
untimed=$!
# The host lane: what measures no time and boots no guest, on whichever
# core a guest leaves idle (SCHED_IDLE: a guest's thread that wakes takes
# the core back at once). Beside the timed guests it costs them little:
# with the packaging test running so on its core, Debian 13 amd64's phc
# lock test kept its p90 at 40 us against 21 us alone (its bound is 1 ms).
(
	lane=$(sh -c 'echo $PPID')
	chrt --idle -p 0 "$lane"
	results=$host_results
	# Once the capture latency is measured and the trixie chroot is free
	# of the arm64 build (this lane's builds and make deb use it).
	while [ ! -e "$quiet_done" ] || [ ! -e "$arm_done" ]; do sleep 1; done
	timed_built=$(cat "$timed_done")
	# The armhf guest's build, for the untimed lane after its arm64 guest.
	echo " $(build_for '*-armmp*' "$UNTIMED_BUILD" "$ARMHF_TESTS" "armhf guest" $ARM_KVERS)" \
		>"$armhf_done"
	timed step host:userspace make -s -C "$TOP/userspace" check
	# The kernel no guest boots: gpsphc.ko alone, in the timed lane's
	# build directory.
	for kver in $MODULE_KVERS; do
		build "$kver" "$TOP/tools/testing/vm/build" "" "" "" >/dev/null
	done
	# The untimed guests' builds have a build directory of their own,
	# and gpsphcd is built already: they share nothing with the timed
	# lane's but the modules they copy.
	untimed_built=
	for kver in $KVERS; do
		case $kver in
		*-gpsphc-debug) untimed_built="$untimed_built $(build "$kver" "$UNTIMED_BUILD" \
			"$DEBUG_TESTS" "" "debug kernel")" ;;
		# PREEMPT_RT's untimed guest also runs gpio_test, whose
		# line's primary handler stays a hard interrupt on RT.
		*-rt-*) untimed_built="$untimed_built $(build "$kver" "$UNTIMED_BUILD" \
			"$UNTIMED_TESTS gpio_test" "" "untimed tests" "$SOAK_ENV")" ;;
		"$USB_KVER") untimed_built="$untimed_built $(build "$kver" "$UNTIMED_BUILD" \
			"$UNTIMED_TESTS gpsphc_usb_serial_test.sh ynl_cli_test.sh" "" "untimed tests, USB serial, YNL client" \
			"$SOAK_ENV")" ;;
		*) untimed_built="$untimed_built $(build "$kver" "$UNTIMED_BUILD" \
			"$UNTIMED_TESTS" "" "untimed tests" "$SOAK_ENV")" ;;
		esac
	done
	echo "${untimed_built:- }" >"$untimed_done"
	# The appliances' root filesystems (debootstrap, 2 to 4 min each on
	# a new machine, cached after).
	for kver in $APPLIANCE_DEB13 $APPLIANCE_TIMED; do
		timed step "appliance-$kver rootfs" \
			env GPSPHC_APPLIANCE_BOOT=rootfs sh "$TOP/tools/testing/vm/appliance.sh" "$kver"
	done
	# The appliances' disk images (make deb; on Debian 13 DKMS builds
	# gpsphc.ko in it), which the timed lane's boots then find made.
	for kver in $APPLIANCE_DEB13 $APPLIANCE_TIMED; do
		timed step "appliance-$kver image" \
			env GPSPHC_APPLIANCE_BOOT=image sh "$TOP/tools/testing/vm/appliance.sh" "$kver"
	done
	# The packaging (make deb for amd64, arm64 and armhf, lintian,
	# gpsphcd's tests under qemu-user, DKMS against both Debian 12
	# kernels' headers), the style and static checks, the host's own
	# tests (the servo's and framer's, 64- and 32-bit, the servo
	# explorer, the recipes).
	timed step host:packaging sh "$TOP/tools/testing/packaging/test_packaging.sh"
	timed step lint sh "$TOP/tools/testing/vm/lint.sh" all
	timed step host:tools/testing/host make -s -C "$TOP/tools/testing/host" check
	echo "# host lane done after $(( $(date +%s) - start )) s"
) >"$host_log" 2>&1 </dev/null &
host=$!
# This shell and what it runs from now on: the timed lane's core.
[ -z "$TIMED_CPU" ] || taskset -p -c "$TIMED_CPU" $$ >/dev/null

# The timed guests' initramfs, one after the other on the timed lane's
# core (the host lane waits for them: they build gpsphcd, which the other
# builds then only read, and the modules the untimed guests of the same
# kernels copy).
for kver in $KVERS; do
	case $kver in
	*-gpsphc-debug) continue ;;
	esac
	timed_built="$timed_built $(build "$kver" "$TOP/tools/testing/vm/build" "" \
		"$TIMED_SKIP" "timed tests")"
done
echo "${timed_built:- }" >"$timed_done"
grep "$BUILD_LINE" "$results"

# The timed lane: one guest at a time, as a guest is one single-threaded
# TCG process and the clock tests measure its PPS edges. First the DCD
# capture latency of each timed kernel (issue 25: idle, under a real-time
# load, and on PREEMPT_RT with the UART's interrupt thread raised;
# capture_latency_test), each in a boot of its own before the host lane
# starts, so that the kernels' figures are of the same quiet machine.
for kver in $timed_built; do
	GPSPHC_VM_CPUS=$TIMED_CPU GPSPHC_VM_ONLY=capture_latency_test \
		timed step "$kver latency" sh "$TOP/tools/testing/vm/run.sh" "$kver" check "$VM_TIMEOUT"
done
touch "$quiet_done"
cat "$latency"
for kver in $timed_built; do
	GPSPHC_VM_CPUS=$TIMED_CPU GPSPHC_VM_SKIP=capture_latency_test \
		timed step "$kver" sh "$TOP/tools/testing/vm/run.sh" "$kver" check "$VM_TIMEOUT"
done

# The appliance test (issue 9): a Debian system booted with systemd as
# init, gpsphcd's package, chrony, gpsd, node_exporter
# (tools/testing/vm/appliance.sh; the root filesystems are made once,
# cached). Debian 13 on its 6.12 (issue 25: systemd 257, chrony 4.6,
# gpsd 3.25, gpsphc.ko from gpsphc-dkms built by the image's DKMS), both
# boots: kill -9, systemctl restart, unplug and replug, the reboot.
# Debian 12 on its 6.1, its first boot with systemctl restart (systemd
# 252 keeps the fd store otherwise than 257) but not gpsphcd's kill -9,
# the unplug and replug or the reboot, which Debian 13's checks: the same
# units and udev rules, 4 minutes that make check's 40 have not.
[ -z "$APPLIANCE_DEB13" ] || GPSPHC_VM_CPUS=$TIMED_CPU timed step "appliance-$APPLIANCE_DEB13" \
	sh "$TOP/tools/testing/vm/appliance.sh" "$APPLIANCE_DEB13" "$VM_TIMEOUT"
[ -z "$APPLIANCE_TIMED" ] || GPSPHC_VM_CPUS=$TIMED_CPU GPSPHC_APPLIANCE_BOOTS=1 \
	GPSPHC_APPLIANCE_LEAVE="kill9 replug" timed step "appliance-$APPLIANCE_TIMED" \
	sh "$TOP/tools/testing/vm/appliance.sh" "$APPLIANCE_TIMED" "$VM_TIMEOUT"

echo "# timed lane done after $(( $(date +%s) - start )) s; the untimed lane:"
wait $untimed
cat "$untimed_log"
grep "$BUILD_LINE" "$untimed_results"
cat "$untimed_results" >>"$results"
echo "# the host lane:"
wait $host
cat "$host_log"
grep "$BUILD_LINE" "$host_results"
cat "$host_results" >>"$results"
echo "# total time $(( $(date +%s) - start )) s"
# A CI log may show only its end: each failed test again, with the last
# lines it said (all of them are above, after its step).
awk '
	function flush(  i) { for (i = (n > 6 ? n - 6 : 0); i < n; i++) print buf[i % 6] }
	/^# ---- why / { flush(); print "# failed: " substr($0, 12); n = 0; next }
	{ buf[n % 6] = $0; n++ }
	END { flush() }
' "$whys"
awk '
	/^not ok / { if ($0 ~ /# TODO/) skip++; else fail++; next }
	/^ok / { if ($0 ~ /# SKIP/) skip++; else pass++ }
	END { printf "%d passed, %d failed, %d skipped\n", pass, fail, skip; exit(fail > 0) }
' "$results"

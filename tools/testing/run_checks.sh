#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs every gpsphc test and ends with the line "N passed, N failed, N
# skipped". Host tests first (pure code, fast), then the kernel style and
# static checks, then each Debian kernel in a QEMU guest. Each TAP result
# line counts once, prefixed with where it ran; exits non-zero on any
# failure.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
VM_TIMEOUT=${VM_TIMEOUT:-900}
results=$(mktemp)
trap 'rm -f "$results"' EXIT

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
	# A crashed guest's last words (run.sh), past the 40 lines above.
	grep '^# console: ' "$out"
	if [ $rc -ne 0 ] && ! grep -q '^not ok ' "$out"; then
		echo "not ok [$where] $* exited with status $rc" | tee -a "$results"
		tail -n 30 "$out"
	fi
	rm -f "$out"
}

start=$(date +%s)
for dir in userspace tools/testing/host; do
	[ -f "$TOP/$dir/Makefile" ] && step "host:$dir" make -s -C "$TOP/$dir" check
done
step host:packaging sh "$TOP/tools/testing/packaging/test_packaging.sh"
step lint sh "$TOP/tools/testing/vm/lint.sh" all

# One guest at a time: a guest is one single-threaded TCG process, and a
# second one on a 2-core machine delays PPS edges by milliseconds now and
# then, which the clock tests measure.
# The debug kernel (KASAN, lockdep, kmemleak, UBSAN; tools/testing/vm/
# debug_kernel.sh) runs what it can see and TCG can time on it: the
# module, framing, netlink, and the concurrency stress, which attaches,
# detaches and hangs up under load (on a kernel that much slower,
# ldisc_test's 1000 cycles outlast their timeout and hangup_test's event
# windows close early; kmemleak checks the leaks they would).
DEBUG_TESTS="module_test framing_test netlink_test stress_test"
for kver in $(sed -n 's/^KVER_[0-9A-Z]* := //p' "$CACHE/kernels.mk"); do
	case $kver in *-gpsphc-debug) tests=$DEBUG_TESTS ;; *) tests= ;; esac
	if GPSPHC_TESTS=$tests sh "$TOP/tools/testing/vm/build.sh" "$kver" >"$CACHE/build-$kver.log" 2>&1; then
		echo "ok [$kver] build gpsphc.ko and the test initramfs" | tee -a "$results"
		step "$kver" sh "$TOP/tools/testing/vm/run.sh" "$kver" check "$VM_TIMEOUT"
	else
		echo "not ok [$kver] build gpsphc.ko and the test initramfs" | tee -a "$results"
		tail -n 30 "$CACHE/build-$kver.log"
	fi
done

# The appliance test (issue 9): Debian 12 booted with systemd as init on
# each Debian kernel, gpsphcd's package, chrony (tools/testing/vm/
# appliance.sh; the root filesystem is made once, cached).
for kver in $(sed -n 's/^KVER_[0-9A-Z]* := //p' "$CACHE/kernels.mk"); do
	case $kver in *-gpsphc-debug) continue ;; esac
	step "appliance-$kver" sh "$TOP/tools/testing/vm/appliance.sh" "$kver" "$VM_TIMEOUT"
done

echo "# total time $(( $(date +%s) - start )) s"
awk '
	/^not ok / { if ($0 ~ /# TODO/) skip++; else fail++; next }
	/^ok / { if ($0 ~ /# SKIP/) skip++; else pass++ }
	END { printf "%d passed, %d failed, %d skipped\n", pass, fail, skip; exit(fail > 0) }
' "$results"

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
tally() {
	sed -n "s/^\(ok\|not ok\) \(.*\)/\1 [$1] \2/p" | tee -a "$results"
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
step lint sh "$TOP/tools/testing/vm/lint.sh" all

# Both kernels boot at once: each guest is one single-threaded TCG process,
# and most of the tests' time is spent waiting for pulses a second apart.
kvers=$(sed -n 's/^KVER_[0-9]* := //p' "$CACHE/kernels.mk")
booted=
for kver in $kvers; do
	if sh "$TOP/tools/testing/vm/build.sh" "$kver" >"$CACHE/build-$kver.log" 2>&1; then
		echo "ok [$kver] build gpsphc.ko and the test initramfs" | tee -a "$results"
		sh "$TOP/tools/testing/vm/run.sh" "$kver" check "$VM_TIMEOUT" \
			>"$CACHE/vm-$kver.out" 2>&1 &
		booted="$booted $kver:$!"
	else
		echo "not ok [$kver] build gpsphc.ko and the test initramfs" | tee -a "$results"
		tail -n 30 "$CACHE/build-$kver.log"
	fi
done
for b in $booted; do
	kver=${b%%:*}
	wait "${b#*:}"
	rc=$?
	out=$CACHE/vm-$kver.out
	grep -v '^\(ok\|not ok\) ' "$out" | sed -n '/^# .*\(Expected\|FAIL\)/p' | head -n 40
	tally "$kver" <"$out"
	if [ $rc -ne 0 ] && ! grep -q '^not ok ' "$out"; then
		echo "not ok [$kver] the test VM exited with status $rc" | tee -a "$results"
		tail -n 30 "$out"
	fi
done

echo "# total time $(( $(date +%s) - start )) s"
awk '
	/^not ok / { if ($0 ~ /# TODO/) skip++; else fail++; next }
	/^ok / { if ($0 ~ /# SKIP/) skip++; else pass++ }
	END { printf "%d passed, %d failed, %d skipped\n", pass, fail, skip; exit(fail > 0) }
' "$results"

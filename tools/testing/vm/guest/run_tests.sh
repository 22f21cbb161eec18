#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs every test program listed in /tests/run.list inside the VM and
# passes their TAP output through. A program that dies without reporting
# a failure of its own is reported as one failed test, so a crash is
# never silent; one that exits 4 (kselftest's skip) must have said why in
# a "# SKIP" line. Each program's run time, and how much of it the guest's
# CPUs were busy (the rest they waited: for pulses, timers, sleeps), is
# printed after it, for keeping make check's budget.
#
# run.env, there when build.sh had GPSPHC_TEST_ENV: VAR=value words (split
# at blanks, no quoting) put in each program's environment, e.g.
# GPSPHC_STRESS_ONLY=stress.ptp to run only those cases of stress_test.
# run.args, there when build.sh had GPSPHC_TEST_ARGS: words (split at
# blanks) given to each program, e.g. the kselftest harness's
# "-t settings_range_checked" or "-f lock -v label_each".
# A run.list line is a program and, after it, arguments of its own
# (build.sh's PROG:ARGS), e.g. "phc_test -f lock".
# gpsphc.only=P1,P2 on the kernel's command line runs only the lines of
# those programs, gpsphc.skip=P1,P2 all others (run.sh's GPSPHC_VM_ONLY
# and GPSPHC_VM_SKIP).
cd /tests || exit 1
set -f
# cpu_busy_cs: the time all CPUs have spent not idle since boot, in
# USER_HZ ticks (1/100 s).
cpu_busy_cs() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
env=$(cat run.env 2>/dev/null)
args=$(cat run.args 2>/dev/null)
only= skip=
for arg in $(cat /proc/cmdline); do
	case $arg in
	gpsphc.only=*) only=",${arg#gpsphc.only=}," ;;
	gpsphc.skip=*) skip=",${arg#gpsphc.skip=}," ;;
	esac
done
while read -r t targs <&3; do
	[ -n "$t" ] || continue
	case $only in "" | *",$t,"*) ;; *) continue ;; esac
	case $skip in *",$t,"*) continue ;; esac
	args1="$args${targs:+ $targs}"
	echo "# ---- $t${args1:+ $args1}${env:+ with $env}"
	out=/tmp/$t.out
	t0=$(cut -d. -f1 /proc/uptime) busy0=$(cpu_busy_cs)
	timeout 300 env $env ./"$t" $args1 >"$out" 2>&1
	rc=$?
	# busybox timeout kills only the program: a kselftest harness's test
	# runs in a child of it, which would go on beside the next tests
	# (and hold the fake UART's ttys while init unloads it).
	if [ $rc -eq 143 ] || [ $rc -eq 137 ]; then
		echo "# $t: killed after 300 s; killing what it left running"
		kill -KILL -1 2>/dev/null
		sleep 1
	fi
	cat "$out"
	echo "# ---- $t took $(($(cut -d. -f1 /proc/uptime) - t0)) s, CPUs busy $((($(cpu_busy_cs) - busy0) / 100)) s"
	# 4 is kselftest's "skipped", which a "# SKIP" line must say why.
	if [ $rc -eq 4 ] && grep -q '^ok .* # SKIP' "$out"; then
		continue
	fi
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$out"; then
		echo "not ok $t: exited with status $rc without reporting a failure"
	fi
done 3<run.list

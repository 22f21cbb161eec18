#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs every test program listed in /tests/run.list inside the VM and
# passes their TAP output through. A program that dies without reporting
# a failure of its own is reported as one failed test, so a crash is
# never silent; one that exits 4 (kselftest's skip) must have said why in
# a "# SKIP" line. Each program's run time is printed after it, for keeping
# make check's budget.
#
# run.env, there when build.sh had GPSPHC_TEST_ENV: VAR=value words (split
# at blanks, no quoting) put in each program's environment, e.g.
# GPSPHC_STRESS_ONLY=stress.ptp to run only those cases of stress_test.
# run.args, there when build.sh had GPSPHC_TEST_ARGS: words (split at
# blanks) given to each program, e.g. the kselftest harness's
# "-t settings_range_checked" or "-f lock -v label_each".
# A run.list line is a program and, after it, arguments of its own
# (build.sh's PROG:ARGS), e.g. "phc_test -f lock".
cd /tests || exit 1
set -f
env=$(cat run.env 2>/dev/null)
args=$(cat run.args 2>/dev/null)
while read -r t targs <&3; do
	[ -n "$t" ] || continue
	args1="$args${targs:+ $targs}"
	echo "# ---- $t${args1:+ $args1}${env:+ with $env}"
	out=/tmp/$t.out
	t0=$(cut -d. -f1 /proc/uptime)
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
	echo "# ---- $t took $(($(cut -d. -f1 /proc/uptime) - t0)) s"
	# 4 is kselftest's "skipped", which a "# SKIP" line must say why.
	if [ $rc -eq 4 ] && grep -q '^ok .* # SKIP' "$out"; then
		continue
	fi
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$out"; then
		echo "not ok $t: exited with status $rc without reporting a failure"
	fi
done 3<run.list

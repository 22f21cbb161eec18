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
# A run.list line is [NAME=VALUE...] PROGRAM [ARGS...] [&]: the program,
# arguments of its own (build.sh's PROG:ARGS, e.g. "phc_test -f lock"),
# and before it words for its environment. A line that ends in "&" runs
# beside the lines after it, up to and including the next line without
# one, whose end it waits for; its output and times come after that
# line's. Only programs that wait on pulses and use other fake UART
# ports than the rest run so: the guest's time, not its CPU, is what
# they take (make check's 40 minutes).
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
# run_one N PROGRAM ARGS: run one line (the Nth), its output to
# /tmp/N.PROGRAM.out followed by its times; the status in
# /tmp/N.PROGRAM.rc.
run_one() {
	out=/tmp/$1.$2.out rcf=/tmp/$1.$2.rc prog=$2
	shift 2
	t0=$(cut -d. -f1 /proc/uptime) busy0=$(cpu_busy_cs)
	timeout 300 env $env $lenv ./"$prog" "$@" >"$out" 2>&1
	echo $? >"$rcf"
	echo "# ---- $prog took $(($(cut -d. -f1 /proc/uptime) - t0)) s, CPUs busy $((($(cpu_busy_cs) - busy0) / 100)) s${beside:+, beside others}" >>"$out"
}
# killed_leftovers N.PROGRAM...: busybox timeout kills only the program:
# a kselftest harness's test runs in a child of it, which would go on
# beside the next tests (and hold the fake UART's ttys while init
# unloads it). This shell (kill spares it) kills them once the lines
# that ran together have ended.
killed_leftovers() {
	for p in "$@"; do
		case $(cat "/tmp/$p.rc") in
		143 | 137) ;;
		*) continue ;;
		esac
		echo "# ${p#*.}: killed after 300 s; killing what it left running" >>"/tmp/$p.out"
		kill -KILL -1 2>/dev/null
		sleep 1
	done
}
# report N PROGRAM: print what run_one left, and a failure for a program
# that exited non-zero without reporting one.
report() {
	cat "/tmp/$1.$2.out"
	rc=$(cat "/tmp/$1.$2.rc")
	# 4 is kselftest's "skipped", which a "# SKIP" line must say why.
	if [ "$rc" -eq 4 ] && grep -q '^ok .* # SKIP' "/tmp/$1.$2.out"; then
		return
	fi
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "/tmp/$1.$2.out"; then
		echo "not ok $2: exited with status $rc without reporting a failure"
	fi
}
n=0 pending=
while read -r line <&3; do
	lenv=
	set -- $line
	while [ $# -gt 0 ]; do
		case $1 in *=*) lenv="$lenv $1"; shift ;; *) break ;; esac
	done
	[ $# -gt 0 ] || continue
	t=$1
	shift
	case $only in "" | *",$t,"*) ;; *) continue ;; esac
	case $skip in *",$t,"*) continue ;; esac
	bg=
	case " $* " in *" & ")
		bg=1
		set -- $(echo "$@" | sed 's/ *&$//') ;;
	esac
	n=$((n + 1))
	set -- $args "$@"
	echo "# ---- $t${*:+ $*}${lenv:+ with$lenv}${env:+ with $env}${bg:+, beside the next}"
	beside=$bg$pending
	if [ -n "$bg" ]; then
		run_one $n "$t" "$@" &
		pending="$pending $n.$t"
		continue
	fi
	run_one $n "$t" "$@"
	wait
	killed_leftovers $n.$t $pending
	for p in $n.$t $pending; do
		report "${p%%.*}" "${p#*.}"
	done
	pending=
done 3<run.list
wait
killed_leftovers $pending
for p in $pending; do
	report "${p%%.*}" "${p#*.}"
done

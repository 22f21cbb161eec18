#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gpsphcd live, end to end, in the style of selftests/ptp/phc.sh: it
# attaches to a fake UART whose simulated receiver pulses and sends RMC,
# labels every edge through time-set, records the events, and its record
# replays to exactly the labels it printed live.
ksft_skip=4
port=2
tty=/dev/ttyGPSSIM$port
SIM_CTL=/sys/kernel/debug/gpsphc_sim/ttyGPSSIM$port
dir=$(dirname "$0")
. "$dir/receiver.sh"

[ -x /sbin/gpsphcd ] || { echo "ok 1 gpsphcd_live # SKIP gpsphcd not built"; exit $ksft_skip; }
[ -d "$SIM_CTL" ] || { echo "ok 1 gpsphcd_live # SKIP gpsphc_sim not loaded"; exit $ksft_skip; }

work=$(mktemp -d)
cleanup() {
	[ -n "${daemon:-}" ] && kill "$daemon" 2>/dev/null && wait "$daemon"
	echo 0 >"$SIM_CTL/pulse_enable"
	echo 0 >"$SIM_CTL/msr_gate"
	rm -rf "$work"
}
trap cleanup EXIT

tap_n=0
fails=0
# check NAME CONDITION...: one TAP line.
check() {
	name=$1; shift
	tap_n=$((tap_n + 1))
	if "$@"; then
		echo "ok $tap_n $name"
	else
		echo "not ok $tap_n $name"
		fails=$((fails + 1))
	fi
}

echo "TAP version 13"
echo "1..7"
echo 1 >"$SIM_CTL/msr_gate"	# an 8250: DCD interrupts only via TIOCMIWAIT
echo 0 >"$SIM_CTL/pulse_ppb"
echo 1 >"$SIM_CTL/pulse_enable"
gpsphcd --baud 9600 --state "$work/state" --record "$work/capture" $tty \
	>"$work/labels" 2>"$work/err" &
daemon=$!
sleep 1
dev=$(grep -l "^ttyGPSSIM$port\$" /sys/class/gpsphc/*/tty | xargs dirname)
receiver 12

check "gpsphcd_attached_and_labelled" test -n "$dev" -a -s "$work/labels"
labels=$(wc -l <"$work/labels")
klabels=$(cat "$dev/statistics/labels")
echo "# $labels labels printed, kernel accepted $klabels, state $(cat "$dev/servo_state")"
check "kernel_took_every_label" test "$klabels" -eq "$labels" -a "$labels" -ge 8
check "clock_disciplined" grep -qx 'locking\|locked' "$dev/servo_state"
check "no_refused_label" test "$(cat "$dev/statistics/labels_refused")" -eq 0
kill "$daemon"
wait "$daemon"
daemon=
check "detached_on_exit" test ! -e "$dev"
check "state_saved" test -s "$work/state"
# The record replays to the same labels (the live run's pivot is the
# build date; the capture is from today, so no --not-before is needed).
gpsphcd --replay "$work/capture" >"$work/replayed" 2>"$work/replay.err"
check "record_replays_to_the_same_labels" cmp -s "$work/labels" "$work/replayed"
[ $fails -eq 0 ] || { sed 's/^/# /' "$work/err" "$work/replay.err" | tail -n 20; diff "$work/labels" "$work/replayed" | head | sed 's/^/# /'; }
exit $((fails > 0))

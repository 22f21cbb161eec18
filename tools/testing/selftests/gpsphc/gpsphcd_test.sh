#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gpsphcd live, end to end, in the style of selftests/ptp/phc.sh: it
# attaches to a fake UART whose simulated receiver pulses and sends RMC,
# labels every edge through time-set, records the events, and its record
# replays to exactly the labels it printed live. Then coarse mode: the
# receiver sends GGA and RMC each second with the pulse generator off,
# gpsphcd labels the first sentence of each second, the kernel takes every
# label, locks, and its clock agrees with CLOCK_REALTIME + TAI-UTC.
# Then --servo off (with --clock-servo pi, which the kernel takes): the
# kernel leaves the clock alone (for ts2phc), and gpsphcd prints its
# labels but sends none. Last, the servo turned off
# under a running gpsphcd: it says once why the kernel refuses its labels,
# in the kernel's words, and when they are taken again. And a real jump
# of the receiver's time: the kernel confirms it for the clock.
dir=$(dirname "$0")
. "$dir/receiver.sh"
sim_port 2
need gpsphcd_live gpsphcd

work=$(mktemp -d)
cleanup() {
	reap "${sim:-}" "${daemon:-}"
	sim_off
	rm -rf "$work"
}
trap cleanup EXIT

tap_plan 29
pulses_on
gpsphcd --baud 9600 --print-labels --state "$work/state" --record "$work/capture" "$tty" \
	>"$work/labels" 2>"$work/err" &
daemon=$!
sleep 1
dev=$(gpsphc_dev)
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
# A time is saved only after 15 minutes of consistent labels (gpsphcd(8),
# STATE FILE; the replay tests cover the save): 12 s leave no file.
check "state_not_saved_within_15_min" test ! -e "$work/state"
# The record replays to the same labels (the live run's pivot is the
# build date; the capture is from today, so no --not-before is needed).
gpsphcd --replay "$work/capture" >"$work/replayed" 2>"$work/replay.err"
check "record_replays_to_the_same_labels" cmp -s "$work/labels" "$work/replayed"
[ "$fails" -eq 0 ] || { sed 's/^/# /' "$work/err" "$work/replay.err" | tail -n 20; diff "$work/labels" "$work/replayed" | head | sed 's/^/# /'; }

# Coarse mode: the pulse generator off, sentences only. The burst starts
# COARSE_DELAY_MS after each second of CLOCK_REALTIME and rx_latency_ns
# says so: what is left between the clock and CLOCK_REALTIME + TAI-UTC is
# the lateness of the sentence stamps (the shell's wake-up and the
# flip-buffer worker), which the servo follows.
COARSE_DELAY_MS=100
# LOCKED within: gpsphcd's 2 s start-up wait, the first label's step, and
# the coarse lock (coarse_test.c allows 16 bursts).
COARSE_LOCK_S=25
# Bound on |PHC - (CLOCK_REALTIME + TAI-UTC) + the stamps' median
# lateness| once locked: the clock follows the sentence stamps, which are
# late by the shell's wake-up and the flip-buffer worker (measured under
# TCG: 5..18 ms on amd64, a median of 29 ms on armhf, printed below),
# within the coarse servo's LOCKED band (20 ms; measured offsets 1..6 ms).
# Measured: 5..11 ms on 6.1, 7..14 ms on 6.12. 40 ms is well below what
# a broken coarse mode gives: a label on the RMC instead of the GGA that
# starts the second (70 ms at 9600 baud), rx_latency_ns not applied
# (100 ms), a wrong second.
COARSE_BOUND_NS=40000000

# coarse_error_ns PTP TAI_UTC: PHC - (CLOCK_REALTIME + TAI_UTC) by phc_ctl.
coarse_error_ns() {
	off=$(phc_ctl "$1" cmp 2>/dev/null |
		sed -n 's/.*offset from CLOCK_REALTIME is \(-\{0,1\}[0-9]*\)ns.*/\1/p')
	[ -n "$off" ] || return 1
	# phc_ctl prints CLOCK_REALTIME - PHC
	echo $((-off - $2 * 1000000000))
}

# coarse_status_shows: the coarse flag in --status, JSON and text.
coarse_status_shows() {
	gpsphcd --status --json | grep -q '"coarse": true' &&
		gpsphcd --status | grep -q 'servo locked (coarse: no PPS, sentence timing)'
}

echo 0 >"$SIM_CTL/pulse_enable"
gpsphcd --baud 9600 --print-labels --state "$work/state" --record "$work/coarse.capture" \
	--dump-events "$tty" >"$work/coarse.out" 2>"$work/coarse.err" &
daemon=$!
dev=
for _ in 1 2 3 4 5 6 7 8 9 10; do
	sleep 0.2
	dev=$(gpsphc_dev)
	[ -n "$dev" ] && break
done
[ -n "$dev" ] || dev=/nonexistent
echo $((COARSE_DELAY_MS * 1000000)) >"$dev/rx_latency_ns"
coarse_receiver $((COARSE_LOCK_S + 10)) $COARSE_DELAY_MS 9600 &
sim=$!
start=$(cut -d. -f1 /proc/uptime)
state=
while [ $(($(cut -d. -f1 /proc/uptime) - start)) -lt $COARSE_LOCK_S ]; do
	read -r state <"$dev/servo_state" || break
	[ "$state" = locked ] && break
	sleep 0.25
done
echo "# coarse: servo $state after $(($(cut -d. -f1 /proc/uptime) - start)) s"
check "coarse_locked_within_${COARSE_LOCK_S}s" test "$state" = locked
errs=
ptp=/dev/$(cat "$dev/ptp_device")
for _ in 1 2 3 4; do
	sleep 1
	err=$(coarse_error_ns "$ptp" "$(cat "$dev/tai_utc")") || { errs=; break; }
	echo "# coarse: PHC - (CLOCK_REALTIME + TAI-UTC) = $err ns; servo offset $(cat "$dev/offset_ns") ns"
	errs="$errs $err"
done
check "coarse_flag_set" grep -qx 1 "$dev/coarse"
check "coarse_in_status_json_and_text" coarse_status_shows
kill "$sim"
wait "$sim" 2>/dev/null
sim=
klabels=$(cat "$dev/statistics/labels")
krefused=$(cat "$dev/statistics/labels_refused")
kill "$daemon"
wait "$daemon"
daemon=
grep -v '^pps \|^sentence ' "$work/coarse.out" >"$work/coarse.labels"
labels=$(wc -l <"$work/coarse.labels")
# How late the kernel stamped each burst's first sentence, from its
# CLOCK_REALTIME stamp: what the clock is expected to be behind.
awk -v d=$((COARSE_DELAY_MS * 1000000)) '/^sentence .* \$GPGGA/ {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^real_ns=/)
			print substr($i, length($i) - 8) - d
}' "$work/coarse.out" | sort -n >"$work/coarse.late"
awk '{ v[NR] = $1 }
	END { if (NR) printf "# coarse: first sentences stamped %.1f..%.1f ms late, median %.1f (%d bursts)\n", v[1] / 1e6, v[NR] / 1e6, v[int((NR + 1) / 2)] / 1e6, NR }' "$work/coarse.late"
# The clock against CLOCK_REALTIME + TAI-UTC, less the stamps' median
# lateness, which it follows (armhf under TCG: a median of 29 ms).
late=$(awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }' "$work/coarse.late")
worst=
for err in $errs; do
	e=$((err + ${late:-0}))
	e=${e#-}
	[ -n "$worst" ] && [ "$worst" -ge "$e" ] || worst=$e
done
echo "# coarse: |PHC - (CLOCK_REALTIME + TAI-UTC) + median lateness| at most ${worst:-?} ns"
check "coarse_clock_within_$((COARSE_BOUND_NS / 1000000))ms_of_realtime_tai" \
	test -n "$worst" -a -n "$late" -a "${worst:-0}" -le $COARSE_BOUND_NS
echo "# coarse: $labels labels printed, kernel accepted $klabels, refused $krefused"
check "coarse_kernel_took_every_label" test "$klabels" -eq "$labels" -a "$labels" -ge 6
check "coarse_no_refused_label" test "$krefused" -eq 0 -a \
	"$(grep -c 'gpsphcd: labelling' "$work/coarse.err")" -eq 0
check "coarse_mode_logged_once" test "$(grep -c ': coarse mode, ' "$work/coarse.err")" -eq 1
gpsphcd --replay "$work/coarse.capture" >"$work/coarse.replayed" 2>"$work/coarse.replay.err"
check "coarse_record_replays_to_the_same_labels" \
	cmp -s "$work/coarse.labels" "$work/coarse.replayed"
[ "$fails" -eq 0 ] || { sed 's/^/# /' "$work/coarse.err" | grep -v 'no PPS edge before it' | tail -n 20; }

# --servo off: the pulses and RMC of the first part; gpsphcd labels every
# edge on stdout, sends no time-set, and says so once.
servo_off_status_shows() {
	gpsphcd --status --json | grep -q '"servo_off": true' &&
		gpsphcd --status | grep -q 'servo off (the clock is left to ts2phc or ptp4l)'
}

fails_before=$fails
echo 1 >"$SIM_CTL/pulse_enable"
gpsphcd --baud 9600 --print-labels --servo off --clock-servo pi --state "$work/off.state" \
	"$tty" >"$work/off.labels" 2>"$work/off.err" &
daemon=$!
sleep 1
dev=$(gpsphc_dev)
[ -n "$dev" ] || dev=/nonexistent
receiver 8
check "servo_off_sysfs_servo_reads_off" grep -qx off "$dev/servo"
check "clock_servo_option_reaches_the_kernel" grep -qx pi "$dev/clock_servo"
check "servo_off_servo_state_off" grep -qx off "$dev/servo_state"
check "servo_off_in_status_json_and_text" servo_off_status_shows
labels=$(wc -l <"$work/off.labels")
klabels=$(cat "$dev/statistics/labels")
krefused=$(cat "$dev/statistics/labels_refused")
echo "# servo off: $labels labels printed, kernel took $klabels, refused $krefused"
check "servo_off_labels_printed_none_sent" \
	test "$labels" -ge 4 -a "$klabels" -eq 0 -a "$krefused" -eq 0
check "servo_off_said_once" \
	test "$(grep -c 'labels are printed, not sent; steer /dev/ptp' "$work/off.err")" -eq 1 -a \
	"$(grep -c 'gpsphcd: labelling' "$work/off.err")" -eq 0
kill "$daemon"
wait "$daemon"
daemon=
[ "$fails" -eq "$fails_before" ] || sed 's/^/# /' "$work/off.err" | tail -n 20

# The servo turned off by sysfs under a running gpsphcd: the kernel
# refuses each label with EBUSY and an extack message. gpsphcd says so
# once, with the kernel's reason (not libnl's name for the errno), logs no
# error per refused label, and says when the kernel takes them again.
fails_before=$fails
gpsphcd --baud 9600 --state "$work/busy.state" "$tty" 2>"$work/busy.err" &
daemon=$!
sleep 1
dev=$(gpsphc_dev)
[ -n "$dev" ] || dev=/nonexistent
receiver 4
echo off >"$dev/servo"
receiver 5
echo on >"$dev/servo"
receiver 4
check "servo_turned_off_refusal_said_once_in_the_kernels_words" \
	test "$(grep -c "labels are printed, not taken" "$work/busy.err")" -eq 1 -a \
	"$(grep -c "Device or resource busy: the servo is off (GPSPHC_A_DEV_SERVO_OFF): something else steers this clock" "$work/busy.err")" -eq 1
check "servo_turned_off_no_error_per_refused_label" \
	test "$(grep -c '^gpsphcd: labelling' "$work/busy.err")" -eq 1
check "servo_turned_on_labels_taken_again" \
	grep -q '^gpsphcd: the kernel takes labels again (labelling edge ' "$work/busy.err"
kill "$daemon"
wait "$daemon"
daemon=
[ "$fails" -eq "$fails_before" ] || sed 's/^/# /' "$work/busy.err" | tail -n 20

# A real jump: the receiver's time moves 10 s ahead for good. gpsphcd's
# guard holds the labels of two edges and accepts the third's; the kernel
# gets all three, the labels of three distinct consecutive edges that
# confirm_n needs, and moves the clock once, at the third: one
# confirmation, not the guard's and then the kernel's. The held labels
# are not printed. gpsphcd reports the kernel's confirmation as it goes.
fails_before=$fails
gpsphcd --baud 9600 --print-labels --state "$work/jump.state" "$tty" \
	>"$work/jump.labels" 2>"$work/jump.err" &
daemon=$!
sleep 1
dev=$(gpsphc_dev)
[ -n "$dev" ] || dev=/nonexistent
receiver 6
steps0=$(cat "$dev/statistics/steps")
dis0=$(cat "$dev/statistics/disagreements")
klabels0=$(cat "$dev/statistics/labels")
printed0=$(wc -l <"$work/jump.labels")
# 9 s: 7 or 8 edges, 2 of them held; an arm guest's shell, slow to see
# its first edge, sent 7 in 8 s.
RECEIVER_SKEW_S=10
receiver 9
RECEIVER_SKEW_S=
steps=$(($(cat "$dev/statistics/steps") - steps0))
dis=$(($(cat "$dev/statistics/disagreements") - dis0))
klabels=$(($(cat "$dev/statistics/labels") - klabels0))
printed=$(($(wc -l <"$work/jump.labels") - printed0))
echo "# jump: $printed labels printed, the kernel took $klabels, $dis disagreeing, $steps steps"
check "jump_accepted_by_the_guard_at_the_third_edge" \
	test "$(grep -c 'TIME JUMP HELD: .*, +10 s; accepted only after 3 consecutive edges agree' "$work/jump.err")" -eq 2 -a \
	"$(grep -c 'TIME JUMP ACCEPTED after 3 consistent edges: .* (+10 s)' "$work/jump.err")" -eq 1
check "jump_held_labels_sent_to_the_kernel_not_printed" \
	test "$printed" -ge 5 -a "$klabels" -eq $((printed + 2)) -a "$dis" -eq 3
check "jump_moved_the_clock_once" test "$steps" -eq 1
# What the kernel decided, in gpsphcd's log (from label-ntf).
kernel_said_jump() {
	grep -q 'the kernel holds the label of edge [0-9]* (TAI [0-9]*), +10 s from its count: 1 of the 3 labels in a row that move the clock' "$work/jump.err" &&
		grep -q 'the kernel holds the label of edge [0-9]* (TAI [0-9]*), +10 s from its count: 2 of the 3 labels' "$work/jump.err" &&
		[ "$(grep -c 'the kernel moved its count by +10 s at edge [0-9]* after 3 labels in a row: the clock stepped' "$work/jump.err")" -eq 1 ]
}
check "jump_kernel_confirmation_reported" kernel_said_jump
check "jump_servo_still_locking_or_locked" grep -qx 'locking\|locked' "$dev/servo_state"
kill "$daemon"
wait "$daemon"
daemon=
[ "$fails" -eq "$fails_before" ] || sed 's/^/# /' "$work/jump.err" | tail -n 20
exit $((fails > 0))

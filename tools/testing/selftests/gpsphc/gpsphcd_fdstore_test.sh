#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The clock outlives gpsphcd (issue 9). This shell holds the tty open as
# systemd's file descriptor store does for gpsphcd@.service
# (FileDescriptorStoreMax=1) and hands it to gpsphcd as systemd would on
# a restart: fd 3, $LISTEN_FDS=1, $LISTEN_FDNAMES=tty. gpsphcd attaches
# through it and labels; kill -9; the device, its PTP clock and PPS
# source stay and the servo goes on; a new gpsphcd given the same tty
# takes the same device over ("took over") and labels again; SIGTERM
# leaves it attached for the store; closing the store's copy detaches.
# In the style of selftests/ptp/phc.sh.
dir=$(dirname "$0")
. "$dir/receiver.sh"
sim_port 2
need gpsphcd_fdstore gpsphcd

work=$(mktemp -d)
cleanup() {
	reap "${sim:-}" "${daemon:-}"
	exec 9<&-
	sim_off
	rm -rf "$work"
}
trap cleanup EXIT

labels_taken() { cat "$dev/statistics/labels" 2>/dev/null || echo 0; }
taken_since() { [ "$(labels_taken)" -ge $(($1 + $2)) ]; }

# stored_gpsphcd OUT ERR: gpsphcd given this shell's fd 9 as systemd
# gives a stored fd, with its own pid as $LISTEN_PID.
stored_gpsphcd() {
	sh -c 'exec 3<&9 9<&-
		LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=tty exec gpsphcd \
			--baud 9600 --print-labels --state "$1" "$2"' \
		sh "$work/state" "$tty" >"$1" 2>"$2" &
	daemon=$!
}

tap_plan 9
pulses_on
receiver 600 &
sim=$!

# The store's copy of the tty.
exec 9<>"$tty"
stored_gpsphcd "$work/labels1" "$work/err1"
until_s 5 dev_attached
dev=$(gpsphc_dev)
[ -n "$dev" ] || dev=/nonexistent
until_s 20 taken_since 0 5
check "first_gpsphcd_attaches_through_the_stored_tty_and_labels" \
	sh -c "grep -q 'attached as ${dev##*/}' '$work/err1' && [ $(labels_taken) -ge 5 ]"
ptp=$(cat "$dev/ptp_device" 2>/dev/null)
pps=$(cat "$dev/pps_device" 2>/dev/null)
echo "# ${dev##*/}: /dev/$ptp, /dev/$pps, servo $(cat "$dev/servo_state" 2>/dev/null)"

kill -9 "$daemon"
wait "$daemon" 2>/dev/null
daemon=
t0=$(labels_taken)
sleep 3
check "kill_9_leaves_the_device_and_its_clock" \
	test -d "$dev" -a "$(cat "$dev/ptp_device" 2>/dev/null)" = "$ptp" \
	-a -n "$ptp" -a -e "/dev/$ptp" -a -e "/dev/$pps"
echo "# without gpsphcd for 3 s: servo $(cat "$dev/servo_state" 2>/dev/null), labels $t0 -> $(labels_taken)"
check "the_servo_goes_on_without_labels" \
	sh -c "grep -qx 'locking\|locked\|holdover' '$dev/servo_state' && [ $(labels_taken) -eq $t0 ]"

stored_gpsphcd "$work/labels2" "$work/err2"
until_s 20 taken_since "$t0" 5
sed 's/^/# /' "$work/err2"
check "second_gpsphcd_takes_the_same_device_over" \
	grep -q "took over ${dev##*/} (/dev/$ptp, servo " "$work/err2"
check "same_device_same_clock" \
	test "$(gpsphc_dev)" = "$dev" -a "$(cat "$dev/ptp_device" 2>/dev/null)" = "$ptp"
check "labels_resume" sh -c "[ $(labels_taken) -ge $((t0 + 5)) ] && [ -s '$work/labels2' ]"
check "no_label_refused" test "$(cat "$dev/statistics/labels_refused" 2>/dev/null)" = 0

kill "$daemon"
wait "$daemon"
rc=$?
daemon=
check "sigterm_exits_0_and_leaves_the_device_to_the_store" test $rc -eq 0 -a -d "$dev"

exec 9<&-
until_s 5 test ! -e "$dev"
check "closing_the_stores_copy_detaches" test ! -e "$dev"

[ "$fails" -eq 0 ] || sed 's/^/# /' "$work/err1" | tail -n 20
exit $((fails > 0))

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# PPS from a GPIO line (issue 26), the Raspberry Pi wiring: the NMEA on a
# UART with no DCD (a ttyGPSSIM port, its pulse generator off, carrying
# an RMC after each pulse as receiver.sh sends it) and the PPS on a GPIO
# line that gpsphc requests itself (gpsphcd --pps-gpio, sysfs pps_gpio).
# gpsphc_gpioemu is the GPIO
# controller: a gpio_chip "gpsphc-gpioemu" with gpiolib's irqchip, line 0
# ("GPIO18") driven by an hrtimer pulse generator in hard interrupt
# context, so the line, its interrupt and the request are the kernel's
# own GPIO and IRQ code. Checked: gpsphcd --pps-gpio gpsphc-gpioemu:0
# sets the line; every GPIO edge is a PPS edge and no DCD edge is while
# the line is set; /dev/ppsN's assert events once a second, EXTTS events;
# the servo locks; kill -9 of gpsphcd (the tty in the fd store) and the
# pulses stopping: holdover with the clock running; a gpsphcd restarted
# with --pps-gpio GPIO18 (the line name) takes the device over and moves
# it to that line, and says, with no edge on it for 5 s, that no PPS
# came from that line; one with a line that does not exist exits with the
# kernel's message; through sysfs, the errors of a bad name (ENODEV,
# ENOENT), bad syntax (EINVAL) and a line another driver holds (EBUSY,
# through the legacy sysfs export), the line by device name (gpiochipN);
# rmmod of the controller refused while the line is held; back to "none"
# restores DCD; detach while pulses arrive releases the line. In the style of
# selftests/ptp/phc.sh.
dir=$(dirname "$0")
. "$dir/receiver.sh"
sim_port 2
EMU=/sys/kernel/debug/gpsphc_gpioemu
# ynl.sh's Python, outside the guest's PATH
PY=$(command -v python3 || echo /usr/bin/python3)

need gpsphc_gpio gpsphcd
loaded=
if [ ! -d "$EMU" ]; then
	insmod /lib/gpsphc/gpsphc_gpioemu.ko 2>/dev/null ||
		skip_test gpsphc_gpio "gpsphc_gpioemu.ko not loadable"
	loaded=1
fi

work=$(mktemp -d)
cleanup() {
	reap "${sim:-}" "${daemon:-}"
	[ ! -d "$EMU" ] || echo 0 >"$EMU/enable"
	exec 9<&-
	[ -z "${exported:-}" ] || echo "$exported" >/sys/class/gpio/unexport 2>/dev/null
	sim_off
	[ -z "$loaded" ] || rmmod gpsphc_gpioemu 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# The receiver's seconds follow the GPIO line's rising edges, counted
# (receiver.sh).
receiver_edge() { echo "$(cat "$EMU/rising") -"; }
stat_of() { cat "$dev/statistics/$1" 2>/dev/null || echo 0; }

# set_gpio VALUE: write pps_gpio; its error message, if any, in $work/werr.
set_gpio() {
	( echo "$1" >"$dev/pps_gpio" ) 2>"$work/werr"
}

# refused VALUE MESSAGE: the write fails with strerror() MESSAGE and the
# device stays on DCD.
refused() {
	! set_gpio "$1" && grep -q "$2" "$work/werr" &&
		test "$(cat "$dev/pps_gpio")" = none
}

# pulses_through SECONDS: the generator on for SECONDS, then off; every
# edge it made is a PPS edge of the device. Sets e (PPS edges) and g
# (GPIO edges).
pulses_through() {
	e0=$(stat_of pps_edges) g0=$(cat "$EMU/edges")
	echo 1 >"$EMU/enable"
	sleep "$1"
	echo 0 >"$EMU/enable"
	sleep 0.3
	e=$(($(stat_of pps_edges) - e0)) g=$(($(cat "$EMU/edges") - g0))
}

# stored_gpsphcd ERR LINE: gpsphcd --pps-gpio LINE given this shell's fd
# 9 as systemd gives a stored fd, so that kill -9 leaves the device
# attached.
stored_gpsphcd() {
	sh -c 'exec 3<&9 9<&-
		LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=tty exec gpsphcd \
			--baud 9600 --pps-gpio "$3" --state "$1" "$2"' \
		sh "$work/state" "$tty" "$2" >/dev/null 2>"$1" &
	daemon=$!
}

# extts_events PTP SECONDS: EXTTS events of channel 0 in SECONDS
# (PTP_EXTTS_REQUEST, then read struct ptp_extts_event).
extts_events() {
	"$PY" -c 'import fcntl, os, select, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.ioctl(fd, 0x40103d02, struct.pack("4I", 0, 3, 0, 0))
n, end = 0, time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    if select.select([fd], [], [], 0.2)[0]:
        n += len(os.read(fd, 32 * 8)) // 32
fcntl.ioctl(fd, 0x40103d02, struct.pack("4I", 0, 0, 0, 0))
print(n)' "$1" "$2" 2>/dev/null || echo 0
}

phc_s() { phc_ctl "$1" get 2>&1 | sed -n 's/.*clock time is \([0-9]*\)\..*/\1/p'; }

tap_plan 26
sim_off
exec 9<>"$tty"
stored_gpsphcd "$work/err1" gpsphc-gpioemu:0
until_s 10 dev_attached
dev=$(gpsphc_dev)
[ -n "$dev" ] || dev=/nonexistent
until_s 5 grep -qx gpsphc-gpioemu:0 "$dev/pps_gpio"
check "gpsphcd_pps_gpio_by_chip_label" grep -qx gpsphc-gpioemu:0 "$dev/pps_gpio"
# At attach it names the tty's driver and the line, not DCD's delivery.
until_s 5 grep -q "the PPS comes from GPIO line" "$work/err1"
check "attach_message_names_the_line" grep -qx "gpsphcd: ${tty#/dev/}: tty driver .*; the PPS comes from GPIO line gpsphc-gpioemu:0 (pps_gpio), so whether the driver delivers DCD changes does not matter" "$work/err1"
e0=$(stat_of pps_edges)
echo 1 >"$SIM_CTL/dcd"
echo 0 >"$SIM_CTL/dcd"
sleep 0.2
check "dcd_edges_ignored_while_gpio_set" test "$(stat_of pps_edges)" -eq "$e0"
check "rmmod_controller_refused_while_held" sh -c "! rmmod gpsphc_gpioemu 2>/dev/null && test -d $EMU"

# The receiver, from the GPIO pulses: lock, /dev/ppsN, EXTTS.
pps=$(cat "$dev/pps_device")
ptp=$(cat "$dev/ptp_device")
e0=$(stat_of pps_edges) g0=$(cat "$EMU/edges")
echo 1 >"$EMU/enable"
receiver 600 &
sim=$!
a0=$(sed 's/.*#//' "/sys/class/pps/$pps/assert")
sleep 4
a1=$(sed 's/.*#//' "/sys/class/pps/$pps/assert")
echo "# /dev/$pps asserts: $a0 -> $a1 in 4 s"
check "pps_assert_once_a_second" test $((a1 - a0)) -ge 3 -a $((a1 - a0)) -le 5
if [ -x "$PY" ]; then
	n=$(extts_events "/dev/$ptp" 3.5)
	echo "# EXTTS events in 3.5 s: $n"
	check "extts_events" test "$n" -ge 3 -a "$n" -le 4
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n extts_events # SKIP no python3"
fi
until_s 40 grep -qx locked "$dev/servo_state"
check "servo_locks_on_gpio_pulses" grep -qx locked "$dev/servo_state"
echo "# servo $(cat "$dev/servo_state"), offset $(cat "$dev/offset_ns") ns, rms $(cat "$dev/rms_ns") ns, labels $(stat_of labels)"

kill -9 "$daemon"
wait "$daemon" 2>/dev/null
daemon=
reap "$sim"
sim=
sleep 1
echo 0 >"$EMU/enable"
sleep 0.3
e=$(($(stat_of pps_edges) - e0)) g=$(($(cat "$EMU/edges") - g0))
echo "# $g GPIO edges, $e PPS edges"
check "every_gpio_edge_a_pps_edge" test "$e" -eq "$g" -a "$g" -gt 0
until_s 20 grep -qx holdover "$dev/servo_state"
check "holdover_after_kill_9_and_no_pulses" grep -qx holdover "$dev/servo_state"
t0=$(phc_s "/dev/$ptp")
sleep 2
t1=$(phc_s "/dev/$ptp")
echo "# /dev/$ptp: $t0 -> $t1 in 2 s"
check "clock_runs_in_holdover" test "${t1:-0}" -ge $((${t0:-0} + 1)) -a "${t1:-0}" -le $((${t0:-0} + 3)) -a -n "$t0"

# A new gpsphcd takes the device over from the store, on the line's name.
stored_gpsphcd "$work/err2" GPIO18
until_s 10 grep -qx GPIO18 "$dev/pps_gpio"
check "restarted_gpsphcd_moves_to_the_line_name" grep -qx GPIO18 "$dev/pps_gpio"
pulses_through 2.5
check "line_name_every_edge" test "$e" -eq "$g" -a "$g" -gt 0
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
daemon=
# No edge on the line for 5 s after a takeover: gpsphcd's warning, once,
# names the line (the kernel's pps_gpio), not DCD or the tty's driver.
stored_gpsphcd "$work/err5" GPIO18
until_s 12 grep -q "no PPS in 5 s" "$work/err5"
check "no_pps_warning_names_the_line" test "$(grep -cx \
	"gpsphcd: ${tty##*/}: no PPS in 5 s from GPIO line GPIO18 (pps_gpio): check that the receiver's PPS output is on and wired to that line, and that GPIO18 names it (cat /sys/class/gpsphc/${dev##*/}/pps_gpio; gpioinfo lists the lines by chip, offset and name, the one in use with consumer ${dev##*/}); coarse mode is running: the clock follows the NMEA sentences, good to milliseconds" \
	"$work/err5")" -eq 1
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
daemon=
# A line that does not exist: gpsphcd exits with the kernel's message and
# detaches, as after any setting the kernel refuses.
stored_gpsphcd "$work/err3" nosuchchip:0
wait "$daemon"
rc=$?
daemon=
sed 's/^/# err3: /' "$work/err3" | tail -n 2
check "gpsphcd_refused_missing_chip_exits_and_detaches" sh -c "[ $rc -ne 0 ] && grep -q 'pps-gpio: no gpiochip has that label or device name' '$work/err3' && [ ! -e '$dev' ]"

# Through sysfs, on a device attached on DCD.
stored_gpsphcd "$work/err4" none
until_s 10 dev_attached
dev=$(gpsphc_dev)
[ -n "$dev" ] || dev=/nonexistent

check "no_such_chip_enodev" refused nosuchchip:0 "No such device"
check "no_such_offset_enoent" refused gpsphc-gpioemu:4 "No such file or directory"
check "no_such_line_name_enoent" refused NOSUCHLINE "No such file or directory"
bad_syntax() {
	refused gpsphc-gpioemu:x "Invalid argument" &&
		refused :0 "Invalid argument" &&
		refused "GPIO 18" "Invalid argument"
}
check "bad_syntax_einval" bad_syntax
base=$(grep -lx gpsphc-gpioemu /sys/class/gpio/gpiochip*/label 2>/dev/null | head -n 1 |
	xargs -r dirname | xargs -r -I{} cat {}/base)
if [ -n "$base" ] && echo "$base" >/sys/class/gpio/export 2>/dev/null; then
	exported=$base
	check "line_held_elsewhere_ebusy" refused gpsphc-gpioemu:0 "Device or resource busy"
	echo "$base" >/sys/class/gpio/unexport
	exported=
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n line_held_elsewhere_ebusy # SKIP no GPIO sysfs export"
fi

chipdev=$(ls -d /sys/bus/platform/devices/gpsphc_gpioemu/gpiochip* 2>/dev/null | head -n 1)
chipdev=${chipdev##*/}
set_gpio "$chipdev:0"
check "set_by_device_name" test -n "$chipdev" -a "$(cat "$dev/pps_gpio")" = "$chipdev:0"
pulses_through 2.5
check "device_name_every_edge" test "$e" -eq "$g" -a "$g" -gt 0

set_gpio none
check "back_to_none" test "$(cat "$dev/pps_gpio")" = none
pulses_through 2.5
e0=$(stat_of pps_edges)
echo 1 >"$SIM_CTL/dcd"
echo 0 >"$SIM_CTL/dcd"
sleep 0.2
check "none_restores_dcd_and_drops_gpio" test "$e" -eq 0 -a "$(($(stat_of pps_edges) - e0))" -eq 2

# Detach while pulses arrive: the interrupt is freed, the line released.
# gpsphcd leaves on SIGTERM; closing the store's copy detaches.
reap "$daemon"
daemon=
set_gpio gpsphc-gpioemu:0
echo 1 >"$EMU/enable"
sleep 2.2
exec 9<&-
until_s 5 test ! -e "$dev"
check "detach_while_pulses_arrive" test ! -e "$dev"
d0=$(cat "$EMU/delivered")
sleep 1.5
check "no_interrupt_after_detach" test "$(cat "$EMU/delivered")" -eq "$d0"
echo 0 >"$EMU/enable"
if [ -n "$loaded" ]; then
	check "rmmod_controller_after_detach" rmmod gpsphc_gpioemu
	loaded=
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n rmmod_controller_after_detach # SKIP loaded by someone else"
fi

[ "$fails" -eq 0 ] || tail -n 20 "$work/err1" "$work/err2" "$work/err4" "$work/err5" 2>/dev/null | sed 's/^/# /'
exit $((fails > 0))

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The demo inside the VM: a simulated receiver on the fake UART, the
# gpsphc discipline attached, its device in sysfs, the NMEA stream still
# readable through the tty.
set -u
tty=/dev/ttyGPSSIM0
ctl=/sys/kernel/debug/gpsphc_sim/ttyGPSSIM0

step() { echo; echo "### $*"; }

step "modules loaded"
grep -E '^(gpsphc|gpsphc_sim) ' /proc/modules | cut -d' ' -f1-3

step "attach the gpsphc line discipline to $tty"
/tests/attach_hold $tty &
holder=$!
sleep 1
for d in /sys/class/gpsphc/*; do
	echo "$d: tty=$(cat "$d/tty")"
done

step "the receiver sends NMEA and pulses DCD; any program can still read the tty"
cat $tty >/tmp/nmea.out &
reader=$!
sleep 0.2
for s in '$GPZDA,120001.00,03,12,2026,00,00*62' \
	 '$GPZDA,120002.00,03,12,2026,00,00*61' \
	 '$GPZDA,120003.00,03,12,2026,00,00*60'; do
	echo 1 >"$ctl/dcd"
	printf '%s\r\n' "$s" >"$ctl/rx"
	echo 0 >"$ctl/dcd"
	sleep 0.5
done
kill $reader
echo "read back through $tty:"
cat /tmp/nmea.out

step "detach"
kill $holder
wait $holder 2>/dev/null
echo "/sys/class/gpsphc now holds: $(ls /sys/class/gpsphc | wc -l) devices"
echo "ok demo"

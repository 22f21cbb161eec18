#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The demo inside the VM: a simulated receiver on the fake UART sends an
# RMC sentence after each DCD pulse; gpsphcd attaches the discipline,
# prints every kernel event (--dump-events) and the label it resolves for
# each edge; the NMEA stream stays readable through the tty.
set -u
tty=/dev/ttyGPSSIM0
ctl=/sys/kernel/debug/gpsphc_sim/ttyGPSSIM0

step() { echo; echo "### $*"; }

# nmea BODY: print $BODY*hh with its checksum (busybox awk has xor()).
nmea() {
	echo "$1" | awk '
		BEGIN { for (i = 32; i < 127; i++) ord[sprintf("%c", i)] = i }
		{
			s = 0
			for (i = 1; i <= length($0); i++)
				s = xor(s, ord[substr($0, i, 1)])
			printf "$%s*%02X\r\n", $0, s
		}'
}

step "modules loaded"
grep -E '^(gpsphc|gpsphc_sim) ' /proc/modules | cut -d' ' -f1-3

# Like a real 8250: DCD interrupts only while the modem status interrupt
# is enabled (gpsphcd keeps it enabled by waiting in TIOCMIWAIT).
echo 1 >"$ctl/msr_gate"

step "gpsphcd --baud 9600 --edge rising --dump-events $tty"
gpsphcd --baud 9600 --edge rising --dump-events --state /tmp/state $tty \
	>/tmp/gpsphcd.out 2>/tmp/gpsphcd.err &
daemon=$!
sleep 1
cat /tmp/gpsphcd.err
for d in /sys/class/gpsphc/*; do
	echo "$d: tty=$(cat "$d/tty") pps=$(cat "$d/pps_device") edge=$(cat "$d/edge")"
done

step "the receiver pulses DCD and sends RMC; cat reads the tty at the same time"
cat $tty >/tmp/nmea.out &
reader=$!
for n in 1 2 3 4 5; do
	echo 1 >"$ctl/dcd"
	t=$(date -u +%H%M%S) d=$(date -u +%d%m%y)
	# A receiver starts its sentence some 100 ms after the pulse; the
	# kernel back-dates the start byte by the sentence's time on the wire.
	sleep 0.15
	nmea "GPRMC,$t.00,A,4807.038,N,01131.000,E,0.0,0.0,$d,,,A" >"$ctl/rx"
	echo 0 >"$ctl/dcd"
	sleep 0.8
done
sleep 0.5
kill $reader

step "events, and the label of each edge (<raw ns> <TAI s> <UTC> <TAI-UTC>), printed by gpsphcd"
cat /tmp/gpsphcd.out
step "the same NMEA read through $tty by cat"
cat /tmp/nmea.out
step "statistics"
for f in sentences csum_ok pps_edges pps_missed; do
	echo "$f: $(cat /sys/class/gpsphc/gpsphc0/statistics/$f)"
done

step "stop gpsphcd: it detaches"
kill $daemon
wait $daemon 2>/dev/null
cat /tmp/gpsphcd.err | tail -n 3
echo "/sys/class/gpsphc now holds $(ls /sys/class/gpsphc | wc -l) devices"

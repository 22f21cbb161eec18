#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The demo inside the VM: a simulated receiver on the fake UART pulses DCD
# once a second (its clock 50 ppm slow, 1 us jitter) and sends an RMC
# sentence 150 ms after each pulse. gpsphcd attaches the gpsphc line
# discipline, labels each edge with its TAI second, and the kernel's servo
# disciplines /dev/ptpN to the pulses; phc2sys then steers the system
# clock from it. The NMEA stream stays readable through the tty.
set -u
tty=/dev/ttyGPSSIM0
ctl=/sys/kernel/debug/gpsphc_sim/ttyGPSSIM0
dev=/sys/class/gpsphc/gpsphc0

step() { echo; echo "### $*"; }

SIM_CTL=$ctl
. /tests/receiver.sh

status() {
	for f in servo_state offset_ns rms_ns freq_ppb tai_utc; do
		printf '%s=%s ' "$f" "$(cat $dev/$f)"
	done
	echo
}

step "modules loaded"
grep -E '^(gpsphc|gpsphc_sim) ' /proc/modules | cut -d' ' -f1-3

# Like a real 8250: DCD interrupts only while the modem status interrupt
# is enabled (gpsphcd keeps it enabled by waiting in TIOCMIWAIT).
echo 1 >"$ctl/msr_gate"
echo 50000 >"$ctl/pulse_ppb"
echo 1000 >"$ctl/pulse_jitter_ns"
echo 1 >"$ctl/pulse_enable"

step "gpsphcd --baud 9600 --print-labels $tty (one line per labelled edge: <raw ns> <TAI s> <UTC> <TAI-UTC>)"
gpsphcd --baud 9600 --print-labels --state /tmp/state $tty >/tmp/labels.out 2>/tmp/gpsphcd.err &
daemon=$!
sleep 1
cat /tmp/gpsphcd.err
echo "$dev: tty=$(cat $dev/tty) pps=$(cat $dev/pps_device) ptp=$(cat $dev/ptp_device) scale=$(cat $dev/scale)"
ptp=/dev/$(cat $dev/ptp_device)

step "the receiver runs for 20 s; any program can still read the tty"
cat $tty >/tmp/nmea.out &
reader=$!
i=0
while [ $i -lt 4 ]; do
	receiver 5
	status
	i=$((i + 1))
done
kill $reader

step "labels printed by gpsphcd (first and last 3)"
head -n 3 /tmp/labels.out
echo ...
tail -n 3 /tmp/labels.out
step "the same NMEA read through $tty by cat (last 2 lines)"
tail -n 2 /tmp/nmea.out

step "gpsphcd --status"
gpsphcd --status

step "phc_ctl $ptp get (TAI), next to the system clock (UTC)"
phc_ctl "$ptp" get
date -u '+system clock: %Y-%m-%d %H:%M:%S UTC'

step "phc2sys -s $ptp -c CLOCK_REALTIME -O -37: the system clock follows the PHC"
receiver 8 &
feeder=$!
timeout 8 phc2sys -s "$ptp" -c CLOCK_REALTIME -O -37 -m -q 2>&1 | tail -n 6
wait $feeder

step "stop gpsphcd: it detaches"
kill $daemon
wait $daemon 2>/dev/null
echo 0 >"$ctl/pulse_enable"
tail -n 3 /tmp/gpsphcd.err
echo "/sys/class/gpsphc now holds $(ls /sys/class/gpsphc | wc -l) devices"

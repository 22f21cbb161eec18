#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The appliance's simulated GNSS receiver on gpsphc_sim's port N (default
# 0), run by gpsphc-sim-receiver.service: the fake UART's pulse generator
# drives DCD (planned on CLOCK_MONOTONIC_RAW, so chronyd steering the
# system clock never steers the receiver), and after each rising edge this
# sends the RMC sentence of that UTC second, about 150 ms later, as a
# receiver does after its pulse (selftests' receiver.sh, in bash: Debian's
# mawk has no xor()). Builtins only in the loop, no fork per second.
# While the port is unplugged (port_present) it waits; plugged back in,
# the generator is started again.
port=${1:-0}
ctl=/sys/kernel/debug/gpsphc_sim
sim=$ctl/ttyGPSSIM$port
export TZ=UTC

# Sleeps without a fork: read -t on a FIFO nobody writes.
fifo=$(mktemp -u)
mkfifo "$fifo" && exec 9<>"$fifo" && rm -f "$fifo" || exit 1
nap() { read -r -t "$1" -u 9 _; }

nmea() {
	local s=0 i c
	for ((i = 0; i < ${#1}; i++)); do
		printf -v c '%d' "'${1:i:1}"
		s=$((s ^ c))
	done
	printf '$%s*%02X\r\n' "$1" "$s"
}

until [ -d "$sim" ]; do nap 0.5; done
echo 0 >"$sim/pulse_ppb"
last=0
while :; do
	read -r present <"$ctl/port_present" 2>/dev/null
	if [ "${present:$port:1}" != 1 ]; then
		last=0
		nap 0.5
		continue
	fi
	read -r on <"$sim/pulse_enable" 2>/dev/null
	[ "$on" = 1 ] || { echo 1 >"$sim/pulse_enable" && echo "pulses on ttyGPSSIM$port"; }
	read -r dcd <"$sim/dcd" 2>/dev/null
	if [ "$dcd" = 1 ] && [ "$last" = 0 ]; then
		# The second nearest to the edge, which came up to 30 ms ago
		# (the poll), not the second read now: chronyd keeps this
		# clock on the edges, a little behind or ahead, and rounding
		# down made labels one second apart from one edge to the next.
		now=${EPOCHREALTIME/./}
		s=$(((now - 15000 + 500000) / 1000000))
		printf -v t '%(%H%M%S)T' "$s"
		printf -v d '%(%d%m%y)T' "$s"
		nap 0.15
		nmea "GPRMC,$t.00,A,4807.038,N,01131.000,E,0.0,0.0,$d,,,A" >"$sim/rx" 2>/dev/null
	fi
	last=${dcd:-0}
	nap 0.03
done

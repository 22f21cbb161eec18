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
#
# It keeps its own time, as a receiver does: the first edge it sees is
# named by CLOCK_REALTIME (the second nearest it), and every later one by
# the generator's pulse number since (the edge log's pulse k), never by
# CLOCK_REALTIME again. Naming each edge by CLOCK_REALTIME made the
# receiver follow the clock under test: chronyd stepped the system clock
# to the PHC, the receiver's seconds moved by the step, the kernel
# confirmed the jump and stepped the PHC, and chronyd followed again
# (seen on 6.12: the system clock stepped by -1.66 s, -1.46 s, +2.19 s).
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

# last_pulse: the pulse number k of the newest rising edge of the
# generator in the edge log, or nothing; the log is cleared after it, so
# that each read is a few lines.
last_pulse() {
	local k level newest=

	while read -r _ k level _; do
		[ "$level" = 1 ] && [[ $k =~ ^[0-9]+$ ]] && newest=$k
	done <"$sim/edges"
	echo >"$sim/edges"
	pulse=$newest
}

until [ -d "$sim" ]; do nap 0.5; done
echo 0 >"$sim/pulse_ppb"
last=0
base=
while :; do
	read -r present <"$ctl/port_present" 2>/dev/null
	if [ "${present:$port:1}" != 1 ]; then
		last=0
		base=
		nap 0.5
		continue
	fi
	read -r on <"$sim/pulse_enable" 2>/dev/null
	[ "$on" = 1 ] || { echo 1 >"$sim/pulse_enable" && echo "pulses on ttyGPSSIM$port"; base=; }
	read -r dcd <"$sim/dcd" 2>/dev/null
	if [ "$dcd" = 1 ] && [ "$last" = 0 ]; then
		last_pulse
		# No pulse in the log: a write to dcd, not the generator.
		if [ -z "$pulse" ]; then
			last=1
			nap 0.03
			continue
		fi
		if [ -z "$base" ]; then
			# The second nearest to the edge, which came up to
			# 30 ms ago (the poll), less its pulse number.
			now=${EPOCHREALTIME/./}
			base=$(((now - 15000 + 500000) / 1000000 - pulse))
			echo "ttyGPSSIM$port: pulse $pulse is $(printf '%(%F %T)T' $((base + pulse))) UTC; later pulses count from it"
		fi
		s=$((base + pulse))
		printf -v t '%(%H%M%S)T' "$s"
		printf -v d '%(%d%m%y)T' "$s"
		nap 0.15
		nmea "GPRMC,$t.00,A,4807.038,N,01131.000,E,0.0,0.0,$d,,,A" >"$sim/rx" 2>/dev/null
	fi
	last=${dcd:-0}
	nap 0.03
done

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A simulated GNSS receiver on the fake UART, for shell tests and the demo.
# Source it, set SIM_CTL to a port's debugfs directory, start the pulse
# generator, then run `receiver SECONDS`: after each rising edge it sends
# the RMC sentence for the current UTC second 150 ms later, as a receiver
# does after its pulse.

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

rising_edges() { awk '$2 >= 0 && $3 == 1' "$SIM_CTL/edges" | wc -l; }

receiver() {
	end=$(($(cut -d. -f1 /proc/uptime) + $1))
	seen=$(rising_edges)
	while [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
		now_edges=$(rising_edges)
		if [ "$now_edges" -gt "$seen" ]; then
			seen=$now_edges
			t=$(date -u +%H%M%S) d=$(date -u +%d%m%y)
			sleep 0.15
			nmea "GPRMC,$t.00,A,4807.038,N,01131.000,E,0.0,0.0,$d,,,A" >"$SIM_CTL/rx"
		fi
		sleep 0.05
	done
}

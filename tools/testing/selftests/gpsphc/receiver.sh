#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A simulated GNSS receiver on the fake UART, for shell tests and the demo.
# Source it, set SIM_CTL to a port's debugfs directory, start the pulse
# generator, then run `receiver SECONDS`: after each rising edge it sends
# the RMC sentence of that edge's UTC second 150 ms later, as a receiver
# does after its pulse. Also what every shell test does around it: the
# port, skips, the TAP plan and lines, the device lookup (at the end).

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

# receiver_edge: "KEY MONO" of the last rising edge of the receiver's
# pulses: KEY is new with each edge (the fake UART's edges log numbers
# them), MONO its CLOCK_MONOTONIC in ns; "none -" before the first. A
# test whose pulses come from elsewhere redefines it, with KEY the count
# of edges and MONO "-" (not known).
receiver_edge() {
	awk '$2 >= 0 && $3 == 1 { k = $1; t = $6 }
		END { if (k == "") print "none -"; else print k, t }' "$SIM_CTL/edges"
}

# receiver SECONDS [LEAP_UTC [COPY_CTL]]: after each rising edge, the RMC
# sentence of that edge's UTC second, 150 ms later. The seconds follow
# the pulses, as a receiver's follow its own. Where the edges' stamps
# are known (MONO), the first edge a shell sees on a port after
# pulses_on is named by CLOCK_REALTIME at its stamp (mapped through
# /proc/uptime), and every later one, in this call or the next one of
# the same shell (not from a call in the background), by the whole
# seconds of CLOCK_MONOTONIC since. Otherwise the first edge of a call
# is the UTC second nearest to it, which came up to a poll (about 50
# ms) ago, and each later one a second further per edge. Naming each
# edge by CLOCK_REALTIME at its sight instead named two edges the same
# second, or skipped one, whenever the edges fell near x.5 s of
# CLOCK_REALTIME (gpsphcd's guard held those as jumps), and followed
# CLOCK_REALTIME where phc2sys steps it; and the first edge of a call by
# CLOCK_REALTIME at its sight named a second call's edges a second later
# than the first call's on a slow shell (armhf under TCG: 400 ms from
# edge to sentence). With LEAP_UTC, the edge counted as that POSIX
# second is 23:59:60 of the day before (an inserted leap second) and the
# ones after it a second less; with COPY_CTL, each sentence also goes to
# that port. RECEIVER_SKEW_S, if set, is added to every second it names
# (a receiver whose time jumps).
receiver() {
	read -r up _ </proc/uptime
	end=$((${up%.*} + $1))
	last=$(receiver_edge)
	seen=${last%% *}
	s= next_s= next_sentence=
	while read -r up _ </proc/uptime && [ "${up%.*}" -lt "$end" ]; do
		last=$(receiver_edge)
		key=${last%% *} mono=${last#* }
		if [ -n "$key" ] && [ "$key" != none ] && [ "$key" != "$seen" ]; then
			if [ "$mono" = - ]; then
				if [ -z "$s" ]; then
					s=$((($(now_us) - 25000 + 500000) / 1000000))
				else
					s=$((s + key - seen))
				fi
			elif [ "${RECEIVER_CTL:-}" = "$SIM_CTL" ]; then
				s=$((RECEIVER_S + (mono - RECEIVER_MONO + 500000000) / 1000000000))
			else
				# CLOCK_REALTIME of the edge: now, less the
				# time since it (/proc/uptime: CLOCK_BOOTTIME,
				# which is CLOCK_MONOTONIC in a guest that
				# never suspends)
				real=$(now_us) cs=$(uptime_cs)
				s=$(((real - (cs * 10000 - mono / 1000) + 500000) / 1000000))
			fi
			[ "$mono" = - ] || RECEIVER_CTL=$SIM_CTL RECEIVER_S=$s RECEIVER_MONO=$mono
			seen=$key
			if [ "$s" = "$next_s" ]; then
				sentence=$next_sentence
			else
				sentence=$(receiver_sentence "$s" "${2:-}")
			fi
			# 150 ms after the edge where its stamp is known: a slow
			# shell (armhf under TCG) has spent most of that already.
			wait_ms=150
			if [ "$mono" != - ]; then
				wait_ms=$((150 - ($(uptime_cs) * 10 - mono / 1000000)))
			fi
			[ "$wait_ms" -le 0 ] || sleep "$((wait_ms / 1000)).$(printf %03d $((wait_ms % 1000)))"
			printf '%s\n' "$sentence" >"$SIM_CTL/rx"
			[ -z "${3:-}" ] || printf '%s\n' "$sentence" >"$3/rx" 2>/dev/null
			# The next edge's sentence, while the shell waits for it.
			next_s=$((s + 1))
			next_sentence=$(receiver_sentence "$next_s" "${2:-}")
		fi
		sleep 0.05
	done
}

# receiver_sentence S [LEAP_UTC]: the RMC sentence receiver() sends for
# the edge it counts as POSIX second S.
receiver_sentence() {
	_u=$(($1 + ${RECEIVER_SKEW_S:-0}))
	[ -n "${2:-}" ] && [ "$1" -ge "$2" ] && _u=$((_u - 1))
	_t=$(date -u -d "@$_u" +%H%M%S) _d=$(date -u -d "@$_u" +%d%m%y)
	[ "$1" = "${2:-}" ] && _t=235960
	nmea "GPRMC,$_t.00,A,4807.038,N,01131.000,E,0.0,0.0,$_d,,,A"
}

# now_us: CLOCK_REALTIME in microseconds (busybox ts; its date has no %N).
now_us() {
	n=$(echo | ts %.s)
	n=${n%% *}
	# "1$frac - 1000000": the fraction without its leading zeros
	echo $((${n%.*} * 1000000 + 1${n#*.} - 1000000))
}

# coarse_receiver SECONDS DELAY_MS BAUD: a receiver with no PPS wire (keep
# the pulse generator off). Each UTC second of CLOCK_REALTIME, it starts
# sending a GGA DELAY_MS after the second and the RMC of that second right
# behind it, at BAUD. The burst is built beforehand and written in one go
# when its last byte would have arrived: the line discipline dates the
# bytes of a chunk back from its arrival at the line speed, so the GGA's
# '$' is stamped DELAY_MS after the second plus the shell's wake-up and the
# flip-buffer worker's delay. It sleeps with read -t on a FIFO nobody
# writes (a builtin: no fork between reading the clock and sleeping). A
# second the shell is too late for is skipped, as a receiver might.
coarse_receiver() {
	fifo=$(mktemp -u)
	mkfifo "$fifo" && exec 9<>"$fifo" && rm -f "$fifo" || return 1
	end=$(($(cut -d. -f1 /proc/uptime) + $1))
	while [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
		s=$(($(now_us) / 1000000 + 1))
		t=$(date -u -d "@$s" +%H%M%S) d=$(date -u -d "@$s" +%d%m%y)
		burst=$(nmea "GPGGA,$t.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"
			nmea "GPRMC,$t.00,A,4807.038,N,01131.000,E,0.0,0.0,$d,,,A")
		# $(...) dropped the last LF (its CR stays): one byte less
		at=$((s * 1000000 + $2 * 1000 + ${#burst} * 10000000 / $3))
		ms=$(((at - $(now_us) + 500) / 1000))
		[ "$ms" -gt 0 ] || continue
		frac=$((ms % 1000 + 1000))
		# shellcheck disable=SC3045 # busybox ash: read -t takes a fraction
		read -r -t "$((ms / 1000)).${frac#1}" -u 9 _
		printf '%s\n' "$burst" >"$SIM_CTL/rx"
	done
	exec 9<&-
}

# check NAME COMMAND...: one TAP line, "ok" if COMMAND succeeds. The test
# sets tap_n=0 and fails=0 first.
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

uptime_s() { cut -d. -f1 /proc/uptime; }

# uptime_cs: /proc/uptime in hundredths of a second.
uptime_cs() {
	read -r u _ </proc/uptime
	echo $((${u%.*} * 100 + 1${u#*.} - 100))
}

# until_s SECONDS COMMAND...: run COMMAND every 0.2 s until it succeeds.
until_s() {
	limit=$(($(uptime_s) + $1)); shift
	until "$@"; do
		[ "$(uptime_s)" -lt "$limit" ] || return 1
		sleep 0.2
	done
}

# gpsphc_dev [TTY]: the sysfs directory of the gpsphc device on TTY
# (ttyS1 or /dev/ttyS1; ttyGPSSIM$port by default), or nothing.
gpsphc_dev() {
	_t=${1:-ttyGPSSIM$port}
	grep -l "^${_t#/dev/}\$" /sys/class/gpsphc/*/tty 2>/dev/null | xargs -r dirname
}

# dev_attached [TTY]: has the tty a gpsphc device now? For until_s, which
# must run the lookup each time ("test -n \"$(gpsphc_dev)\"" would expand it
# once, before the wait).
dev_attached() { test -n "$(gpsphc_dev "$@")"; }

# sim_port N: use the fake UART's port N: sets port, tty and SIM_CTL (its
# debugfs directory).
sim_port() {
	port=$1
	# shellcheck disable=SC2034 # for the tests that source this
	tty=/dev/ttyGPSSIM$port
	SIM_CTL=/sys/kernel/debug/gpsphc_sim/ttyGPSSIM$port
}

# skip_test NAME WHY: the whole test skipped, as kselftest counts it.
skip_test() {
	echo "ok 1 $1 # SKIP $2"
	exit 4
}

# need NAME COMMAND...: skip the test NAME unless every COMMAND is in
# PATH and the port's simulator is loaded.
need() {
	name=$1
	shift
	for c in "$@"; do
		command -v "$c" >/dev/null || skip_test "$name" "no $c"
	done
	[ -d "$SIM_CTL" ] || skip_test "$name" "gpsphc_sim not loaded"
}

# tap_plan N: the TAP header for N checks; check() counts from here.
tap_plan() {
	tap_n=0
	fails=0
	echo "TAP version 13"
	echo "1..$1"
}

# pulses_on: the port's pulse generator on, a second a pulse, its edge
# log emptied (the receiver reads it whole), DCD changes raising
# interrupts only through TIOCMIWAIT, as an 8250's do. sim_off: pulses
# and DCD interrupts off again.
pulses_on() {
	RECEIVER_CTL=
	echo 1 >"$SIM_CTL/msr_gate"
	echo 0 >"$SIM_CTL/pulse_ppb"
	echo >"$SIM_CTL/edges"
	echo 1 >"$SIM_CTL/pulse_enable"
}

sim_off() {
	echo 0 >"$SIM_CTL/pulse_enable"
	echo 0 >"$SIM_CTL/msr_gate"
}

# reap PID...: stop each background program named (empty names aside)
# and wait for it.
reap() {
	for p in "$@"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null && wait "$p"
	done
	return 0
}

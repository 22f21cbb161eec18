#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# linuxptp's phc_ctl on a gpsphc clock that has no label yet (the servo
# leaves it alone): the settime/adjtime/adjfreq cases of
# tools/testing/selftests/ptp/phc.sh, with waits short enough for the VM,
# plus a frequency beyond max_adj that must be refused. Then phc2sys
# between two gpsphc clocks: the sink converges on the source.
# The locked-clock and CLOCK_REALTIME cases are in phc_test.c, which can
# label edges.

ksft_skip=4
DIR=$(dirname "$0")
PORT_A=3
PORT_B=2

for cmd in phc_ctl phc2sys; do
	if ! command -v $cmd >/dev/null 2>&1; then
		echo "SKIP: $cmd not installed"
		exit $ksft_skip
	fi
done
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: need root privileges"
	exit $ksft_skip
fi

EXIT_STATUS=0
NUM=0
PIDS=""

cleanup()
{
	for p in $PIDS; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	PIDS=""
}
trap cleanup EXIT

log_test()
{
	NUM=$((NUM + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $NUM phc2sys_test.$2"
	else
		EXIT_STATUS=1
		echo "not ok $NUM phc2sys_test.$2"
	fi
}

# hold PORT: attach the discipline to the fake port until cleanup. Not
# inside $(...): the command substitution would wait for it.
hold()
{
	"$DIR/attach_hold" /dev/ttyGPSSIM"$1" >/dev/null 2>&1 &
	PIDS="$PIDS $!"
}

# ptp_of PORT: the /dev/ptpN of the gpsphc device on the fake port.
ptp_of()
{
	port=$1
	i=0
	while [ $i -lt 50 ]; do
		for d in /sys/class/gpsphc/gpsphc*; do
			[ -f "$d/tty" ] || continue
			[ "$(cat "$d/tty")" = "ttyGPSSIM$port" ] || continue
			ptp=$(cat "$d/ptp_device" 2>/dev/null) || continue
			[ -c "/dev/$ptp" ] && { echo "/dev/$ptp"; return 0; }
		done
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# whole_seconds ARGS...: phc_ctl ARGS, then the integer part of "clock time is".
whole_seconds()
{
	phc_ctl "$@" 2>/dev/null | awk '/clock time is/{print $5}' | tail -n 1 |
		awk -F. '{print $1}'
}

fraction()
{
	phc_ctl "$@" 2>/dev/null | awk '/clock time is/{print $5}' | tail -n 1
}

echo "TAP version 13"
echo "1..6"
echo "# linuxptp $(phc2sys -v 2>&1): phc_ctl, phc2sys"

hold $PORT_A
DEV=$(ptp_of $PORT_A)
if [ -z "$DEV" ]; then
	echo "not ok 1 phc2sys_test.attach: no /dev/ptpN for ttyGPSSIM$PORT_A"
	exit 1
fi
echo "# clock $DEV ($(cat /sys/class/ptp/"${DEV#/dev/}"/clock_name))"

res=$(whole_seconds "$DEV" set 0 wait 1.5 get)
echo "# settime: set 0, wait 1.5 s: $res"
[ "$res" = 1 ]
log_test $? settime

res=$(whole_seconds "$DEV" set 0 adj 10 get)
echo "# adjtime: set 0, adj 10: $res"
[ "$res" = 10 ]
log_test $? adjtime

# +500 ppm (max_adj) over 2 s: 2.001 s, plus the wait's lateness (TCG: tens of
# ms at most, so below 2.2 s; natively it is microseconds).
res=$(fraction "$DEV" freq 500000 set 0 wait 2 get)
phc_ctl "$DEV" freq 0 >/dev/null 2>&1
echo "# adjfreq: +500000 ppb, set 0, wait 2 s: $res"
awk -v r="$res" 'BEGIN { exit !(r != "" && r >= 2.001 && r < 2.2) }'
log_test $? adjfreq

# phc.sh's 1 % is beyond this clock's max_adj (500 ppm): refused, the
# frequency stays what it was. (phc_ctl prints "adjusted" either way; its
# "freq" without a value reads the frequency back.)
phc_ctl "$DEV" freq 100000 >/dev/null 2>&1
out=$(phc_ctl "$DEV" freq 10000000 freq 2>&1)
freq=$(echo "$out" | awk '/clock frequency offset is/{print $NF}' | tail -n 1)
phc_ctl "$DEV" freq 0 >/dev/null 2>&1
echo "# freq 100000 then 10000000: reads $freq"
echo "$out" | grep -i 'fail' | sed 's/^/# /'
case $freq in 100000*ppb|100000) true ;; *) false ;; esac
log_test $? adjfreq_beyond_max_adj_refused

# phc2sys from clock A to clock B: B is first 1000 s off, then follows.
hold $PORT_B
DEV_B=$(ptp_of $PORT_B)
if [ -z "$DEV_B" ]; then
	log_test 1 phc2sys_between_clocks
	log_test 1 phc2sys_state_after
	exit 1
fi
phc_ctl "$DEV" set 2000 freq 0 >/dev/null 2>&1
phc_ctl "$DEV_B" set 1000 freq 0 >/dev/null 2>&1
phc2sys -s "$DEV" -c "$DEV_B" -O 0 -m -q -R 4 >/tmp/phc2sys.out 2>&1 &
P2S=$!
PIDS="$PIDS $P2S"
sleep 8
kill $P2S 2>/dev/null
wait $P2S 2>/dev/null
sed -n '1,3p;$p' /tmp/phc2sys.out | sed 's/^/# /'
# The last 8 offsets (2 s at -R 4) below 20 us: both clocks are
# MONOTONIC_RAW through a multiplier and PRECISE reads each in one
# snapshot, so what is left is the time between phc2sys's two readings.
bad=$(grep -o 'offset *-\?[0-9]*' /tmp/phc2sys.out | awk '{print $2}' | tail -n 8 |
	awk 'function abs(x) { return x < 0 ? -x : x }
	     { n++; if (abs($1) >= 20000) b++ } END { print (n < 8) ? "few" : b + 0 }')
echo "# phc2sys: last 8 samples outside 20 us: $bad"
[ "$bad" = 0 ]
log_test $? phc2sys_between_clocks

a=$(whole_seconds "$DEV" get)
b=$(whole_seconds "$DEV_B" get)
echo "# after phc2sys: A $a, B $b"
[ -n "$a" ] && [ -n "$b" ] && [ $((a - b)) -ge -1 ] && [ $((a - b)) -le 1 ]
log_test $? phc2sys_state_after

cleanup
exit $EXIT_STATUS

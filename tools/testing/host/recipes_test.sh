#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recipes_test.sh - every command line of the recipes in
# Documentation/admin-guide/gpsphc-grandmaster.rst (the literal lines
# "  # gpsphcd|phc2sys|ptp4l|ts2phc|pmc ..."), run with Debian 12's linuxptp
# 3.1.1 and this tree's gpsphcd, with the shipped config files
# (userspace/examples/): each must take every option and every config
# item, and stop only later, at what the host lacks (the gpsphc clock, a
# NIC with hardware timestamps, a tty). Nothing here reaches the host's
# network, clocks or ttys: each line runs in a network namespace of its
# own whose eth0 is one end of a veth pair, with /dev/gpsphc/ttyS0/ptp
# absent (it is checked), ptp4l's and pmc's socket in a directory of the test's, and
# gpsphcd's tty a path that does not exist.
#
# Also: the recipe this replaces really is wrong on 3.1.1 (ts2phc
# refuses --ts2phc.nmea_baudrate).
#
# TAP on stdout. Needs root and linuxptp; skips without them.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
DOC=${DOC:-$TOP/Documentation/admin-guide/gpsphc-grandmaster.rst}
EXAMPLES=$TOP/userspace/examples
GPSPHCD=${GPSPHCD:-$TOP/userspace/build/gpsphcd}

TAP_NAME=recipes
. "$HERE/tap.sh"
need_root_and ip ptp4l pmc phc2sys ts2phc
[ -e /dev/gpsphc/ttyS0/ptp ] && skip_all "this host has a /dev/gpsphc/ttyS0/ptp: the recipes would act on it"
[ -x "$GPSPHCD" ] || skip_all "$GPSPHCD missing (make -C userspace)"

T=$(mktemp -d /tmp/gpsphc-recipes.XXXXXX) || exit 1
NS=gpsphc-recipes-$$
cleanup() {
	trap '' INT TERM
	trap - EXIT
	ip netns del "$NS" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

ip netns add "$NS" && ip -n "$NS" link add eth0 type veth peer name eth0p &&
	ip -n "$NS" link set eth0 up && ip -n "$NS" link set eth0p up ||
	{ echo "1..1"; echo "not ok 1 recipes: cannot make a network namespace"; exit 1; }

mapfile -t lines < <(sed -n 's/^  # \(\(gpsphcd\|phc2sys\|ptp4l\|ts2phc\|pmc\) .*\)$/\1/p' "$DOC")
echo "TAP version 13"
echo "1..$((${#lines[@]} + 2))"

# run LINE: the recipe line with the test's paths, in the namespace;
# its output in $out, its status in $rc.
run() {
	local line=$1 prog=${1%% *}

	line=${line//\/usr\/local\/share\/doc\/gpsphcd\/examples/$EXAMPLES}
	line=${line//\/dev\/ttyS0/$T/no-such-tty}
	line=${line//\/var\/run\/ptp4l/$T/ptp4l}
	case $prog in
	gpsphcd) line="$GPSPHCD ${line#gpsphcd }" ;;
	ptp4l) line="$line --uds_address=$T/ptp4l" ;;
	phc2sys) line="$line -z $T/ptp4l" ;;
	pmc) line="pmc -s $T/ptp4l ${line#pmc }" ;;
	esac
	# the quotes in pmc's lines are the shell's
	out=$(eval "timeout 10 ip netns exec $NS $line" 2>&1)
	rc=$?
}

# Each program's sign that it took the line and went on to the missing
# clock, NIC or tty; and the signs of a refused option or config item.
refused='unrecognized option|invalid option|unknown option|failed to parse|invalid argument|bad argument'
for line in "${lines[@]}"; do
	prog=${line%% *}
	case $prog in
	gpsphcd) want="$T/no-such-tty: No such file or directory" ;;
	phc2sys|ts2phc) want="unknown clock /dev/gpsphc/ttyS0/ptp" ;;
	ptp4l) want="interface 'eth0' does not support requested timestamping mode" ;;
	pmc) want="sending: GET" ;;
	esac
	run "$line"
	if printf '%s\n' "$out" | grep -Eq "$refused"; then
		not_ok "recipes: $line: refused: $(printf '%s\n' "$out" | grep -E "$refused" | head -n 1)"
	elif ! printf '%s\n' "$out" | grep -qF "$want"; then
		not_ok "recipes: $line: no \"$want\" (status $rc)"
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/# /'
	else
		ok "recipes: $line: taken, stops at \"$want\""
	fi
done

# The shipped configs are the ones the recipes name: every item known.
for f in "$EXAMPLES"/ptp4l-gm.conf "$EXAMPLES"/ts2phc-gpsphc.conf; do
	grep -q "${f##*/}" "$DOC" || not_ok "recipes: ${f##*/} is in no recipe"
done

# The old recipe (gpsphcd(8) before): 3.1.1 has no nmea_baudrate.
run "ts2phc -c /dev/gpsphc/ttyS0/ptp -s nmea --ts2phc.nmea_serialport /dev/ttyS0 --ts2phc.nmea_baudrate 9600 -m"
if [ $rc -eq 255 ] && printf '%s\n' "$out" | grep -q "unrecognized option '--ts2phc.nmea_baudrate'"; then
	ok "recipes: ts2phc 3.1.1 refuses --ts2phc.nmea_baudrate (status 255), as issue 13 says"
else
	not_ok "recipes: ts2phc took --ts2phc.nmea_baudrate (status $rc): a newer linuxptp? the recipe can use it"
fi

# ts2phc's built-in table ends before today: leapfile is needed. Its
# list must be current (tzdata), or ts2phc refuses every sentence.
expires=$(sed -n 's/^#@[[:space:]]*\([0-9]*\).*/\1/p' /usr/share/zoneinfo/leap-seconds.list)
now=$(( $(date +%s) + 2208988800 ))
if [ -n "$expires" ] && [ "$expires" -gt "$now" ]; then
	ok "recipes: leapfile /usr/share/zoneinfo/leap-seconds.list good until $(date -u -d @$((expires - 2208988800)) +%F)"
else
	not_ok "recipes: /usr/share/zoneinfo/leap-seconds.list expired (${expires:-no #@ line}): update tzdata, ts2phc refuses every sentence past it"
fi
exit $fail

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ptp4l_gm_test.sh - gpsphcd's ptp4l client (userspace/ptp4l_gm.c, driven
# by userspace/build/gm_drive without a kernel) against Debian 12's ptp4l
# (linuxptp 3.1.1): a grandmaster started from the shipped recipe
# userspace/examples/ptp4l-gm.conf on one end of a veth pair, a slave-only
# ptp4l on the other, each in a network namespace of its own, software
# timestamping over IEEE 802.3 (no IP addresses at all). For each servo
# state the client sends GRANDMASTER_SETTINGS_NP and the test checks, with
# pmc, that the grandmaster has exactly those settings and that the
# client's PARENT_DATA_SET and TIME_PROPERTIES_DATA_SET announce them:
# locked, holdover in and out of its limit, unlocked, leap61 announced and
# cleared, and ptp4l restarted (the refresh puts the settings back).
#
# Both ptp4l run free_running with kernel_leap 0: neither touches the
# host's clock, its leap state or its TAI offset (they share CLOCK_REALTIME
# with the host: namespaces do not separate clocks).
#
# The namespaces, both ptp4l and the pmc queries are in
# tools/testing/selftests/gpsphc/ptp4l_gm.sh, which the VM's
# gm_chain_test.sh shares (the same chain with the kernel module).
#
# TAP on stdout. Needs root, ip, ptp4l and pmc; skips without them.
# Environment: GM_DRIVE (default userspace/build/gm_drive), GM_CONF,
# WAIT_S (how long a change may take to reach the client, default 60),
# OFFSET_S (seconds of offsets to report at the end, default 12), KEEP
# (keep the logs: the directory is said at the end).

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
GM_DRIVE=${GM_DRIVE:-$TOP/userspace/build/gm_drive}
GM_CONF=${GM_CONF:-$TOP/userspace/examples/ptp4l-gm.conf}
WAIT_S=${WAIT_S:-60}
GM_ID=001122.fffe.334455
# A leap second that has not been announced: the end of 2026-12-31.
LEAP_UTC=1798761600

TAP_NAME=ptp4l_gm
. "$HERE/tap.sh"
. "$TOP/tools/testing/selftests/gpsphc/ptp4l_gm.sh"
need_root_and ip ptp4l pmc
if [ ! -x "$GM_DRIVE" ]; then
	echo "1..1"
	echo "not ok 1 ptp4l_gm setup: $GM_DRIVE missing (make -C userspace build/gm_drive)"
	exit 1
fi

T=$(mktemp -d /tmp/gpsphc-gm.XXXXXX) || exit 1
DRV_CHILD=

cleanup() {
	trap '' INT TERM	# one cleanup, whatever comes
	trap - EXIT
	[ -n "$DRV_CHILD" ] && { exec {DRV_IN}>&-; } 2>/dev/null
	gm_stop $DRV_CHILD $GM_PID $CL_PID
	gm_net_down
	[ -n "${KEEP:-}" ] && echo "# kept $T" || rm -rf "$T"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

gm_net_reap

echo "TAP version 13"
echo "1..9"

# drive LINE: one status to gm_drive; its answer in $drv.
drive() {
	echo "$1" >&"$DRV_IN"
	read -r -t 40 drv <&"$DRV_OUT" || drv="no answer from gm_drive"
}

# --- setup ---------------------------------------------------------------
setup() {
	gm_net_up || return 1
	start_gm
	start_cl
	coproc DRV { exec "$GM_DRIVE" "$T/gm" "$T/drv" refresh=2 2>>"$T/drv.log"; }
	DRV_CHILD=$DRV_PID	# bash unsets DRV_PID when it ends
	exec {DRV_IN}>&"${DRV[1]}" {DRV_OUT}<&"${DRV[0]}"
	wait_for "$WAIT_S" MASTER gm_port || return 1
	wait_for "$WAIT_S" $GM_ID client_gm
}

if setup; then
	ok "ptp4l_gm setup: veth between two namespaces, the grandmaster's port MASTER (what phc2sys -w waits for), the client follows $GM_ID after ${took} s"
else
	not_ok "ptp4l_gm setup: the grandmaster's port is ${got:-nothing} or the client follows ${got:-nothing}, not $GM_ID, after ${took:-0} s"
	for f in gm cl; do sed "s/^/# $f: /" "$T/$f.log" | tail -n 20; done
	exit 1
fi

# case NAME LINE WANT: gm_drive sends LINE; the grandmaster has WANT at
# once, and in its TIME_PROPERTIES_DATA_SET (what phc2sys -w reads) within
# 10 s, the client announces it within WAIT_S.
case_() {
	local name=$1 line=$2 want=$3 gm

	drive "$line"
	gm=$(gm_settings)
	if [ "${drv%% *}" != acked ]; then
		not_ok "ptp4l_gm $name: gm_drive says: $drv"
	elif [ "$gm" != "$want" ]; then
		not_ok "ptp4l_gm $name: the grandmaster has [$gm], not [$want]"
	elif ! wait_for 10 "$(echo "$want" | cut -d' ' -f4-)" gm_tprops; then
		not_ok "ptp4l_gm $name: the grandmaster's TIME_PROPERTIES_DATA_SET (phc2sys -w reads it) is [$got]"
	elif ! wait_for "$WAIT_S" "$want" client_view; then
		not_ok "ptp4l_gm $name: the client sees [$got], not [$want], after $took s"
	else
		ok "ptp4l_gm $name: [$want] acknowledged, on the client after $took s"
	fi
}

NOW=$(date +%s)
#           class acc  var    utc l61 l59 valid ts tt ft src
case_ locked "locked 0 37 none 0 $NOW" \
	"6 0x23 0x4e5d 37 0 0 1 1 1 1 0x20"
case_ holdover_in_spec "holdover 10 37 none 0 $NOW" \
	"7 0xfe 0x4e5d 37 0 0 1 1 1 1 0xa0"
case_ holdover_out_of_spec "holdover 301 37 none 0 $NOW" \
	"248 0xfe 0xffff 37 0 0 1 1 0 0 0xa0"
case_ unlocked "unlocked 0 0 none 0 $NOW" \
	"248 0xfe 0xffff 37 0 0 0 1 0 0 0xa0"
case_ leap61_announced "locked 0 37 insert $LEAP_UTC $((LEAP_UTC - 3600))" \
	"6 0x23 0x4e5d 37 1 0 1 1 1 1 0x20"
case_ leap61_cleared "locked 0 38 none 0 $((LEAP_UTC + 1))" \
	"6 0x23 0x4e5d 38 0 0 1 1 1 1 0x20"

# ptp4l restarted: its config's values until the refresh (2 s here).
restart() {
	kill "$GM_PID" && wait "$GM_PID" 2>/dev/null
	start_gm
	# (with software timestamping ptp4l starts without ptpTimescale)
	wait_for 20 "248 0xfe 0xffff 37 0 0 0 0 0 0 0xa0" gm_settings || return 1
	drive "hold 5"
	[ "$drv" = "held class=6 accuracy=0x23 variance=0x4e5d utc_offset=38 flags=0x3c source=0x20" ] ||
		return 1
	wait_for 10 "6 0x23 0x4e5d 38 0 0 1 1 1 1 0x20" gm_settings
}
if restart; then
	ok "ptp4l_gm ptp4l_restarted: its config's class 248 until the refresh, then [$got] again"
else
	not_ok "ptp4l_gm ptp4l_restarted: the grandmaster has [$got]; gm_drive: $drv"
	sed 's/^/# drv: /' "$T/drv.log" | tail -n 10
fi

# The client's offset to the grandmaster, for the record. Both read the
# host's CLOCK_REALTIME, so what is left is the software timestamps' noise
# and whole seconds: ptp4l 3.1.1 as a grandmaster with software
# timestamping sends its UTC clock as it is, so with ptpTimescale
# announced (as for a NIC's TAI clock) the client reads TAI - UTC = 37 s
# (timescale=arb is the setting for such a grandmaster; gpsphc-grandmaster.rst).
# The whole seconds are taken off here.
drive "hold ${OFFSET_S:-12}"	# samples, while locked
offsets=$(client_offsets)
if [ -n "$offsets" ]; then
	ok "ptp4l_gm client_offset: $offsets"
else
	not_ok "ptp4l_gm client_offset: no 'master offset' line in the client's log"
	sed 's/^/# cl: /' "$T/cl.log" | tail -n 20
fi
exit $fail

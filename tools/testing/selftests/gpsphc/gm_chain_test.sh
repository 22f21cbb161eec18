#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gm_chain_test.sh - the grandmaster chain of gpsphc-grandmaster.rst with
# the kernel module: the simulated receiver (pulses and RMC) on the fake
# UART, gpsphcd disciplining the gpsphc clock and keeping a ptp4l
# grandmaster's GRANDMASTER_SETTINGS_NP in step (--ptp4l-socket), phc2sys
# -w feeding the grandmaster's clock (CLOCK_REALTIME: software
# timestamping) from the gpsphc clock with ptp4l's currentUtcOffset, and a
# slave-only ptp4l in another network namespace across a veth pair
# (ptp4l_gm.sh, shared with the host's ptp4l_gm_test.sh). pmc on the
# slave checks what it receives: locked; the pulses stop: holdover within
# its limit, then past it; phc_ctl moves the clock: unlocked. The slave's
# offset to the grandmaster is reported.
#
# Expected on the slave (class accuracy variance currentUtcOffset leap61
# leap59 currentUtcOffsetValid ptpTimescale timeTraceable
# frequencyTraceable timeSource), from the table in
# gpsphc-grandmaster.rst with --ptp4l-gm holdover=5:
#   locked                  6 0x23 0x4e5d 37 0 0 1 1 1 1 0x20
#   holdover <= 5 s         7 0xfe 0x4e5d 37 0 0 1 1 1 1 0xa0
#   holdover > 5 s        248 0xfe 0xffff 37 0 0 1 1 0 0 0xa0
#   unlocked              248 0xfe 0xffff 37 0 0 0 1 0 0 0xa0
# The servo enters holdover 2.5 s after the last edge (holdover_timeout_ns)
# and reports whole seconds since it (holdover_s): class 7 from 2.5 s to
# 6 s after the last edge, gpsphcd reads the servo once a second and the
# slave gets an announce every 0.5 s.
#
# Then a leap second at the end of 2026-12-31 (details further down):
# leap61 on the slave before midnight and cleared after, CLOCK_REALTIME
# from phc2sys -w right on both sides, the clock in TAI without a step,
# and a second clock, in scale utc on ttyGPSSIM3, reading 23:59:59 twice
# (leap_watch).
#
# Runs last: it leaves CLOCK_REALTIME in 2027 and the kernel's TAI offset
# at 38.
ksft_skip=4
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/receiver.sh"
sim_port 2
# The leap second's clock in scale utc.
UTC_PORT=3
UTC_CTL=/sys/kernel/debug/gpsphc_sim/ttyGPSSIM$UTC_PORT
. "$DIR/ptp4l_gm.sh"
GM_CONF=${GM_CONF:-$DIR/ptp4l-gm.conf}
GM_ID=001122.fffe.334455
HOLDOVER=5
# How long the servo may take to lock from gpsphcd's start (gpsphcd's
# 2 s start-up wait, the first label's step, the lock under TCG).
LOCK_S=60
# How long a change may take to reach the slave otherwise.
WAIT_S=30
# Pulses off to class 7 on the slave: 2.5 s + up to 1 s (gpsphcd's poll)
# + up to 0.5 s (the next announce) + pmc; the bound leaves room for a
# busy machine.
HOLD_IN_S=8
# Pulses off to class 248 on the slave: at least HOLDOVER s (holdover_s >
# HOLDOVER is at least HOLDOVER + 1 s after the last edge, which came at
# most 1 s before the pulses stopped), about HOLDOVER + 2.
HOLD_OUT_S=$((HOLDOVER + 10))
# Seconds of the slave's offsets to report while locked.
OFFSET_S=12
# |CLOCK_REALTIME - (PHC - currentUtcOffset)| while phc2sys runs.
SYS_BOUND_NS=20000000

WANT_LOCKED="6 0x23 0x4e5d 37 0 0 1 1 1 1 0x20"
WANT_HOLD_IN="7 0xfe 0x4e5d 37 0 0 1 1 1 1 0xa0"
WANT_HOLD_OUT="248 0xfe 0xffff 37 0 0 1 1 0 0 0xa0"
WANT_UNLOCKED="248 0xfe 0xffff 37 0 0 0 1 0 0 0xa0"

skip() { echo "ok 1 gm_chain # SKIP $*"; exit $ksft_skip; }
[ "$(id -u)" = 0 ] || skip "needs root"
for t in ptp4l pmc phc2sys phc_ctl gpsphcd; do
	command -v $t >/dev/null || skip "no $t"
done
[ -d "$SIM_CTL" ] || skip "gpsphc_sim not loaded"
[ -r "$GM_CONF" ] || skip "no $GM_CONF (userspace/examples/ptp4l-gm.conf)"
# busybox's ip has no netns; the VM's build.sh stages iproute2's.
ip netns list >/dev/null 2>&1 || skip "ip has no netns (iproute2's ip needed)"
if [ ! -d /sys/module/veth ]; then
	insmod "/lib/modules/$(uname -r)/veth.ko" 2>/dev/null ||
		skip "no veth module (/lib/modules/$(uname -r)/veth.ko)"
fi

T=$(mktemp -d /tmp/gpsphc-gmchain.XXXXXX) || exit 1
RX_PID=
D_PID=
P2S_PID=
U_PID=
W_PID=
cleanup() {
	trap '' INT TERM
	trap - EXIT
	echo 0 >"$SIM_CTL/pulse_enable"
	echo 0 >"$UTC_CTL/pulse_enable" 2>/dev/null
	gm_stop $RX_PID $P2S_PID $D_PID $U_PID $W_PID $GM_PID $CL_PID
	gm_net_down
	echo 0 >"$SIM_CTL/msr_gate"
	echo 0 >"$UTC_CTL/msr_gate" 2>/dev/null
	# phc2sys steered CLOCK_REALTIME's frequency: leave it at 0.
	phc_ctl CLOCK_REALTIME freq 0 >/dev/null 2>&1
	[ -n "${KEEP:-}" ] && echo "# kept $T" || rm -rf "$T"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
gm_net_reap

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n gm_chain $*"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n gm_chain $*"; }
# since_s CS: seconds since uptime_cs was CS, with one decimal.
since_s() { local d=$(($(uptime_cs) - $1)); echo "$((d / 100)).$((d % 100 / 10))"; }

# have_dev: the device of the port exists (until_s runs a command, and
# would expand a $(gpsphc_dev) in its arguments only once).
have_dev() { [ -n "$(gpsphc_dev)" ]; }

# logs: the last lines of every log, as TAP comments.
logs() {
	local f

	for f in gm cl gpsphcd phc2sys; do
		[ -f "$T/$f.log" ] && tail -n "${1:-15}" "$T/$f.log" | sed "s/^/# $f: /"
	done
}

echo "TAP version 13"
echo "1..13"
echo "# linuxptp $(ptp4l -v 2>&1): ptp4l, phc2sys, pmc"

# --- the network: both ptp4l ----------------------------------------------
setup_net() {
	gm_net_up || return 1
	start_gm
	start_cl
	wait_for "$WAIT_S" MASTER gm_port || return 1
	wait_for "$WAIT_S" $GM_ID client_gm
}
if setup_net; then
	ok "setup: veth between two namespaces, the grandmaster's port MASTER, the slave follows $GM_ID after $took s"
else
	not_ok "setup: the grandmaster's port or the slave's grandmaster is ${got:-nothing} after ${took:-0} s"
	logs 20
	exit 1
fi

# --- the receiver, gpsphcd, phc2sys ----------------------------------------
pulses_on
receiver 600 &
RX_PID=$!
gpsphcd --baud 9600 --state "$T/state" --ptp4l-socket "$T/gm" \
	--ptp4l-gm holdover=$HOLDOVER $tty >"$T/gpsphcd.log" 2>&1 &
D_PID=$!
until_s 10 have_dev
dev=$(gpsphc_dev)
ptp=
[ -n "$dev" ] && ptp=/dev/$(cat "$dev/ptp_device")
if [ -n "$ptp" ] && [ -c "$ptp" ]; then
	phc2sys -s "$ptp" -c CLOCK_REALTIME -w -z "$T/gm" -m >"$T/phc2sys.log" 2>&1 &
	P2S_PID=$!
fi
t0=$(uptime_cs)
servo_locked() { grep -qx locked "$dev/servo_state" 2>/dev/null; }
if [ -n "$ptp" ] && until_s $LOCK_S servo_locked &&
	wait_for "$WAIT_S" "$WANT_LOCKED" client_view; then
	ok "locked: the servo locked and the slave has [$got] $(since_s "$t0") s after gpsphcd attached"
else
	not_ok "locked: the servo is ${dev:+$(cat "$dev/servo_state")}${dev:-not attached}, the slave has [${got:-}] after $(since_s "$t0") s, not [$WANT_LOCKED]"
	logs
fi

# sys_tai_ok TAI_UTC: CLOCK_REALTIME = PHC - TAI_UTC within SYS_BOUND_NS
# (phc2sys -w with the grandmaster's currentUtcOffset); the difference in
# $sys_err. phc_ctl cmp prints CLOCK_REALTIME - PHC.
sys_tai_ok() {
	local off

	off=$(phc_ctl "$ptp" cmp 2>/dev/null |
		sed -n 's/.*offset from CLOCK_REALTIME is \(-\{0,1\}[0-9]*\)ns.*/\1/p')
	[ -n "$off" ] || return 1
	sys_err=$((off + $1 * 1000000000))
	[ "${sys_err#-}" -le $SYS_BOUND_NS ]
}
lines=$(wc -l <"$T/cl.log")
p2s_lines=$(wc -l <"$T/phc2sys.log" 2>/dev/null || echo 0)
sys_err=
if [ -n "$ptp" ] && until_s 20 sys_tai_ok 37; then
	ok "system_clock: CLOCK_REALTIME = PHC - 37 s (phc2sys -w, the grandmaster's currentUtcOffset), off by $sys_err ns"
else
	not_ok "system_clock: CLOCK_REALTIME - (PHC - 37 s) = ${sys_err:-?} ns, not within $SYS_BOUND_NS ns"
	logs
fi

# The slave's offset to the grandmaster while locked, for the record: both
# read the guest's CLOCK_REALTIME, what is left is the software timestamps'
# noise under TCG and whole seconds (timescale=ptp on a grandmaster that
# serves UTC: the host test and gpsphc-grandmaster.rst explain the 37 s).
sleep $OFFSET_S
offsets=$(client_offsets $((lines + 1)))
p2s=$(tail -n +$((p2s_lines + 1)) "$T/phc2sys.log" 2>/dev/null |
	awk '/phc offset/ { for (i = 1; i < NF; i++) if ($i == "offset") { v = $(i + 1); print (v < 0 ? -v : v) } }' |
	sort -n | awk '{ s[++k] = $1 } END { if (k) printf "%d samples, |offset| median %d ns, max %d ns", k, s[int((k + 1) / 2)], s[k] }')
echo "# phc2sys (gpsphc clock -> CLOCK_REALTIME) while locked: ${p2s:-no samples}"
if [ -n "$offsets" ]; then
	ok "slave_offset: $offsets"
else
	not_ok "slave_offset: no 'master offset' line in the slave's log in $OFFSET_S s"
	logs
fi

# --- the pulses stop ---------------------------------------------------------
t0=$(uptime_cs)
echo 0 >"$SIM_CTL/pulse_enable"
kill "$RX_PID" 2>/dev/null
wait "$RX_PID" 2>/dev/null
RX_PID=
if wait_for $HOLD_IN_S "$WANT_HOLD_IN" client_view; then
	ok "holdover_in_spec: the slave has [$got] $(since_s "$t0") s after the pulses stopped (servo ${dev:+$(cat "$dev/servo_state")}, holdover_s ${dev:+$(cat "$dev/holdover_s")})"
else
	not_ok "holdover_in_spec: the slave has [$got] $(since_s "$t0") s after the pulses stopped, not [$WANT_HOLD_IN]"
	logs
fi
if wait_for $HOLD_OUT_S "$WANT_HOLD_OUT" client_view; then
	d=$(since_s "$t0")
	if [ "${d%.*}" -ge $HOLDOVER ]; then
		ok "holdover_out_of_spec: the slave has [$got] $d s after the pulses stopped (holdover=$HOLDOVER; holdover_s ${dev:+$(cat "$dev/holdover_s")})"
	else
		not_ok "holdover_out_of_spec: the slave has [$got] already $d s after the pulses stopped, before holdover=$HOLDOVER s"
	fi
else
	not_ok "holdover_out_of_spec: the slave has [$got] $(since_s "$t0") s after the pulses stopped, not [$WANT_HOLD_OUT]"
	logs
fi

# --- someone else moves the clock: the servo starts over -------------------
t0=$(uptime_cs)
phc_ctl "$ptp" adj 0.001 >"$T/phc_ctl.log" 2>&1
if wait_for "$WAIT_S" "$WANT_UNLOCKED" client_view; then
	ok "unlocked: phc_ctl adj 0.001, servo ${dev:+$(cat "$dev/servo_state")}, the slave has [$got] after $(since_s "$t0") s"
else
	not_ok "unlocked: phc_ctl adj 0.001, servo ${dev:+$(cat "$dev/servo_state")}, the slave has [$got] after $(since_s "$t0") s, not [$WANT_UNLOCKED]"
	sed 's/^/# phc_ctl: /' "$T/phc_ctl.log"
	logs
fi

# What gpsphcd said ptp4l announces, in order.
grep 'announces' "$T/gpsphcd.log" | sed 's/^/# gpsphcd: /'

# --- a leap second ---------------------------------------------------------
# The guest's clock is set LEAP_LEAD_S before the end of 2026-12-31, and
# gpsphcd reads tzdata's leap-seconds.list plus a positive leap second
# there (4007750400 38, 2027-01-01 in NTP seconds; the #h hash
# recomputed, gpsphcd checks it). The receiver counts pulses from the
# clock's second at its first edge, and its sentences say 23:59:60 as a
# real receiver's do (receiver.sh's receiver with LEAP_UTC). It feeds a
# second gpsphc clock too, on ttyGPSSIM$UTC_PORT in scale utc, with a
# gpsphcd of its own (no --ptp4l-socket: one gpsphcd per ptp4l); both
# ports' pulses come at whole seconds of CLOCK_MONOTONIC_RAW, so one edge
# is both ports'.
#
# The lead is what it takes before midnight to attach (10 s at most), lock
# and have leap61 on the slave (10 to 15 s in the VM, but the first part
# has seen 38 s on a busy machine; leap61 may take LEAP_LEAD_S - 15 s),
# step CLOCK_REALTIME and start phc2sys -w (below). phc2sys reads ptp4l's
# currentUtcOffset and leap flags when it starts and then only every
# minute, so it starts once the grandmaster announces leap61; from then
# on it needs no new reading: at midnight it takes TAI - UTC one more
# itself (and has the kernel insert the second), which is what ptp4l
# says a moment later.
#
# Expected: leap61 on the slave before midnight, CLOCK_REALTIME = PHC -
# 37 s; after it currentUtcOffset 38 and no leap61, CLOCK_REALTIME = PHC -
# 38 s (the kernel inserted the second); the TAI clock never stepped (the
# servo stays locked with no step, and leap_watch's readings show none);
# the UTC clock steps back exactly 1 s when it would read 00:00:00, so it
# reads 23:59:59 twice (leap_watch).
LEAP_UTC=1798761600
LEAP_LEAD_S=${LEAP_LEAD_S:-60}
# The receiver stops this long after midnight (the test is done by then).
LEAP_AFTER_S=30
WANT_LEAP61="6 0x23 0x4e5d 37 1 0 1 1 1 1 0x20"
WANT_LEAP_DONE="6 0x23 0x4e5d 38 0 0 1 1 1 1 0x20"

# make_leapfile SRC DEST: SRC with the test's leap second, hashed again as
# the list's #h line hashes: the digits of #$, #@ and every data line's
# two numbers, in file order.
make_leapfile() {
	local h

	awk '/^[0-9]/ { last = NR } { line[NR] = $0 }
	     END { for (i = 1; i <= NR; i++) {
			if (line[i] ~ /^#h/) continue
			print line[i]
			if (i == last) print "4007750400\t38\t# 1 Jan 2027 (gm_chain_test)"
		} }' "$1" >"$T/leap.body" || return 1
	h=$(awk '/^#[$@]/ { printf "%s", $2; next } /^[0-9]/ { printf "%s%s", $1, $2 }' \
		"$T/leap.body" | sha1sum | cut -c1-40)
	[ ${#h} = 40 ] || return 1
	{ cat "$T/leap.body"
	  printf '#h\t%s %s %s %s %s\n' "${h:0:8}" "${h:8:8}" "${h:16:8}" "${h:24:8}" "${h:32:8}"
	} >"$2"
}

# The UTC-scale clock's device, on ttyGPSSIM$UTC_PORT.
utc_dev() { port=$UTC_PORT gpsphc_dev; }
have_utc_dev() { [ -n "$(utc_dev)" ]; }
utc_locked() { grep -qx locked "$udev/servo_state" 2>/dev/null; }

# pulses PORT_CTL: the simulated receiver's pulses on a port, on time
# (no frequency error, jitter, misses or spikes), from the next whole
# second of CLOCK_MONOTONIC_RAW on.
pulses() {
	echo 0 >"$1/pulse_enable" &&
	echo 0 >"$1/pulse_ppb" && echo 0 >"$1/pulse_jitter_ns" &&
	echo 0 >"$1/pulse_spike_every" && echo >"$1/pulse_miss" &&
	echo 1 >"$1/msr_gate" && echo 1 >"$1/pulse_enable"
}

leap_setup() {
	echo 0 >"$SIM_CTL/pulse_enable"
	gm_stop $P2S_PID $D_PID
	P2S_PID= D_PID=
	make_leapfile /usr/share/zoneinfo/leap-seconds.list "$T/leap.list" || return 1
	[ -d "$UTC_CTL" ] || return 1
	date -u -s "$(date -u -d "@$((LEAP_UTC - LEAP_LEAD_S))" '+%Y-%m-%d %H:%M:%S')" >/dev/null || return 1
	echo >"$SIM_CTL/edges"
	pulses "$SIM_CTL" && pulses "$UTC_CTL" || return 1
	receiver $((LEAP_LEAD_S + LEAP_AFTER_S)) $LEAP_UTC "$UTC_CTL" &
	RX_PID=$!
	gpsphcd --baud 9600 --state "$T/state.leap" --leapfile "$T/leap.list" \
		--ptp4l-socket "$T/gm" --ptp4l-gm holdover=$HOLDOVER $tty \
		>"$T/gpsphcd.log" 2>&1 &
	D_PID=$!
	gpsphcd --baud 9600 --state "$T/state.utc" --leapfile "$T/leap.list" \
		--scale utc /dev/ttyGPSSIM$UTC_PORT >"$T/gpsphcd-utc.log" 2>&1 &
	U_PID=$!
	t0=$(uptime_cs)
	until_s 10 have_dev && until_s 10 have_utc_dev || return 1
	dev=$(gpsphc_dev)
	ptp=/dev/$(cat "$dev/ptp_device")
	udev=$(utc_dev)
	uptp=/dev/$(cat "$udev/ptp_device")
	wait_for $((LEAP_LEAD_S - 15)) "$WANT_LEAP61" client_view || return 1
	[ "$(date +%s)" -lt $LEAP_UTC ] || return 1
	# A step of CLOCK_REALTIME after the kernel was told to insert the
	# leap second (STA_INS) makes it forget the leap: the step clears its
	# leap timer and STA_INS stays set, so nothing re-arms it. phc2sys -w
	# started now would do exactly that (STA_INS at its first update, its
	# first step on the next), and at midnight CLOCK_REALTIME would be a
	# second ahead until phc2sys slewed it away (10 s at its 10 %). So a
	# phc2sys that knows nothing of the leap steps the clock first, and
	# phc2sys -w starts without a first step (-F 0).
	phc2sys -s "$ptp" -c CLOCK_REALTIME -O -37 -m >"$T/phc2sys-step.log" 2>&1 &
	P2S_PID=$!
	until_s 10 sys_tai_ok 37
	gm_stop $P2S_PID
	phc2sys -s "$ptp" -c CLOCK_REALTIME -w -F 0 -z "$T/gm" -m >"$T/phc2sys.log" 2>&1 &
	P2S_PID=$!
	# Both clocks read from 23:59:57.5 to 00:00:00.5 (UTC), once the UTC
	# clock is labelled (before, it reads CLOCK_REALTIME + 37 s).
	until_s 10 utc_locked
	"$DIR/leap_watch" "$ptp" "$uptp" $LEAP_UTC $((LEAP_LEAD_S + 5)) \
		>"$T/leap_watch.out" 2>&1 &
	W_PID=$!
}
leap_t0=$(uptime_cs)
if leap_setup; then
	ok "leap61_announced: the slave has [$got] at $(date -u +%T) ($(since_s "$t0") s after gpsphcd attached; servo $(cat "$dev/servo_state"), leap $(cat "$dev/leap") at $(cat "$dev/leap_utc"))"
else
	not_ok "leap61_announced: the slave has [${got:-}] at $(date -u +%T), not [$WANT_LEAP61] before midnight (devices ${dev:-none} ${udev:-none})"
	grep -i 'leap' "$T/gpsphcd.log" | head -n 5 | sed 's/^/# gpsphcd: /'
	logs
fi
sys_err=
if until_s 20 sys_tai_ok 37 && [ "$(date +%s)" -lt $LEAP_UTC ]; then
	ok "leap_system_clock_before: CLOCK_REALTIME = PHC - 37 s at $(date -u +%T), off by $sys_err ns"
else
	not_ok "leap_system_clock_before: CLOCK_REALTIME - (PHC - 37 s) = ${sys_err:-?} ns at $(date -u +%T)"
	logs
fi

# Across midnight: the servos' states, the TAI clock's offset and steps,
# sampled.
# servo_counts DEV: the counters that say why a servo stepped (a step
# of its own: steps with relocks or outliers; a confirmed label:
# disagreements), for a failure to name.
servo_counts() {
	local f c=

	for f in steps relocks outliers disagreements holdovers; do
		c="$c $f=$(cat "$1/statistics/$f" 2>/dev/null)"
	done
	echo "${c# }"
}
counts0=$(servo_counts "$dev")
ucounts0=$(servo_counts "$udev")
steps0=$(cat "$dev/statistics/steps" 2>/dev/null)
usteps0=$(cat "$udev/statistics/steps" 2>/dev/null)
states=
ustates=
worst=0
until [ "$(date +%s)" -ge $((LEAP_UTC + 1)) ] || [ $(($(date +%s) + 2 * LEAP_LEAD_S)) -lt $LEAP_UTC ]; do
	read -r st <"$dev/servo_state" || break
	read -r o <"$dev/offset_ns" || break
	case " $states " in *" $st "*) ;; *) states="$states $st" ;; esac
	read -r st <"$udev/servo_state" || break
	case " $ustates " in *" $st "*) ;; *) ustates="$ustates $st" ;; esac
	o=${o#-}
	[ "$o" -le "$worst" ] || worst=$o
	sleep 0.25
done
counts_mid="$(date -u +%T) $(servo_counts "$dev")"
ucounts_mid="$(date -u +%T) $(servo_counts "$udev")"
# Right after midnight (before anything could slew a second away):
# CLOCK_REALTIME = PHC - 38 s, and the kernel said it inserted the second.
sys_err=
sys_after_at=
if until_s 2 sys_tai_ok 38; then
	sys_after_at=$(date -u +%T)
fi
t0=$(uptime_cs)
if wait_for "$WAIT_S" "$WANT_LEAP_DONE" client_view; then
	ok "leap61_cleared: the slave has [$got] at $(date -u +%T), $(since_s "$t0") s after 00:00:01 (tai_utc $(cat "$dev/tai_utc"), leap $(cat "$dev/leap"))"
else
	not_ok "leap61_cleared: the slave has [$got] at $(date -u +%T), not [$WANT_LEAP_DONE]"
	logs
fi
[ -n "${W_PID:-}" ] && wait "$W_PID" 2>/dev/null
W_PID=
watch_said() { sed -n "s/^$1 //p" "$T/leap_watch.out" 2>/dev/null; }
tai_said=$(watch_said tai)
utc_said=$(watch_said utc)
steps1=$(cat "$dev/statistics/steps" 2>/dev/null)
# locked_or_relocking STATES: only LOCKED and LOCKING were seen. A relock
# (LOCKING again, no step) is the loop following a run of edges that
# moved together, which a guest's interrupt latency does now and then
# under TCG on a busy host; what the leap must not do is step, jump
# (leap_watch) or lose the servo (UNLOCKED, HOLDOVER).
locked_or_relocking() {
	for st in $1; do
		case $st in locked | locking) ;; *) return 1 ;; esac
	done
	case " $1 " in *" locked "*) ;; *) return 1 ;; esac
}
if locked_or_relocking "$states" && [ -n "$steps0" ] && [ "$steps0" = "$steps1" ] &&
	[ "${tai_said%% *}" = 1 ]; then
	ok "leap_phc_no_step: across midnight the servo was [$states ] (relocks $(cat "$dev/statistics/relocks" 2>/dev/null)), no step ($steps1 in all), |offset_ns| at most $worst; the TAI clock, read by leap_watch: ${tai_said#1 }"
else
	not_ok "leap_phc_no_step: across midnight the servo was [$states ], steps $steps0 -> $steps1, |offset_ns| at most $worst; the TAI clock: ${tai_said:-no reading}; counters before: $counts0, at $counts_mid, at $(date -u +%T) $(servo_counts "$dev")"
	sed 's/^/# leap_watch: /' "$T/leap_watch.out"
	logs
fi
if locked_or_relocking "$ustates" && [ -n "$usteps0" ] && [ "$usteps0" = "$(cat "$udev/statistics/steps" 2>/dev/null)" ] &&
	[ "${utc_said%% *}" = 1 ]; then
	ok "leap_utc_clock: the clock in scale utc ($uptp, servo [$ustates ], no step but the leap's): ${utc_said#1 }"
else
	not_ok "leap_utc_clock: the clock in scale utc (${uptp:-none}, servo [$ustates ], steps $usteps0 -> $(cat "$udev/statistics/steps" 2>/dev/null)): ${utc_said:-no reading}; counters before: $ucounts0, at $ucounts_mid, at $(date -u +%T) $(servo_counts "$udev")"
	sed 's/^/# leap_watch: /' "$T/leap_watch.out"
	[ -f "$T/gpsphcd-utc.log" ] && tail -n 15 "$T/gpsphcd-utc.log" | sed 's/^/# gpsphcd-utc: /'
fi
inserted=$(dmesg | grep -c 'inserting leap second 23:59:60 UTC')
if [ -n "$sys_after_at" ] && [ "$inserted" = 1 ]; then
	ok "leap_system_clock_after: CLOCK_REALTIME = PHC - 38 s at $sys_after_at, off by $sys_err ns (the kernel: \"Clock: inserting leap second 23:59:60 UTC\")"
else
	not_ok "leap_system_clock_after: CLOCK_REALTIME - (PHC - 38 s) = ${sys_err:-?} ns by 00:00:03; the kernel's \"inserting leap second\" messages: $inserted; phc2sys said: $(grep -i -e leap -e jump -e step "$T/phc2sys.log" 2>/dev/null | head -n 3 | tr '\n' '|')"
	logs
fi
echo "# the leap-second part took $(since_s "$leap_t0") s"
# For the record: the TAI clock's PPS counters, the pulses' latency (raw
# - intended) in the leap part, and phc2sys from midnight on.
c=
for f in pps_edges pps_missed outliers spurious; do
	c="$c $f $(cat "$dev/statistics/$f" 2>/dev/null)"
done
echo "# TAI clock:$c"
awk '$2 >= 0 && $3 == 1 { d = ($5 - $4) / 1000; n++; if (d > m) m = d }
     END { if (n) printf "# pulses: %d rising edges, latency at most %d us\n", n, m }' "$SIM_CTL/edges"
sed -n '/suspended due to leap second/,$p' "$T/phc2sys.log" | head -n 12 | sed 's/^/# phc2sys: /'
grep -e 'announces' -e 'leap' "$T/gpsphcd.log" | sed 's/^/# gpsphcd: /'
grep -i -e 'leap' "$T/phc2sys.log" | head -n 5 | sed 's/^/# phc2sys: /'
exit $fail

# SPDX-License-Identifier: GPL-2.0
#
# ptp4l_gm.sh - sourced (bash) by the tests of a ptp4l grandmaster that
# gpsphcd keeps in step: the host's tools/testing/host/ptp4l_gm_test.sh
# (gm_drive instead of the kernel) and the VM's gm_chain_test.sh (the real
# module). A grandmaster ptp4l on one end of a veth pair and a slave-only
# ptp4l on the other, each in a network namespace of its own, software
# timestamping over IEEE 802.3 (no IP addresses at all), and pmc on both
# ends.
#
# Both ptp4l run free_running with kernel_leap 0: neither touches
# CLOCK_REALTIME, its leap state or the TAI offset (namespaces do not
# separate clocks).
#
# The test sets T (a private directory: sockets $T/gm, $T/cl, logs
# $T/gm.log, $T/cl.log), GM_CONF (the grandmaster's config file) and
# GM_ID, then calls gm_net_up, start_gm, start_cl; gm_net_down at the end.

NS_GM=gpsphc-gm-$$
NS_CL=gpsphc-cl-$$
GM_PID=
CL_PID=

# gm_net_reap: namespaces a killed run (SIGKILL: no trap) left behind, by
# dead pid.
gm_net_reap() {
	local ns

	for ns in $(ip netns list 2>/dev/null | awk '/^gpsphc-(gm|cl)-[0-9]+/ {print $1}'); do
		kill -0 "${ns##*-}" 2>/dev/null || ip netns del "$ns" 2>/dev/null
	done
}

# gm_net_up: the two namespaces, veth va (grandmaster) - vb (client).
gm_net_up() {
	ip netns add "$NS_GM" && ip netns add "$NS_CL" &&
	ip -n "$NS_GM" link add va type veth peer name vb netns "$NS_CL" &&
	ip -n "$NS_GM" link set lo up && ip -n "$NS_CL" link set lo up &&
	ip -n "$NS_GM" link set va up && ip -n "$NS_CL" link set vb up
}

# gm_stop PID...: TERM to these, then wait up to 5 s for them to end.
gm_stop() {
	local p i alive

	for p in "$@"; do
		kill "$p" 2>/dev/null
	done
	for i in $(seq 50); do
		alive=
		for p in "$@"; do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ -n "$alive" ] || return 0
		sleep 0.1
	done
}

gm_net_down() {
	ip netns del "$NS_GM" 2>/dev/null
	ip netns del "$NS_CL" 2>/dev/null
}

# start_gm: the grandmaster, from $GM_CONF, on va.
start_gm() {
	ip netns exec "$NS_GM" ptp4l -f "$GM_CONF" -i va -S -2 -m \
		--uds_address="$T/gm" --clockIdentity="$GM_ID" \
		--free_running=1 --kernel_leap=0 \
		--logAnnounceInterval=-1 --logSyncInterval=-1 \
		>>"$T/gm.log" 2>&1 &
	GM_PID=$!
}

# start_cl: the slave-only client on vb.
start_cl() {
	ip netns exec "$NS_CL" ptp4l -i vb -S -2 -s -m \
		--uds_address="$T/cl" --free_running=1 --kernel_leap=0 \
		--logAnnounceInterval=-1 --logSyncInterval=-1 \
		--announceReceiptTimeout=10 --summary_interval=-1 \
		>"$T/cl.log" 2>&1 &
	CL_PID=$!
}

# pmc_get SOCK TLV: pmc's answer, asked again on a busy machine (pmc
# itself waits only 100 ms for it).
pmc_get() {
	local i out

	for i in $(seq 20); do
		out=$(pmc -u -b 0 -s "$1" "GET $2" 2>/dev/null)
		if printf '%s\n' "$out" | grep -q "RESPONSE MANAGEMENT $2"; then
			printf '%s\n' "$out"
			return 0
		fi
		sleep 0.25
	done
	return 1
}

# fields KEY...: their values from pmc output on stdin, in that order.
fields() {
	awk -v keys="$*" 'BEGIN { n = split(keys, k, " ") }
		{ v[$1] = $2 }
		END { for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? " " : ""), (k[i] in v ? v[k[i]] : "-"); print "" }'
}

# The grandmaster's settings, as "class accuracy variance utc_offset
# leap61 leap59 utc_valid timescale time_tr freq_tr source".
gm_settings() {
	pmc_get "$T/gm" GRANDMASTER_SETTINGS_NP | fields clockClass clockAccuracy \
		offsetScaledLogVariance currentUtcOffset leap61 leap59 \
		currentUtcOffsetValid ptpTimescale timeTraceable frequencyTraceable \
		timeSource
}

# The grandmaster's own TIME_PROPERTIES_DATA_SET: what phc2sys -w reads
# (recipe a), as the last eight fields of gm_settings.
gm_tprops() {
	pmc_get "$T/gm" TIME_PROPERTIES_DATA_SET | fields currentUtcOffset \
		leap61 leap59 currentUtcOffsetValid ptpTimescale timeTraceable \
		frequencyTraceable timeSource
}

# Its port's state: phc2sys -w waits for MASTER (or SLAVE).
gm_port() {
	pmc_get "$T/gm" PORT_DATA_SET | fields portState
}

# The same as the client sees it, and the grandmaster it follows.
client_view() {
	local p t

	p=$(pmc_get "$T/cl" PARENT_DATA_SET | fields gm.ClockClass gm.ClockAccuracy \
		gm.OffsetScaledLogVariance)
	t=$(pmc_get "$T/cl" TIME_PROPERTIES_DATA_SET | fields currentUtcOffset \
		leap61 leap59 currentUtcOffsetValid ptpTimescale timeTraceable \
		frequencyTraceable timeSource)
	echo "$p $t"
}

client_gm() {
	pmc_get "$T/cl" PARENT_DATA_SET | fields grandmasterIdentity
}

# wait_for SECONDS WANT COMMAND...: until COMMAND prints WANT; the last
# output in $got, the seconds taken in $took.
wait_for() {
	local limit=$1 want=$2 start=$SECONDS

	shift 2
	while :; do
		got=$("$@")
		took=$((SECONDS - start))
		[ "$got" = "$want" ] && return 0
		[ $took -ge "$limit" ] && return 1
		sleep 0.5
	done
}

# client_offsets [FROM_LINE]: the client's "master offset" values in
# $T/cl.log from line FROM_LINE on, summarized on one line: |offset|
# less whole seconds (median, 90 %, max) and how many samples had how many
# whole seconds. Nothing if there are none.
client_offsets() {
	tail -n +"${1:-1}" "$T/cl.log" |
	awk '/master offset/ { for (i = 1; i < NF; i++) if ($i == "offset") print $(i + 1) }' |
	awk '{ r = $1 % 1000000000; if (r > 500000000) r -= 1000000000;
	       if (r < -500000000) r += 1000000000; print (r < 0 ? -r : r), int(($1 - r) / 1000000000) }' |
	sort -n | awk '
		{ s[++k] = $1; w[$2]++ }
		END { if (!k) exit
		      printf "%d samples, |offset| less whole seconds: median %d ns, 90%% %d ns, max %d ns; whole seconds:", k, s[int((k + 1) / 2)], s[int(k * 0.9 + 0.5)], s[k]
		      for (x in w) printf " %d s (%d)", x, w[x]; print "" }'
}

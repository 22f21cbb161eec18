#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The appliance checks, run by gpsphc-appliance-check.service once the
# image has booted (multi-user.target): one TAP line per check on the
# serial console, then power off. The first boot of a disk checks the
# service, the names, chrony, kill -9 and an unplug; the second (the same
# disk booted again) that all of it comes back by itself.
tty=ttyGPSSIM0
unit=gpsphcd@$tty.service
ctl=/sys/kernel/debug/gpsphc_sim
mark=/var/lib/gpsphc-test/booted
boot=1
[ -f $mark ] && boot=2
mkdir -p "${mark%/*}" && echo $boot >$mark && sync

n=0
fails=0
# check NAME COMMAND...: one TAP line; what COMMAND put in $why, if
# anything, goes on it when it fails.
check() {
	local name=$1
	shift
	why=
	n=$((n + 1))
	if "$@"; then
		echo "ok $n boot${boot}_$name"
	else
		echo "not ok $n boot${boot}_$name${why:+: $why}"
		fails=$((fails + 1))
	fi
}
diag() { echo "# $*"; }
# within SECONDS COMMAND...: COMMAND every half second until it succeeds.
within() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.5
	done
}
prop() { systemctl show -P "$1" "$unit"; }
active_ready() {
	[ "$(prop ActiveState)" = active ] && [ "$(prop SubState)" = running ] &&
		[ -n "$(prop StatusText)" ]
}
sysdev() { grep -lx "$tty" /sys/class/gpsphc/*/tty 2>/dev/null | xargs -r dirname; }
# names_right: both stable names resolve to the devices sysfs names.
names_right() {
	local d
	d=$(sysdev)
	[ -n "$d" ] &&
		[ "$(readlink -f /dev/gpsphc/$tty/ptp)" = "/dev/$(cat "$d/ptp_device")" ] &&
		[ "$(readlink -f /dev/gpsphc/$tty/pps)" = "/dev/$(cat "$d/pps_device")" ] &&
		[ -c /dev/gpsphc/$tty/ptp ] && [ -c /dev/gpsphc/$tty/pps ]
}
labels() { cat "$(sysdev)/statistics/labels" 2>/dev/null || echo 0; }
labels_above() { [ "$(labels)" -ge "$1" ]; }
selected() { chronyc -n sources 2>/dev/null | grep -q '^#\* GPS '; }
# small_offset: chronyd's last offset of the system clock within 2 ms
# (the servo under TCG: the simulated interrupt comes 1 us to 20 ms late).
last_offset() { chronyc tracking 2>/dev/null | sed -n 's/^Last offset *: *\([-+0-9.e]*\) seconds/\1/p'; }
small_offset() {
	local o
	o=$(last_offset)
	[ -n "$o" ] && awk -v o="$o" 'BEGIN { o += 0; exit !(o < 0.002 && o > -0.002) }'
}
dmesg_clean() { ! dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|UBSAN|KASAN'; }
show_all() {
	diag "$unit: $(prop ActiveState)/$(prop SubState), status \"$(prop StatusText)\", restarts $(prop NRestarts)"
	diag "$(ls -l /dev/gpsphc/$tty/ 2>&1 | tr '\n' ' ')"
	chronyc -n sources 2>&1 | sed 's/^/# /'
	chronyc tracking 2>&1 | grep -E 'Reference|System time|Last offset|RMS offset|Frequency' | sed 's/^/# /'
	journalctl -b -u $unit -o cat --no-pager -p notice 2>&1 | tail -n 4 | sed 's/^/# gpsphcd: /'
	diag "chrony.service: $(systemctl show -P ActiveState chrony.service)/$(systemctl show -P SubState chrony.service), pid $(systemctl show -P MainPID chrony.service)"
	journalctl -b -u chrony.service -o short-monotonic --no-pager 2>&1 | tail -n 6 | sed 's/^/# /'
}

echo "TAP version 13"
diag "boot $boot of the appliance, kernel $(uname -r), up $(cut -d' ' -f1 /proc/uptime) s"
# Debian 13's image has gpsphc.ko from DKMS (appliance.sh): the loaded
# module is the file DKMS installed, which modprobe finds for this
# kernel, and DKMS says so too.
dkms_module=/usr/local/lib/gpsphc-test/dkms-module
from_dkms() {
	local file srcv st
	file=$(sed -n 's/^file //p' $dkms_module)
	srcv=$(sed -n 's/^srcversion //p' $dkms_module)
	st=$(dkms status -m gpsphc -k "$(uname -r)" 2>&1)
	why="loaded srcversion $(cat /sys/module/gpsphc/srcversion 2>&1), modprobe's file $(modinfo -n gpsphc 2>&1); DKMS's $file, srcversion $srcv; dkms status: $st"
	[ -n "$srcv" ] && [ "$(cat /sys/module/gpsphc/srcversion 2>/dev/null)" = "$srcv" ] &&
		[ "$(modinfo -n gpsphc 2>/dev/null)" = "$file" ] &&
		[ "$(modinfo -F srcversion "$file" 2>/dev/null)" = "$srcv" ] &&
		[[ $st == *": installed"* ]]
}
[ ! -f $dkms_module ] || check module_is_the_one_dkms_built within 60 from_dkms
check gpsphcd_active_and_ready within 120 active_ready
check stable_names_point_at_the_devices within 30 names_right
check chronyd_selects_the_phc within 180 selected
check chronyd_offset_below_2ms within 60 small_offset
show_all
# The sandbox (ProtectSystem=strict, StateDirectory=) lets gpsphcd write
# its state directory and nothing else, from inside its mount namespace.
state_writable() {
	local pid
	pid=$(prop MainPID)
	[ "$pid" -gt 0 ] && nsenter -t "$pid" -m sh -c \
		'touch /var/lib/gpsphc/.probe && rm /var/lib/gpsphc/.probe && ! touch /var/.probe 2>/dev/null'
}
check state_directory_writable_in_the_service_sandbox state_writable

# The PHC's TAI second now.
phc_now() { phc_ctl /dev/gpsphc/$tty/ptp get 2>/dev/null | sed -n 's/.*clock time is \([0-9]*\)\..*/\1/p'; }

# gpsd on gpsphcd's pty (nmea_pty) and the clock's PPS source, checked
# with gpsd's own client: gpspipe -w for $1 seconds (-P: PPS reports
# come only to a client that asks for them, WATCH "pps"), each line with
# the system clock and, for a TPV, the PHC read as it came.
gpspipe_log=/run/gpsphc-test-gpspipe
gpspipe_run() {
	local line
	timeout "$1" gpspipe -w -P 2>/dev/null | while IFS= read -r line; do
		case $line in
		*'"class":"TPV"'*) printf '%s %s %s\n' "$EPOCHREALTIME" "$(phc_now)" "$line" ;;
		*) printf '%s - %s\n' "$EPOCHREALTIME" "$line" ;;
		esac
	done >$gpspipe_log
}
# tpv_right N: at least N TPV from the pty, each with the UTC second the PHC
# (less TAI-UTC) read when it came, up to a second later (the receiver
# sends each sentence 150 ms after its second starts), no TPV otherwise.
tpv_right() {
	local min=$1 tai_utc n=0 bad=0 phc t line
	tai_utc=$(cat "$(sysdev)/tai_utc")
	while read -r _ phc line; do
		case $line in *'"class":"TPV"'*'"time":"'*) ;; *) continue ;; esac
		t=$(date -u -d "$(echo "$line" | sed -n 's/.*"time":"\([^".]*\).*/\1/p')Z" +%s) || return 1
		n=$((n + 1))
		[ $((phc - tai_utc - t)) -ge 0 ] && [ $((phc - tai_utc - t)) -le 1 ] ||
			{ bad=$((bad + 1)); diag "TPV $t at PHC UTC $((phc - tai_utc)): $line"; }
	done <$gpspipe_log
	diag "gpspipe: $n TPV, $bad off by more than a second"
	[ $n -ge "$min" ] && [ $bad -eq 0 ] &&
		grep -q "\"class\":\"TPV\",\"device\":\"/run/gpsphc/$tty/nmea\"" $gpspipe_log
}
# pps_messages N: gpsd has the clock's PPS source under its /dev/ppsN name
# (gpsd 3.22 knows PPS sources by that name only), and reports its edges.
pps_messages() { [ "$(grep -c "\"class\":\"PPS\",\"device\":\"$(readlink -f /dev/gpsphc/$tty/pps)\"" $gpspipe_log)" -ge "$1" ]; }
gpsd_show() {
	diag "gpsd.service: $(systemctl show -P ActiveState gpsd.service)/$(systemctl show -P SubState gpsd.service), $(ps -o user=,group=,args= -C gpsd)"
	diag "$(ls -l /run/gpsphc/$tty/nmea "$(readlink -f /run/gpsphc/$tty/nmea)" 2>&1 | tr '\n' ' ')"
	grep -m1 '"class":"TPV"' $gpspipe_log | sed 's/^/# /'
	grep -m1 '"class":"PPS"' $gpspipe_log | sed 's/^/# /'
	journalctl -b -u gpsd.service -o cat --no-pager 2>&1 | tail -n 5 | sed 's/^/# gpsd: /'
	journalctl -b -u $unit -o cat --no-pager 2>&1 | grep -i -E 'pty|nmea|republish' | tail -n 3 | sed 's/^/# /'
}
check gpsd_active within 30 sh -c '[ "$(systemctl show -P ActiveState gpsd.service)" = active ]'
gpspipe_run 12
check gpsd_tpv_from_the_pty_with_the_phcs_utc tpv_right 8
check gpsd_pps_messages_from_the_clocks_pps pps_messages 8
check gpsd_left_the_receivers_tty_alone names_right
gpsd_show

# The state file (after gpsd's checks, which take the time it needs
# to be written): the image's ttyGPSSIM0.conf sets trust_s = 60, so it is
# written once the labels have agreed for a minute (15 min by default),
# and again every minute. last_good_tai is the label just sent when it
# was written: its mtime in TAI to the second, and a minute at most
# behind the PHC.
state_file=/var/lib/gpsphc/$tty.state
state_right() {
	local tai at phc
	tai=$(sed -n 's/^last_good_tai \([0-9]*\)$/\1/p' $state_file 2>/dev/null)
	at=$(stat -c %Y $state_file 2>/dev/null)
	phc=$(phc_now)
	[ "$(head -n1 $state_file 2>/dev/null)" = "gpsphcd-state 1" ] && [ -n "$tai" ] &&
		[ -n "$phc" ] && [ -n "$at" ] &&
		[ $((phc - tai)) -ge 0 ] && [ $((phc - tai)) -le 75 ] &&
		[ $((tai - $(cat "$(sysdev)/tai_utc") - at)) -ge -2 ] &&
		[ $((tai - $(cat "$(sysdev)/tai_utc") - at)) -le 2 ]
}
check state_file_written_with_the_phcs_time within 150 state_right
diag "$state_file: $(tr '\n' ' ' <$state_file 2>&1), written $(stat -c %y $state_file 2>&1); PHC TAI $(phc_now)"

# Prometheus (issue 28): Debian's prometheus-node-exporter serves the
# metrics file gpsphcd writes into its textfile directory, set up as the
# admin guide says (appliance.sh: metrics in ttyGPSSIM0.conf, and
# metrics_interval = 1). A scrape and a --status --json taken at once
# are compared: the scrape has the values of gpsphcd's dev-get just
# before it wrote the file (node_textfile_mtime_seconds, to the second
# below), the JSON those of a dev-get up to a few seconds later.
prom_file=/var/lib/prometheus/node-exporter/gpsphc-$tty.prom
prom_interval=1
scrape=/run/gpsphc-test-scrape
status_json=/run/gpsphc-test-status.json
# js FILTER: jq's FILTER on our device in the last --status --json.
js() { jq -r --arg t $tty ".devices[] | select(.tty == \$t) | $1" $status_json 2>/dev/null; }
servo_locked() {
	gpsphcd --status --json >$status_json 2>/dev/null
	why="servo $(js .servo.state)"
	[ "$(js .servo.state)" = locked ]
}
# prom NAME [LABEL="VALUE"]: the value of NAME's one series for our tty
# (and LABEL) in the scrape. node_exporter writes a series' labels
# sorted by name, and values as Go's %g (1.234567e+06): awk compares.
prom() {
	awk -v n="$1{" -v t="tty=\"$tty\"" -v l="${2-}" '
		index($0, n) == 1 && index($0, t) && (l == "" || index($0, l)) { v = $NF; c++ }
		END { if (c == 1) print v; exit c != 1 }' $scrape
}
# snapshot: a scrape (from t0 to t1), then --status --json (done at t2);
# the status has come within a second of the scrape's end.
snapshot() {
	t0=$EPOCHREALTIME
	curl -fsS --max-time 30 -o $scrape http://localhost:9100/metrics || { why="curl failed"; return 1; }
	t1=$EPOCHREALTIME
	gpsphcd --status --json >$status_json || { why="gpsphcd --status --json failed"; return 1; }
	t2=$EPOCHREALTIME
	mtime=$(awk -v f="gpsphc-$tty.prom\"" \
		'index($0, "node_textfile_mtime_seconds{") == 1 && index($0, f) { print $NF }' $scrape)
	why="scrape $t0..$t1, --status done at $t2"
	awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(b - a <= 1) }'
}
# The series of every value: names as metrics.c makes them, a counter
# for each counter key of the JSON (a key the module adds, too).
servo_gauges="state offset_ns rms_ns freq_ppb tai_utc leap leap_utc holdover_s coarse off_phase_count off_phase_ns"
series_exist() {
	local name k missing=
	for name in gpsphc_device_info gpsphc_servo_coarse gpsphc_servo_offset_seconds \
		gpsphc_servo_offset_rms_seconds gpsphc_servo_frequency_adjustment_ratio \
		gpsphc_servo_holdover_seconds gpsphc_tai_offset_seconds gpsphc_leap_second_pending \
		gpsphc_leap_second_timestamp_seconds gpsphc_off_phase_pulses \
		gpsphc_off_phase_offset_seconds gpsphc_pps_last_edge_timestamp_seconds \
		gpsphc_event_socket_overflows_total; do
		prom $name >/dev/null || missing="$missing $name"
	done
	for k in unlocked locking locked holdover off; do
		prom gpsphc_servo_state "state=\"$k\"" >/dev/null || missing="$missing gpsphc_servo_state{state=$k}"
	done
	for k in pps sentence; do
		prom gpsphc_events_lost_total "kind=\"$k\"" >/dev/null || missing="$missing gpsphc_events_lost_total{kind=$k}"
	done
	for k in $(js '.servo | keys[]' | grep -vxF -e "${servo_gauges// /$'\n'}"); do
		prom "gpsphc_servo_${k}_total" >/dev/null || missing="$missing gpsphc_servo_${k}_total"
	done
	for k in $(js '.stats | keys[]'); do
		prom "gpsphc_${k}_total" >/dev/null || missing="$missing gpsphc_${k}_total"
	done
	why="no series with tty=\"$tty\":$missing"
	[ -n "$(js .tty)" ] && [ -z "$missing" ]
}
info_names_the_devices() {
	why="scrape: $(grep "^gpsphc_device_info{" $scrape | tr '\n' ' ')vs --status ptp $(js .ptp), pps $(js .pps)"
	prom gpsphc_device_info "pps=\"$(js .pps)\",ptp=\"$(js .ptp)\"" >/dev/null
}
state_agrees() {
	local s v ones=
	for s in unlocked locking locked holdover off; do
		v=$(prom gpsphc_servo_state "state=\"$s\"")
		case $v in
		1) ones="$ones $s" ;;
		0) ;;
		*) ones="$ones $s=$v" ;;
		esac
	done
	why="gpsphc_servo_state 1 for:${ones:- none}; --status state $(js .servo.state)"
	[ "$ones" = " $(js .servo.state)" ]
}
tai_utc_equal() {
	local m j
	m=$(prom gpsphc_tai_offset_seconds)
	j=$(js .servo.tai_utc)
	why="gpsphc_tai_offset_seconds $m, --status tai_utc $j"
	[ -n "$j" ] && awk -v m="$m" -v j="$j" 'BEGIN { exit !(m != "" && m == j) }'
}
# counter_within KEY METRIC PER: the JSON's KEY is the scrape's METRIC
# or larger by what can happen in the window between the two dev-gets:
# from at most half a second before the file's mtime (the dev-get just
# before gpsphcd writes it; the mtime is whole seconds, below) to the end
# of --status, W seconds. The receiver pulses once a second (pulse_ppb 0,
# planned on CLOCK_MONOTONIC_RAW), so W holds at most int(W) + 1 pulses:
# PER edge, two DCD edges each (pps_edges); pulse, one event of the
# servo's each at most (a label accepted, an outlier or a relock are
# each taken on one on-time edge); holdover, one each 2.5 s without
# input at most (holdovers).
counter_within() {
	local key=$1 metric=$2 per=$3 m j bound rc
	m=$(prom "$metric")
	j=$(js "$key")
	bound=$(awk -v m="$m" -v j="$j" -v per="$per" -v mt="${mtime:-0}" -v t2="$t2" '
		BEGIN {
			w = t2 - mt + 0.5
			max = per == "edge" ? 2 * (int(w) + 1) : per == "pulse" ? int(w) + 1 : int(w / 2.5) + 1
			printf "0 to %s more allowed in %.1f s", max, w
			exit !(m != "" && j != "" && mt > 0 && j - m >= 0 && j - m <= max)
		}')
	rc=$?
	why="$metric $m, --status $key $j: $bound"
	return $rc
}
scrape_error_0() {
	local e log
	e=$(awk 'index($0, "node_textfile_scrape_error ") == 1 { print $2 }' $scrape)
	log=$(journalctl -b -u prometheus-node-exporter.service -o cat --no-pager | grep -i textfile | tail -n 1)
	why="node_textfile_scrape_error ${e:-absent}${log:+; node_exporter: $log}"
	[ "$e" = 0 ]
}
# The file's mtime (whole seconds) within metrics_interval of the scrape,
# and a second more each for the truncation and a late check of gpsphcd's.
mtime_recent() {
	why="node_textfile_mtime_seconds for gpsphc-$tty.prom ${mtime:-absent}, scrape $t0..$t1, metrics_interval $prom_interval"
	[ -n "$mtime" ] && awk -v m="$mtime" -v a="$t0" -v b="$t1" -v i=$prom_interval \
		'BEGIN { exit !(m >= a - i - 2 && m <= b) }'
}
# The file as gpsphcd left it: root's, 0644 (node_exporter runs as
# prometheus), written from inside the service's sandbox
# (ReadWritePaths=), never refused.
file_written() {
	why="$(ls -l $prom_file 2>&1); $(journalctl -b -u $unit -o cat --no-pager | grep 'metrics file' | tail -n 1)"
	[ "$(stat -c '%U %a' $prom_file 2>/dev/null)" = "root 644" ] &&
		! journalctl -b -u $unit -o cat --no-pager | grep -q 'cannot write the metrics file'
}
# prom_file_whole S: the file read again and again for S seconds, without
# a fork (read -d ''), while gpsphcd replaces it every second: each read
# is a whole text, from the first family's HELP to the last family's
# sample, every line complete and of the exposition format (each text
# checked once: the reads of the same text after it are compared with
# it), and at least S/2 texts were seen.
prom_file_whole() {
	local end=$((SECONDS + $1)) reads=0 torn=0 versions=0 text prev=$'\1' l bad first='' ok
	local -a lines
	local re_meta='^# (HELP|TYPE) gpsphc_[a-z_]+ [^'$'\n'']+'$'\n''$'
	local re_sample='^gpsphc_[a-z_]+\{tty="'$tty'"(,[a-z_]+="[^"]*")*\} -?[0-9]+(\.[0-9]+)?'$'\n''$'
	while [ $SECONDS -lt $end ]; do
		text=
		{ IFS= read -r -d '' text; } 2>/dev/null <$prom_file
		reads=$((reads + 1))
		[ "$text" = "$prev" ] && continue
		lines=()
		[[ $text == *$'\n' ]] && mapfile lines <<<"${text%$'\n'}"
		ok=${#lines[@]}
		[ "$ok" -gt 0 ] && [[ ${lines[0]} == "# HELP gpsphc_device_info "* ]] &&
			[[ ${lines[-1]} == gpsphc_event_socket_overflows_total\{* ]] || ok=0
		bad=
		for l in "${lines[@]}"; do
			[[ $l =~ $re_meta || $l =~ $re_sample ]] || { ok=0; bad=${l%$'\n'}; break; }
		done
		if [ "$ok" = 0 ]; then
			torn=$((torn + 1))
			[ -n "$first" ] || [ ${#lines[@]} -eq 0 ] ||
				first="read $reads: ${#lines[@]} lines from \"${lines[0]%$'\n'}\" to \"${lines[-1]%$'\n'}\"${bad:+, not a line of the format: \"$bad\"}"
			[ -n "$first" ] || first="read $reads: ${#text} bytes, not ending in a newline"
		else
			versions=$((versions + 1))
			prev=$text
		fi
	done
	why="$reads reads, $versions texts, $torn incomplete${first:+ ($first)}"
	diag "$prom_file: $why"
	[ $torn -eq 0 ] && [ $versions -ge $(($1 / 2)) ]
}
check node_exporter_active within 60 sh -c '[ "$(systemctl show -P ActiveState prometheus-node-exporter.service)" = active ]'
check servo_locked within 120 servo_locked
check metrics_file_written_by_the_service within 30 file_written
check scrape_and_status_within_a_second within 30 snapshot
# (the admin guide's scrape, with the same grep)
grep -E '^(gpsphc_(device_info|pps_edges|servo_labels|servo_offset|servo_state|tai)|node_textfile)' $scrape |
	sed 's/^/# scrape: /'
diag "--status --json: $(jq -c --arg t $tty '.devices[] | select(.tty == $t) | {ptp, pps, servo: .servo | {state, tai_utc, labels, outliers, relocks, holdovers}, pps_edges: .stats.pps_edges}' $status_json 2>&1)"
check scrape_has_the_gpsphc_series_of_the_tty series_exist
check scrape_device_info_names_the_ptp_and_pps info_names_the_devices
check scrape_servo_state_agrees_with_status state_agrees
check scrape_pps_edges_within_the_window counter_within .stats.pps_edges gpsphc_pps_edges_total edge
check scrape_labels_within_the_window counter_within .servo.labels gpsphc_servo_labels_total pulse
check scrape_outliers_within_the_window counter_within .servo.outliers gpsphc_servo_outliers_total pulse
check scrape_relocks_within_the_window counter_within .servo.relocks gpsphc_servo_relocks_total pulse
check scrape_holdovers_within_the_window counter_within .servo.holdovers gpsphc_servo_holdovers_total holdover
check scrape_tai_utc_equal tai_utc_equal
check scrape_textfile_no_scrape_error scrape_error_0
check scrape_textfile_mtime_recent mtime_recent
check metrics_file_replaced_whole prom_file_whole 6

# left PART: appliance.sh was told to leave PART of the first boot out
# (GPSPHC_APPLIANCE_LEAVE): another appliance checks it.
left() {
	case ",$(sed -n 's/.*gpsphc_appliance_leave=\([^ ]*\).*/\1/p' /proc/cmdline)," in
	*",$1,"*) diag "$1: left to the other appliance (GPSPHC_APPLIANCE_LEAVE)" ;;
	*) return 1 ;;
	esac
}

if [ $boot = 1 ] && ! left kill9; then
	# kill -9: systemd restarts gpsphcd with the tty from its fd store.
	d0=$(sysdev)
	ptp0=$(readlink -f /dev/gpsphc/$tty/ptp)
	pps0=$(readlink -f /dev/gpsphc/$tty/pps)
	pid0=$(prop MainPID)
	nmea0=$(readlink /run/gpsphc/$tty/nmea)
	cpid0=$(systemctl show -P MainPID chrony.service)
	kill -9 "$pid0"
	sleep 1
	diag "after kill -9 of $pid0: ${d0##*/} $(cat "$d0/servo_state" 2>/dev/null), $unit $(prop ActiveState)/$(prop SubState)"
	check kill9_clock_stays test -n "$d0" -a -d "$d0" -a -e "$ptp0"
	check kill9_gpsphcd_restarted_and_ready \
		within 60 sh -c "[ \"\$(systemctl show -P MainPID $unit)\" != $pid0 ] && [ \"\$(systemctl show -P ActiveState $unit)\" = active ]"
	l0=$(labels)
	check kill9_same_device_same_names \
		test "$(sysdev)" = "$d0" -a "$(readlink -f /dev/gpsphc/$tty/ptp)" = "$ptp0" -a "$(readlink -f /dev/gpsphc/$tty/pps)" = "$pps0"
	check kill9_took_over sh -c "journalctl -b -u $unit -o cat | grep -q 'took over ${d0##*/}'"
	check kill9_labels_resume within 30 labels_above $((l0 + 5))
	cpid1=$(systemctl show -P MainPID chrony.service)
	diag "chronyd pid $cpid0 before, $cpid1 after"
	check kill9_chronyd_not_restarted test "$cpid0" = "$cpid1"
	check kill9_chronyd_keeps_the_phc within 120 selected
	check kill9_chronyd_offset_below_2ms within 60 small_offset
	show_all
	# The pty stayed in the fd store with the tty, and the link with it
	# (RuntimeDirectoryPreserve=restart): gpsd, which holds the slave,
	# reads on.
	check kill9_same_pty_same_link sh -c "[ -n '$nmea0' ] && [ \"\$(readlink /run/gpsphc/$tty/nmea)\" = '$nmea0' ] && journalctl -b -u $unit -o cat | grep -q 'republished on $nmea0, /run/gpsphc/$tty/nmea'"
	gpsd_tpv_again() { gpspipe_run 10 && tpv_right 5 && pps_messages 5; }
	check kill9_gpsd_tpv_resume within 60 gpsd_tpv_again
	gpsd_show
fi
if [ $boot = 1 ]; then
	# systemctl restart: a restart job keeps the fd store (the unit is
	# not garbage-collected between its stop and its start, systemd
	# 252), so the clock stays and the new gpsphcd takes it over, as
	# the admin guide says. systemctl returns once the new one is ready.
	d0=$(sysdev)
	ptp0=$(readlink -f /dev/gpsphc/$tty/ptp)
	pid0=$(prop MainPID)
	took0=$(journalctl -b -u $unit -o cat | grep -c "took over ${d0##*/}")
	systemctl restart $unit
	diag "after systemctl restart: ${d0##*/} $(cat "$d0/servo_state" 2>/dev/null), $unit $(prop ActiveState)/$(prop SubState), pid $pid0 -> $(prop MainPID)"
	check restart_new_gpsphcd_ready sh -c "[ \"\$(systemctl show -P MainPID $unit)\" != $pid0 ] && [ \"\$(systemctl show -P ActiveState $unit)\" = active ]"
	check restart_same_device_same_names \
		test -n "$d0" -a "$(sysdev)" = "$d0" -a "$(readlink -f /dev/gpsphc/$tty/ptp)" = "$ptp0"
	check restart_took_over test "$(journalctl -b -u $unit -o cat | grep -c "took over ${d0##*/}")" -eq $((took0 + 1))
	l0=$(labels)
	check restart_labels_resume within 30 labels_above $((l0 + 3))

fi
# The receiver unplugged and plugged back in.
if [ $boot = 1 ] && ! left replug; then
	echo "0 0" >$ctl/port_present
	check unplug_stops_the_service within 30 sh -c "[ \"\$(systemctl show -P ActiveState $unit)\" != active ]"
	check unplug_removes_the_device_and_names within 10 \
		sh -c "[ -z \"\$(grep -lx $tty /sys/class/gpsphc/*/tty 2>/dev/null)\" ] && [ ! -e /dev/gpsphc/$tty/ptp ]"
	diag "unplugged: $unit $(prop ActiveState), chrony $(systemctl show -P ActiveState chrony.service)"
	# The metrics file goes with gpsphcd (gpsphcd(8)), so that a gone
	# receiver's series are not served as if it were there: also when the
	# tty's hang-up stops it before systemd's SIGTERM does.
	check unplug_removes_the_metrics_file within 10 sh -c "[ ! -e $prom_file ]"
	echo "0 1" >$ctl/port_present
	check replug_gpsphcd_active_and_ready within 60 active_ready
	check replug_names_point_at_the_new_devices within 30 names_right
	check replug_labels_flow within 30 labels_above 5
	check replug_chronyd_selects_the_phc within 180 selected
	check replug_chronyd_offset_below_2ms within 90 small_offset
	show_all
	# BindsTo= stopped gpsd with the old /dev/ppsN; the .wants link of
	# the new one started it again.
	check replug_gpsd_active within 60 sh -c '[ "$(systemctl show -P ActiveState gpsd.service)" = active ]'
	gpsd_pps_again() { gpspipe_run 10 && tpv_right 5 && pps_messages 5; }
	check replug_gpsd_tpv_and_pps_from_the_new_devices within 60 gpsd_pps_again
	gpsd_show
fi

check dmesg_no_warning_bug_oops dmesg_clean
echo "1..$n"
echo "GPSPHC-APPLIANCE-DONE boot $boot: $fails failed"

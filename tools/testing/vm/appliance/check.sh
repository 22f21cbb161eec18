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
check() {
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n boot${boot}_$name"
	else
		echo "not ok $n boot${boot}_$name"
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

if [ $boot = 1 ]; then
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

	# The receiver unplugged and plugged back in.
	echo "0 0" >$ctl/port_present
	check unplug_stops_the_service within 30 sh -c "[ \"\$(systemctl show -P ActiveState $unit)\" != active ]"
	check unplug_removes_the_device_and_names within 10 \
		sh -c "[ -z \"\$(grep -lx $tty /sys/class/gpsphc/*/tty 2>/dev/null)\" ] && [ ! -e /dev/gpsphc/$tty/ptp ]"
	diag "unplugged: $unit $(prop ActiveState), chrony $(systemctl show -P ActiveState chrony.service)"
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

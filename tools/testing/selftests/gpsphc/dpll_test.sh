#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gpsphc's DPLL device (kmod/dpll.c), read with the kernel's YNL client
# and the kernel's own dpll.yaml, as the admin guide's DPLL section does:
# device-get and pin-get, dumped and done, the clock-id naming the PTP
# clock and device-id-get finding the device from it; a monitor
# (--subscribe monitor) that sees the lock status go locked while a
# simulated receiver pulses and gpsphcd labels, holdover when the pulses
# stop, locked again when they come back, and the device and its pin
# deleted on detach. Then attach and detach in a loop with the servo
# toggled (notifications) while a monitor listens and a dumper reads the
# devices and pins, and the module removed and loaded again under the
# monitor: the debug kernel's checkers (KASAN, lockdep) see all of it.
# Skips where the kernel has no DPLL core (6.1).
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/receiver.sh"
sim_port 3
KSRC=/usr/src/linux
YNL=$KSRC/tools/net/ynl
PATH=$PATH:/usr/bin
spec=$KSRC/Documentation/netlink/specs/dpll.yaml
MODULE=/lib/gpsphc/gpsphc.ko
# Attach and detach cycles under the second monitor.
LOOPS=12

need dpll python3 gpsphcd
[ -f "$spec" ] || skip_test dpll "no $spec"
[ -x "$YNL/cli.py" ] || skip_test dpll "no $YNL/cli.py"

work=$(mktemp -d)
cleanup() {
	reap "${sim:-}" "${daemon:-}" "${hold:-}" "${mon:-}" "${dumper:-}"
	sim_off
	[ -e /sys/module/gpsphc ] || insmod "$MODULE"
	rm -rf "$work"
}
trap cleanup EXIT

# ynl ARGS...: the kernel's client on the DPLL family, JSON out.
ynl() { "$YNL/cli.py" --spec "$spec" --output-json "$@"; }

# monitor NAME: the client's `--subscribe monitor --sleep 600` in the
# background, its notifications (JSON) to $work/NAME once its sleep ends:
# when monitor_end NAME is called, sooner than 600 s. Returns once it is
# subscribed (its sleep began), which takes seconds on the emulated CPU.
monitor() {
	: >"$work/$1.on"
	python3 - "$YNL/cli.py" "$work/$1" --spec "$spec" --output-json \
		--subscribe monitor --sleep 600 >"$work/$1" 2>&1 <<'EOF' &
import os, runpy, sys, time
cli, name = sys.argv[1:3]
sleep = time.sleep
def sleep_until_ended(s):
    open(name + '.ready', 'w').close()
    end = time.monotonic() + s
    while os.path.exists(name + '.on') and time.monotonic() < end:
        sleep(0.1)
time.sleep = sleep_until_ended
sys.argv = [cli] + sys.argv[3:]
sys.path.insert(0, os.path.dirname(cli))
runpy.run_path(cli, run_name='__main__')
EOF
	mon=$!
	until_s 60 test -e "$work/$1.ready"
}

# monitor_end NAME: end its sleep; wait for its output.
monitor_end() {
	rm -f "$work/$1.on"
	wait "$mon"
	mon=
}

# jq FILE EXPR: EXPR (Python, `d` the JSON in FILE) printed as Python
# prints it.
jq() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$@" 2>/dev/null
}

# The DPLL family exists where the kernel has the core.
grep -q ' dpll_device_get$' /proc/kallsyms ||
	skip_test dpll "no DPLL core in this kernel (CONFIG_DPLL)"

dmesg_before=$(dmesg | grep -c -E 'WARNING:|BUG:|possible circular|KASAN')
tap_plan 20

# --- a receiver: locked, holdover, locked ------------------------------------
monitor monitor
pulses_on
gpsphcd --baud 9600 --state "$work/state" "$tty" >"$work/gpsphcd.log" 2>&1 &
daemon=$!
until_s 10 dev_attached
dev=$(gpsphc_dev)
receiver 600 &
sim=$!
ptp=$(cat "$dev/ptp_device" 2>/dev/null)
ptp_n=${ptp#ptp}
check "attached" test -n "$dev" -a -n "$ptp_n"

ynl --dump device-get >"$work/dump" 2>&1
sed 's/^/# /' "$work/dump"
id=$(jq "$work/dump" "[x['id'] for x in d if x['module-name'] == 'gpsphc' and x['clock-id'] == $ptp_n][0]")
check "dump_device_get_clock_id_is_ptp_index" test -n "$id"
ynl --do device-get --json "{\"id\": $id}" >"$work/get" 2>&1
check "do_device_get_pps_automatic" test "$(jq "$work/get" "(d['type'], d['mode'], d['module-name'])")" = "('pps', 'automatic', 'gpsphc')"
ynl --do device-id-get --json "{\"module-name\": \"gpsphc\", \"clock-id\": $ptp_n, \"type\": \"pps\"}" >"$work/idget" 2>&1
sed 's/^/# /' "$work/idget"
check "device_id_get_from_ptp_index" test "$(jq "$work/idget" "d['id']")" = "$id"

ynl --dump pin-get >"$work/pins" 2>&1
pin=$(jq "$work/pins" "[p['id'] for p in d if p.get('module-name') == 'gpsphc' and p.get('clock-id') == $ptp_n][0]")
check "dump_pin_get" test -n "$pin"
ynl --do pin-get --json "{\"id\": $pin}" >"$work/pin" 2>&1
sed 's/^/# /' "$work/pin"
check "pin_gnss_1pps" test "$(jq "$work/pin" "(d['type'], d['board-label'], d['frequency'], [(f['frequency-min'], f['frequency-max']) for f in d['frequency-supported']])")" = "('gnss', 'GNSS-1PPS', 1, [(1, 1)])"
check "pin_input_connected_to_device" test "$(jq "$work/pin" "[(p['parent-id'], p['direction'], p['state']) for p in d['parent-device']]")" = "[($id, 'input', 'connected')]"

until_s 60 grep -qx locked "$dev/servo_state"
check "servo_locked" grep -qx locked "$dev/servo_state"
ynl --do device-get --json "{\"id\": $id}" >"$work/get" 2>&1
check "lock_status_locked_ho_acq" test "$(jq "$work/get" "d['lock-status']")" = locked-ho-acq
# The phase offset is the servo's offset, ns * 10^6 (ps / 1000); locked,
# it is below the step threshold.
ynl --do pin-get --json "{\"id\": $pin}" >"$work/pin" 2>&1
po=$(jq "$work/pin" "d['parent-device'][0]['phase-offset']")
step=$(cat "$dev/step_ns")
echo "# phase-offset $po, servo offset_ns now $(cat "$dev/offset_ns"), step_ns $step"
check "phase_offset_in_units_of_fs" test -n "$po" -a "$((${po:-1} % 1000000))" -eq 0 -a \
	"$((${po:-0} / 1000000))" -le "$step" -a "$((${po:-0} / 1000000))" -ge "-$step"

# The pulses stop (the sentences with them), then come back: the
# generator restarts on a whole second of CLOCK_MONOTONIC_RAW, the phase
# the servo holds, so it resumes the lock without a label.
reap "$sim"
sim=
echo 0 >"$SIM_CTL/pulse_enable"
until_s 20 grep -qx holdover "$dev/servo_state"
check "servo_holdover" grep -qx holdover "$dev/servo_state"
ynl --do device-get --json "{\"id\": $id}" >"$work/get" 2>&1
check "lock_status_holdover" test "$(jq "$work/get" "d['lock-status']")" = holdover
echo 1 >"$SIM_CTL/pulse_enable"
until_s 30 grep -qx locked "$dev/servo_state"
check "servo_locked_again" grep -qx locked "$dev/servo_state"

# Detach: the device and its pin go, and the monitor hears it.
reap "$daemon"
daemon=
sim_off
ynl --dump device-get >"$work/dump" 2>&1
check "detach_removes_the_device" test "$(jq "$work/dump" "[x for x in d if x['module-name'] == 'gpsphc']")" = "[]"

monitor_end monitor
python3 - "$work/monitor" "$id" >"$work/seq" 2>&1 <<'EOF'
import json, sys
d, dev = json.load(open(sys.argv[1])), int(sys.argv[2])
seq = []
for n in d:
    m = n['msg']
    if n['name'].startswith('device-') and m.get('id') == dev:
        s = 'deleted' if n['name'] == 'device-delete-ntf' else m['lock-status']
        if not seq or seq[-1] != s:
            seq.append(s)
pins = [n['name'] for n in d if n['name'].startswith('pin-')]
print('lock status:', ' '.join(seq))
print('pin notifications:', len(pins), 'delete' if 'pin-delete-ntf' in pins else '')
EOF
sed 's/^/# /' "$work/seq"
# locked, holdover, locked again, deleted: in that order, anything between
locked='locked\(-ho-acq\)\?'
check "monitor_locked_holdover_locked" grep -q "^lock status:.* $locked .*holdover .*$locked .*deleted\$" "$work/seq"
check "monitor_pin_changes_and_delete" grep -q "^pin notifications: [1-9][0-9]* delete" "$work/seq"

# --- races under a listening monitor ----------------------------------------
monitor monitor2
: >"$work/dumping"
python3 - "$YNL" "$spec" "$work/dumping" >"$work/dumper" 2>&1 <<'EOF' &
import os, sys
sys.path.insert(0, sys.argv[1])
from lib import YnlFamily, NlError
ynl, n, errs = YnlFamily(sys.argv[2]), 0, 0
while os.path.exists(sys.argv[3]):
    for op in ('device-get', 'pin-get'):
        try:
            for x in ynl.dump(op, {}):
                if 'id' in x:
                    ynl.do(op, {'id': x['id']})
            n += 1
        except NlError as e:
            # a device or pin gone between the dump and the do
            errs += 1
print('dumps', n, 'gone meanwhile', errs)
EOF
dumper=$!
i=0
while [ $i -lt $LOOPS ]; do
	"$dir/attach_hold" "$tty" 2>>"$work/hold.err" &
	hold=$!
	until_s 10 dev_attached
	d=$(gpsphc_dev)
	for v in off on off on; do echo $v >"$d/servo" 2>/dev/null; done
	reap "$hold"
	hold=
	i=$((i + 1))
done
check "attach_detach_loop" test $i -eq $LOOPS -a -z "$(gpsphc_dev)"
# Removal and load with the monitor and the dumper on.
rmmod gpsphc && insmod "$MODULE"
r=$?
"$dir/attach_hold" "$tty" 2>>"$work/hold.err" &
hold=$!
until_s 10 dev_attached
ynl --dump device-get >"$work/dump" 2>&1
check "reload_and_attach_device_back" test $r -eq 0 -a "$(jq "$work/dump" "len([x for x in d if x['module-name'] == 'gpsphc'])")" = 1
reap "$hold"
hold=
rm -f "$work/dumping"
wait "$dumper"
dumper=
sed 's/^/# /' "$work/dumper"
monitor_end monitor2
creates=$(jq "$work/monitor2" "len([n for n in d if n['name'] == 'device-create-ntf'])")
echo "# monitor: $(jq "$work/monitor2" "len(d)") notifications, $creates device-create"
check "monitor_heard_the_loop" test "${creates:-0}" -gt $LOOPS
dmesg_after=$(dmesg | grep -c -E 'WARNING:|BUG:|possible circular|KASAN')
check "no_kernel_warnings" test "$dmesg_after" -eq "$dmesg_before"
[ "$fails" -eq 0 ] || { dmesg | tail -n 40 | sed 's/^/# /'; tail -n 20 "$work/gpsphcd.log" | sed 's/^/# /'; }
[ "$fails" -eq 0 ]

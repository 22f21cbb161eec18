#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# NMEA through a real USB serial driver (issue 26): QEMU's usb-serial is an
# FTDI adapter, which the guest's own ftdi_sio drives (build.sh and run.sh
# with GPSPHC_VM_USB_SERIAL=1); its data is crossed with the guest's ttyS1
# (a QEMU 16550), so what this test writes to ttyS1 arrives on ttyUSB0.
# QEMU holds the adapter's DCD high: no PPS edge ever comes, so the clock
# runs in coarse mode, and gpsphcd names the driver at attach and says
# once, 5 s after it, that no PPS came. CLOCAL keeps the tty up.
# ftdi_sio reports DCD's level in the first status it gets as a change
# (from its initial 0). A real FTDI sends its status every 16 ms, so that
# comes right at the open, before gpsphcd attaches; QEMU's sends it only
# with data, so the first sentence would bring it to the discipline as one
# "edge", which keeps the servo out of coarse mode for 10 minutes. The
# test therefore opens the tty and sends a line through it first.
# In the style of selftests/ptp/phc.sh.
dir=$(dirname "$0")
. "$dir/receiver.sh"
mods=/lib/modules/$(uname -r)/usb
tty=/dev/ttyUSB0
feed=/dev/ttyS1
BURSTS=12

[ -f "$mods/order" ] ||
	skip_test gpsphc_usb_serial "no USB modules in the guest (build.sh with GPSPHC_VM_USB_SERIAL=1)"
command -v gpsphcd >/dev/null || skip_test gpsphc_usb_serial "no gpsphcd"
for m in $(cat "$mods/order"); do
	insmod "$mods/$m.ko" 2>/dev/null
done
until_s 15 test -c "$tty" ||
	skip_test gpsphc_usb_serial "no $tty (run.sh with GPSPHC_VM_USB_SERIAL=1)"

work=$(mktemp -d)
cleanup() {
	reap "${daemon:-}"
	exec 8>&- 7<&-
	rm -rf "$work"
}
trap cleanup EXIT

stat_of() { cat "$dev/statistics/$1" 2>/dev/null || echo 0; }

tap_plan 9

drv=$(readlink /sys/class/tty/ttyUSB0/device/driver)
check "ftdi_sio_drives_ttyUSB0" test "${drv##*/}" = ftdi_sio

stty -F "$feed" raw -echo clocal 9600
exec 8>"$feed"
exec 7<>"$tty"
printf '\r\n' >&8
sleep 0.5
gpsphcd --baud 9600 --state "$work/state" "$tty" >"$work/out" 2>"$work/err" &
daemon=$!
until_s 10 dev_attached "$tty"
dev=$(gpsphc_dev "$tty")
[ -n "$dev" ] || dev=/nonexistent
check "gpsphcd_attaches_to_ttyUSB0" grep -q "attached as ${dev##*/}" "$work/err"
check "gpsphcd_names_the_driver" grep -qx \
	"gpsphcd: ttyUSB0: tty driver ftdi_sio, which delivers DCD changes (usb_serial_handle_dcd_change())" \
	"$work/err"

# A GGA and an RMC each second, as a receiver without a PPS wire sends them.
s0=$(stat_of csum_ok)
i=0
while [ $i -lt $BURSTS ]; do
	t=$(date -u +%H%M%S) d=$(date -u +%d%m%y)
	{
		nmea "GPGGA,$t.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"
		nmea "GPRMC,$t.00,A,4807.038,N,01131.000,E,0.0,0.0,$d,,,A"
	} >&8
	sleep 1
	i=$((i + 1))
done
sleep 1
n=$(($(stat_of csum_ok) - s0))
echo "# $n of $((2 * BURSTS)) sentences, checksum bad $(stat_of csum_bad), coarse $(cat "$dev/coarse" 2>/dev/null), servo $(cat "$dev/servo_state" 2>/dev/null), pps_edges $(stat_of pps_edges)"
check "every_sentence_through_ftdi_sio" test "$n" -eq $((2 * BURSTS)) -a "$(stat_of csum_bad)" -eq 0
check "no_pps_edge_dcd_held_high" test "$(stat_of pps_edges)" -eq 0
check "coarse_mode" test "$(cat "$dev/coarse" 2>/dev/null)" = 1
check "gpsphcd_says_no_pps_once" test "$(grep -cx \
	"gpsphcd: ttyUSB0: no PPS in 5 s, though its driver ftdi_sio delivers DCD changes: check that the receiver's PPS output is on and wired to DCD; coarse mode is running: the clock follows the NMEA sentences, good to milliseconds" \
	"$work/err")" -eq 1
check "clocal_set_tty_up" sh -c "stty -F $tty -a | grep -qw clocal && kill -0 $daemon"

kill "$daemon"
wait "$daemon"
rc=$?
daemon=
check "sigterm_detaches" test $rc -eq 0 -a ! -e "$dev"

[ "$fails" -eq 0 ] || sed 's/^/# err: /' "$work/err" | tail -n 30
exit $((fails > 0))

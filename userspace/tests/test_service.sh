#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The files that run gpsphcd as a service, checked on the host:
#  - gpsphcd@.service: systemd-analyze verify (its man pages found), its
#    service settings and its hardening exactly as below, and an instance
#    named by a /dev/serial/by-id path;
#  - 60-gpsphc.rules: udevadm test against a fake sysfs in a private mount
#    namespace (its own /sys, /dev, /run and rules directories, so nothing
#    on this machine changes): the stable names of a gpsphc device's PTP
#    clock and PPS source, with and without a /dev/serial/by-id name, and
#    none for a NIC's clock.
# Not tested here (the VM's systemd does that): that the service runs and
# its sandbox lets it attach, and udev acting on real uevents. TAP output.
#
# GPSPHCD: path of the gpsphcd binary (default ../build/gpsphcd).

ksft_skip=4
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
gpsphcd=${GPSPHCD:-$src/build/gpsphcd}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$here/tap.sh"

echo "TAP version 13"
echo "1..13"

# --- the unit ---------------------------------------------------------------
# The unit as 'make install' writes it, gpsphcd where it is built here (the
# verifier wants ExecStart's program to exist), its man pages on MANPATH.
unit=$tmp/units/gpsphcd@ttyS0.service
mkdir -p "$tmp/units" "$tmp/man/man5" "$tmp/man/man8"
sed "s|@SBINDIR@|$(dirname "$gpsphcd")|" "$src/systemd/gpsphcd@.service.in" >"$unit"
cp "$src/gpsphcd.8" "$tmp/man/man8/"
cp "$src/gpsphc.conf.5" "$tmp/man/man5/"

if ! command -v systemd-analyze >/dev/null; then
	for i in 1 2 3 4; do
		n=$((n + 1))
		echo "ok $n # SKIP no systemd-analyze (apt install systemd)"
	done
else
	MANPATH=$tmp/man systemd-analyze verify "$unit" >"$tmp/verify" 2>&1
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$tmp/verify" ] || sed 's/^/# /' "$tmp/verify"
	[ $rc -eq 0 ] && [ ! -s "$tmp/verify" ]
	ok $? "unit: systemd-analyze verify gpsphcd@ttyS0.service, silent"

	byid='gpsphcd@serial-by\x2did-usb\x2du\x2dblox_GNSS\x2dif00.service'
	cp "$unit" "$tmp/units/$byid"
	MANPATH=$tmp/man systemd-analyze verify "$tmp/units/$byid" >"$tmp/verify" 2>&1
	rc=$?
	[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/verify"
	ok $rc "unit: an instance named by a /dev/serial/by-id path verifies"

	cd "$tmp/units" &&
		MANPATH=$tmp/man SYSTEMD_LOG_LEVEL=err systemd-analyze security \
			--offline=yes --threshold=30 "$unit" >"$tmp/security" 2>&1
	rc=$?
	cd "$here" || exit 1
	tail -n 1 "$tmp/security" | sed 's/^/# /'
	ok $rc "unit: systemd-analyze security --offline: exposure at most 3.0 (--threshold=30: tenths)"

	MANPATH=$tmp/man systemd-analyze verify "$src/systemd/gpsphcd@.service.in" >/dev/null 2>&1
	[ $? -ne 0 ]
	ok $? "unit: the template itself is not installable as it is (its @SBINDIR@ is filled by make install)"
fi

# The service and hardening settings, exactly: a change here is a change
# of what the service may do, to be made on purpose.
cat >"$tmp/want" <<'EOF'
BindsTo=dev-%i.device
CapabilityBoundingSet=CAP_SYS_TIME CAP_NET_ADMIN
DeviceAllow=/dev/%I rw
DevicePolicy=closed
ExecStart=@SBINDIR@/gpsphcd --config /etc/gpsphc/%i.conf --state /var/lib/gpsphc/%i.state /dev/%I
ExecStartPre=+/sbin/modprobe gpsphc
FileDescriptorStoreMax=2
IPAddressDeny=any
LockPersonality=yes
MemoryDenyWriteExecute=yes
NoNewPrivileges=yes
PrivateMounts=yes
PrivateTmp=yes
ProcSubset=pid
ProtectControlGroups=yes
ProtectHome=yes
ProtectHostname=yes
ProtectKernelLogs=yes
ProtectKernelModules=yes
ProtectKernelTunables=yes
ProtectSystem=strict
ReadWritePaths=-/var/lib/prometheus/node-exporter
Restart=on-failure
RestartPreventExitStatus=2
RestrictAddressFamilies=AF_NETLINK AF_UNIX
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
RuntimeDirectory=gpsphc/%i
RuntimeDirectoryPreserve=restart
StateDirectory=gpsphc
SupplementaryGroups=dialout
SystemCallArchitectures=native
SystemCallFilter=@chown
SystemCallFilter=@system-service
SystemCallFilter=~@privileged @resources
Type=notify
UMask=0077
WantedBy=dev-%i.device
EOF
grep -v '^#\|^\[\|^$\|^Description=\|^Documentation=\|^After=\|^RestartSec=' \
	"$src/systemd/gpsphcd@.service.in" | LC_ALL=C sort >"$tmp/got"
diff "$tmp/want" "$tmp/got" | sed 's/^/# /'
cmp -s "$tmp/want" "$tmp/got"
ok $? "unit: service settings and hardening exactly as reviewed"

# Capabilities and nothing else: no User= that would need ambient ones,
# and none of the settings that would take CAP_SYS_TIME or the host's
# netlink family away.
! grep -q '^\(User\|DynamicUser\|AmbientCapabilities\|ProtectClock\|PrivateNetwork\|PrivateUsers\|PrivateDevices\)=' \
	"$src/systemd/gpsphcd@.service.in"
ok $? "unit: nothing that would take CAP_SYS_TIME, the tty or the netlink family away"

# --- the udev rules ---------------------------------------------------------
# fake_udev: in a private mount namespace, a sysfs with three clocks:
#   gpsphc0 on ttyUSB0 (ptp3, pps1), with a /dev/serial/by-id link;
#   gpsphc1 on ttyS0 (ptp4, pps2), without one;
#   ptp0, a NIC's clock (e1000e), not under any gpsphc device;
# then udevadm test of each, with only 60-gpsphc.rules, printing
# "<node> <DEVLINKS>" and the links it made in the private /dev; last a
# remove of ptp4, whose links go.
cat >"$tmp/fake.sh" <<'EOF'
set -e
rules=$1 out=$2
mount -t tmpfs none /sys
mkdir -p /sys/class/gpsphc /sys/class/ptp /sys/class/pps /sys/class/net
# dev NAME PARENT SUBSYSTEM MAJOR:MINOR: a class device with a node
dev() {
	mkdir -p "$2/$1"
	printf 'MAJOR=%s\nMINOR=%s\nDEVNAME=%s\n' "${4%:*}" "${4#*:}" "$1" >"$2/$1/uevent"
	echo "$4" >"$2/$1/dev"
	ln -s "/sys/class/$3" "$2/$1/subsystem"
}
for g in 0:ttyUSB0:3:1 1:ttyS0:4:2; do
	IFS=: read -r id tty ptp pps <<-X
	$g
	X
	d=/sys/devices/virtual/gpsphc/gpsphc$id
	mkdir -p "$d"
	: >"$d/uevent"
	ln -s /sys/class/gpsphc "$d/subsystem"
	echo "$tty" >"$d/tty"
	dev "ptp$ptp" "$d" ptp "248:$ptp"
	echo "gpsphc $tty" >"$d/ptp$ptp/clock_name"
	dev "pps$pps" "$d" pps "249:$pps"
done
dev ptp0 /sys/devices/pci0000:00/0000:00:1f.6/ptp ptp 248:0
echo "e1000e" >/sys/devices/pci0000:00/0000:00:1f.6/ptp/ptp0/clock_name

mount -t tmpfs none /run
mkdir -p /run/udev
for d in /etc/udev/rules.d /usr/lib/udev/rules.d; do mount -t tmpfs none "$d"; done
cp "$rules" /etc/udev/rules.d/
# A private /dev: udevadm test makes the links it would make.
mkdir -p /tmp/gpsphc-origdev.$$
mount --bind /dev /tmp/gpsphc-origdev.$$
mount -t tmpfs none /dev
for n in null zero urandom random; do
	touch "/dev/$n"
	mount --bind "/tmp/gpsphc-origdev.$$/$n" "/dev/$n"
done
mkdir -p /dev/serial/by-id
ln -s ../../ttyUSB0 /dev/serial/by-id/usb-u-blox_AG_u-blox_GNSS_receiver-if00

for p in gpsphc/gpsphc0/ptp3 gpsphc/gpsphc0/pps1 gpsphc/gpsphc1/ptp4 \
	 gpsphc/gpsphc1/pps2; do
	SYSTEMD_DEVICE_VERIFY_SYSFS=0 udevadm test --action=add \
		"/sys/devices/virtual/$p" 2>/dev/null |
		sed -n "s|^DEVLINKS=|${p##*/} |p" >>"$out"
done
SYSTEMD_DEVICE_VERIFY_SYSFS=0 udevadm test --action=add \
	/sys/devices/pci0000:00/0000:00:1f.6/ptp/ptp0 2>/dev/null |
	sed -n 's|^DEVLINKS=|ptp0 |p' >>"$out"
SYSTEMD_DEVICE_VERIFY_SYSFS=0 udevadm test --action=remove \
	/sys/devices/virtual/gpsphc/gpsphc1/ptp4 2>/dev/null |
	sed -n 's|^DEVLINKS=|remove ptp4 |p' >>"$out"
echo "--- /dev" >>"$out"
cd /dev && find gpsphc -type l | LC_ALL=C sort | while read -r l; do
	echo "$l -> $(readlink "$l")"
done >>"$out"
EOF

if [ "$(id -u)" -ne 0 ] || ! command -v udevadm >/dev/null ||
   ! unshare -m true 2>/dev/null; then
	for i in 1 2 3 4 5 6; do
		n=$((n + 1))
		echo "ok $n # SKIP udev rules: needs root, udevadm and unshare -m"
	done
else
	: >"$tmp/links"
	unshare -m sh "$tmp/fake.sh" "$src/udev/60-gpsphc.rules" "$tmp/links" \
		>"$tmp/fake.err" 2>&1 || sed 's/^/# /' "$tmp/fake.err"
	sed 's/^/# /' "$tmp/links"
	# links NODE: its DEVLINKS, sorted (udev keeps them in no order)
	links() {
		sed -n "s|^$1 ||p" "$tmp/links" | tr ' ' '\n' | LC_ALL=C sort |
			tr '\n' ' '
	}
	byid=/dev/gpsphc/by-id/usb-u-blox_AG_u-blox_GNSS_receiver-if00
	[ "$(links ptp3)" = "$byid/ptp /dev/gpsphc/ttyUSB0/ptp " ]
	ok $? "udev: a USB receiver's clock: by tty and by its serial by-id name"
	[ "$(links pps1)" = "$byid/pps /dev/gpsphc/ttyUSB0/pps " ]
	ok $? "udev: a USB receiver's PPS source: by tty and by its serial by-id name"
	[ "$(links ptp4)" = "/dev/gpsphc/ttyS0/ptp " ] &&
		[ "$(links pps2)" = "/dev/gpsphc/ttyS0/pps " ]
	ok $? "udev: a tty without a by-id name: by tty only"
	! grep -q '^ptp0 ' "$tmp/links"
	ok $? "udev: no name for a NIC's clock"
	sed -n '/^--- \/dev/,$p' "$tmp/links" | grep -v '^---' >"$tmp/made"
	cat >"$tmp/want" <<'EOF'
gpsphc/by-id/usb-u-blox_AG_u-blox_GNSS_receiver-if00/pps -> ../../../pps1
gpsphc/by-id/usb-u-blox_AG_u-blox_GNSS_receiver-if00/ptp -> ../../../ptp3
gpsphc/ttyS0/pps -> ../../pps2
gpsphc/ttyUSB0/pps -> ../../pps1
gpsphc/ttyUSB0/ptp -> ../../ptp3
EOF
	cmp -s "$tmp/want" "$tmp/made"
	ok $? "udev: the links point at the right nodes; ptp4's went with its remove"
	# The host's /dev is untouched.
	[ ! -e /dev/gpsphc/ttyUSB0 ] && [ ! -e /dev/gpsphc/by-id/usb-u-blox_AG_u-blox_GNSS_receiver-if00 ]
	ok $? "udev: nothing made in this machine's /dev"
fi

# The example configuration: every key uncommented is a valid file, and
# its values are the defaults (the capture replays as without it).
sed 's/^#\([a-z]\)/\1/' "$src/examples/gpsphc.conf" >"$tmp/all.conf"
"$gpsphcd" --config "$tmp/all.conf" --replay "$here/captures/ublox-leap-2016.log" \
	--not-before 2016-01-01 --leapfile "$here/data/leap-seconds.list" \
	2>"$tmp/err" | cmp -s - "$here/captures/ublox-leap-2016.expected"
ok $? "examples/gpsphc.conf: every key valid, every value the default"

echo "# $((n - fail)) passed, $fail failed"
[ $fail -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rootfs.sh DIR [SUITE [KVER]]: the appliance test's Debian root
# filesystem, made with debootstrap into DIR and brought up to date from
# SUITE-updates and SUITE-security (tzdata's leap-seconds.list among
# others), from the Debian mirrors this machine's apt sources name.
# SUITE is bookworm (Debian 12, the default) or trixie (Debian 13, issue
# 25), which also needs KVER, the Debian 13 kernel it is for. Nothing of
# gpsphc is in it: appliance.sh adds gpsphc and the test on a copy.
# appliance.sh caches DIR under the hash of this file (and KVER): change
# the recipe here and the next run rebuilds it.
#
# trixie's image has what a user's machine has for gpsphc-dkms to build
# there, installed with apt: dkms and linux-headers-KVER (gcc-14,
# linux-kbuild), and so linux-image-KVER-unsigned, which the headers
# depend on (the package whose vmlinuz and modules trixie.sh unpacked
# into kernel-KVER; appliance.sh checks that the two are the same
# kernel). Its initramfs-tools' initrd is deleted: appliance.sh boots an
# initramfs of its own.
set -eu

DIR=$1
SUITE=${2:-bookworm}
KVER=${3:-}
# The chroot has not this machine's TMPDIR (dkms fails without it).
unset TMPDIR
# gpsphcd's run-time libraries are here so that dpkg -i needs no network.
# gpsd reads the sentences gpsphcd republishes (nmea_pty, gpsphc.conf(5)).
# prometheus-node-exporter serves gpsphcd's metrics file (its textfile
# collector reads /var/lib/prometheus/node-exporter), which check.sh
# scrapes with curl and compares with gpsphcd --status --json through jq.
# No Recommends, here (debootstrap takes none) or in the upgrade: the
# exporter's, prometheus-node-exporter-collectors, has collectors of its
# own in Python. (Python itself is here, for gpsd depends on it; the
# checks do not use it.)
PKGS=systemd,systemd-sysv,udev,kmod,chrony,linuxptp,tzdata,libnl-3-200,libnl-genl-3-200,libsystemd0,procps,gpsd
PKGS=$PKGS,prometheus-node-exporter,curl,jq
# trixie: what apt installs after debootstrap (see above). libjson-c5:
# the one library of gpsphcd's that nothing above pulls in, so that apt
# installs the .deb with no package lists.
EXTRA=
case $SUITE in
bookworm) ;;
trixie)
	[ -n "$KVER" ] || { echo "rootfs.sh: trixie needs the kernel version" >&2; exit 1; }
	PKGS=$PKGS,libjson-c5
	EXTRA="dkms linux-image-$KVER-unsigned linux-headers-$KVER"
	;;
*) echo "rootfs.sh: no recipe for suite $SUITE" >&2; exit 1 ;;
esac

die() { echo "rootfs.sh: $*" >&2; exit 1; }
command -v debootstrap >/dev/null || die "debootstrap missing: run 'make deps'"

# The Debian mirrors of this machine's deb822 sources (or the default).
mirror=$(sed -n 's|^URIs: *\(.*/debian\)/*$|\1|p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1)
secmirror=$(sed -n 's|^URIs: *\(.*/debian-security\)/*$|\1|p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}
secmirror=${secmirror:-http://deb.debian.org/debian-security}

rm -rf "$DIR"
mkdir -p "$DIR"
debootstrap --variant=minbase --include="$PKGS" "$SUITE" "$DIR" "$mirror" >"$DIR.log" 2>&1 ||
	{ tail -n 20 "$DIR.log" >&2; die "debootstrap failed (log: $DIR.log)"; }

cat >"$DIR/etc/apt/sources.list" <<SRC
deb $mirror $SUITE main
deb $mirror $SUITE-updates main
deb $secmirror $SUITE-security main
SRC
# No daemon may start inside the chroot while packages are upgraded.
printf '#!/bin/sh\nexit 101\n' >"$DIR/usr/sbin/policy-rc.d"
chmod 0755 "$DIR/usr/sbin/policy-rc.d"
{
	chroot "$DIR" apt-get update -q &&
	DEBIAN_FRONTEND=noninteractive chroot "$DIR" apt-get dist-upgrade -y -q --no-install-recommends &&
	if [ -n "$EXTRA" ]; then
		# shellcheck disable=SC2086 # a list of packages
		DEBIAN_FRONTEND=noninteractive chroot "$DIR" apt-get install -y -q --no-install-recommends $EXTRA &&
		rm -f "$DIR/boot/initrd.img-$KVER"
	fi &&
	chroot "$DIR" apt-get clean &&
	# gpsd's own client, gpspipe, without the rest of gpsd-clients
	# (which depends on matplotlib and GTK, some 300 MB; trixie's
	# gpsd-tools has cgps and gpsmon, not gpspipe): unpacked from its
	# package into /usr/local/bin, next to gpsd's libgps.
	chroot "$DIR" sh -c 'cd /tmp && apt-get download -q gpsd-clients &&
		mkdir x && dpkg-deb -x gpsd-clients_*.deb x &&
		install -m 0755 x/usr/bin/gpspipe /usr/local/bin/ &&
		rm -rf x gpsd-clients_*.deb && /usr/local/bin/gpspipe -V'
} >>"$DIR.log" 2>&1 || { tail -n 20 "$DIR.log" >&2; die "upgrading the root filesystem failed (log: $DIR.log)"; }
rm -f "$DIR/usr/sbin/policy-rc.d"
[ -d "$DIR/var/lib/prometheus/node-exporter" ] ||
	die "no /var/lib/prometheus/node-exporter: prometheus-node-exporter is not installed (log: $DIR.log)"
if [ "$SUITE" = trixie ]; then
	[ -e "$DIR/usr/lib/modules/$KVER/build/Makefile" ] ||
		die "no headers for $KVER in the image (log: $DIR.log)"
	chroot "$DIR" env PATH=/usr/sbin:/usr/bin sh -c 'command -v dkms' >/dev/null ||
		die "no dkms in the image (log: $DIR.log)"
fi
rm -rf "$DIR"/var/lib/apt/lists/* "$DIR"/var/cache/apt/*.bin

# A system that boots from /dev/vda with a console on ttyS0.
echo gpsphc-appliance >"$DIR/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 gpsphc-appliance\n' >"$DIR/etc/hosts"
printf '/dev/vda / ext4 defaults,errors=remount-ro 0 1\n' >"$DIR/etc/fstab"
# root logs in on the console without a password (a test image only).
chroot "$DIR" passwd -d root >/dev/null
: >"$DIR/etc/machine-id"
dpkg-query --admindir="$DIR/var/lib/dpkg" -W -f='${Package} ${Version}\n' >"$DIR/../$(basename "$DIR").packages"

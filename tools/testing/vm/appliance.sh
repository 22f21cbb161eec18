#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# appliance.sh KVER [TIMEOUT]: the appliance test (issue 9). Boots a real
# Debian 12 system with systemd as init under QEMU (TCG) on Debian's kernel
# KVER, with gpsphcd from 'make deb', the module built by build.sh, the
# test-only fake UART and its simulated receiver started at boot, and
# chrony on gpsphc's clock with the drop-ins gpsphcd ships as examples,
# and gpsd on the sentences gpsphcd republishes (nmea_pty) and its PPS,
# and Debian's prometheus-node-exporter serving gpsphcd's metrics file.
# The image's check unit (appliance/check.sh) prints TAP on the console;
# the same disk is booted twice (the second boot checks that all of it
# comes back by itself). TAP on stdout, for run_checks.sh.
#
#   $GPSPHC_CACHE/appliance/rootfs-HASH   debootstrap + bookworm-updates and
#                                         -security, made once per recipe
#                                         (HASH of appliance/rootfs.sh)
#   $GPSPHC_VM_BUILD/KVER/appliance/      disk.img (ext4, mkfs.ext4 -d, no
#                                         loop mount), initrd, console logs;
#                                         rebuilt when an input changes
#
# Each run boots a fresh copy of disk.img. By hand (a root login on the
# console, no password; Ctrl-A X quits):
#   GPSPHC_APPLIANCE_BOOT=shell sh tools/testing/vm/appliance.sh KVER
#
# gpsphc.ko goes into /lib/modules/KVER/updates as build.sh built it,
# rather than through gpsphc-dkms: DKMS would need gcc and the kernel's
# headers in the image and minutes of TCG at first boot, and the
# packaging test already runs dkms against both kernels' headers. The
# gpsphc-dkms package's modules-load.d file is installed from its .deb.
set -eu

KVER=$1
TIMEOUT=${2:-600}
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=$TOP/tools/testing/vm/appliance
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
VMBUILD=${GPSPHC_VM_BUILD:-$TOP/tools/testing/vm/build}
KROOT=$CACHE/kernel-$KVER
OUT=$VMBUILD/$KVER/appliance
MODE=${GPSPHC_APPLIANCE_BOOT:-check}

die() { echo "not ok appliance: $*"; exit 1; }
[ -s "$KROOT/boot/vmlinuz-$KVER" ] || die "no kernel $KROOT/boot/vmlinuz-$KVER: run 'make deps'"
mkdir -p "$CACHE/appliance" "$OUT"

# 1. The Debian root filesystem, once per recipe (two runs: one builds).
hash=$(sha256sum "$HERE/rootfs.sh" | cut -c1-12)
ROOTFS=$CACHE/appliance/rootfs-$hash
(
	flock 8
	[ -f "$ROOTFS.done" ] && exit 0
	t0=$(date +%s)
	nice -n 10 sh "$HERE/rootfs.sh" "$ROOTFS" >&2 || exit 1
	touch "$ROOTFS.done"
	echo "# appliance: made the Debian root filesystem in $(($(date +%s) - t0)) s" >&2
	for old in "$CACHE"/appliance/rootfs-*.done; do
		[ "$old" = "$ROOTFS.done" ] || rm -rf "${old%.done}" "$old" "${old%.done}.log" "${old%.done}.packages"
	done
) 8>"$CACHE/appliance/.lock" || die "debootstrap of the root filesystem failed (log: $ROOTFS.log)"

# 2. The module for KVER (build.sh), and the packages (make deb).
MODS=$VMBUILD/$KVER
if [ ! -f "$MODS/gpsphc/gpsphc.ko" ] || [ ! -f "$MODS/gpsphc_sim/gpsphc_sim.ko" ]; then
	nice -n 10 sh "$TOP/tools/testing/vm/build.sh" "$KVER" >"$OUT/build.log" 2>&1 ||
		die "build.sh $KVER failed (log: $OUT/build.log)"
fi
DEBS=$VMBUILD/appliance-debs
(
	flock 8
	if [ -f "$DEBS/.stamp" ] && [ -z "$(find "$TOP/userspace" "$TOP/kmod" "$TOP/tools/packaging" \
			"$TOP/dkms.conf" "$TOP/Makefile" -type f -newer "$DEBS/.stamp" \
			-not -path '*/build/*' | head -n1)" ]; then
		exit 0
	fi
	rm -rf "$DEBS"
	GPSPHC_DEB_BUILD=$DEBS nice -n 10 sh "$TOP/tools/packaging/mkdeb.sh" >"$VMBUILD/appliance-debs.log" 2>&1 || exit 1
	touch "$DEBS/.stamp"
) 8>"$VMBUILD/.appliance-debs.lock" || die "make deb failed (log: $VMBUILD/appliance-debs.log)"

# 3. The disk: the root filesystem, KVER's modules, gpsphc, the test.
key=$( { echo "$hash"; sha256sum "$DEBS"/*.deb "$MODS"/gpsphc/gpsphc.ko \
	"$MODS"/gpsphc_sim/gpsphc_sim.ko "$HERE"/* "$0" | cut -d' ' -f1; } | sha256sum | cut -c1-16)
if [ "$(cat "$OUT/disk.key" 2>/dev/null)" != "$key" ]; then
	t0=$(date +%s)
	R=$OUT/root
	rm -rf "$R" "$OUT/disk.key"
	cp -a "$ROOTFS" "$R"
	# Modules of a QEMU guest with no network or sound.
	mkdir -p "$R/lib/modules/$KVER"
	rsync -a --exclude=build --exclude=source --exclude=drivers/gpu --exclude=drivers/media \
		--exclude=drivers/net/wireless --exclude=drivers/infiniband --exclude=drivers/staging \
		--exclude=sound --exclude=net/wireless --exclude=net/mac80211 --exclude=drivers/bluetooth \
		"$KROOT/lib/modules/$KVER/" "$R/lib/modules/$KVER/"
	install -D -m 0644 "$MODS/gpsphc/gpsphc.ko" "$MODS/gpsphc_sim/gpsphc_sim.ko" \
		-t "$R/lib/modules/$KVER/updates/"
	depmod -b "$R" "$KVER"
	# gpsphcd, as dpkg installs it; gpsphc-dkms's modules-load.d file.
	cp "$DEBS"/gpsphcd_*.deb "$R/tmp/"
	chroot "$R" sh -c 'dpkg -i /tmp/gpsphcd_*.deb && rm /tmp/gpsphcd_*.deb' >"$OUT/dpkg.log" 2>&1 ||
		die "dpkg -i gpsphcd failed in the image (log: $OUT/dpkg.log)"
	x=$(mktemp -d)
	dpkg-deb -x "$DEBS"/gpsphc-dkms_*.deb "$x"
	find "$x" -path '*/modules-load.d/*' -type f | while read -r f; do
		install -D -m 0644 "$f" "$R${f#"$x"}"
	done
	rm -rf "$x"
	ex=$R/usr/share/doc/gpsphcd/examples
	[ -f "$ex/chrony-gpsphc.conf" ] || die "gpsphcd's package has no chrony-gpsphc.conf example"
	# chrony on the simulated receiver's clock, as the examples say.
	sed 's/ttyS0/ttyGPSSIM0/g' "$ex/chrony-gpsphc.conf" >"$R/etc/chrony/conf.d/gpsphc.conf"
	mkdir -p "$R/etc/systemd/system/chrony.service.d"
	sed 's/ttyS0/ttyGPSSIM0/g' "$ex/chrony-gpsphc.service.conf" \
		>"$R/etc/systemd/system/chrony.service.d/gpsphc.conf"
	# gpsd on gpsphcd's pty and PPS source, as the examples say; the
	# state file after 60 s of consistent labels (trust_s), not 15 min.
	for f in gpsd-gpsphc.default gpsd-gpsphc.service.conf; do
		[ -f "$ex/$f" ] || die "gpsphcd's package has no $f example"
	done
	mkdir -p "$R/etc/gpsphc" "$R/etc/systemd/system/gpsd.service.d"
	printf 'nmea_pty = /run/gpsphc/ttyGPSSIM0/nmea\ntrust_s = 60\n' >"$R/etc/gpsphc/ttyGPSSIM0.conf"
	sed 's/ttyS0/ttyGPSSIM0/g' "$ex/gpsd-gpsphc.default" >"$R/etc/default/gpsd"
	sed 's/ttyS0/ttyGPSSIM0/g' "$ex/gpsd-gpsphc.service.conf" \
		>"$R/etc/systemd/system/gpsd.service.d/gpsphc.conf"
	systemctl --root="$R" -q enable gpsd.service
	mkdir -p "$R/etc/systemd/system/dev-gpsphc-ttyGPSSIM0-pps.device.wants"
	ln -sf /lib/systemd/system/gpsd.service "$R/etc/systemd/system/dev-gpsphc-ttyGPSSIM0-pps.device.wants/"
	# gpsphcd's metrics in the textfile directory of Debian's
	# prometheus-node-exporter, as the admin guide's Prometheus section
	# says; written every second (default 15), so that check.sh compares
	# a scrape with a --status --json a second or two younger, and sees
	# the file replaced several times while it reads it.
	[ -d "$R/var/lib/prometheus/node-exporter" ] || die "the image has no prometheus-node-exporter"
	printf 'metrics = /var/lib/prometheus/node-exporter/gpsphc-ttyGPSSIM0.prom\nmetrics_interval = 1\n' \
		>>"$R/etc/gpsphc/ttyGPSSIM0.conf"
	# The test: fake UART at boot, its receiver, the checks.
	echo gpsphc_sim >"$R/etc/modules-load.d/gpsphc-sim.conf"
	install -D -m 0755 "$HERE/receiver.sh" "$HERE/check.sh" -t "$R/usr/local/lib/gpsphc-test/"
	install -m 0644 "$HERE"/*.service "$R/etc/systemd/system/"
	systemctl --root="$R" -q enable gpsphcd@ttyGPSSIM0.service gpsphc-sim-receiver.service \
		gpsphc-appliance-check.service chrony.service
	# (systemctl add-wants refuses a device unit that does not exist yet)
	mkdir -p "$R/etc/systemd/system/dev-gpsphc-ttyGPSSIM0-ptp.device.wants"
	ln -sf /lib/systemd/system/chrony.service "$R/etc/systemd/system/dev-gpsphc-ttyGPSSIM0-ptp.device.wants/"
	# The journal of the previous boot is read by the next.
	mkdir -p "$R/var/log/journal"
	mkfs.ext4 -q -F -L gpsphc-root -d "$R" "$OUT/disk.img.tmp" 1200M >/dev/null ||
		die "mkfs.ext4 -d failed"
	mv "$OUT/disk.img.tmp" "$OUT/disk.img"

	# A busybox initramfs that loads what Debian builds as modules
	# (virtio_blk, ext4) and hands over to systemd on /dev/vda.
	I=$OUT/initrd
	rm -rf "$I"
	mkdir -p "$I/bin" "$I/mod" "$I/proc" "$I/sys" "$I/dev" "$I/newroot"
	cp /bin/busybox "$I/bin/"
	modprobe -d "$R" -S "$KVER" --show-depends -a virtio_pci virtio_blk ext4 2>/dev/null |
		sed -n 's/^insmod \([^ ]*\).*/\1/p' | awk '!seen[$0]++' >"$OUT/initrd.modules"
	while read -r m; do
		b=$(basename "$m")
		case $b in
		*.xz) xz -dc "$m" >"$I/mod/${b%.xz}"; b=${b%.xz} ;;
		*.zst) zstd -qdc "$m" >"$I/mod/${b%.zst}"; b=${b%.zst} ;;
		*) cp "$m" "$I/mod/" ;;
		esac
		echo "$b" >>"$I/mod/list"
	done <"$OUT/initrd.modules"
	cat >"$I/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
for m in $(cat /mod/list); do insmod "/mod/$m"; done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
mount -t ext4 -o ro /dev/vda /newroot || { echo "initrd: cannot mount /dev/vda"; poweroff -f; }
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/init
INIT
	chmod 0755 "$I/init"
	(cd "$I" && find . | cpio -o -H newc --quiet | gzip -1) >"$OUT/initrd.cpio.gz"
	rm -rf "$R" "$I"
	echo "$key" >"$OUT/disk.key"
	echo "# appliance $KVER: made the disk image in $(($(date +%s) - t0)) s"
fi

# 4. Boot a fresh copy of the disk twice.
cp --sparse=always "$OUT/disk.img" "$OUT/run.img"
append="console=ttyS0 root=/dev/vda slub_debug=FZPU loglevel=${GPSPHC_APPLIANCE_LOGLEVEL:-3} panic=-1 oops=panic"
if [ "$MODE" = shell ]; then
	exec flock "${TMPDIR:-/tmp}/gpsphc-vm.lock" \
		qemu-system-x86_64 -accel tcg,thread=single -cpu max -smp 2 -m 1024 \
		-nographic -nodefaults -serial mon:stdio -no-reboot \
		-kernel "$KROOT/boot/vmlinuz-$KVER" -initrd "$OUT/initrd.cpio.gz" \
		-drive file="$OUT/run.img",format=raw,if=virtio -append "$append"
fi
append="$append gpsphc_appliance=check systemd.mask=serial-getty@ttyS0.service systemd.show_status=${GPSPHC_APPLIANCE_STATUS:-error}"
rc=0
for b in 1 2; do
	log=$OUT/console-$b.log
	t0=$(date +%s)
	# One guest at a time on this machine (as run.sh).
	(
		flock 9
		echo "# appliance $KVER boot $b: started after $(($(date +%s) - t0)) s waiting for the VM lock"
		timeout -k 5 "$TIMEOUT" ${GPSPHC_VM_CPUS:+taskset -c "$GPSPHC_VM_CPUS"} \
			qemu-system-x86_64 -accel tcg,thread=single -cpu max -smp 2 -m 1024 \
			-nographic -no-reboot -nodefaults -serial file:"$log.raw" \
			-kernel "$KROOT/boot/vmlinuz-$KVER" -initrd "$OUT/initrd.cpio.gz" \
			-drive file="$OUT/run.img",format=raw,if=virtio -append "$append" \
			</dev/null >/dev/null
	) 9>"${TMPDIR:-/tmp}/gpsphc-vm.lock"
	tr -d '\r' <"$log.raw" >"$log" && rm -f "$log.raw"
	grep -E '^(ok|not ok) [0-9]+ boot|^# ' "$log" || true
	echo "# appliance $KVER boot $b: $(($(date +%s) - t0)) s; console log: $log"
	if ! grep -q '^GPSPHC-APPLIANCE-DONE' "$log"; then
		echo "not ok appliance_boot$b: the checks did not finish within ${TIMEOUT}s (console log: $log)"
		grep -n -A25 -E 'Oops|BUG:|general protection|Kernel panic|WARNING:|stall|emergency' "$log" |
			head -n 60 | sed 's/^/# console: /'
		tail -n 20 "$log" | sed 's/^/# console: /'
		rc=1
		break
	fi
done
exit $rc

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# appliance.sh KVER [TIMEOUT]: the appliance test (issue 9). Boots a real
# Debian system with systemd as init under QEMU (TCG) on Debian's kernel
# KVER, with gpsphcd from 'make deb', the module (below), the
# test-only fake UART and its simulated receiver started at boot, and
# chrony on gpsphc's clock with the drop-ins gpsphcd ships as examples,
# and gpsd on the sentences gpsphcd republishes (nmea_pty) and its PPS,
# and Debian's prometheus-node-exporter serving gpsphcd's metrics file.
# The image's check unit (appliance/check.sh) prints TAP on the console;
# the same disk is booted twice (the second boot checks that all of it
# comes back by itself; GPSPHC_APPLIANCE_BOOTS=1 boots it once, for make
# check's time budget, and GPSPHC_APPLIANCE_LEAVE="kill9 replug" leaves
# gpsphcd's kill -9 and the receiver's unplug and replug out of the first
# boot, as make check's Debian 12 appliance does: Debian 13's checks
# them). TAP on stdout, for run_checks.sh.
#
# The Debian release comes from KVER: a Debian 13 kernel (its name has
# +deb13-, trixie.sh) boots Debian 13 (trixie: systemd 257, chrony 4.6,
# gpsd 3.25; issue 25), any other Debian 12 (bookworm).
#
#   $GPSPHC_CACHE/appliance/rootfs-bookworm-HASH
#   $GPSPHC_CACHE/appliance/rootfs-trixie-KVER-HASH
#                                         debootstrap + SUITE-updates and
#                                         -security, made once per recipe
#                                         (HASH of appliance/rootfs.sh) and,
#                                         for trixie, kernel
#   $GPSPHC_VM_BUILD/KVER/appliance/      disk.img (ext4, mkfs.ext4 -d, no
#                                         loop mount), initrd, console logs;
#                                         rebuilt when an input changes
#
# Each run boots a fresh copy of disk.img. By hand (a root login on the
# console, no password; Ctrl-A X quits):
#   GPSPHC_APPLIANCE_BOOT=shell sh tools/testing/vm/appliance.sh KVER
# GPSPHC_APPLIANCE_BOOT=rootfs only makes the root filesystem (if not
# cached) and boots nothing: make check's untimed lane makes them on a
# new machine while the timed lane's guests run. GPSPHC_APPLIANCE_BOOT=image
# makes the disk image too (the packages, DKMS's build in it) and boots
# nothing: make check's host lane makes it while the guests run, and the
# boot that follows finds it made (a lock keeps the two apart).
#
# Debian 12: gpsphc.ko goes into /lib/modules/KVER/updates as build.sh
# built it, rather than through gpsphc-dkms: DKMS would need gcc and the
# kernel's headers in the image, and the packaging test already runs
# dkms against both kernels' headers. The gpsphc-dkms package's
# modules-load.d file is installed from its .deb.
#
# Debian 13: installed the way a user does. The image has dkms and
# linux-headers-KVER (rootfs.sh); apt installs gpsphc-dkms and gpsphcd
# from their .debs in a chroot of the image's copy, and DKMS's own
# postinst builds gpsphc.ko for KVER there: the image's DKMS with the
# image's gcc 14, run while the image is made (on this machine's CPU,
# not under TCG at first boot). The test asserts that DKMS installed it
# and check.sh that the booted system runs that very file. Only the
# test-only gpsphc_sim.ko comes from build.sh (built in the trixie
# chroot).
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
BOOTS=${GPSPHC_APPLIANCE_BOOTS:-2}
case $KVER in
*+deb13-*) SUITE=trixie ;;
*) SUITE=bookworm ;;
esac

die() { echo "not ok appliance: $*"; exit 1; }
case $MODE in
check|shell|rootfs|image) ;;
*) die "GPSPHC_APPLIANCE_BOOT=$MODE: check (the default), shell, rootfs or image" ;;
esac
case $BOOTS in
1|2) ;;
*) die "GPSPHC_APPLIANCE_BOOTS=$BOOTS: 1 (the first boot) or 2 (and the reboot)" ;;
esac
[ -s "$KROOT/boot/vmlinuz-$KVER" ] || die "no kernel $KROOT/boot/vmlinuz-$KVER: run 'make deps'"
mkdir -p "$CACHE/appliance"

# 1. The Debian root filesystem, once per recipe and suite (and for
# trixie per kernel, whose headers and image it has; two runs: one
# builds). A recipe's older root filesystems go, and a trixie one whose
# kernel is no longer in the cache.
hash=$(sha256sum "$HERE/rootfs.sh" | cut -c1-12)
if [ $SUITE = trixie ]; then
	ROOTFS=$CACHE/appliance/rootfs-trixie-$KVER-$hash
else
	ROOTFS=$CACHE/appliance/rootfs-bookworm-$hash
fi
(
	flock 8
	[ -f "$ROOTFS.done" ] && exit 0
	t0=$(date +%s)
	nice -n 10 sh "$HERE/rootfs.sh" "$ROOTFS" $SUITE "$KVER" >&2 || exit 1
	touch "$ROOTFS.done"
	echo "# appliance: made the Debian $SUITE root filesystem in $(($(date +%s) - t0)) s" >&2
	# (each one has its log, also one that failed half-way)
	for old in "$CACHE"/appliance/rootfs-*.log; do
		o=${old%.log}
		case $o in
		*-"$hash") k=${o#"$CACHE"/appliance/rootfs-trixie-}
			[ "$k" = "$o" ] || [ -d "$CACHE/kernel-${k%-"$hash"}" ] && continue ;;
		esac
		rm -rf "$o" "$old" "$o.done" "$o.packages"
	done
) 8>"$CACHE/appliance/.lock" || die "debootstrap of the $SUITE root filesystem failed (log: $ROOTFS.log)"
[ "$MODE" != rootfs ] || exit 0
mkdir -p "$OUT"
# Steps 2 and 3 one run at a time per kernel (the image mode and a boot).
exec 7>"$OUT/.disk.lock"
flock 7

# 2. The module for KVER (build.sh), and the packages (make deb).
MODS=$VMBUILD/$KVER
if [ ! -f "$MODS/gpsphc/gpsphc.ko" ] || [ ! -f "$MODS/gpsphc_sim/gpsphc_sim.ko" ]; then
	GPSPHC_MODULES_ONLY=1 nice -n 10 sh "$TOP/tools/testing/vm/build.sh" "$KVER" >"$OUT/build.log" 2>&1 ||
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
	# (amd64 only: the appliance is an amd64 guest)
	GPSPHC_DEB_ARCHS=amd64 GPSPHC_DEB_BUILD=$DEBS nice -n 10 sh "$TOP/tools/packaging/mkdeb.sh" >"$VMBUILD/appliance-debs.log" 2>&1 || exit 1
	touch "$DEBS/.stamp"
) 8>"$VMBUILD/.appliance-debs.lock" || die "make deb failed (log: $VMBUILD/appliance-debs.log)"

# 3. The disk: the root filesystem, KVER's modules, gpsphc, the test.
# (Debian 13's gpsphc.ko is DKMS's, built from the gpsphc-dkms .deb.)
kos="$MODS/gpsphc/gpsphc.ko $MODS/gpsphc_sim/gpsphc_sim.ko"
[ $SUITE = bookworm ] || kos=$MODS/gpsphc_sim/gpsphc_sim.ko
# shellcheck disable=SC2086 # a list of files
key=$( { echo "$hash $SUITE"; sha256sum "$DEBS"/gpsphc-dkms_*.deb "$DEBS"/gpsphcd_*.deb $kos \
	"$HERE"/* "$0" | cut -d' ' -f1; } | sha256sum | cut -c1-16)
if [ "$(cat "$OUT/disk.key" 2>/dev/null)" != "$key" ]; then
	t0=$(date +%s)
	R=$OUT/root
	rm -rf "$R" "$OUT/disk.key"
	cp -a "$ROOTFS" "$R"
	if [ $SUITE = bookworm ]; then
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
	else
		# The kernel the guest boots is the image's own: trixie.sh
		# unpacked kernel-KVER from the linux-image-KVER-unsigned that
		# rootfs.sh installed in the image (for linux-headers-KVER).
		cmp -s "$R/boot/vmlinuz-$KVER" "$KROOT/boot/vmlinuz-$KVER" ||
			die "the image's /boot/vmlinuz-$KVER is not $KROOT/boot/vmlinuz-$KVER (two builds of $KVER? remove $ROOTFS.done to make the image's root filesystem again)"
		install -D -m 0644 "$MODS/gpsphc_sim/gpsphc_sim.ko" -t "$R/usr/lib/modules/$KVER/updates/"
		# gpsphc-dkms and gpsphcd as a user installs them: apt, in a
		# chroot of the image (no daemon starts: policy-rc.d), with the
		# packages' dependencies from the image (no package lists, no
		# network: rootfs.sh installed them). gpsphc-dkms's postinst is
		# the image's DKMS: it builds and installs gpsphc.ko here, now,
		# with the image's gcc 14 against linux-headers-KVER. (DKMS's
		# common.postinst builds for uname -r, this machine's kernel,
		# whose headers the image has not, so it skips it, and for the
		# newest kernel in /lib/modules: KVER, the image's only one.
		# No openssl in the image: DKMS signs nothing, and Debian's
		# kernel loads the module unsigned, tainted, as on a user's
		# machine without Secure Boot.)
		cp "$DEBS"/gpsphc-dkms_*.deb "$DEBS"/gpsphcd_*.deb "$R/tmp/"
		printf '#!/bin/sh\nexit 101\n' >"$R/usr/sbin/policy-rc.d"
		chmod 0755 "$R/usr/sbin/policy-rc.d"
		log=$OUT/apt-dkms.log
		# (none of this machine's environment: its TMPDIR, say, is not
		# in the image)
		in_image() {
			chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
				DEBIAN_FRONTEND=noninteractive "$@"
		}
		in_image sh -c 'apt-get install -y -q --no-install-recommends /tmp/gpsphc-dkms_*.deb /tmp/gpsphcd_*.deb' \
			>"$log" 2>&1 || die "apt-get install of gpsphc-dkms and gpsphcd failed in the image (log: $log)"
		rm -f "$R/usr/sbin/policy-rc.d" "$R"/tmp/*.deb
		in_image depmod "$KVER" >>"$log" 2>&1 || die "depmod $KVER failed in the image (log: $log)"
		# DKMS says gpsphc is installed for KVER, in its own directory
		# of the kernel's modules, and modprobe finds that file.
		st=$(in_image dkms status -m gpsphc -k "$KVER" 2>&1)
		echo "dkms status: $st" >>"$log"
		case $st in
		gpsphc/*", $KVER, x86_64: installed"*) ;;
		*) die "DKMS has not installed gpsphc for $KVER in the image: dkms status says '$st' (log: $log)" ;;
		esac
		ko=$(in_image modinfo -k "$KVER" -n gpsphc 2>&1)
		case $ko in
		/lib/modules/$KVER/updates/dkms/gpsphc.ko*|/usr/lib/modules/$KVER/updates/dkms/gpsphc.ko*) ;;
		*) die "modprobe's gpsphc for $KVER in the image is '$ko', not DKMS's (log: $log)" ;;
		esac
		# What check.sh compares the loaded module with.
		mkdir -p "$R/usr/local/lib/gpsphc-test"
		printf 'file %s\nsrcversion %s\n' "$ko" "$(in_image modinfo -k "$KVER" -F srcversion gpsphc)" \
			>"$R/usr/local/lib/gpsphc-test/dkms-module"
		echo "DKMS's module: $(tr '\n' ' ' <"$R/usr/local/lib/gpsphc-test/dkms-module")" >>"$log"
	fi
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
	# The content and as much again free, for the journal of two boots
	# and what the services write (1200M at least, as for Debian 12).
	size=$(($(du -sm "$R" | cut -f1) * 2))
	[ $size -ge 1200 ] || size=1200
	mkfs.ext4 -q -F -L gpsphc-root -d "$R" "$OUT/disk.img.tmp" ${size}M >/dev/null ||
		die "mkfs.ext4 -d of a ${size}M disk failed ($OUT/disk.img.tmp)"
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
	echo "# appliance $KVER: made the $SUITE disk image (${size}M) in $(($(date +%s) - t0)) s"
fi

exec 7>&-
[ "$MODE" != image ] || exit 0

# 4. Boot a fresh copy of the disk twice.
cp --sparse=always "$OUT/disk.img" "$OUT/run.img"
append="console=ttyS0 root=/dev/vda slub_debug=FZPU loglevel=${GPSPHC_APPLIANCE_LOGLEVEL:-3} panic=-1 oops=panic"
if [ "$MODE" = shell ]; then
	exec flock "${TMPDIR:-/tmp}/gpsphc-vm.lock" ${GPSPHC_VM_CPUS:+taskset -c "$GPSPHC_VM_CPUS"} \
		qemu-system-x86_64 -accel tcg,thread=single -cpu max -smp 2 -m 1024 \
		-nographic -nodefaults -serial mon:stdio -no-reboot \
		-kernel "$KROOT/boot/vmlinuz-$KVER" -initrd "$OUT/initrd.cpio.gz" \
		-drive file="$OUT/run.img",format=raw,if=virtio -append "$append"
fi
append="$append gpsphc_appliance=check systemd.mask=serial-getty@ttyS0.service systemd.show_status=${GPSPHC_APPLIANCE_STATUS:-error}"
leave=$(echo ${GPSPHC_APPLIANCE_LEAVE:-} | tr ' ' ',')
[ -z "$leave" ] || append="$append gpsphc_appliance_leave=$leave"
rc=0
b=0
while [ $b -lt "$BOOTS" ]; do
	b=$((b + 1))
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

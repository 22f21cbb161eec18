# SPDX-License-Identifier: GPL-2.0
#
# gpsphc top-level Makefile.
#
#   make                      build gpsphc.ko for the running kernel (or KDIR=)
#   make KVER=6.1.0-NN-amd64  build against an installed Debian kernel's headers
#   make install, uninstall   gpsphc.ko, depmod, and gpsphcd with its files
#                             (DESTDIR=, PREFIX=/usr; KVER= or KDIR= as above)
#   make deb                  Debian packages gpsphc-dkms and gpsphcd (amd64,
#                             arm64, armhf)
#   make deps                 install the Debian packages build and tests need
#   make demo                 the main job on a simulated receiver, in a VM
#   make check                every test: host tests, then the kernels in VMs
#   make bench                benchmarks in the VM (figures, not tests)
#   make checkpatch sparse    kernel style and static checks
#   make ynl                  regenerate the netlink code and uAPI header
#                             from Documentation/netlink/specs/gpsphc.yaml

KVER ?= $(shell uname -r)
GPSPHC_CACHE ?= /var/cache/gpsphc
# An installed kernel's headers, else the ones 'make deps' unpacked.
KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER)/build \
	$(GPSPHC_CACHE)/kernel-$(KVER)/usr/src/linux-headers-$(KVER)) \
	/lib/modules/$(KVER)/build)
export GPSPHC_CACHE
PREFIX ?= /usr
DEPMOD ?= /sbin/depmod
# The kernel KDIR builds for (KVER may differ when KDIR= is given).
KREL = $(or $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null),$(KVER))
MODDIR = $(abspath $(DESTDIR))/lib/modules/$(KREL)

all: module

module:
	@test -d "$(KDIR)" || { echo "no kernel build tree at $(KDIR): install linux-headers-$(KVER), or pass KDIR= or KVER=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# kbuild puts the module in MODDIR/updates, where it wins over a copy the
# kernel may ship; depmod for modprobe (kbuild skips it without System.map).
# Without the build tree's signing key (a distribution's headers have
# none) kbuild is told not to sign; under Secure Boot, sign with a key
# enrolled as MOK, as DKMS does.
install: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(abspath $(DESTDIR)) \
		INSTALL_MOD_DIR=updates modules_install \
		$(if $(wildcard $(KDIR)/certs/signing_key.pem),,CONFIG_MODULE_SIG_ALL=)
	$(DEPMOD) $(if $(DESTDIR),-b $(abspath $(DESTDIR))) $(KREL)
	$(MAKE) -C userspace install PREFIX=$(PREFIX) DESTDIR=$(abspath $(DESTDIR))

# depmod again if the kernel's tree holds other modules; if not (a DESTDIR
# of gpsphc's own), depmod's index went in with gpsphc and goes with it.
uninstall:
	rm -f $(MODDIR)/updates/gpsphc.ko $(MODDIR)/updates/gpsphc.ko.*
	if [ -n "$$(find $(MODDIR) -name '*.ko*' 2>/dev/null)" ]; then \
		$(DEPMOD) $(if $(DESTDIR),-b $(abspath $(DESTDIR))) $(KREL); \
	else rm -f $(MODDIR)/modules.*; fi
	$(MAKE) -C userspace uninstall PREFIX=$(PREFIX) DESTDIR=$(abspath $(DESTDIR))

deb:
	@sh tools/packaging/mkdeb.sh

deps:
	@sh tools/testing/vm/deps.sh

check: deps
	@sh tools/testing/run_checks.sh

demo: deps
	@sh tools/testing/vm/demo.sh

bench: deps
	@sh tools/testing/vm/bench.sh

checkpatch: deps
	@sh tools/testing/vm/lint.sh checkpatch

sparse: deps
	@sh tools/testing/vm/lint.sh sparse

ynl: deps
	@sh tools/testing/vm/ynl.sh gen

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf tools/testing/vm/build tools/packaging/build

.PHONY: ynl all module install uninstall deb deps check demo bench checkpatch sparse clean

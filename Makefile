# SPDX-License-Identifier: GPL-2.0
#
# gpsphc top-level Makefile.
#
#   make                      build gpsphc.ko for the running kernel (or KDIR=)
#   make KVER=6.1.0-NN-amd64  build against an installed Debian kernel's headers
#   make deps                 install the Debian packages build and tests need
#   make demo                 the main job on a simulated receiver, in a VM
#   make check                every test: host tests, then both kernels in VMs
#   make bench                benchmarks in the VM (figures, not tests)
#   make checkpatch sparse    kernel style and static checks

KVER ?= $(shell uname -r)
GPSPHC_CACHE ?= /var/cache/gpsphc
# An installed kernel's headers, else the ones 'make deps' unpacked.
KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER)/build \
	$(GPSPHC_CACHE)/kernel-$(KVER)/usr/src/linux-headers-$(KVER)) \
	/lib/modules/$(KVER)/build)
export GPSPHC_CACHE

all: module

module:
	@test -d "$(KDIR)" || { echo "no kernel build tree at $(KDIR): install linux-headers-$(KVER), or pass KDIR= or KVER=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

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

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf tools/testing/vm/build

.PHONY: all module deps check demo bench checkpatch sparse clean

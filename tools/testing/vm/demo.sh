#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build for Debian's 6.12 kernel (DEMO_KVER=... for another),
# boot it under QEMU and run the demo on the simulated receiver.
set -eu
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
KVER=${DEMO_KVER:-$(sed -n 's/^KVER_612 := //p' "$CACHE/kernels.mk")}
sh "$TOP/tools/testing/vm/build.sh" "$KVER"
sh "$TOP/tools/testing/vm/run.sh" "$KVER" demo 300 |
	sed -n '/# kernel/,/^GPSPHC-DONE/p' | sed 's/^.*# kernel/# kernel/'

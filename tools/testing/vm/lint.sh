#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh checkpatch|sparse|ynl|all: kernel style (checkpatch.pl --strict
# from Debian's linux-source-6.1) on the module's sources and on the test
# modules gpsphc_sim and gpsphc_gpioemu, and sparse (against both test
# kernels) on the module's; the netlink spec against its schema and the
# files generated from it (ynl.sh check). Prints one TAP line per check.
set -u

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
what=${1:-all}
rc=0

# The compat and host-type headers exist to do what checkpatch warns
# about (version tests, typedefs of C99 types), so only those checks are
# off for them.
COMPAT_FILES="kmod/compat.h kmod/pure_types.h tools/testing/gpsphc_sim/compat.h"
COMPAT_IGNORE=LINUX_VERSION_CODE,NEW_TYPEDEFS,CONSTANT_COMPARISON,PREFER_KERNEL_TYPES
# ynl-gen-c's output is checked by regenerating it (ynl_check); its line
# lengths follow the spec's names, not ours.
GENERATED_FILES="kmod/gpsphc_nl.c kmod/gpsphc_nl.h"
GENERATED_IGNORE=LONG_LINE

checkpatch_files() {
	(cd "$TOP" && perl "$CACHE/linux-source-6.1/scripts/checkpatch.pl" \
		--no-tree --strict --show-types --terse "$@" 2>&1) |
		grep -v '^total: 0 errors, 0 warnings, 0 checks' | grep -v '^$'
}

checkpatch() {
	files=$(cd "$TOP" && ls kmod/*.[ch] kmod/servo/*.[ch] tools/testing/gpsphc_sim/*.[ch] tools/testing/gpsphc_gpioemu/*.[ch] 2>/dev/null |
		grep -v -x -F "$(echo $COMPAT_FILES $GENERATED_FILES | tr ' ' '\n')")
	compat=$(cd "$TOP" && ls $COMPAT_FILES 2>/dev/null)
	generated=$(cd "$TOP" && ls $GENERATED_FILES 2>/dev/null)
	out=$(checkpatch_files --ignore FILE_PATH_CHANGES -f $files
	      [ -z "$compat" ] || checkpatch_files --ignore "FILE_PATH_CHANGES,$COMPAT_IGNORE" -f $compat
	      [ -z "$generated" ] || checkpatch_files --ignore "FILE_PATH_CHANGES,$GENERATED_IGNORE" -f $generated)
	if [ -z "$out" ]; then
		echo "ok checkpatch --strict on $(echo $files $compat $generated | wc -w) files"
	else
		echo "not ok checkpatch --strict"
		echo "$out" | sed 's/^/# /'
		rc=1
	fi
}

sparse_one() {
	kver=$1
	dir=$(mktemp -d)
	cp -r "$TOP/Kbuild" "$TOP/kmod" "$dir/"
	out=$(make -s -C "$CACHE/kernel-$kver/usr/src/linux-headers-$kver" M="$dir" C=2 CHECK=sparse \
		CONFIG_DEBUG_INFO_BTF_MODULES= modules 2>&1 | grep -E 'warning|error')
	rm -rf "$dir"
	if [ -z "$out" ]; then
		echo "ok sparse against $kver"
	else
		echo "not ok sparse against $kver"
		echo "$out" | sed 's/^/# /'
		rc=1
	fi
}

# ynl_check: the YAML spec passes the kernel's genetlink schema, and the
# uAPI header, policies and op table are exactly what the kernel's
# ynl-gen-c makes of it (tools/testing/vm/ynl.sh check).
ynl_check() {
	out=$(sh "$TOP/tools/testing/vm/ynl.sh" check 2>&1)
	r=$?
	echo "$out" | sed '/^\(ok\|not ok\|#\) /!s/^/# /'
	[ $r -eq 0 ] && return
	rc=1
	echo "$out" | grep -q '^not ok ' || echo "not ok ynl: tools/testing/vm/ynl.sh check failed"
}

case $what in
checkpatch|all) checkpatch ;;
esac
case $what in
ynl|all) ynl_check ;;
esac
case $what in
sparse|all)
	for k in $(sed -n 's/^KVER_[0-9]* := //p' "$CACHE/kernels.mk"); do
		sparse_one "$k"
	done ;;
esac
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# servo_gains_test.sh - the servo's gain tables sv_kf_ab and sv_kf_abg:
#
#   1. kmod/servo/bank_gains.h is, byte for byte, what gen_servo_gains.py
#      makes (regenerate it with: make -C tools/testing/host gains);
#   2. no other file under kmod/ defines them: the header is the only
#      copy (the tables that were in servo_loop.c had exactly its numbers
#      when they moved there);
#   3. the comparison itself notices one changed entry.
#
# A mismatch names each entry that differs, what it is and what it should
# be. TAP on stdout; needs python3.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
GEN=$HERE/gen_servo_gains.py
HDR=kmod/servo/bank_gains.h

TAP_NAME=servo_gains
. "$HERE/tap.sh"
command -v python3 >/dev/null || skip_all "no python3 (tools/testing/vm/deps.sh)"

T=$(mktemp -d /tmp/gpsphc-gains.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$TOP" || exit 1
[ -f "$HDR" ] || {
	printf '1..1\nnot ok 1 %s missing: make -C tools/testing/host gains\n' "$HDR"
	exit 1
}

# Every other file under kmod/ that defines either table.
copies=$(grep -rlE --include='*.[ch]' 'sv_kf_abg?[[:space:]]*\[64\]' kmod |
	grep -v -x -F "$HDR" | sort)
echo "1..3"

# 1. The header is the generator's output.
if ! python3 "$GEN" >"$T/gen.h"; then
	not_ok "$GEN failed"
elif cmp -s "$T/gen.h" "$HDR"; then
	ok "$HDR is what gen_servo_gains.py makes"
else
	not_ok "$HDR is not what gen_servo_gains.py makes (make -C tools/testing/host gains)"
	python3 "$GEN" --diff "$T/gen.h" "$HDR"
	diff -u "$T/gen.h" "$HDR" | head -n 20 | sed 's/^/# /'
fi

# 2. The header is the only copy.
if [ -z "$copies" ]; then
	ok "no file under kmod/ but $HDR defines the gain tables"
else
	not_ok "the gain tables are defined outside $HDR, in:" $copies
	for f in $copies; do
		python3 "$GEN" --diff "$HDR" "$f"
	done
fi

# 3. One entry changed, sv_kf_ab[5][1] plus one, is named, and nothing
# else is.
row=$(grep -n 'sv_kf_ab\[64\]\[2\] = {' "$HDR" | cut -d: -f1)
row=$((${row:-0} + 6))
v=$(sed -n "${row}s/.* \([0-9]*\) },$/\1/p" "$HDR")
sed "${row}s/ $v },$/ $((v + 1)) },/" "$HDR" >"$T/mutated.h"
out=$(python3 "$GEN" --diff "$HDR" "$T/mutated.h")
rc=$?
if [ -n "$v" ] && [ $rc -eq 1 ] &&
		[ "$out" = "# $T/mutated.h: sv_kf_ab[5][1] is $((v + 1)), should be $v (+1)" ]; then
	ok "a changed entry is named: sv_kf_ab[5][1] is $((v + 1)), should be $v"
else
	not_ok "sv_kf_ab[5][1] plus one: --diff exited $rc, printed:"
	echo "${out:-(nothing)}" | sed 's/^\([^#]\)/# \1/'
fi

exit $fail

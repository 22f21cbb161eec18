#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# layers_test.sh [-v] [TREE]: kmod/'s layers point one way (issue 27,
# "layers that point one way" in the design). Builds the module's objects
# out of tree against a cached Debian header tree, maps every undefined
# symbol of each object to the object that defines it, and checks each
# such arrow against the layers. One TAP line per rule, naming the
# arrows that break it and their symbols. TREE (default: this checkout)
# is any directory with Kbuild and kmod/, e.g. a 'git archive' of another
# branch; -v also prints every arrow.
#
# The layers, by object (path under kmod/, without .o):
#
#   capture    main (the line discipline), rx, framer, pps, gpio (PPS
#              from a GPIO line)
#   clock      phc, servo_glue, clock_fields, and the servo library:
#              every object whose path starts with "servo" (servo*.o,
#              servo/*.o)
#   interfaces ptp, sysfs, netlink with gpsphc_nl (ynl-gen-c's policies
#              and op table for netlink.c: one unit), dpll
#   core       dev (each device's life), events (the one queue), stats
#
# The rules: capture calls neither the clock (it hands it inputs through
# the event queue's struct gpsphc_clock_input) nor the interfaces; the
# clock never calls the interfaces; no interface calls another. Core (a
# device's life, the queue every input and notification goes through,
# the counters) may call every layer and be called by every layer.
#
# main.o is the line discipline, so capture, but also the module's init
# and exit: its calls to a *_register or *_unregister function (the
# netlink family's) are the module's life, core's, and count as such.
# Any other call from main.o into the clock or the interfaces is
# capture's and breaks a rule.
#
# An object in no layer fails the test, so that a new file is given one.
# Skips (exit 4) where no header tree with its compiler is installed.
# GPSPHC_CACHE: where 'make deps' put the kernels (/var/cache/gpsphc);
# GPSPHC_LAYERS_KDIR: the header tree to use instead of the cache's.

set -u
TAP_NAME=layers
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/tap.sh"

verbose=0
if [ "${1:-}" = -v ]; then
	verbose=1
	shift
fi
TREE=$(cd "${1:-$HERE/../../..}" && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}

# A header tree whose compiler is installed; one with the DPLL core
# first, as only there is dpll.o built (compat.h).
pick_kdir() {
	local d cc first=

	for d in "$CACHE"/kernel-*/usr/src/linux-headers-*; do
		if [ ! -f "$d/.config" ] || [ ! -f "$d/Makefile" ]; then
			continue
		fi
		cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\).*/\1/p' "$d/.config")
		command -v "$cc" >/dev/null 2>&1 || continue
		if grep -q '^CONFIG_DPLL=y' "$d/.config"; then
			echo "$d"
			return
		fi
		[ -n "$first" ] || first=$d
	done
	echo "$first"
}

KDIR=${GPSPHC_LAYERS_KDIR:-$(pick_kdir)}
if [ -z "$KDIR" ]; then
	printf '1..1\nok 1 %s # SKIP %s\n' "$TAP_NAME" \
		"no kernel header tree with its compiler in $CACHE/kernel-*/usr/src/linux-headers-*: run 'make deps'"
	exit 4
fi
if [ ! -f "$TREE/Kbuild" ] || [ ! -d "$TREE/kmod" ]; then
	echo "layers_test.sh: $TREE has no Kbuild and kmod/" >&2
	exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$TREE/Kbuild" "$TREE/kmod" "$work/"
[ ! -f "$TREE/dkms.conf" ] || cp "$TREE/dkms.conf" "$work/"

echo "1..5"
if ! make -s -j"$(nproc)" -C "$KDIR" M="$work" CONFIG_DEBUG_INFO_BTF_MODULES= \
		modules >"$work/build.log" 2>&1; then
	not_ok "$TAP_NAME: build against $KDIR failed"
	tail -n 30 "$work/build.log" | sed 's/^/# /'
	exit 1
fi

# The module's objects, as kbuild lists them in each NAME.mod (every
# object linked into NAME.ko); all of kmod/'s where there is none.
objs=$(cat "$work"/*.mod 2>/dev/null | tr ' ' '\n' | grep '\.o$')
[ -n "$objs" ] || objs=$(find "$work/kmod" -name '*.o' ! -name '*.mod.o')

# "U obj sym" for each undefined symbol, "D obj sym" for each global
# one defined (text, data, bss, rodata); obj is the path under kmod/.
for o in $objs; do
	f=${o#"$work/kmod/"}
	nm "$o" | awk -v f="${f%.o}" '
		$1 == "U" { print "U", f, $2 }
		$2 ~ /^[TDBR]$/ { print "D", f, $3 }'
done >"$work/symbols"

# "rule<TAB>from -> to: symbols" for each arrow that breaks a rule,
# "arrow<TAB>..." for every arrow, "objects<TAB>N" and "unknown<TAB>obj".
awk '
	function layer(o) {
		if (o ~ /^(main|rx|framer|pps|gpio)$/) return "capture"
		if (o ~ /^(phc|servo_glue|clock_fields)$/ || o ~ /^servo/) return "clock"
		if (o ~ /^(ptp|sysfs|netlink|gpsphc_nl|dpll)$/) return "interface"
		if (o ~ /^(dev|events|stats)$/) return "core"
		return ""
	}
	function unit(o) { return o == "gpsphc_nl" ? "netlink" : o }
	$1 == "D" { def[$3] = $2; objs[$2] = 1; next }
	{ objs[$2] = 1; use[++n] = $2 SUBSEP $3 }
	END {
		for (o in objs) {
			nobj++
			if (layer(o) == "") print "unknown\t" o
		}
		print "objects\t" nobj
		for (i = 1; i <= n; i++) {
			split(use[i], u, SUBSEP)
			from = u[1]; sym = u[2]
			if (!(sym in def) || unit(def[sym]) == unit(from))
				continue
			to = def[sym]
			key = from " -> " to
			syms[key] = syms[key] " " sym
			fl = layer(from); tl = layer(to)
			if (from == "main" && sym ~ /_(un)?register$/)
				fl = "core"
			rule = ""
			if (fl == "capture" && tl == "clock")
				rule = "capture/clock"
			else if (fl == "capture" && tl == "interface")
				rule = "capture/interface"
			else if (fl == "clock" && tl == "interface")
				rule = "clock/interface"
			else if (fl == "interface" && tl == "interface")
				rule = "interface/interface"
			if (rule != "")
				bad[rule, key] = bad[rule, key] " " sym
		}
		for (key in syms)
			print "arrow\t" key ":" syms[key]
		for (k in bad) {
			split(k, r, SUBSEP)
			print r[1] "\t" r[2] " (" substr(bad[k], 2) ")"
		}
	}' "$work/symbols" | sort >"$work/graph"

# check RULE TEXT: one TAP line, with the arrows that break RULE.
check() {
	local arrows

	arrows=$(awk -F '\t' -v r="$1" '$1 == r { print $2 }' "$work/graph" |
		paste -s -d ';' | sed 's/;/; /g')
	if [ -z "$arrows" ]; then
		ok "$TAP_NAME: $2"
	else
		not_ok "$TAP_NAME: $2: $arrows"
	fi
}

nobj=$(awk -F '\t' '$1 == "objects" { print $2 }' "$work/graph")
narrows=$(grep -c '^arrow' "$work/graph")
unknown=$(awk -F '\t' '$1 == "unknown" { print $2 }' "$work/graph" | paste -s -d ' ')
if [ "${nobj:-0}" -gt 1 ] && [ "$narrows" -gt 0 ] && [ -z "$unknown" ]; then
	ok "$TAP_NAME: $nobj objects, each in a layer, $narrows arrows between them (${KDIR##*/})"
else
	not_ok "$TAP_NAME: $nobj objects, $narrows arrows${unknown:+; in no layer: $unknown}"
fi
check capture/clock "capture does not call the clock"
check capture/interface "capture does not call the interfaces"
check clock/interface "the clock does not call the interfaces"
check interface/interface "no interface calls another"
if [ $verbose = 1 ]; then
	awk -F '\t' '$1 == "arrow" { print "# " $2 }' "$work/graph"
fi
exit "$fail"

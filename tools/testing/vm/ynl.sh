#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ynl.sh gen|check|guest STAGE: the files generated from the gpsphc YAML
# spec by the kernel's own YNL tools (linux-source-6.12's tools/net/ynl and
# Documentation/netlink, unpacked by deps.sh).
#
#   gen          regenerate, with ynl-gen-c, the files the spec drives:
#                  kmod/uapi/linux/gpsphc.h  --mode uapi --header
#                  kmod/gpsphc_nl.h          --mode kernel --header
#                  kmod/gpsphc_nl.c          --mode kernel --source
#   check        TAP lines: the spec passes its genetlink schema, each file
#                above is exactly what ynl-gen-c makes of the spec, and the
#                admin guide's YNL commands are those ynl_cli_test.sh runs
#   guest STAGE  put cli.py, its library, the specs and schema, and a
#                Python with what they import into the test VM's root
#                STAGE (for ynl_cli_test.sh)
#
# ynl-gen-c finds the kernel tree by its MAINTAINERS file and cli.py the
# schema next to the specs directory, so both read the spec from a scratch
# tree laid out as the kernel's: Documentation/netlink/specs/gpsphc.yaml.
set -eu

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
KSRC=$CACHE/linux-source-6.12
YNL=$KSRC/tools/net/ynl
SPEC=Documentation/netlink/specs/gpsphc.yaml
GUIDE=Documentation/admin-guide/gpsphc.rst
CLI_TEST=tools/testing/selftests/gpsphc/ynl_cli_test.sh
# Debian's Python, the one deps.sh gives python3-yaml and python3-jsonschema.
PYTHON=${PYTHON:-/usr/bin/python3}
# path:mode of every generated file.
GENERATED="kmod/uapi/linux/gpsphc.h:uapi:header kmod/gpsphc_nl.h:kernel:header
	kmod/gpsphc_nl.c:kernel:source"

die() { echo "ynl.sh: $*" >&2; exit 1; }
[ -f "$YNL/ynl-gen-c.py" ] || die "no $YNL/ynl-gen-c.py: run 'make deps'"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# protocol: the spec's flavour, which names its schema.
protocol=$(sed -n 's/^protocol: *//p' "$TOP/$SPEC")
schema=$KSRC/Documentation/netlink/$protocol.yaml

# The scratch kernel-like tree the tools read the spec from.
tree=$work/tree
mkdir -p "$tree/Documentation/netlink/specs"
: >"$tree/MAINTAINERS"
cp "$schema" "$tree/Documentation/netlink/"
cp "$TOP/$SPEC" "$tree/$SPEC"

# generate OUT MODE KIND: ynl-gen-c's output for one file, into OUT.
generate() {
	(cd "$work" && "$PYTHON" "$YNL/ynl-gen-c.py" --mode "$2" "--$3" \
		--spec "$tree/$SPEC" -o "$1") >"$work/gen.log" 2>&1 ||
		{ cat "$work/gen.log" >&2; return 1; }
}

# guide_commands: the guide's YNL commands, from its "# cd
# linux/tools/net/ynl" to the end of that block, without the prompt.
guide_commands() {
	sed -n '/^ *# cd linux\/tools\/net\/ynl$/,/^$/s/^ *# //p' "$TOP/$GUIDE"
}

# test_commands: the commands ynl_cli_test.sh runs, its guide_commands.
test_commands() {
	[ -f "$TOP/$CLI_TEST" ] || return 0
	sed -n "/^guide_commands() {/,/^}/p" "$TOP/$CLI_TEST" | sed -n "/^EOF$/q;3,\$p"
}

gen() {
	for g in $GENERATED; do
		f=${g%%:*} m=${g#*:}
		mkdir -p "$work/out/$(dirname "$f")"
		generate "$work/out/$f" "${m%%:*}" "${m#*:}" || die "ynl-gen-c failed for $f"
		if cmp -s "$work/out/$f" "$TOP/$f"; then
			echo "	SAME	$f"
		else
			cp "$work/out/$f" "$TOP/$f"
			echo "	GEN	$f"
		fi
	done
}

check() {
	rc=0
	if out=$("$PYTHON" - "$tree/$SPEC" "$schema" 2>&1 <<'EOF'
import sys, yaml, jsonschema
spec, schema = (yaml.safe_load(open(f)) for f in sys.argv[1:])
try:
    jsonschema.validate(spec, schema)
except jsonschema.ValidationError as e:
    where = '/'.join(str(p) for p in e.absolute_path) or 'top level'
    sys.exit(f'{where}: {e.message}')
EOF
	); then
		echo "ok ynl: $SPEC passes the $protocol schema"
	else
		echo "not ok ynl: $SPEC fails the $protocol schema"
		echo "$out" | tail -n 15 | sed 's/^/# /'
		rc=1
	fi
	for g in $GENERATED; do
		f=${g%%:*} m=${g#*:}
		mkdir -p "$work/out/$(dirname "$f")"
		if ! generate "$work/out/$f" "${m%%:*}" "${m#*:}" 2>"$work/err"; then
			echo "not ok ynl: $f: ynl-gen-c failed"
			sed 's/^/# /' "$work/err"
			rc=1
		elif [ ! -f "$TOP/$f" ]; then
			echo "not ok ynl: $f is missing (run sh tools/testing/vm/ynl.sh gen)"
			rc=1
		elif diff -u "$TOP/$f" "$work/out/$f" >"$work/diff"; then
			echo "ok ynl: $f is ynl-gen-c's output for the spec"
		else
			echo "not ok ynl: $f differs from ynl-gen-c's output (run sh tools/testing/vm/ynl.sh gen)"
			head -n 40 "$work/diff" | sed 's/^/# /'
			rc=1
		fi
	done
	guide_commands >"$work/guide"
	test_commands >"$work/test"
	if [ -s "$work/guide" ] && diff -u "$work/guide" "$work/test" >"$work/diff"; then
		echo "ok ynl: $CLI_TEST runs the admin guide's $(wc -l <"$work/guide") YNL commands"
	else
		echo "not ok ynl: the admin guide's YNL commands are not those $CLI_TEST runs"
		sed 's/^/# /' "$work/diff"
		rc=1
	fi
	return $rc
}

# copy_files LIST ROOT: copy each existing file named in LIST under ROOT.
copy_files() {
	case $2 in /?*) ;; *) die "copy_files: not a root: '$2'" ;; esac
	while read -r f; do
		[ -f "$f" ] || continue
		mkdir -p "$2$(dirname "$f")"
		cp -L "$f" "$2$f"
	done <"$1"
}

# The Python the guest needs: the interpreter, its encodings, and the
# modules cli.py imports, found by running it here as the guest will (it
# stops at the family lookup: no gpsphc here) after loading the spec with
# its schema check; each with its compiled form, and the libraries ldd
# names. Only files below the interpreter's library and Debian's
# dist-packages are taken.
guest() {
	stage=$(cd "$1" && pwd) || die "no stage directory $1"
	[ "$stage" != / ] || die "the stage is not /"
	src=$stage/usr/src/linux
	mkdir -p "$src/tools/net/ynl/lib" "$src/Documentation/netlink/specs" \
		"$stage/usr/bin"
	cp "$YNL/cli.py" "$src/tools/net/ynl/"
	cp "$YNL"/lib/*.py "$src/tools/net/ynl/lib/"
	cp "$schema" "$src/Documentation/netlink/"
	# ynl_cli_test.sh reads the family's registration with nlctrl's spec.
	cp "$KSRC/Documentation/netlink/specs/nlctrl.yaml" \
		"$src/Documentation/netlink/specs/"
	# dpll_test.sh reads gpsphc's DPLL devices with the kernel's spec.
	cp "$KSRC/Documentation/netlink/genetlink.yaml" "$src/Documentation/netlink/"
	cp "$KSRC/Documentation/netlink/specs/dpll.yaml" \
		"$src/Documentation/netlink/specs/"
	# The spec ships with gpsphc, not in the kernel tree (the guide copies
	# it there); in the guest it is where a gpsphc checkout would have it.
	mkdir -p "$stage/usr/src/gpsphc/$(dirname "$SPEC")"
	cp "$TOP/$SPEC" "$stage/usr/src/gpsphc/$SPEC"

	py=$(readlink -f "$PYTHON")
	lib=$("$PYTHON" -c 'import os; print(os.path.dirname(os.__file__))')
	"$PYTHON" -c '
import argparse, json, os, pprint, runpy, sys
ynl, spec = sys.argv[1:]
sys.argv = ["cli.py", "--spec", spec, "--list-ops"]
sys.path.insert(0, ynl)
try:
    runpy.run_path(os.path.join(ynl, "cli.py"), run_name="__main__")
except BaseException as e:
    str(e)
argparse.ArgumentParser().format_help()
pprint.pformat({"a": [1, b"x", {"b"}]})
json.dumps({"a": 1})
for m in list(sys.modules.values()):
    f = getattr(m, "__file__", None)
    if f:
        print(os.path.abspath(f))
' "$YNL" "$tree/$SPEC" >"$work/modules" 2>/dev/null
	{
		grep -e "^$lib/" -e '^/usr/lib/python3/dist-packages/' "$work/modules"
		find "$lib/encodings" -name '*.py'
		# jsonschema's metaschemas, data files next to its modules.
		find /usr/lib/python3/dist-packages/jsonschema/schemas -type f
	} | sort -u >"$work/files"
	grep '\.py$' "$work/files" | "$PYTHON" -c '
import importlib.util, sys
for f in sys.stdin:
    print(importlib.util.cache_from_source(f.strip()))
' >>"$work/files"
	{ echo "$py"; grep '\.so$' "$work/files"; } | xargs ldd 2>/dev/null |
		grep -o '/[^ ]*' | sort -u >"$work/libs"
	echo "$py" >>"$work/libs"
	copy_files "$work/files" "$stage"
	copy_files "$work/libs" "$stage"
	ln -sf "$(basename "$py")" "$stage/usr/bin/python3"
	# cli.py's "#!/usr/bin/env python3": the guest's env is busybox's.
	[ -e "$stage/usr/bin/env" ] || ln -s ../../bin/busybox "$stage/usr/bin/env"
	echo "ynl.sh: Python for the guest: $(wc -l <"$work/files") files," \
		"$(du -sh "$stage$lib" | cut -f1) of $lib"
}

case ${1:-} in
gen) gen ;;
check) check ;;
guest) [ $# -eq 2 ] || die "usage: ynl.sh guest STAGE"; guest "$2" ;;
*) die "usage: ynl.sh gen|check|guest STAGE" ;;
esac

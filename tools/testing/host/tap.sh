# SPDX-License-Identifier: GPL-2.0
#
# tap.sh - sourced by the shell tests here: TAP lines and the checks that
# make a whole test skip. The test sets TAP_NAME first.

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n $*"; }
# One skipped test stands for them all (run_checks.sh counts "# SKIP").
skip_all() { printf "1..1\nok 1 %s # SKIP %s\n" "$TAP_NAME" "$*"; exit 0; }

# need_root_and TOOL...: root (network namespaces) and these programs.
need_root_and() {
	local t

	[ "$(id -u)" = 0 ] || skip_all "needs root (network namespaces)"
	for t in "$@"; do
		command -v "$t" >/dev/null ||
			skip_all "no $t: apt-get install linuxptp iproute2 (tools/testing/vm/deps.sh)"
	done
}

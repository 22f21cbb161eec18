# SPDX-License-Identifier: GPL-2.0-only
# tap.sh - sourced by the shell tests here: TAP lines and gpsphcd's
# refusals. The sourcing test sets $gpsphcd and $tmp first.

n=0
fail=0
# ok STATUS DESC: one TAP line, "ok" if STATUS is 0.
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fail=$((fail + 1))
	fi
}

# refused MESSAGE ARGS...: gpsphcd ARGS exits 2 with exactly MESSAGE on
# stderr and nothing on stdout, before touching a tty or netlink.
refused() {
	want=$1
	shift
	"$gpsphcd" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 2 ] || [ "$(cat "$tmp/err")" != "$want" ] || [ -s "$tmp/out" ]; then
		echo "# gpsphcd $* exited $rc; stderr:"
		sed 's/^/#   /' "$tmp/err"
		echo "# wanted: $want"
		return 1
	fi
}

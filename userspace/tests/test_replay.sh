#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Replay the captures in tests/captures/ through gpsphcd and compare stdout
# byte-exact with the .expected files.  Each capture names its options in
# its "# Replay: gpsphcd --replay NAME.log OPTIONS" comment.  TAP output.
#
# GPSPHCD: path of the gpsphcd binary (default ../build/gpsphcd).

ksft_skip=4
here=$(cd "$(dirname "$0")" && pwd)
gpsphcd=${GPSPHCD:-$here/../build/gpsphcd}
leap=$here/data/leap-seconds.list
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ ! -x "$gpsphcd" ]; then
	echo "1..0 # SKIP $gpsphcd not built (make -C userspace)"
	exit $ksft_skip
fi

n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fail=$((fail + 1))
	fi
}

# run NAME EXPECTED-FILE OPTIONS...: replay, compare stdout
run() {
	name=$1
	want=$2
	shift 2
	"$gpsphcd" --replay "$here/captures/$name.log" --leapfile "$leap" "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "# gpsphcd exited $rc; stderr:"
		sed 's/^/#   /' "$tmp/err"
	fi
	if ! cmp -s "$want" "$tmp/out"; then
		echo "# stdout differs from $want:"
		diff "$want" "$tmp/out" | sed 's/^/#   /'
		rc=1
	fi
	return $rc
}

echo "TAP version 13"
echo "1..$(($(ls "$here"/captures/*.log | wc -l) + 17))"
for log in "$here"/captures/*.log; do
	name=$(basename "$log" .log)
	opts=$(sed -n 's/^# Replay: gpsphcd --replay [^ ]* *//p' "$log")
	# shellcheck disable=SC2086
	run "$name" "$here/captures/$name.expected" $opts
	ok $? "replay $name"
done

# The rollover-bug receiver is named on stderr, not on stdout.
run garmin-rollover-2021 "$here/captures/garmin-rollover-2021.expected" \
	--not-before 2021-01-01
grep -q "1024 weeks early" "$tmp/err"
ok $? "rollover-bug receiver reported on stderr"

# The guard holds the one wrong sentence and says so with both times.
run gn-faults-2024 "$here/captures/gn-faults-2024.expected" \
	--not-before 2024-01-01
grep -q "TIME JUMP HELD: the receiver says 2024-02-29T13:00:08Z (TAI 1709211645) but the running time is 2024-02-29T12:00:08Z (TAI 1709208045)" "$tmp/err"
ok $? "guard holds a single wrong sentence, logs both times"

# --state: written atomically after a replay, and read back as the pivot.
# The 2021 state lifts the 2016 capture's dates by 1024 weeks: the state's
# last-good time (minus one day) is a floor no label may go below.
run garmin-rollover-2021 "$here/captures/garmin-rollover-2021.expected" \
	--not-before 2021-01-01 --state "$tmp/state" &&
	grep -qx "last_good_tai 1635033639" "$tmp/state" &&
	[ ! -e "$tmp/state.tmp" ]
ok $? "--state written with the last-good time"

"$gpsphcd" --replay "$here/captures/ublox-leap-2016.log" --leapfile "$leap" \
	--not-before 2016-01-01 --state "$tmp/state" >"$tmp/out" 2>"$tmp/err"
head -n 1 "$tmp/out" | grep -qx "5000000000000 2102544033 2036-08-16T23:59:56Z 37"
ok $? "--state raises the pivot above an old capture"

# No --state in replay: no state is read (the default path is not used).
run ublox-leap-2016 "$here/captures/ublox-leap-2016.expected" \
	--not-before 2016-01-01
ok $? "replay reads no state unless --state is given"

# Leap data problems are loud warnings; labelling goes on with the
# built-in table.  run() passes the good list first; the later
# --leapfile wins.
run ublox-leap-2016 "$here/captures/ublox-leap-2016.expected" \
	--not-before 2016-01-01 --leapfile "$tmp/no-such-file"
[ $? -eq 0 ] && grep -q "WARNING: cannot read leap-second file $tmp/no-such-file" "$tmp/err"
ok $? "missing leap-seconds.list: warning, built-in table, same labels"

sed 's/^3692217600      37/3692217601      37/' "$leap" >"$tmp/badhash.list"
run ublox-leap-2016 "$here/captures/ublox-leap-2016.expected" \
	--not-before 2016-01-01 --leapfile "$tmp/badhash.list"
[ $? -eq 0 ] && grep -q "WARNING: .*hash mismatch" "$tmp/err"
ok $? "leap-seconds.list with a bad hash: warning, built-in table, same labels"

# Labels past the expiry of the leap data: one loud warning, labels go on.
run gn-faults-2024 "$here/captures/gn-faults-2024.expected" \
	--not-before 2024-01-01
! grep -q "expired" "$tmp/err"
ok $? "no expiry warning while the data is current"

# Coarse mode: each switch is said once on stderr, with the reason.
run coarse-pps-lost-2025 "$here/captures/coarse-pps-lost-2025.expected" \
	--not-before 2025-01-01 &&
	[ "$(grep -c ": coarse mode, " "$tmp/err")" -eq 1 ] &&
	grep -qx "gpsphcd: no PPS edge for 600 s: coarse mode, the first sentence of each second stands in for the edge (millisecond accuracy); check the PPS wiring (DCD)" "$tmp/err" &&
	[ "$(grep -c "PPS edges back: labelling edges" "$tmp/err")" -eq 1 ]
ok $? "coarse mode: PPS lost for 600 s and back, each switch logged once"

run coarse-no-pps-2025 "$here/captures/coarse-no-pps-2025.expected" \
	--not-before 2025-01-01 &&
	[ "$(grep -c ": coarse mode, " "$tmp/err")" -eq 1 ] &&
	grep -q "no PPS edge in the first 2 s of sentences: coarse mode, " "$tmp/err"
ok $? "coarse mode: no PPS at start-up, entered once after 2 s"

# In coarse mode the sentence that starts a second is its own edge: the
# receiver offset (for PPS edges) does not apply.
run coarse-no-pps-2025 "$here/captures/coarse-no-pps-2025.expected" \
	--not-before 2025-01-01 --offset -600
ok $? "coarse mode: --offset does not move sentence labels"

# The summary counts the labels that named sentences.
run coarse-pps-lost-2025 "$here/captures/coarse-pps-lost-2025.expected" \
	--not-before 2025-01-01 &&
	grep -q "16 edges labelled (6 of them sentences, coarse mode)" "$tmp/err"
ok $? "coarse mode: replay summary counts sentence labels"

# A malformed capture line is an error with its line number.
printf 'P 1000\nX 2000\n' >"$tmp/bad.log"
"$gpsphcd" --replay "$tmp/bad.log" --leapfile "$leap" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "bad.log:2: unknown event type" "$tmp/err" &&
	[ ! -s "$tmp/out" ]
ok $? "malformed capture line rejected with its line number"

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
		return 1
	fi
}

# --servo changes the attached device: live mode only.
refused "gpsphcd: --servo goes with live mode (gpsphcd --servo on|off TTY), not with --replay" \
	--replay "$here/captures/ublox-leap-2016.log" --servo off
ok $? "--servo refused with --replay"

refused "gpsphcd: --servo goes with live mode (gpsphcd --servo on|off TTY), not with --status" \
	--status --json --servo on
ok $? "--servo refused with --status"

refused "gpsphcd: --servo \"of\" must be on (the kernel steers the clock) or off (ts2phc or ptp4l does)" \
	--servo of /dev/null
ok $? "--servo value other than on or off refused"

"$gpsphcd" --help | grep -q -- "--servo on|off"
ok $? "--help lists --servo"

echo "# $((n - fail)) passed, $fail failed"
[ $fail -eq 0 ]

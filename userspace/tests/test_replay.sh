#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Replay the captures in tests/captures/ through gpsphcd and compare stdout
# byte-exact with the .expected files.  Each capture names its options in
# its "# Replay: gpsphcd --replay NAME.log OPTIONS" comment; one with a
# "# Built: <UTC>" comment is replayed by a gpsphcd built at that instant
# (no --not-before: the build date is what it tests).  TAP output.
#
# GPSPHCD: path of the gpsphcd binary (default ../build/gpsphcd).
# GPSPHCD_TEST_BUILD, GPSPHC_TEST_BUILD_DATE: gpsphcd built at that instant
# (unix seconds), and GEN_CAPTURE: tests/gen_capture.c; "make check" passes
# them (default: in ../build, 2026-12-03T12:00:00Z).

ksft_skip=4
here=$(cd "$(dirname "$0")" && pwd)
gpsphcd=${GPSPHCD:-$here/../build/gpsphcd}
built=${GPSPHCD_TEST_BUILD:-$here/../build/gpsphcd-test-build}
built_at=${GPSPHC_TEST_BUILD_DATE:-1796299200}
gen=${GEN_CAPTURE:-$here/../build/gen_capture}
leap=$here/data/leap-seconds.list
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

for b in "$gpsphcd" "$built" "$gen"; do
	if [ ! -x "$b" ]; then
		echo "1..0 # SKIP $b not built (make -C userspace check)"
		exit $ksft_skip
	fi
done

. "$here/tap.sh"

# run NAME EXPECTED-FILE OPTIONS...: replay with $bin, compare stdout; a
# NAME with a / is a path.  run_built: the same with the test build.
bin=$gpsphcd
run() {
	name=$1
	want=$2
	shift 2
	case $name in
	*/*)	log=$name ;;
	*)	log=$here/captures/$name.log ;;
	esac
	"$bin" --replay "$log" --leapfile "$leap" "$@" \
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

# capture NAME BEHIND-WEEKS START SECONDS: $tmp/NAME.log from gen_capture
# (dates BEHIND-WEEKS early) and the true labels in $tmp/NAME.expected.
capture() {
	"$gen" -b "$2" "$3" "$4" >"$tmp/$1.log"
	"$gen" -e "$3" "$4" >"$tmp/$1.expected"
}

run_built() {
	bin=$built
	run "$@"
	rc=$?
	bin=$gpsphcd
	return $rc
}

# The build instant of $built, as the captures' "# Built:" comments say it.
built_utc=$(date -u -d "@$built_at" +%Y-%m-%dT%H:%M:%SZ)

echo "TAP version 13"
echo "1..$(($(ls "$here"/captures/*.log | wc -l) + 35))"
for log in "$here"/captures/*.log; do
	name=$(basename "$log" .log)
	opts=$(sed -n 's/^# Replay: gpsphcd --replay [^ ]* *//p' "$log")
	at=$(sed -n 's/^# Built: *//p' "$log")
	if [ -z "$at" ]; then
		# shellcheck disable=SC2086
		run "$name" "$here/captures/$name.expected" $opts
	elif [ "$at" = "$built_utc" ]; then
		# shellcheck disable=SC2086
		run_built "$name" "$here/captures/$name.expected" $opts
	else
		echo "# $name.log wants gpsphcd built at $at, the test build is $built_utc"
		false
	fi
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

# The message of a rollover correction says how far and why.
run_built built-day-ahead-rollover-2026 \
	"$here/captures/built-day-ahead-rollover-2026.expected" &&
	grep -q "its RMC says 2007-04-18T09:00:00Z, before the era pivot 2026-06-04T12:00:00Z (the build date less 26 weeks), and no honest receiver reads earlier than that; labelled 2026-12-02T09:00:00Z, 1024 weeks (19.6 years) later" "$tmp/err"
ok $? "rollover correction: how far it moved the time, and why"

# --not-before is exact (the admin's word) and in replay replaces the
# build date: a receiver at 2026-01-01, before the build less its slack,
# is taken as it is after --not-before 2025-12-31 ...
capture nb 0 1767225600 3
run_built "$tmp/nb.log" "$tmp/nb.expected" --not-before 2025-12-31
ok $? "--not-before replaces the build date in replay"

# ... and a receiver before --not-before is moved 1024 weeks.
"$built" --replay "$here/captures/built-hours-ahead-2026.log" \
	--leapfile "$leap" --not-before 2026-12-04 >"$tmp/out" 2>"$tmp/err"
head -n 1 "$tmp/out" | grep -qx "1000000000000 2415596437 2046-07-19T07:00:00Z 37"
ok $? "--not-before is an exact floor"

# --state.  A time is saved only after the labels have been consistent
# for 15 minutes: a short replay writes nothing, and says why.
run garmin-rollover-2021 "$here/captures/garmin-rollover-2021.expected" \
	--not-before 2021-01-01 --state "$tmp/state" &&
	[ ! -e "$tmp/state" ] && [ ! -e "$tmp/state.tmp" ] &&
	grep -q "state file $tmp/state not written: the labels were consistent for 5 s, a time is saved only after 900 s" "$tmp/err"
ok $? "--state: a short replay saves nothing, and says why"

# A saved time is a floor less 26 weeks: the 2021 state lifts the 2016
# capture's dates by 1024 weeks.
printf 'gpsphcd-state 1\nlast_good_tai 1635033639\nlast_good_utc 2021-10-24T00:00:02Z\n' \
	>"$tmp/state"
"$gpsphcd" --replay "$here/captures/ublox-leap-2016.log" --leapfile "$leap" \
	--not-before 2016-01-01 --state "$tmp/state" >"$tmp/out" 2>"$tmp/err"
head -n 1 "$tmp/out" | grep -qx "5000000000000 2102544033 2036-08-16T23:59:56Z 37"
ok $? "--state raises the pivot above an old capture"

# A state file carried between runs, by the gpsphcd built at
# 2026-12-03T12:00:00Z.  Run 1, a day later: 15 minutes and 5 s of an
# honest receiver, each edge labelled with its own time; the last label
# is saved, atomically.
day1=$((built_at + 86400))
capture day1 0 $day1 905
rm -f "$tmp/state"
run_built "$tmp/day1.log" "$tmp/day1.expected" --state "$tmp/state" &&
	grep -qx "last_good_tai $((day1 + 904 + 37))" "$tmp/state" &&
	grep -qx "last_good_utc 2026-12-04T12:15:04Z" "$tmp/state" &&
	[ ! -e "$tmp/state.tmp" ]
ok $? "state carried, run 1: an honest receiver as itself for 15 min, the last label saved"

# trust_s (gpsphc.conf(5), --trust-s) shortens the 15 minutes: 40 s of
# an honest receiver are saved after 30, not after 60.
capture short 0 $day1 40
rm -f "$tmp/state.short"
run_built "$tmp/short.log" "$tmp/short.expected" --state "$tmp/state.short" --trust-s 30 &&
	grep -qx "last_good_tai $((day1 + 39 + 37))" "$tmp/state.short" &&
	grep -qx "last_good_utc 2026-12-04T12:00:39Z" "$tmp/state.short"
ok $? "--trust-s 30: 40 s of consistent labels, the last one saved"
rm -f "$tmp/state.short"
run_built "$tmp/short.log" "$tmp/short.expected" --state "$tmp/state.short" --trust-s 60 &&
	[ ! -e "$tmp/state.short" ] &&
	grep -q "state file $tmp/state.short not written: the labels were consistent for 39 s, a time is saved only after 60 s" "$tmp/err"
ok $? "--trust-s 60: 40 s of consistent labels save nothing, and say why"

# Run 2, two days later, a receiver with the rollover bug: the saved time
# less 26 weeks is the pivot, and the message says so.  A short run leaves
# the file as it was.
cp "$tmp/state" "$tmp/state.run1"
capture later 1024 $((day1 + 2 * 86400)) 5
run_built "$tmp/later.log" "$tmp/later.expected" --state "$tmp/state" &&
	grep -q "before the era pivot 2026-06-05T12:15:04Z (the state file's last-good time less 26 weeks)" "$tmp/err" &&
	cmp -s "$tmp/state" "$tmp/state.run1"
ok $? "state carried, run 2: the saved time is the pivot, the file is kept"

# Run 3: an honest receiver a day before the saved time (a saved time
# ahead of the truth) is within the slack and labelled as itself.
capture earlier 0 $((day1 - 86400)) 5
run_built "$tmp/earlier.log" "$tmp/earlier.expected" --state "$tmp/state"
ok $? "state carried, run 3: an honest receiver a day before the saved time is not moved"

# A state file in which an older gpsphcd saved the 2046 warp (it labelled
# the 07:00:04Z receiver 1024 weeks late): not believed, said with what to
# do, the receiver labelled as itself, and the file rewritten once the
# labels have been consistent for 15 minutes; the next run is quiet.
printf 'gpsphcd-state 1\nlast_good_tai 2415596441\nlast_good_utc 2046-07-19T07:00:04Z\n' \
	>"$tmp/state"
run_built built-hours-ahead-2026 \
	"$here/captures/built-hours-ahead-2026.expected" --state "$tmp/state" &&
	grep -q "state file $tmp/state says the last good time was 2046-07-19T07:00:04Z, 19.6 years after the build date 2026-12-03T12:00:00Z: not believed" "$tmp/err" &&
	grep -q "delete it now" "$tmp/err" &&
	grep -q "pass --not-before YYYY-MM-DD" "$tmp/err" &&
	grep -qx "last_good_tai 2415596441" "$tmp/state"
ok $? "older gpsphcd's 2046 state: not believed, honest labels, a short run keeps the file"

start=$((built_at - 5 * 3600))
capture long 0 $start 905
run_built "$tmp/long.log" "$tmp/long.expected" --state "$tmp/state" &&
	grep -qx "last_good_tai $((start + 904 + 37))" "$tmp/state"
ok $? "older gpsphcd's 2046 state: rewritten after 15 min of consistent labels"

run_built built-hours-ahead-2026 \
	"$here/captures/built-hours-ahead-2026.expected" --state "$tmp/state" &&
	! grep -q "not believed" "$tmp/err"
ok $? "older gpsphcd's 2046 state: the next run is quiet"

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

# The leap data is tzdata 2026f's list (expires 2027-06-28), as is the
# built-in table: no expiry warning for today's labels, nor for 2024's.
run gn-faults-2024 "$here/captures/gn-faults-2024.expected" \
	--not-before 2024-01-01
! grep -q "expired" "$tmp/err"
ok $? "no expiry warning while the data is current"

run_built built-hours-ahead-2026 \
	"$here/captures/built-hours-ahead-2026.expected" &&
	! grep -q "expired" "$tmp/err"
ok $? "no expiry warning on 2026-12-03 with tzdata 2026f's list"

# An older list (its own fixture, tzdata 2025b, expired 2026-06-28) gives
# way to the newer built-in table, and says so.
run_built built-hours-ahead-2026 \
	"$here/captures/built-hours-ahead-2026.expected" \
	--leapfile "$here/data/leap-seconds-2025b.list" &&
	grep -q "leap-seconds-2025b.list expires before the built-in table (2027-06-28T00:00:00Z): using the built-in table" "$tmp/err" &&
	! grep -q "expired" "$tmp/err"
ok $? "an expired leap-seconds.list gives way to the built-in table"

# Labels past the expiry of the leap data: one loud warning, labels go on.
run garmin-2038-rollover "$here/captures/garmin-2038-rollover.expected" \
	--not-before 2038-11-01 --guard 3 &&
	[ "$(grep -c "WARNING: leap-second data (leap-seconds.list) expired 2027-06-28T00:00:00Z and it is now 2038-11-20T23:59:39Z" "$tmp/err")" -eq 1 ]
ok $? "labels past the expiry: one warning, labels go on"

# Coarse mode: each switch is said once on stderr, with the reason.
run coarse-pps-lost-2025 "$here/captures/coarse-pps-lost-2025.expected" \
	--not-before 2025-01-01 &&
	[ "$(grep -c ": coarse mode, " "$tmp/err")" -eq 1 ] &&
	grep -qx "gpsphcd: no PPS edge for 600 s: coarse mode, the first sentence of each second stands in for the edge (millisecond accuracy); check the PPS wiring (DCD, or the GPIO line pps_gpio names)" "$tmp/err" &&
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

# The kernel's count, as --record writes it: "P <ns> <second>", "S <ns>
# - <sentence>" for a sentence it did not count. The same capture with
# the count written out labels the same.
awk '/^P / { if (!t0) t0 = $2; printf "P %s %d\n", $2, int(($2 - t0) / 1e9 + 0.5); next }
     /^S / { $2 = $2 " -" } { print }' \
	"$here/captures/ublox-leap-2016.log" >"$tmp/counted.log"
run "$tmp/counted.log" "$here/captures/ublox-leap-2016.expected" \
	--not-before 2016-01-01
ok $? "capture with the kernel's count written out: the same labels"

# An on-time edge the kernel did not count ("P <ns> -", a glitch 300 ms
# after an edge) is no edge: the labels are the same.
awk '/^P 5003000000039 / { print "P 5002300000000 -" } { print }' \
	"$tmp/counted.log" >"$tmp/glitch.log"
run "$tmp/glitch.log" "$here/captures/ublox-leap-2016.expected" \
	--not-before 2016-01-01 &&
	grep -q "^P 5002300000000 -$" "$tmp/glitch.log"
ok $? "an edge the kernel did not count is not labelled"

# The guard counts seconds by the kernel's count, not by timestamps: from
# the fourth edge on the kernel numbers every edge a second further than
# the timestamps say (it counted a pulse as missed; written by hand here),
# so the receiver's labels are a jump of -1 s, held for three edges.
awk '/^P / && $3 >= 3 { $3 = $3 + 1 } { print }' "$tmp/counted.log" >"$tmp/skip.log"
"$gpsphcd" --replay "$tmp/skip.log" --leapfile "$leap" --not-before 2016-01-01 \
	>"$tmp/out" 2>"$tmp/err"
grep -q "TIME JUMP HELD: the receiver says 2016-12-31T23:59:59Z (TAI 1483228835) but the running time is 2016-12-31T23:59:60Z (TAI 1483228836), -1 s" "$tmp/err" &&
	grep -q "TIME JUMP ACCEPTED after 3 consistent edges: now 2017-01-01T00:00:00Z (TAI 1483228837), running time was TAI 1483228838 (-1 s)" "$tmp/err" &&
	! grep -q "^500[34]0000000[35][92] " "$tmp/out" &&
	grep -qx "5005000000065 1483228837 2017-01-01T00:00:00Z 37" "$tmp/out"
ok $? "the guard extrapolates by the kernel's count of seconds"

printf 'P 1000 12x\n' >"$tmp/badcount.log"
"$gpsphcd" --replay "$tmp/badcount.log" --leapfile "$leap" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "badcount.log:1: the kernel's count is not a second's number or \"-\"" "$tmp/err"
ok $? "a malformed count is rejected with its line number"

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

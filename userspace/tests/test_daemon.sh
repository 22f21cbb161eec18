#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# gpsphcd as a service runs it, without a tty or a kernel: the
# configuration file (--config, gpsphc.conf(5)) and its errors, options
# over the file, and the log priorities on stderr (journald's "<N>"
# prefix, -q, -v). TAP output.
#
# GPSPHCD: path of the gpsphcd binary (default ../build/gpsphcd).

ksft_skip=4
here=$(cd "$(dirname "$0")" && pwd)
gpsphcd=${GPSPHCD:-$here/../build/gpsphcd}
leap=$here/data/leap-seconds.list
cap=$here/captures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ ! -x "$gpsphcd" ]; then
	echo "1..0 # SKIP $gpsphcd not built (make -C userspace check)"
	exit $ksft_skip
fi

. "$here/tap.sh"


# replay NAME EXPECTED ARGS...: the capture replays to EXPECTED, exactly.
replay() {
	name=$1
	want=$2
	shift 2
	"$gpsphcd" --replay "$cap/$name.log" --leapfile "$leap" "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] || { echo "# exit $rc"; sed 's/^/#   /' "$tmp/err"; }
	if ! cmp -s "$want" "$tmp/out"; then
		echo "# stdout differs from $want"
		diff "$want" "$tmp/out" | head -n 5 | sed 's/^/#   /'
		rc=1
	fi
	return $rc
}

echo "TAP version 13"
echo "1..24"

# --- the configuration file ------------------------------------------------
conf=$tmp/ttyS0.conf
printf '# receiver on ttyS0\nbaud = 9600\nbauds = 4800\n' >"$conf"
refused "gpsphcd: $conf:3: unknown key \"bauds\": the keys are baud, edge, pps_gpio, servo, clock_servo, scale, offset, window, margin, guard, step_ns, confirm_n, rx_latency_ns, nmea_pty, trust_s, metrics, metrics_interval (see gpsphc.conf(5))" \
	--config "$conf" /dev/null
ok $? "config: unknown key refused, naming file:line"

printf 'baud = 9600\n\nconfirm_n = 0\n' >"$conf"
refused "gpsphcd: $conf:3: confirm_n \"0\" must be a whole number 1..60 (default 3)" \
	--config "$conf" /dev/null
ok $? "config: value out of range refused, naming file:line"

printf 'step_ns = 1000\nstep_ns = 2000\n' >"$conf"
refused "gpsphcd: $conf:2: step_ns given again (first on line 1): keep one" \
	--config "$conf" /dev/null
ok $? "config: a key given twice refused"

printf 'edge rising\n' >"$conf"
refused "gpsphcd: $conf:1: \"edge rising\" is not \"key = value\" (comments start with '#')" \
	--config "$conf" /dev/null
ok $? "config: a line without = refused"

mkdir "$tmp/dir.conf"
refused "gpsphcd: cannot read the configuration file $tmp/dir.conf: Is a directory" \
	--config "$tmp/dir.conf" /dev/null
ok $? "config: unreadable file refused with the reason"

head -c 70000 /dev/zero | tr '\0' '#' >"$conf"
refused "gpsphcd: $conf is over 65536 bytes: not a gpsphc.conf(5) file" \
	--config "$conf" /dev/null
ok $? "config: oversized file refused"

# The option's own message, as without a file.
printf 'baud = 9600\n' >"$conf"
refused "gpsphcd: --step-ns \"999\" must be whole nanoseconds, 1000..1000000000 (default 20000000)" \
	--config "$conf" --step-ns 999 /dev/null
ok $? "--step-ns out of range refused"

refused "gpsphcd: --scale \"gps\" must be tai (the PTP timescale) or utc" \
	--scale gps /dev/null
ok $? "--scale other than tai or utc refused"

refused "gpsphcd: --clock-servo \"linreg\" must be bank (the default) or pi (linuxptp's PI servo)" \
	--clock-servo linreg /dev/null
ok $? "--clock-servo other than bank or pi refused"

refused "gpsphcd: --pps-gpio \"GPIO 18\" must be CHIP:OFFSET (a gpiochip's label or gpiochipN, and the line's number on it), a line name (e.g. GPIO18) or none, without blanks, at most 63 bytes" \
	--pps-gpio "GPIO 18" /dev/null
ok $? "--pps-gpio with a blank refused"

refused "gpsphcd: --baud \"9601\" is not a standard rate (1200..921600, e.g. 9600)" \
	--baud 9601 /dev/null
ok $? "--baud refused with its old message"

# The association settings of the file and of the options, checked together.
printf 'window = 600\nmargin = 500\n' >"$conf"
refused "gpsphcd: ambiguity margin 500000000 ns is outside [0, 0.5 s): use e.g. 100 ms" \
	--config "$conf" /dev/null
ok $? "config: an association setting out of range refused"

# The service passes /etc/gpsphc/%i.conf whether the admin wrote it or not.
replay ublox-leap-2016 "$cap/ublox-leap-2016.expected" --not-before 2016-01-01 \
	--config "$tmp/no-such.conf" &&
	grep -qx "gpsphcd: no configuration file $tmp/no-such.conf: the command line and the defaults apply (see gpsphc.conf(5))" "$tmp/err"
ok $? "config: a missing file is no error, and says so"

# A file's setting applies: a 1 ms window labels nothing of this capture...
printf '# too narrow\nwindow = 1\n' >"$conf"
"$gpsphcd" --replay "$cap/ublox-leap-2016.log" --leapfile "$leap" \
	--not-before 2016-01-01 --config "$conf" >"$tmp/out" 2>"$tmp/err"
! cmp -s "$cap/ublox-leap-2016.expected" "$tmp/out" &&
	grep -q "outside the 1 ms window" "$tmp/err" &&
	grep -q "replay of .*: 0 edges labelled" "$tmp/err"
ok $? "config: the file's window applies"

# ... and the option overrides it: the capture's labels again.
replay ublox-leap-2016 "$cap/ublox-leap-2016.expected" --not-before 2016-01-01 \
	--config "$conf" --window 400
ok $? "config: --window overrides the file's window"

# The capture's own --guard 3, given by the file instead.
printf 'guard = 3\n' >"$conf"
replay garmin-2038-rollover "$cap/garmin-2038-rollover.expected" \
	--not-before 2038-11-01 --config "$conf"
ok $? "config: guard from the file replays like --guard"

printf 'guard = 1\n' >"$conf"
"$gpsphcd" --replay "$cap/garmin-2038-rollover.log" --leapfile "$leap" \
	--not-before 2038-11-01 --config "$conf" >"$tmp/out" 2>"$tmp/err"
! cmp -s "$cap/garmin-2038-rollover.expected" "$tmp/out"
ok $? "config: guard = 1 from the file changes the labels"

printf 'baud = 4800\nedge = falling\nservo = off\nclock_servo = pi\nscale = utc\nstep_ns = 1000000\nconfirm_n = 5\nrx_latency_ns = 0\n' >"$conf"
replay ublox-leap-2016 "$cap/ublox-leap-2016.expected" --not-before 2016-01-01 \
	--config "$conf"
ok $? "config: the live-mode keys are accepted and leave a replay alone"

# --- log priorities -----------------------------------------------------------
# stderr is "the journal" when $JOURNAL_STREAM names its device and inode.
journal() {
	: >"$tmp/jerr"
	JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/jerr") "$gpsphcd" "$@" \
		>"$tmp/out" 2>>"$tmp/jerr"
}

journal --replay "$cap/coarse-no-pps-2025.log" --leapfile "$leap" \
	--not-before 2025-01-01
grep -q '^<4>gpsphcd: no PPS edge in the first ' "$tmp/jerr" &&
	grep -q '^<6>gpsphcd: replay of ' "$tmp/jerr" &&
	! grep -v '^<[0-7]>gpsphcd: ' "$tmp/jerr" | grep -q .
ok $? "journal: every line carries its priority (<4> warning, <6> info)"

JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/out") "$gpsphcd" \
	--replay "$cap/coarse-no-pps-2025.log" --leapfile "$leap" \
	--not-before 2025-01-01 >/dev/null 2>"$tmp/err"
! grep -q '^<' "$tmp/err" && grep -q '^gpsphcd: replay of ' "$tmp/err"
ok $? "journal: no prefix when \$JOURNAL_STREAM is another file"

journal --replay "$cap/ublox-leap-2016.log" --leapfile /no/such/file \
	--not-before 2016-01-01 --bogus
grep -q '^usage: gpsphcd' "$tmp/jerr"
ok $? "journal: the usage text stays plain"

"$gpsphcd" -q --replay "$cap/coarse-no-pps-2025.log" --leapfile "$leap" \
	--not-before 2025-01-01 >"$tmp/out" 2>"$tmp/err"
grep -q 'gpsphcd: no PPS edge in the first ' "$tmp/err" &&
	! grep -q 'replay of ' "$tmp/err" &&
	cmp -s "$cap/coarse-no-pps-2025.expected" "$tmp/out"
ok $? "-q: warnings stay, information goes, labels unchanged"

"$gpsphcd" --quiet --replay "$cap/garmin-rollover-2021.log" --leapfile "$leap" \
	--not-before 2021-01-01 >"$tmp/out" 2>"$tmp/err"
grep -q "1024 weeks early" "$tmp/err" && ! grep -q 'replay of ' "$tmp/err"
ok $? "--quiet keeps the rollover warning"

"$gpsphcd" --help | grep -q -- "--print-labels" &&
	"$gpsphcd" --help | grep -q -- "--config FILE" &&
	"$gpsphcd" --help | grep -q -- "--clock-servo bank|pi" &&
	"$gpsphcd" --help | grep -q -- "--pps-gpio LINE" &&
	"$gpsphcd" --help | grep -q -- "-q, --quiet"
ok $? "--help lists --config, --print-labels, --clock-servo, --pps-gpio, -q and -v"

echo "# $((n - fail)) passed, $fail failed"
[ $fail -eq 0 ]

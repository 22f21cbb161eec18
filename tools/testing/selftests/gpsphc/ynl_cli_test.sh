#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's YNL command line client (tools/net/ynl/cli.py of
# linux-source-6.12) against the gpsphc family, driven by its YAML spec:
# the admin guide's commands (Documentation/admin-guide/gpsphc.rst), word
# for word (lint.sh's ynl_check compares them), on a fake UART's tty: dump
# and do dev-get, do dev-set, and the events while a simulated receiver
# pulses and talks. Then what the kernel says of the family (nlctrl, read
# by the same client) against the spec: version, commands and their
# admin-perm flags; and what an unprivileged caller gets.
ksft_skip=4
port=1
tty=ttyGPSSIM$port
SIM_CTL=/sys/kernel/debug/gpsphc_sim/$tty
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/receiver.sh"
# Where the test VM has the kernel tree's YNL tools and gpsphc's sources
# (tools/testing/vm/ynl.sh guest).
KSRC=/usr/src/linux
GPSPHC_SRC=/usr/src/gpsphc
# The VM's init puts only busybox's directories on the PATH.
PATH=$PATH:/usr/bin

command -v python3 >/dev/null || { echo "ok 1 ynl_cli # SKIP no python3"; exit $ksft_skip; }
[ -x "$KSRC/tools/net/ynl/cli.py" ] || { echo "ok 1 ynl_cli # SKIP no $KSRC/tools/net/ynl"; exit $ksft_skip; }
[ -d "$SIM_CTL" ] || { echo "ok 1 ynl_cli # SKIP gpsphc_sim not loaded"; exit $ksft_skip; }

# The admin guide's commands, as written there.
guide_commands() {
	cat <<'EOF'
cd linux/tools/net/ynl
cp /path/to/gpsphc/Documentation/netlink/specs/gpsphc.yaml ../../../Documentation/netlink/specs/
spec=../../../Documentation/netlink/specs/gpsphc.yaml
./cli.py --spec $spec --dump dev-get
./cli.py --spec $spec --do dev-get --json '{"tty": "ttyS0"}'
./cli.py --spec $spec --do dev-set --json '{"id": 0, "edge": "falling"}'
./cli.py --spec $spec --subscribe events --sleep 5
EOF
}

# guide WORDS: the guide's command holding WORDS, with this machine's
# kernel tree, gpsphc sources, tty and device id for the guide's examples.
guide() {
	guide_commands | grep -F -e "$1" | sed -e "s|^cd linux/|cd $KSRC/|" \
		-e "s|/path/to/gpsphc/|$GPSPHC_SRC/|" -e "s|\"ttyS0\"|\"$tty\"|" \
		-e "s|\"id\": 0,|\"id\": $id,|"
}

work=$(mktemp -d)
cleanup() {
	[ -n "${sim:-}" ] && kill "$sim" 2>/dev/null && wait "$sim"
	[ -n "${hold:-}" ] && kill "$hold" 2>/dev/null && wait "$hold"
	echo 0 >"$SIM_CTL/pulse_enable"
	rm -rf "$work"
}
trap cleanup EXIT

# run NAME WORDS: run the guide's command holding WORDS, its output in
# $work/NAME; the command line and the output's head go to the log.
run() {
	c=$(guide "$2")
	echo "# $c"
	eval "$c" >"$work/$1" 2>&1
	r=$?
	head -n 12 "$work/$1" | sed 's/^/#   /'
	return $r
}

# has NAME TEXT: the output of NAME holds TEXT.
has() { grep -q -F -e "$2" "$work/$1"; }

tap_n=0
fails=0
echo "TAP version 13"
echo "1..11"

"$dir/attach_hold" /dev/$tty >"$work/hold.err" 2>&1 &
hold=$!
i=0
while [ -z "$(gpsphc_dev)" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
dev=$(gpsphc_dev)
id=${dev##*gpsphc}
check "attached" test -n "$dev"

eval "$(guide 'cd linux/')"
eval "$(guide 'cp /path/to/gpsphc/')"
eval "$(guide 'spec=')"
check "spec_beside_the_kernel_specs" test -f "$spec" -a -f ../../../Documentation/netlink/genetlink-legacy.yaml

run dump '--dump dev-get'
check "dump_dev_get" has dump "'tty': '$tty'"
run get '--do dev-get'
check "do_dev_get_by_tty" has get "'id': $id,"

run set '--do dev-set'
check "do_dev_set_edge_falling" test $? -eq 0 -a "$(cat "$dev/edge")" = falling

# Events for five seconds: the pulse generator's edges and an RMC after
# each rising one, for as long as the client takes to start (seconds, on
# the VM's emulated CPU) and listen.
echo 0 >"$SIM_CTL/pulse_ppb"
echo 1 >"$SIM_CTL/pulse_enable"
receiver 60 &
sim=$!
run events '--subscribe events'
kill "$sim" && wait "$sim"
sim=
echo 0 >"$SIM_CTL/pulse_enable"
grep -m1 -B9 "'name': 'sentence-ntf'" "$work/events" | sed 's/^/#   /'
check "events_pps_ntf" has events "'name': 'pps-ntf'"
check "events_sentence_ntf" has events "'name': 'sentence-ntf'"

# The family as the kernel registered it, against the spec: version, the
# commands, and which of them are admin-perm (CAP_NET_ADMIN, checked by
# generic netlink), read with the same client and the kernel's nlctrl spec.
python3 - "$spec" ../../../Documentation/netlink/specs/nlctrl.yaml >"$work/ctrl" 2>&1 <<'EOF'
import sys, yaml
from lib import YnlFamily
spec = yaml.safe_load(open(sys.argv[1]))
fam = YnlFamily(sys.argv[2]).do('getfamily', {'family-name': spec['name']})
# ops: an indexed array, [{index: {'id': cmd, 'flags': {...}}}, ...]
kernel = {op['id']: 'admin-perm' in op['flags']
          for entry in fam['ops'] for op in entry.values()}
want, value = {}, 0
for op in spec['operations']['list']:
    value = op.get('value', value)
    if 'do' in op or 'dump' in op:
        want[value] = 'admin-perm' in op.get('flags', [])
    value += 1
print('version', fam['version'], 'spec', spec.get('version', 1))
print('admin-perm by command: kernel', kernel, 'spec', want)
ok = fam['version'] == spec.get('version', 1) and kernel == want
sys.exit(0 if ok else 1)
EOF
r=$?
sed 's/^/# /' "$work/ctrl"
check "kernel_family_matches_spec" test $r -eq 0

# Unprivileged: dev-get works, dev-set and the events are refused.
nobody() {
	su -s /bin/sh nobody -c "cd $PWD && spec=$spec && $1" >"$work/$2" 2>&1
}
nobody "$(guide '--dump dev-get')" nobody_dump
check "nobody_dump_dev_get" has nobody_dump "'tty': '$tty'"
nobody "$(guide '--do dev-set')" nobody_set
r=$?
sed 's/^/# /' "$work/nobody_set" | tail -n 3
check "nobody_dev_set_eperm" test $r -ne 0 -a "$(cat "$dev/edge")" = falling
nobody "$(guide '--subscribe events' | sed 's/--sleep 5/--sleep 1/')" nobody_events
r=$?
tail -n 1 "$work/nobody_events" | sed 's/^/# /'
check "nobody_events_eperm" test $r -ne 0

[ $fails -eq 0 ]

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check gpsphcd's Prometheus metrics against gpsphcd --status --json.

    metrics_status_check.py STATUS.json METRICS.prom

Every device of the JSON that has series in the metrics (by its tty label)
must have each value the JSON has, exactly (integers; the seconds and
ratio metrics are nanoseconds and ppb with the decimal point moved), and
every gpsphc_ series of the metrics must come from a JSON key (or be one
of gpsphcd's own, which the JSON does not have). Exit 0 if so; else one
line per difference on stdout, and 1.

The same mapping is what gpsphcd(8) documents: a servo counter KEY is
gpsphc_servo_KEY_total, a stats counter KEY gpsphc_KEY_total.
"""
import json
import re
import sys
from decimal import Decimal

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')
# gpsphcd's own series: not in --status
DAEMON = {'gpsphc_pps_last_edge_timestamp_seconds', 'gpsphc_events_lost_total',
          'gpsphc_event_socket_overflows_total', 'gpsphc_ptp4l_clock_class'}
# servo keys that are not counters: metric, and how the JSON value maps
SERVO_GAUGES = {
    'offset_ns': ('gpsphc_servo_offset_seconds', 'nano'),
    'rms_ns': ('gpsphc_servo_offset_rms_seconds', 'nano'),
    'freq_ppb': ('gpsphc_servo_frequency_adjustment_ratio', 'nano'),
    'tai_utc': ('gpsphc_tai_offset_seconds', 'int'),
    'leap_utc': ('gpsphc_leap_second_timestamp_seconds', 'int'),
    'holdover_s': ('gpsphc_servo_holdover_seconds', 'int'),
    'coarse': ('gpsphc_servo_coarse', 'bool'),
    'off_phase_count': ('gpsphc_off_phase_pulses', 'int'),
    'off_phase_ns': ('gpsphc_off_phase_offset_seconds', 'nano'),
}
LEAP = {'insert': 1, 'delete': -1}
STATES = ('unlocked', 'locking', 'locked', 'holdover', 'off')


def unescape(v):
    return re.sub(r'\\(.)', lambda m: '\n' if m.group(1) == 'n' else m.group(1), v)


def parse(text):
    """{(name, frozenset(labels)): Decimal}"""
    series = {}
    for line in text.splitlines():
        if not line or line.startswith('#'):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise ValueError('not a sample: %r' % line)
        labels = frozenset((k, unescape(v)) for k, v in LABEL.findall(m.group(2) or ''))
        series[(m.group(1), labels)] = Decimal(m.group(3))
    return series


def expected(dev):
    """The series the JSON of one device implies: {(name, extra labels): value}."""
    want = {}
    sv = dev['servo']
    want[('gpsphc_device_info', (('pps', dev['pps']), ('ptp', dev['ptp'])))] = 1
    for s in STATES:
        want[('gpsphc_servo_state', (('state', s),))] = int(sv['state'] == s)
    want[('gpsphc_leap_second_pending', ())] = LEAP.get(sv['leap'], 0)
    for key, v in sv.items():
        if key in ('state', 'leap'):
            continue
        if key in SERVO_GAUGES:
            name, kind = SERVO_GAUGES[key]
            want[(name, ())] = (Decimal(v).scaleb(-9) if kind == 'nano' else int(v))
        else:
            want[('gpsphc_servo_%s_total' % key, ())] = v
    for key, v in dev['stats'].items():
        want[('gpsphc_%s_total' % key, ())] = v
    return want


def check(status, metrics):
    errors = []
    have = parse(metrics)
    ttys = {dict(l).get('tty') for (_, l) in have}
    seen = set()
    for dev in status['devices']:
        tty = dev['tty']
        if tty not in ttys:
            continue
        for (name, extra), v in expected(dev).items():
            key = (name, frozenset(extra + (('tty', tty),)))
            seen.add(key)
            if key not in have:
                errors.append('%s: %s%s missing' % (tty, name, dict(extra) or ''))
            elif have[key] != Decimal(v):
                errors.append('%s: %s%s is %s, --status says %s' %
                              (tty, name, dict(extra) or '', have[key], v))
    for key in have:
        if key not in seen and key[0] not in DAEMON:
            errors.append('%s%s: no --status key says this' % (key[0], dict(key[1])))
    if not seen:
        errors.append('no device of --status has series in the metrics')
    return errors


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        status = json.load(f)
    with open(sys.argv[2]) as f:
        metrics = f.read()
    errors = check(status, metrics)
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == '__main__':
    main()

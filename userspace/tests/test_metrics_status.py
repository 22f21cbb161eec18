#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The metrics say what gpsphcd --status --json says, series by series:
random dev-get replies (metrics_pair, a seed each) through both, checked
by metrics_status_check.py, the same check the appliance runs against
node_exporter's scrape. TAP on stdout."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics_status_check as msc  # noqa: E402

PAIR = os.environ.get('METRICS_PAIR', 'build/metrics_pair')
SEEDS = range(1, 201)


def main():
    print('TAP version 13')
    print('1..3')
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        js, prom = os.path.join(d, 's.json'), os.path.join(d, 'm.prom')
        bad = []
        for seed in SEEDS:
            subprocess.run([PAIR, str(seed), js, prom], check=True)
            with open(js) as f, open(prom) as g:
                errs = msc.check(json.load(f), g.read())
            if errs:
                bad.append((seed, errs))
        ok = not bad
        print('%s 1 - %d random replies: metrics and --status --json agree' %
              ('ok' if ok else 'not ok', len(SEEDS)))
        for seed, errs in bad[:3]:
            print('# seed %d: %s' % (seed, '; '.join(errs[:5])))
        failed += not ok
        # the check itself catches a difference
        subprocess.run([PAIR, '1', js, prom], check=True)
        with open(prom) as g:
            text = g.read().replace('gpsphc_servo_steps_total{tty=', 'gpsphc_servo_stepz_total{tty=')
        with open(js) as f:
            errs = msc.check(json.load(f), text)
        ok = any('steps_total' in e and 'missing' in e for e in errs) and \
            any('stepz' in e for e in errs)
        print('%s 2 - a renamed series is caught both ways' % ('ok' if ok else 'not ok'))
        failed += not ok
        # the file as gpsphcd leaves it: 0644 under its UMask=0077, no
        # temporary file beside it
        os.umask(0o077)
        os.unlink(prom)
        subprocess.run([PAIR, '2', js, prom], check=True)
        mode = os.stat(prom).st_mode & 0o777
        ok = mode == 0o644 and sorted(os.listdir(d)) == ['m.prom', 's.json']
        print('%s 3 - written 0644 under umask 077, nothing left beside it (mode %o, %s)' %
              ('ok' if ok else 'not ok', mode, sorted(os.listdir(d))))
        failed += not ok
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

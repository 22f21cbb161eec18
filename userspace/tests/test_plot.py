#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""gpsphc-plot renders tests/data/plot-sim.rec (a recording's V lines,
made by the generator in its header) to a PNG of the size asked, with the
axes, bands and holdover it says it drew, and tests/data/plot-vm.rec (the
guide's example, recorded on the test VM) with its own bands; without matplotlib it names the
package to install; gpsphcd --replay takes the same recording (it skips V
lines). TAP on stdout; skipped without python3-matplotlib."""
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT = os.path.join(HERE, '..', 'gpsphc-plot')
REC = os.path.join(HERE, 'data', 'plot-sim.rec')
# A real recording of the test VM's simulated receiver: the guide's image
VM_REC = os.path.join(HERE, 'data', 'plot-vm.rec')
with open(PLOT) as _f:
    PY = _f.readline()[2:].strip()
GPSPHCD = os.environ.get('GPSPHCD', os.path.join(HERE, '..', 'build', 'gpsphcd'))

n = 0
failed = 0


def ok(cond, what, more=''):
    global n, failed
    n += 1
    failed += not cond
    print('%s %d - %s' % ('ok' if cond else 'not ok', n, what))
    if not cond and more:
        print('# ' + str(more).replace('\n', '\n# '))


def png_size(path):
    with open(path, 'rb') as f:
        head = f.read(24)
    if head[:8] != b'\x89PNG\r\n\x1a\n' or head[12:16] != b'IHDR':
        return None
    return struct.unpack('>II', head[16:24])


def main():
    print('TAP version 13')
    # the tool runs with its own interpreter (its #! line, Debian's python3)
    if subprocess.run([PY, '-c', 'import matplotlib'], capture_output=True).returncode:
        print('1..0 # SKIP no python3-matplotlib (tools/testing/vm/deps.sh installs it)')
        return 0
    print('1..7')
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, 'plot.png')
        r = subprocess.run([PY, PLOT, '--size', '800x500', '-o', out,
                            '--describe', REC], capture_output=True, text=True)
        ok(r.returncode == 0, 'renders the recording', r.stderr)
        desc = json.loads(r.stdout) if r.returncode == 0 else {}
        size = png_size(out) if os.path.exists(out) else None
        ok(size == (800, 500) and desc.get('size_px') == [800, 500] and
           10000 < os.path.getsize(out) < 300000,
           'a PNG of 800x500 pixels, 10..300 KB', (size, desc.get('size_px')))
        axes = desc.get('axes', [])
        want = [('', 'offset (ns)', 'symlog'),
                ('time since the recording began (min)', 'frequency (ppb)', 'linear')]
        got = [(a['xlabel'], a['ylabel'], a['yscale']) for a in axes]
        ok(got == want and all(a['lines'] == 1 and a['xlim'][0] == 0 and
                               6.9 < a['xlim'][1] < 7.1 for a in axes),
           'two axes: offset (symlog) and frequency against minutes, 0..7', axes)
        states = [b['state'] for b in desc.get('bands', [])]
        hold = [b for b in desc.get('bands', []) if b['state'] == 'holdover']
        ok(states == ['unlocked', 'locking', 'locked', 'holdover', 'locking', 'locked'] and
           desc.get('holdovers') == 1 and len(hold) == 1 and
           299 < hold[0]['start_s'] < 301 and 362 < hold[0]['end_s'] < 364,
           'state bands in order, one holdover from 300 s to 363 s', states)
        # the guide's example, from the VM: its bands as the recording has them
        r = subprocess.run([PY, PLOT, '-o', os.path.join(d, 'vm.png'), '--describe',
                            VM_REC], capture_output=True, text=True)
        desc = json.loads(r.stdout) if r.returncode == 0 else {}
        states = [b['state'] for b in desc.get('bands', [])]
        ok(r.returncode == 0 and desc.get('samples') == 265 and desc.get('holdovers') == 1 and
           states == ['unlocked', 'locking', 'locked', 'locking', 'holdover', 'locking',
                      'locked'],
           'the guide\'s VM recording: 265 samples, its bands, one holdover',
           (r.stderr, desc.get('samples'), states))
        # without matplotlib: the package to install, and status 3
        fake = os.path.join(d, 'nompl', 'matplotlib')
        os.makedirs(fake)
        with open(os.path.join(fake, '__init__.py'), 'w') as f:
            f.write('raise ImportError("no matplotlib")\n')
        r = subprocess.run([PY, PLOT, '-o', out, REC], capture_output=True,
                           text=True, env=dict(os.environ, PYTHONPATH=os.path.dirname(fake)))
        ok(r.returncode == 3 and 'apt-get install python3-matplotlib' in r.stderr,
           'without matplotlib: says apt-get install python3-matplotlib', r.stderr)
        if os.access(GPSPHCD, os.X_OK):
            r = subprocess.run([GPSPHCD, '--replay', REC], capture_output=True, text=True)
            ok(r.returncode == 0, 'gpsphcd --replay skips the V lines', r.stderr)
        else:
            ok(True, 'gpsphcd --replay skips the V lines # SKIP %s not built' % GPSPHCD)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

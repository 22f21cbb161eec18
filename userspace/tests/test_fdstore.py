#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""gpsphcd and systemd's file descriptor store, on the host: what it says
on a fake $NOTIFY_SOCKET and what it does with a tty passed back to it
($LISTEN_FDS, $LISTEN_FDNAMES), on pseudo-terminals.

The host has no gpsphc module, so gpsphcd runs with --ldisc 27 (N_NULL,
built into Debian's kernels): it attaches that discipline, then stops at
the missing netlink family (exit 1) and goes down its error path. What is
checked is the fd store around that: the tty stored once after an attach
(FDSTORE=1, FDNAME=tty, the tty's fd), taken back instead of attached
again when it comes with the discipline still on it, released when it is
another tty, and taken out of the store (FDSTOREREMOVE=1) with the
discipline detached when gpsphcd fails. READY=1 never comes: no clock.
What needs the module (READY, STATUS, a stop that leaves the clock to the
store) is the VM's part. TAP output; needs root (TIOCSETD 27) and N_NULL.
"""
import array
import fcntl
import os
import socket
import struct
import subprocess
import sys
import tempfile

GPSPHCD = os.environ.get("GPSPHCD", os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "build", "gpsphcd"))
LEAP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                    "leap-seconds.list")
TIOCGETD, TIOCSETD = 0x5424, 0x5423
N_TTY, N_NULL = 0, 27
# run() puts a stored fd here for sh to move to 3 (sh's redirections take
# one digit). Held on /dev/null in between (main()), so that no fd of the
# test's own, its notify socket say, is ever given this number and then
# overwritten: the numbers it gets depend on the fds it inherited.
STORED_FD = 9
n = fail = 0


def ok(cond, desc, why=""):
    global n, fail
    n += 1
    print(("ok %d %s" if cond else "not ok %d %s") % (n, desc))
    if not cond:
        fail += 1
        for line in str(why).splitlines():
            print("#   " + line)


def ldisc(fd):
    buf = array.array("i", [0])
    fcntl.ioctl(fd, TIOCGETD, buf, True)
    return buf[0]


def set_ldisc(fd, ld):
    fcntl.ioctl(fd, TIOCSETD, struct.pack("i", ld))


def pty():
    """A pseudo-terminal: (master fd, slave fd, slave path)."""
    m, s = os.openpty()
    return m, s, os.ttyname(s)


def run(tmp, device, stored=None, name="tty", notify=True, extra=()):
    """gpsphcd --ldisc 27 DEVICE, with @stored as its fd 3 named @name:
    (exit status, stderr, [(message, [fds])] sent to $NOTIFY_SOCKET)."""
    path = os.path.join(tmp, "notify")
    if os.path.exists(path):
        os.unlink(path)
    sk = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sk.bind(path)
    env = dict(os.environ)
    for k in ("NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
              "JOURNAL_STREAM"):
        env.pop(k, None)
    if notify:
        env["NOTIFY_SOCKET"] = path
    # sh puts the stored tty on fd 3 and exec's gpsphcd with its own pid
    # as LISTEN_PID, as systemd does.
    script = 'exec "$@"'
    pass_fds = ()
    if stored is not None:
        os.dup2(stored, STORED_FD)
        pass_fds = (STORED_FD,)
        script = ('exec 3<&%d %d<&-; LISTEN_PID=$$ LISTEN_FDS=1 '
                  'LISTEN_FDNAMES=%s exec "$@"' % (STORED_FD, STORED_FD, name))
    p = subprocess.run(["sh", "-c", script, "sh", GPSPHCD, "--ldisc", "27",
                        "--state", os.path.join(tmp, "state"),
                        "--leapfile", LEAP] + list(extra) + [device],
                       env=env, pass_fds=pass_fds, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=20, text=True)
    if stored is not None:
        hold_stored_fd()
    msgs = []
    sk.setblocking(False)
    while True:
        try:
            data, anc, _, _ = sk.recvmsg(4096, socket.CMSG_SPACE(16))
        except BlockingIOError:
            break
        fds = []
        for level, kind, cdata in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += array.array("i", cdata[:len(cdata) - len(cdata) % 4])
        msgs.append((data.decode(), fds))
    sk.close()
    return p.returncode, p.stderr, msgs


def hold_stored_fd():
    null = os.open(os.devnull, os.O_RDONLY)
    if null != STORED_FD:
        os.dup2(null, STORED_FD, inheritable=False)
        os.close(null)


def same_tty(fd, path):
    return os.fstat(fd).st_rdev == os.stat(path).st_rdev


def close_all(msgs):
    for _, fds in msgs:
        for fd in fds:
            os.close(fd)


def main():
    print("TAP version 13")
    hold_stored_fd()
    if os.geteuid() != 0:
        print("1..0 # SKIP needs root (TIOCSETD)")
        return 0
    if not os.path.exists(GPSPHCD):
        print("1..0 # SKIP %s not built" % GPSPHCD)
        return 0
    m, s, dev = pty()
    try:
        set_ldisc(s, N_NULL)
        set_ldisc(s, N_TTY)
    except OSError as e:
        print("1..0 # SKIP no N_NULL line discipline here (%s)" % e)
        return 0
    print("1..18")
    tmp = tempfile.mkdtemp()

    # A. A fresh attach under systemd: the tty goes to the store once,
    # and out again when gpsphcd fails; the discipline is detached.
    rc, err, msgs = run(tmp, dev)
    texts = [t for t, _ in msgs]
    ok(rc == 1 and 'no "gpsphc" netlink family' in err,
       "attach, then no gpsphc family: exit 1, said", err)
    ok(texts == ["FDSTORE=1\nFDNAME=tty", "FDSTOREREMOVE=1\nFDNAME=tty"],
       "the tty stored after the attach, removed on the error path", texts)
    ok(len(msgs) == 2 and len(msgs[0][1]) == 1 and
       same_tty(msgs[0][1][0], dev), "the fd stored is the tty itself",
       msgs)
    ok(ldisc(s) == N_TTY, "the discipline is detached on the error path")
    ok(not any("READY=1" in t for t in texts), "no READY=1 without a clock")
    close_all(msgs)

    # B. The tty comes back from the store with the discipline on it: it
    # is taken over, not refused and not stored again.
    set_ldisc(s, N_NULL)
    stored = os.open(dev, os.O_RDWR | os.O_NOCTTY)
    rc, err, msgs = run(tmp, dev, stored=stored)
    texts = [t for t, _ in msgs]
    ok(rc == 1 and "already has line discipline" not in err and
       'no "gpsphc" netlink family' in err,
       "a stored tty with the discipline on it is taken over", err)
    ok(texts == ["FDSTOREREMOVE=1\nFDNAME=tty"],
       "not stored twice; taken out of the store on the error path", texts)
    ok(ldisc(s) == N_TTY, "and detached")
    close_all(msgs)
    os.close(stored)

    # Without the store, the same tty is another program's: refused.
    set_ldisc(s, N_NULL)
    rc, err, msgs = run(tmp, dev)
    ok(rc == 4 and "already has line discipline 27 (gpsphc) attached" in err and
       not msgs and ldisc(s) == N_NULL,
       "without the store, a tty with a discipline is refused (exit 4)", err)
    set_ldisc(s, N_TTY)
    close_all(msgs)

    # C. The store holds another tty: released, and this one attached.
    m2, s2, dev2 = pty()
    rc, err, msgs = run(tmp, dev, stored=s2)
    texts = [t for t, _ in msgs]
    ok("the tty kept in the file descriptor store is not %s" % dev in err
       and texts[:2] == ["FDSTOREREMOVE=1\nFDNAME=tty",
                         "FDSTORE=1\nFDNAME=tty"] and
       same_tty(msgs[1][1][0], dev),
       "a stored tty of another device is released, the right one stored",
       "%s\n%s" % (err, texts))
    close_all(msgs)

    # An fd of another name is not taken for the tty.
    set_ldisc(s, N_NULL)
    stored = os.open(dev, os.O_RDWR | os.O_NOCTTY)
    rc, err, msgs = run(tmp, dev, stored=stored, name="other")
    ok(rc == 4 and "already has line discipline 27 (gpsphc) attached" in err,
       "a passed fd not named tty is ignored", err)
    set_ldisc(s, N_TTY)
    os.close(stored)
    close_all(msgs)

    # D. Without systemd: nothing to notify, the same attach and detach.
    rc, err, msgs = run(tmp, dev, notify=False)
    ok(rc == 1 and not msgs and ldisc(s) == N_TTY,
       "without $NOTIFY_SOCKET: attach, error, detach", err)

    # The store's lock is the stored tty's: a second gpsphcd that opens
    # the device itself is refused while the store holds it.
    held = os.open(dev, os.O_RDWR | os.O_NOCTTY)
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    rc, err, msgs = run(tmp, dev)
    ok(rc == 4 and "is locked by another process" in err,
       "a tty locked by the store's copy is refused to a new open", err)
    rc, err, msgs2 = run(tmp, dev, stored=held)
    ok(rc == 1 and "locked" not in err,
       "but the stored copy itself takes its own lock again", err)
    close_all(msgs + msgs2)
    os.close(held)

    # E. nmea_pty: its pty master goes to the store before the attach
    # (FDNAME=nmea_pty), and a gpsphcd that finds it there takes it
    # over: neither stored again nor closed for a stale descriptor.
    link = os.path.join(tmp, "nmea")
    rc, err, msgs = run(tmp, dev, extra=("--nmea-pty", link))
    texts = [t for t, _ in msgs]
    ok(rc == 1 and texts == ["FDSTORE=1\nFDNAME=nmea_pty",
                             "FDSTORE=1\nFDNAME=tty",
                             "FDSTOREREMOVE=1\nFDNAME=tty"],
       "nmea_pty: the pty stored before the tty, kept on the error path",
       "%s\n%s" % (err, texts))
    ptn = array.array("i", [0])
    ok(len(msgs[0][1]) == 1 and
       fcntl.ioctl(msgs[0][1][0], 0x80045430, ptn, True) == 0,  # TIOCGPTN
       "the fd stored is a pty master", msgs)
    master = os.dup(msgs[0][1][0])
    close_all(msgs)
    rc, err, msgs = run(tmp, dev, stored=master, name="nmea_pty",
                        extra=("--nmea-pty", link))
    texts = [t for t, _ in msgs]
    ok(rc == 1 and texts == ["FDSTORE=1\nFDNAME=tty",
                             "FDSTOREREMOVE=1\nFDNAME=tty"],
       "a stored pty is taken over, not stored again", "%s\n%s" % (err, texts))
    ok("is not %s" % dev not in err and os.isatty(os.open(
        "/dev/pts/%d" % ptn[0], os.O_RDWR | os.O_NOCTTY)),
       "and not mistaken for a stale tty; its slave still opens", err)
    close_all(msgs)
    os.close(master)

    for fd in (m, s, m2, s2):
        os.close(fd)
    print("# %d passed, %d failed" % (n - fail, fail))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())

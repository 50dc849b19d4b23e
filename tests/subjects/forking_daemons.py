#!/usr/bin/env python3
"""A correct sinusoidal encoder served with the Python package's serve (which declares fork),
whose forked copies each start a daemon on their first request.

Every process it makes leaves a file in $PECHECK_TEST_PROCESS_DIR, named for what it is and its
pid: start-PID as the script starts (the zygote, once per start-up), copy-PID as a forked copy
answers its first request, daemon-PID for the process that copy then starts: a sleeper that
leaves the process group (setsid) and double-forks away from its parent, as daemons do. A test
checks that pecheck started the script once however many jobs and fresh copies it used, and that
no copy and no daemon outlives the run. With PECHECK_TEST_DAEMON_EXEC=1 the sleeper exec's
/bin/sleep with an empty environment (no marker of pecheck's or the zygote's to find it by, and
out of every process group pecheck knows): only a subreaper catches it (issue 39).
"""
import os
import sys
import time

from plain_sinusoid import sinusoid_rows

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

from pecheck_subject import serve  # noqa: E402

DIR = os.environ.get("PECHECK_TEST_PROCESS_DIR")
_started = []


def mark(kind, pid):
    if DIR:
        with open(os.path.join(DIR, f"{kind}-{pid}"), "w"):
            pass


def start_daemon():
    if os.fork() != 0:
        os.wait()  # the middle process exits at once: the sleeper is an orphan
        return
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    mark("daemon", os.getpid())
    if os.environ.get("PECHECK_TEST_DAEMON_EXEC") == "1":
        os.execve("/bin/sleep", ["sleep", "3600"], {})
    time.sleep(3600)
    os._exit(0)


def encode(dim, positions, seq_len):
    if not _started:
        _started.append(True)
        mark("copy", os.getpid())
        start_daemon()
    return sinusoid_rows(dim, positions)


if __name__ == "__main__":
    mark("start", os.getpid())
    serve("forking-daemons", "float64", encode=encode, layout="interleaved")

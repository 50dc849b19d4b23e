#!/usr/bin/env python3
"""Subjects that break the protocol, one per mode (the first argument).

Each answers hello correctly (unless the mode is about hello) and serves a
correct sinusoidal encoder, then misbehaves on its first real request (or
later, where a mode says so: crash-later N crashes on request N). pecheck must end each run with exit code 3,
within the timeout, with its reports naming what went wrong.

Standard library only; the raw protocol is spoken here on purpose (the
adapter would never produce these faults).

If PECHECK_TEST_PIDFILE is set, the subject writes its pid there first, so a
test can check that pecheck left no process behind. The modes escape and
daemon start a process that leaves the subject's process group (setsid) and
sleeps, writing its pid to PECHECK_TEST_GRANDCHILD_PIDFILE: escape keeps the
subject's pipes open, daemon double-forks and detaches from them, as daemons
do. Both serve correctly otherwise; pecheck must kill and reap the escaped
process when the subject stops.
"""
import base64
import json
import os
import signal
import struct
import sys
import time

from plain_sinusoid import sinusoid_rows

MODE = sys.argv[1] if len(sys.argv) > 1 else ""
MODES = (
    "crash-after-hello", "killed", "exit-quietly", "hang", "hang-before-hello", "garbage", "wrong-id",
    "wrong-shape", "not-numbers", "flood-stderr", "flood-stdout", "bad-hello", "silent-close", "crash-later",
    "crash-while-shrinking", "duplicate-id", "overflow", "escape", "daemon", "nul-garbage", "bom",
    "b64le-undeclared",
)
# crash-later: serves correctly, then crashes on request number CRASH_AT (the second argument).
CRASH_AT = int(sys.argv[2]) if len(sys.argv) > 2 else 150


def send(payload):
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


def encode(dim, positions):
    return sinusoid_rows(dim, positions)


def escape(detach):
    """Starts a sleeper outside the subject's process group (see the docstring)."""
    pidfile = os.environ.get("PECHECK_TEST_GRANDCHILD_PIDFILE")
    if os.fork() != 0:
        if detach:
            os.wait()  # the middle process exits at once: the sleeper is an orphan
        return
    os.setsid()
    if detach:
        if os.fork() != 0:
            os._exit(0)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
    if pidfile:
        with open(pidfile + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(pidfile + ".tmp", pidfile)
    time.sleep(3600)
    os._exit(0)


def main():
    if MODE not in MODES:
        sys.exit(f"usage: misbehaving.py {{{'|'.join(MODES)}}}")
    if os.environ.get("PECHECK_TEST_PIDFILE"):
        with open(os.environ["PECHECK_TEST_PIDFILE"], "w") as f:
            f.write(str(os.getpid()))
    if MODE == "hang-before-hello":
        time.sleep(3600)
    if MODE in ("escape", "daemon"):
        escape(MODE == "daemon")
    served = 0
    violated = False
    for line in sys.stdin:
        request = json.loads(line)
        rid, op = request["id"], request["op"]
        if op == "hello":
            if MODE == "bad-hello":
                send({"id": rid, "result": {"protocol": 3, "name": "future", "ops": ["encode"], "dtype": "float64"}})
            elif MODE == "b64le-undeclared":
                # Version 2, declaring no array encoding besides JSON numbers.
                send({"id": rid, "result": {"protocol": 2, "name": "misbehaving-b64le-undeclared", "ops": ["encode"],
                                            "dtype": "float64", "arrays": []}})
            else:
                send({"id": rid, "result": {"protocol": 1, "name": f"misbehaving-{MODE}", "ops": ["encode"],
                                            "dtype": "float64", "layout": "interleaved"}})
            continue
        if op == "shutdown":
            send({"id": rid, "result": None})
            return
        served += 1
        result = encode(request["dim"], request["positions"])
        if MODE == "crash-later" and served == CRASH_AT:
            sys.stderr.write(f"planted crash on request {rid} after {served - 1} good answers\n")
            sys.stderr.flush()
            os._exit(70)
        if MODE == "crash-while-shrinking":
            # Out of bounds (a violation) at large positions; dies at the small
            # positions that shrinking tries next. The crash must be reported
            # as a subject failure, never as a shrunk violation.
            small = any(t <= 5 for t in request["positions"])
            if small and violated:
                sys.stderr.write("planted crash at a small position\n")
                sys.exit(3)
            if not small:
                violated = True
                result = [[5.0] * request["dim"] for _ in request["positions"]]
        if MODE == "crash-after-hello":
            sys.stderr.write("Traceback (most recent call last):\n  File \"model.py\", line 7, in encode\n"
                             "RuntimeError: planted crash on the first request\n")
            sys.stderr.flush()
            sys.exit(1)
        if MODE == "killed":
            sys.stderr.write("about to be killed, as by the OOM killer\n")
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        if MODE == "exit-quietly":
            sys.exit(0)
        if MODE == "silent-close":
            os.close(1)  # closes stdout but keeps running
            time.sleep(3600)
        if MODE == "hang":
            sys.stderr.write(f"hanging on request {rid}\n")
            sys.stderr.flush()
            time.sleep(3600)
        if MODE == "garbage":
            sys.stdout.buffer.write(b"loading weights... \x1b[31mdone\x1b[0m \xff\xfe not json\n")
            sys.stdout.flush()
            continue
        if MODE == "duplicate-id":
            # The right id last: a reader keeping the last value of a key would take it.
            text = json.dumps({"id": rid + 1, "result": result})
            sys.stdout.write(text[:-1] + f', "id": {rid}}}\n')
            sys.stdout.flush()
            continue
        if MODE == "overflow":
            sys.stderr.write("planted overflow: a float128 value written as text\n")
            sys.stderr.flush()
            result[0][0] = "OVERFLOW"
            text = json.dumps({"id": rid, "result": result})
            sys.stdout.write(text.replace('"OVERFLOW"', "1e400") + "\n")  # beyond any double
            sys.stdout.flush()
            continue
        if MODE == "nul-garbage":
            # A JSON reader that stops at the NUL would take the answer and ignore the rest.
            sys.stdout.buffer.write(json.dumps({"id": rid, "result": result}).encode() + b"\0garbage\n")
            sys.stdout.flush()
            continue
        if MODE == "bom":
            sys.stdout.buffer.write(b"\xef\xbb\xbf" + json.dumps({"id": rid, "result": result}).encode() + b"\n")
            sys.stdout.flush()
            continue
        if MODE == "b64le-undeclared":
            flat = [v for row in result for v in row]
            data = base64.b64encode(struct.pack(f"<{len(flat)}d", *flat)).decode()
            send({"id": rid, "result": {"b64le": data, "dtype": "float64", "shape": [len(result), len(result[0])]}})
            continue
        if MODE == "wrong-id":
            send({"id": rid + 1, "result": result})
            continue
        if MODE == "wrong-shape":
            send({"id": rid, "result": [row[:-1] for row in result]})
            continue
        if MODE == "not-numbers":
            send({"id": rid, "result": [["zero"] + row[1:] for row in result]})
            continue
        if MODE == "flood-stderr":
            # Megabytes of log per request: pecheck must keep draining (a full
            # stderr pipe would block this process) and keep only the tail.
            sys.stderr.write(("log line that nobody reads " * 40 + "\n") * 2000)
            sys.stderr.flush()
            if served == 5:
                sys.stderr.write("final words before the crash\n")
                sys.stderr.flush()
                sys.exit(1)
        if MODE == "flood-stdout":
            chunk = b"1," * (1 << 19)
            for _ in range(80):  # 80 MiB without a newline
                sys.stdout.buffer.write(chunk)
            sys.stdout.flush()
            time.sleep(3600)
        send({"id": rid, "result": result})


main()

#!/usr/bin/env python3
"""Subjects for the hostile pass (tests/hostile/pass.py), one per mode (the first argument).

    proxy BUILTIN PARAMS   `pecheck serve BUILTIN` (a correct built-in) behind a hello rewritten to
                           protocol 2 with `params` = PARAMS (a JSON text, or @FILE): how a real subject
                           declares hostile shapes, scalings and conventions while answering correctly
    MODE                   a sinusoidal encoder that misbehaves as MODE says (MODES below)

Standard library only; the raw protocol is spoken on purpose (no adapter would produce these faults).
"""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "subjects"))
from plain_sinusoid import sinusoid_rows  # noqa: E402

MODE = sys.argv[1] if len(sys.argv) > 1 else ""


def send_text(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def proxy(builtin, params_text):
    if params_text.startswith("@"):
        with open(params_text[1:], encoding="utf-8", errors="surrogateescape") as f:
            params_text = f.read()
    served = subprocess.Popen([os.environ["PECHECK_BIN"], "serve", builtin], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    for line in sys.stdin:
        served.stdin.write(line)
        served.stdin.flush()
        answer = served.stdout.readline()
        if not answer:
            break
        request = json.loads(line)
        if request.get("op") == "hello":
            reply = json.loads(answer)
            reply["result"]["protocol"] = 2
            reply["result"].pop("params", None)  # replaced by PARAMS
            reply["result"].pop("fork", None)  # the built-in's copies would answer hello without PARAMS
            # Spliced as text: PARAMS may hold what json.loads refuses (NaN, 1e999, duplicate keys).
            body = json.dumps(reply["result"])
            answer = body[:-1] + ', "params": ' + params_text + "}"
            answer = json.dumps({"id": reply["id"]})[:-1] + ', "result": ' + answer + "}\n"
        sys.stdout.write(answer)
        sys.stdout.flush()
        if request.get("op") == "shutdown":
            break
    served.stdin.close()
    served.wait()


def encode(dim, positions):
    return sinusoid_rows(dim, positions)


HELLO = {"protocol": 1, "name": "hostile", "ops": ["encode"], "dtype": "float64", "layout": "interleaved"}


def sleeper(detach, empty_env):
    """A sleeper out of our process group; detach: double-forked away with /dev/null for pipes."""
    if os.fork() != 0:
        if detach:
            os.wait()
        return
    os.setsid()
    if detach:
        if os.fork() != 0:
            os._exit(0)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
    if empty_env:
        os.execve("/bin/sleep", ["sleep", "300"], {})
    time.sleep(300)
    os._exit(0)


def serve_misbehaving():
    served = 0
    for line in sys.stdin:
        request = json.loads(line)
        rid, op = request["id"], request["op"]
        if op == "hello":
            if MODE == "hello-nan":
                # Protocol 2 (version 1 ignores fields it does not know, as version 1 subjects expect).
                send_text('{"id": %d, "result": {"protocol": 2, "name": "x", "ops": ["encode"], "dtype": "float64", '
                          '"params": {"encode": {"amplitude": NaN}}}}' % rid)
                continue
            if MODE == "hello-huge":
                send_text(json.dumps({"id": rid, "result": dict(HELLO, name="x" * (64 << 20))}))
                continue
            if MODE == "hello-deep":
                send_text('{"id": %d, "result": ' % rid + "[" * 200000 + "]" * 200000 + "}")
                continue
            if MODE == "hello-array":
                send_text(json.dumps({"id": rid, "result": [1, 2]}))
                continue
            if MODE == "hello-twice":
                send_text(json.dumps({"id": rid, "result": HELLO}))
            if MODE == "hello-ops-bogus":
                send_text(json.dumps({"id": rid, "result": dict(HELLO, ops=["encode", "frobnicate", 7])}))
                continue
            if MODE == "hello-dtype-int8":
                send_text(json.dumps({"id": rid, "result": dict(HELLO, dtype="int8")}))
                continue
            if MODE == "hello-protocol-99":
                send_text(json.dumps({"id": rid, "result": dict(HELLO, protocol=99)}))
                continue
            if MODE == "hello-slow":
                time.sleep(1.5)  # inside a --subject-timeout of 3 s
            send_text(json.dumps({"id": rid, "result": HELLO}))
            continue
        if op == "shutdown":
            send_text(json.dumps({"id": rid, "result": None}))
            break
        served += 1
        if op != "encode":
            send_text(json.dumps({"id": rid, "error": "encode only"}))
            continue
        rows = encode(request["dim"], request["positions"])
        if MODE == "partial-exit":
            sys.stdout.write(json.dumps({"id": rid, "result": rows})[:20])
            sys.stdout.flush()
            os._exit(0)
        if MODE == "partial-hang":
            sys.stdout.write(json.dumps({"id": rid, "result": rows})[:20])
            sys.stdout.flush()
            time.sleep(300)
        if MODE == "close-stdout-live":
            os.close(1)
            time.sleep(300)
        if MODE == "ignore-term-hang":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(300)
        if MODE == "stop-self":
            os.kill(os.getpid(), signal.SIGSTOP)
        if MODE == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        if MODE == "exec-sleep":
            os.execv("/bin/sleep", ["sleep", "300"])
        if MODE == "daemon-empty-env" and served == 1:
            sleeper(detach=True, empty_env=True)
        if MODE == "escape-empty-env" and served == 1:
            sleeper(detach=False, empty_env=True)
        if MODE == "many-children" and served == 1:
            for _ in range(20):
                if os.fork() == 0:
                    time.sleep(300)
                    os._exit(0)
        if MODE == "answer-huge":
            send_text(json.dumps({"id": rid, "result": [[0.5] * 4096] * 4096}))
            continue
        if MODE == "answer-infinity":
            send_text('{"id": %d, "result": [[Infinity]]}' % rid)
            continue
        if MODE == "answer-1e400":
            send_text('{"id": %d, "result": %s}' % (rid, json.dumps(rows).replace("0.", "1e400", 1)))
            continue
        if MODE == "answer-null":
            send_text(json.dumps({"id": rid, "result": None}))
            continue
        if MODE == "answer-string-numbers":
            send_text(json.dumps({"id": rid, "result": [[str(v) for v in row] for row in rows]}))
            continue
        if MODE == "answer-error-object":
            send_text(json.dumps({"id": rid, "error": {"nested": [1, 2, {"x": None}]}}))
            continue
        if MODE == "answer-wrong-id-later" and served > 3:
            send_text(json.dumps({"id": rid + 1000, "result": rows}))
            continue
        if MODE == "answer-both":
            send_text(json.dumps({"id": rid, "result": rows, "error": "and also an error"}))
            continue
        if MODE == "binary":
            sys.stdout.buffer.write(bytes(range(256)) * 64 + b"\n")
            sys.stdout.flush()
            continue
        if MODE == "lie-dtype":  # hello says float64; answers float16-rounded (a planted precision bug)
            import struct
            rows = [[struct.unpack("e", struct.pack("e", v))[0] for v in row] for row in rows]
        if MODE == "kill-parent" and served == 2:
            os.kill(os.getppid(), signal.SIGTERM)
        if MODE == "flood-then-answer":
            sys.stderr.write("x" * (8 << 20))
            sys.stderr.flush()
        send_text(json.dumps({"id": rid, "result": rows}))


if MODE == "proxy":
    proxy(sys.argv[2], sys.argv[3])
else:
    serve_misbehaving()

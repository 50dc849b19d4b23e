#!/usr/bin/env python3
"""Runs a Python subject that speaks protocol version 2, whatever adapter this checkout has.

    /usr/bin/python3 tests/subjects/serve_v2.py SCRIPT [ARGS...]

The module and bias subjects (examples/python/torch_encoder_layer.py,
torch_llama_block.py, numpy_alibi.py and their buggy twins here) call
pecheck_subject.serve with the version-2 keywords: bias=, forward=, decode=,
reset=, params=. The adapter in adapters/python gains them on another branch
(the protocol engineer's). Until it has them, this launcher puts a minimal
version-2 serve in its place before running SCRIPT, so the tests can drive
the subjects over stdin/stdout today; once adapters/python's serve accepts
forward=, it is used unchanged and this stand-in is dead code to delete.

The stand-in answers hello (protocol 2, the declared params), encode,
attention, rotate (seq_len passed when the request has one), bias, forward
(positions 0..N-1 and an all-true padding when the request omits them),
decode, reset and shutdown; an exception is a refusal, as in the adapter.
Standard library only.
"""
import inspect
import json
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "adapters", "python"))

import pecheck_subject  # noqa: E402


def _plain(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    return float(value)


def _forward_args(request):
    x = request["x"]
    n = len(x[0]) if x else 0
    positions = request.get("positions") or [list(range(n)) for _ in x]
    padding = request.get("padding") or [[True] * n for _ in x]
    return x, positions, padding


def _rotate_args(fn, request):
    if "seq_len" in request:
        return fn(request["positions"], request["x"], request["seq_len"])
    return fn(request["positions"], request["x"])


_CALLS = {
    "encode": lambda fn, r: fn(r["dim"], r["positions"], r["seq_len"]),
    "attention": lambda fn, r: fn(r["q"], r["k"], r["v"], r["mask"]),
    "rotate": _rotate_args,
    "bias": lambda fn, r: fn(r["n"], r["m"], r["head"]),
    "forward": lambda fn, r: fn(*_forward_args(r)),
    "decode": lambda fn, r: fn(r["session"], r["x"], r["position"]),
    "reset": lambda fn, r: fn(r["session"]),
}


def stand_in_serve(name, dtype, *, encode=None, attention=None, rotate=None, bias=None, forward=None,
                   decode=None, reset=None, layout=None, compute=None, params=None, batch=False,
                   stdin=None, stdout=None):
    given = {"encode": encode, "attention": attention, "rotate": rotate, "bias": bias, "forward": forward,
             "decode": decode, "reset": reset}
    handlers = {op: fn for op, fn in given.items() if fn is not None}
    hello = {"protocol": 2, "name": str(name), "ops": [op for op in handlers if op != "reset"], "dtype": dtype}
    if layout is not None:
        hello["layout"] = layout
    if compute:
        hello["compute"] = compute
    if params:
        hello["params"] = params
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print() must not corrupt the protocol stream

    def answer(payload):
        out.write(json.dumps(payload, separators=(",", ":"), default=_plain).encode("ascii") + b"\n")
        out.flush()

    for line in iter(inp.readline, b""):
        request = json.loads(line)
        rid, op = request.get("id"), request.get("op")
        if op == "hello":
            answer({"id": rid, "result": hello})
        elif op == "shutdown":
            answer({"id": rid, "result": None})
            return
        elif op in handlers:
            try:
                result = _CALLS[op](handlers[op], request)
                answer({"id": rid, "result": None if op == "reset" else result})
            except Exception as e:  # the subject refuses this input
                answer({"id": rid, "error": f"{type(e).__name__}: {e}"})
        else:
            answer({"id": rid, "error": f"unsupported op {op!r}"})


if "forward" not in inspect.signature(pecheck_subject.serve).parameters:
    pecheck_subject.serve = stand_in_serve

if len(sys.argv) < 2:
    sys.exit("usage: serve_v2.py SCRIPT [ARGS...]")
script = os.path.abspath(sys.argv[1])
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(script))
runpy.run_path(script, run_name="__main__")

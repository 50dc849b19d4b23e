#!/usr/bin/env python3
"""Checks the Python adapter (adapters/python/pecheck_subject.py) by itself.

Run by tests/test_protocol_v2_python.cpp; prints "ok" and exits 0 when every
check holds, else exits 1 naming the first that failed. Without pecheck: the
protocol is spoken through in-memory streams, so each check sees exactly the
lines the adapter writes.
  - serve() refuses, with ValueError, every declaration pecheck would refuse
    (unknown fields, values of the wrong type or out of range, params for an
    op not given), in pecheck's words (it asks `pecheck check-declarations`,
    found by PECHECK_BIN, which ctest sets), and accepts the honest ones;
  - a version-1 harness gets a version-1 hello, a version-2 one the v2 fields;
  - rotate gets seq_len only when the request carries one and it takes it;
  - forward gets the default positions and padding written out;
  - batches are answered item by item, an item failing alone;
  - b64le arrays are decoded for your functions (as lists) and NumPy results
    answered in b64le once pecheck speaks version 2, exactly.
"""
import base64
import io
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

import pecheck_subject  # noqa: E402
from pecheck_subject import serve  # noqa: E402


def converse(requests, **declaration):
    """Serves `requests` (dicts, or raw lines) and returns the answers as dicts."""
    lines = b"".join((r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in requests)
    out = io.BytesIO()
    name = declaration.pop("name", "selfcheck")
    dtype = declaration.pop("dtype", "float64")
    serve(name, dtype, stdin=io.BytesIO(lines), stdout=out, **declaration)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def check(condition, what):
    if not condition:
        sys.exit(f"adapter self-check failed: {what}")


def refused(what, **declaration):
    try:
        serve("x", declaration.pop("dtype", "float64"), stdin=io.BytesIO(b""), stdout=io.BytesIO(), **declaration)
    except ValueError as e:
        check(what in str(e), f"the ValueError says {what!r}: {e}")
        return
    check(False, f"serve({declaration}) raised no ValueError (expected {what!r})")


def identity(*args):
    return args[-1] if args else None


def rotate2(positions, x):
    return x


def b64(values, shape, dtype="float64"):
    fmt = "<%d%s" % (len(values), "d" if dtype == "float64" else "f")
    return {"b64le": base64.b64encode(struct.pack(fmt, *values)).decode(), "dtype": dtype, "shape": shape}


def validation():
    refused("dtype must be one of", dtype="double", encode=identity)
    refused("layout must be one of", encode=identity, layout="pairs")
    refused("needs at least one of")
    refused("must be a function", encode=3)
    refused("ops lists decode without reset: incremental decoding needs both", decode=identity)
    refused("compute.softmax: a field pecheck does not know", encode=identity, compute={"softmax": "float32"})
    refused("compute.angles must be one of", encode=identity, compute={"angles": "fp8"})
    refused("params.rotate.rope_theta: a field pecheck does not know", rotate=identity, params={"rotate": {"rope_theta": 5e5}})
    refused("params.logits: a field pecheck does not know", rotate=identity, params={"logits": {}})
    refused("the subject declares params.rotate but not the op rotate in ops", encode=identity, params={"rotate": {"base": 1e4}})
    refused("params.rotate.base must be a finite number > 0", rotate=identity, params={"rotate": {"base": 0}})
    refused("params.rotate.base must be a finite number > 0", rotate=identity, params={"rotate": {"base": "1e4"}})
    refused("params.rotate.base must be a finite number > 0", rotate=identity, params={"rotate": {"base": math.inf}})
    refused("params.rotate.rotary_dim must be even", rotate=identity, params={"rotate": {"rotary_dim": 63}})
    refused("params.rotate.rotary_dim must be an integer", rotate=identity, params={"rotate": {"rotary_dim": 64.0}})
    refused("params.rotate.rotary_dim must be an integer", rotate=identity, params={"rotate": {"rotary_dim": True}})
    refused("params.rotate.rotary_fraction must be a finite number in (0, 1]", rotate=identity,
            params={"rotate": {"rotary_fraction": 1.5}})
    refused("rotary_fraction and params.rotate.rotary_dim are both declared", rotate=identity,
            params={"rotate": {"rotary_dim": 64, "rotary_fraction": 0.5}})
    refused("params.rotate.scaling.type must be one of", rotate=identity,
            params={"rotate": {"scaling": {"type": "rope2", "factor": 2}}})
    refused("scaling type llama3 needs params.rotate.scaling.high_freq_factor", rotate=identity,
            params={"rotate": {"scaling": {"type": "llama3", "factor": 8, "low_freq_factor": 1,
                                           "original_max_position": 8192}}})
    refused("params.rotate.scaling.beta_fast: a field scaling type linear does not have", rotate=identity,
            params={"rotate": {"scaling": {"type": "linear", "factor": 2, "beta_fast": 32}}})
    refused("params.rotate.scaling.factor must be a finite number ≥ 1", rotate=identity,
            params={"rotate": {"scaling": {"type": "ntk", "factor": 0.5}}})
    refused("params.rotate.rotary_dim must be ≥ 4 for scaling type ntk", rotate=identity,
            params={"rotate": {"rotary_dim": 2, "scaling": {"type": "ntk", "factor": 2}}})
    refused("rotate must take (positions, x, seq_len)", rotate=rotate2,
            params={"rotate": {"scaling": {"type": "dynamic_ntk", "factor": 2, "original_max_position": 2048}}})
    refused("params.encode.schedule must be one of", encode=identity, params={"encode": {"schedule": "2i/h"}})
    refused("params.encode.position_offset must be an integer from 0 to", encode=identity,
            params={"encode": {"position_offset": -1}})
    refused("params.bias.heads is missing", bias=identity, params={"bias": {"scheme": "alibi"}})
    refused("params.bias.num_buckets is a field of scheme t5", bias=identity,
            params={"bias": {"scheme": "alibi", "heads": 8, "num_buckets": 32}})
    refused("params.bias.max_distance (8) must exceed", bias=identity,
            params={"bias": {"scheme": "t5", "heads": 8, "max_distance": 8}})
    refused("params.forward.positional must be one of", forward=identity, params={"forward": {"positional": "rope"}})
    refused("params.forward.causal must be true or false", forward=identity, params={"forward": {"causal": 1}})
    refused("the subject declares params.forward but not the op forward in ops", encode=identity, params={"forward": {"causal": True}})
    # Honest declarations are accepted (i/(h-1) included; forward params with decode alone).
    converse([], encode=identity, params={"encode": {"schedule": "i/(h-1)", "position_offset": 2}})
    converse([], decode=identity, reset=identity, params={"forward": {"causal": True, "width": 64}})
    converse([], rotate=identity, compute={"angles": "float32"}, dtype="bfloat16",
             params={"rotate": {"base": 500000, "rotary_dim": 64, "layout": "halves",
                                "scaling": {"type": "llama3", "factor": 8, "low_freq_factor": 1,
                                            "high_freq_factor": 4, "original_max_position": 8192}}})


def hellos():
    declaration = dict(rotate=identity, bias=identity, layout="halves", compute={"angles": "float32"},
                       params={"rotate": {"base": 500000}}, batch=True)
    v1 = converse([{"id": 0, "op": "hello", "protocol": 1}], **dict(declaration))[0]["result"]
    check(v1 == {"protocol": 1, "name": "selfcheck", "ops": ["rotate"], "dtype": "float64", "layout": "halves"},
          f"a version-1 hello has version-1 fields and ops only: {v1}")
    v2 = converse([{"id": 0, "op": "hello", "protocol": 2}], **dict(declaration))[0]["result"]
    want = {"protocol": 2, "name": "selfcheck", "ops": ["rotate", "bias"], "dtype": "float64", "layout": "halves",
            "compute": {"angles": "float32"}, "params": {"rotate": {"base": 500000}}, "batch": True,
            "arrays": ["b64le"], "fork": True}  # one thread here: it can fork fresh copies
    check(v2 == want, f"the version-2 hello: {v2}")
    os.environ["PECHECK_SUBJECT_B64LE"] = "0"
    try:
        plain = converse([{"id": 0, "op": "hello", "protocol": 2}], encode=identity)[0]["result"]
    finally:
        del os.environ["PECHECK_SUBJECT_B64LE"]
    check("arrays" not in plain, f"PECHECK_SUBJECT_B64LE=0 keeps to JSON numbers: {plain}")
    check(converse([{"id": 0, "op": "hello", "protocol": 2}], decode=identity, reset=identity)[0]["result"]["ops"] ==
          ["decode", "reset"], "decode and reset are listed together")


def calls():
    seen = []

    def rotate3(positions, x, seq_len=None):
        seen.append(("rotate3", seq_len))
        return x

    def rotate_v1(positions, x):
        seen.append(("rotate2",))
        return x

    def forward(x, positions, padding):
        seen.append(("forward", positions, padding))
        return [[[v * 2 for v in row] for row in seq] for seq in x]

    x = [[1.0, 2.0]]
    a = converse([{"id": 1, "op": "rotate", "positions": [3], "x": x, "seq_len": 9},
                  {"id": 2, "op": "rotate", "positions": [3], "x": x}], rotate=rotate3)
    check(a == [{"id": 1, "result": x}, {"id": 2, "result": x}], f"rotate answers: {a}")
    check(seen == [("rotate3", 9), ("rotate3", None)], f"seq_len passed exactly when the request carries it: {seen}")
    seen.clear()
    a = converse([{"id": 1, "op": "rotate", "positions": [3], "x": x, "seq_len": 9}], rotate=rotate_v1)
    check(seen == [("rotate2",)] and a == [{"id": 1, "result": x}],
          f"a two-argument (version-1) rotate is called with two arguments: {seen} {a}")
    seen.clear()
    out = converse([{"id": 3, "op": "forward", "x": [[[1.0], [2.0]], [[3.0], [4.0]]]}], forward=forward)
    check(seen == [("forward", [[0, 1], [0, 1]], [[True, True], [True, True]])],
          f"forward gets the defaults written out: {seen}")
    check(out == [{"id": 3, "result": [[[2.0], [4.0]], [[6.0], [8.0]]]}], f"forward's answer: {out}")
    cache = {}

    def decode(session, x, position):
        cache.setdefault(session, []).append(position)
        return [float(len(cache[session]))] * len(x)

    def reset(session):
        cache.pop(session, None)

    out = converse([{"id": 4, "op": "decode", "session": "s", "x": [1.0, 1.0], "position": 0},
                    {"id": 5, "op": "decode", "session": "s", "x": [1.0, 1.0], "position": 1},
                    {"id": 6, "op": "reset", "session": "s"},
                    {"id": 7, "op": "decode", "session": "s", "x": [1.0, 1.0], "position": 0},
                    {"id": 8, "op": "bias", "n": 1, "m": 1, "head": 0}], decode=decode, reset=reset)
    check(out == [{"id": 4, "result": [1.0, 1.0]}, {"id": 5, "result": [2.0, 2.0]}, {"id": 6, "result": None},
                  {"id": 7, "result": [1.0, 1.0]}, {"id": 8, "error": "unsupported op 'bias'"}],
          f"decode, reset, an op not given: {out}")
    out = converse([{"id": 9, "op": "encode", "dim": 1, "positions": [0], "seq_len": 1},
                    {"id": 10, "op": "encode", "dim": 1, "positions": [0], "seq_len": 1}],
                   encode=lambda dim, positions, seq_len: [[object()]] if dim else [])
    check(len(out) == 2 and out[0]["id"] == 9 and out[0]["error"].startswith("TypeError: object is not a number"),
          f"a result that cannot be written is refused, and serving goes on: {out}")


def batches():
    def bias(n, m, head):
        if head > 1:
            raise ValueError(f"no head {head}")
        return [[float(head * 10 + i - j) for j in range(m)] for i in range(n)]

    request = {"id": 9, "op": "batch", "requests": [{"op": "bias", "n": 1, "m": 2, "head": 1},
                                                    {"op": "bias", "n": 1, "m": 1, "head": 5},
                                                    {"op": "encode", "dim": 2, "positions": [0], "seq_len": 1},
                                                    {"op": "shutdown"}]}
    out = converse([request], bias=bias, batch=True)
    want = [{"id": 9, "result": [{"result": [[10.0, 9.0]]}, {"error": "ValueError: no head 5"},
                                 {"error": "unsupported op 'encode'"}, {"error": "unsupported op 'shutdown'"}]}]
    check(out == want, f"a batch answered item by item: {out}")
    out = converse([request], bias=bias)
    check(out == [{"id": 9, "error": "this subject did not declare batch"}], f"batch not declared: {out}")


def arrays():
    got = []

    def rotate(positions, x):
        got.append(x)
        return np.asarray(x) * 2

    x = b64([0.1, -0.0, 5e-324, math.inf], [2, 2])
    hello = {"id": 0, "op": "hello", "protocol": 2}
    out = converse([hello, {"id": 1, "op": "rotate", "positions": [0, 1], "x": x}], rotate=rotate)
    check(isinstance(got[0], list) and got[0][0] == [0.1, -0.0] and got[0][1] == [5e-324, math.inf],
          f"a b64le x reaches the function as lists of its exact values: {got}")
    answer = out[1]["result"]
    check(answer["dtype"] == "float64" and answer["shape"] == [2, 2], f"a float64 array answered in b64le: {answer}")
    values = struct.unpack("<4d", base64.b64decode(answer["b64le"]))
    check(values == (0.2, -0.0, 1e-323, math.inf), f"exactly: {values}")
    got.clear()
    out = converse([hello, {"id": 1, "op": "rotate", "positions": [0], "x": b64([0.5, 1.5], [1, 2], "float32")}],
                   rotate=lambda p, x: np.asarray(x, dtype=np.float16))
    check(out[1]["result"]["dtype"] == "float32", f"float16 answered as float32 (exact): {out[1]}")
    # Before a version-2 hello (or for lists), answers stay JSON numbers.
    out = converse([{"id": 0, "op": "hello", "protocol": 1},
                    {"id": 1, "op": "rotate", "positions": [0], "x": [[1.0, 2.0]]}], rotate=rotate)
    check(out[1]["result"] == [[2.0, 4.0]], f"a version-1 harness gets JSON numbers: {out[1]}")
    out = converse([hello, {"id": 1, "op": "rotate", "positions": [0], "x": [[1.0, 2.0]]}],
                   rotate=lambda p, x: x)
    check(out[1]["result"] == [[1.0, 2.0]], f"a list result stays JSON: {out[1]}")
    # A malformed b64le array is refused, not a crash.
    bad = dict(x)
    bad["b64le"] = bad["b64le"][:-4]
    out = converse([hello, {"id": 1, "op": "rotate", "positions": [0, 1], "x": bad}], rotate=rotate)
    check("error" in out[1] and "bytes" in out[1]["error"], f"a short b64le array is refused: {out[1]}")
    # Without NumPy the adapter still decodes b64le requests (array module).
    saved = pecheck_subject._np
    pecheck_subject._np = None
    try:
        check(pecheck_subject._from_b64le(b64([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1, 2, 3])) ==
              [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]], "b64le decoded without NumPy")
        check(pecheck_subject._from_b64le(b64([], [0, 3])) == [], "an empty b64le array")
    finally:
        pecheck_subject._np = saved


validation()
hellos()
calls()
batches()
arrays()
print("ok")

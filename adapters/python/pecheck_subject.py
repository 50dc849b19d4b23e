"""Serve a positional encoding, rotary embedding or attention to pecheck.

pecheck checks an implementation it did not build by starting it as a child
process and sending it requests, one JSON object per line (the subject
protocol, version 1: SUBJECT-PROTOCOL.md). This module runs that loop around
plain Python functions, so a subject is your function plus one call::

    from pecheck_subject import serve

    def encode(dim, positions, seq_len):
        ...                      # rows: one list (or array) of dim numbers per position

    serve("my-encoder", "float32", encode=encode)

and ``pecheck run --subject cmd:'python3 my_encoder.py'`` checks it.

Your functions receive lists (of ints, floats, lists) and may return lists of
lists or anything with ``.tolist()`` (NumPy arrays, PyTorch tensors). An
exception raised by your function is sent back as a refusal (pecheck counts
the input as discarded, e.g. an odd ``dim`` you do not support), not a crash.
While ``serve`` runs, ``print`` goes to stderr: stdout carries the protocol.

Standard library only.
"""

import json
import sys

PROTOCOL = 1
DTYPES = ("float64", "float32", "bfloat16", "float16")
LAYOUTS = ("interleaved", "halves")

__all__ = ["serve", "PROTOCOL", "DTYPES", "LAYOUTS"]


def _plain(value):
    """json.dumps fallback: arrays, tensors and their scalars as Python values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{type(value).__name__} is not a number or an array of numbers") from None


def _rows(value):
    # One .tolist() for a whole array is far faster than one per element.
    return value.tolist() if hasattr(value, "tolist") else value


def _call_encode(fn, request):
    return fn(request["dim"], request["positions"], request["seq_len"])


def _call_attention(fn, request):
    return fn(request["q"], request["k"], request["v"], request["mask"])


def _call_rotate(fn, request):
    return fn(request["positions"], request["x"])


_CALLERS = {"encode": _call_encode, "attention": _call_attention, "rotate": _call_rotate}


def serve(name, dtype, encode=None, attention=None, rotate=None, layout=None, *, stdin=None, stdout=None):
    """Answer pecheck's requests until it says shutdown (or closes stdin).

    name       what the subject calls itself in reports
    dtype      the precision your code computes in: float64, float32, bfloat16
               or float16 (pecheck's tolerances are derived from it: declare
               the precision you actually compute in)
    encode     encode(dim, positions, seq_len) -> len(positions) rows of dim
               numbers; row r encodes positions[r] in a sequence of seq_len
    attention  attention(q, k, v, mask) -> softmax(q kᵀ/√d_k + mask) v, one head;
               mask is "none", "causal" (query i sees keys 0..i) or an n×m list
               of booleans, True where query i MAY attend to key j
    rotate     rotate(positions, x) -> row r is R_{positions[r]} x[r]
    layout     "interleaved" or "halves", for encoders and rotaries that
               declare how their (sin, cos) pairs are laid out
    """
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if layout is not None and layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)} or None, got {layout!r}")
    handlers = {op: fn for op, fn in (("encode", encode), ("attention", attention), ("rotate", rotate)) if fn}
    if not handlers:
        raise ValueError("serve() needs at least one of encode=, attention=, rotate=")

    hello = {"protocol": PROTOCOL, "name": str(name), "ops": list(handlers), "dtype": dtype}
    if layout is not None:
        hello["layout"] = layout

    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    saved_stdout = sys.stdout
    sys.stdout = sys.stderr  # a stray print() must not corrupt the protocol stream
    try:
        _loop(inp, out, hello, handlers)
    finally:
        sys.stdout = saved_stdout


def _answer(out, payload):
    # allow_nan (the default) writes NaN, Infinity, -Infinity as bare tokens,
    # which the protocol reads as values.
    line = json.dumps(payload, separators=(",", ":"), default=_plain)
    out.write(line.encode("ascii") + b"\n")
    out.flush()


def _loop(inp, out, hello, handlers):
    while True:
        line = inp.readline()
        if not line:
            return  # pecheck went away: nothing left to answer
        try:
            request = json.loads(line)
            request_id, op = request["id"], request["op"]
        except (ValueError, KeyError, TypeError) as e:
            _answer(out, {"id": None, "error": f"unreadable request: {e}"})
            continue
        if op == "hello":
            _answer(out, {"id": request_id, "result": hello})
        elif op == "shutdown":
            _answer(out, {"id": request_id, "result": None})
            return
        elif op in handlers:
            try:
                result = _rows(_CALLERS[op](handlers[op], request))
                _answer(out, {"id": request_id, "result": result})
            except Exception as e:  # the implementation refuses this input
                _answer(out, {"id": request_id, "error": f"{type(e).__name__}: {e}"})
        else:
            _answer(out, {"id": request_id, "error": f"unsupported op {op!r}"})

"""Serve a positional encoding, rotary embedding, attention bias or module to pecheck.

pecheck checks an implementation it did not build by starting it as a child
process and sending it requests, one JSON object per line (the subject
protocol, versions 1 and 2: SUBJECT-PROTOCOL.md). This module runs that loop
around plain Python functions, so a subject is your function plus one call::

    from pecheck_subject import serve

    def encode(dim, positions, seq_len):
        ...                      # rows: one list (or array) of dim numbers per position

    serve("my-encoder", "float32", encode=encode)

and ``pecheck run --subject cmd:'python3 my_encoder.py'`` checks it.
(``pecheck_subject`` is this module under its historical name:
adapters/python/pecheck_subject.py. ``pecheck.check_encoder(encode)`` and its
siblings serve a function from inside the calling process instead, over
``fd:READ,WRITE``, with NumPy arrays or torch tensors for arguments.)

Your functions receive lists (of ints, floats, lists) and may return lists of
lists or anything with ``.tolist()`` (NumPy arrays, PyTorch tensors). An
exception raised by your function is sent back as a refusal (pecheck counts
the input as discarded, e.g. an odd ``dim`` you do not support), not a crash.
While ``serve`` runs, ``print`` goes to stderr: stdout carries the protocol.

Standard library only; with NumPy importable, arrays may also travel as
little-endian binary (``b64le``), which is exact and faster (set
PECHECK_SUBJECT_B64LE=0 to keep to JSON numbers).

Where the process can fork safely (one thread, CUDA not initialised, Linux:
pecheck._fork says why not otherwise), the hello declares ``"fork": true``:
pecheck then starts the script once and forks every further instance it needs
from it (each job's, each fresh copy history_independence compares with),
after your imports and model construction, instead of starting it again
(``fork=False`` or PECHECK_SUBJECT_FORK=0 turns this off).
"""

import base64
import binascii
import inspect
import json
import math
import os
import sys

try:
    import numpy as _np
except ImportError:  # NumPy is optional: JSON numbers only
    _np = None

from ._declarations import (  # noqa: F401  (re-exported: pecheck_subject's API)
    DTYPES, LAYOUTS, OPS, PROTOCOL, SCALINGS, _V1_OPS, _check_declarations, _is_int, _length_dependent)
from ._fork import Copies, fork_refusal

__all__ = ["serve", "PROTOCOL", "DTYPES", "LAYOUTS", "OPS", "SCALINGS"]

# The arrays a request may carry (as JSON rows or b64le objects).
_ARRAY_KEYS = ("x", "q", "k", "v", "grad")


def _b64le_enabled():
    return _np is not None and os.environ.get("PECHECK_SUBJECT_B64LE", "1") != "0"


def _accepts_seq_len(fn):
    """Whether rotate takes a third argument (v1 rotaries take two)."""
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    if any(p.kind == p.VAR_POSITIONAL for p in parameters):
        return True
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3


# ------------------------------------------------------------------- arrays

_B64LE_KEYS = frozenset(("b64le", "dtype", "shape"))
_B64LE_WIDTH = {"float64": 8, "float32": 4}


def _b64_bytes(text):
    """Strict base64 (no whitespace, padding only at the end): binascii's own strict mode where the
    Python has it (3.11), one C call, else base64's validating decoder."""
    if sys.version_info >= (3, 11):
        return binascii.a2b_base64(text, strict_mode=True)
    return base64.b64decode(text, validate=True)


def _from_b64le(value, as_lists=True):
    """A b64le object as nested lists of floats (what serve's functions get),
    or with `as_lists` False (and NumPy) as a float64 array."""
    if not _B64LE_KEYS.issuperset(value):
        raise ValueError(f"b64le array with unknown keys {sorted(set(value) - _B64LE_KEYS)}")
    raw = _b64_bytes(value["b64le"])
    dtype, shape = value["dtype"], value["shape"]
    width = _B64LE_WIDTH.get(dtype)
    if width is None:
        raise ValueError(f"b64le dtype must be float64 or float32, got {dtype!r}")
    count = math.prod(shape)
    if len(raw) != count * width:
        raise ValueError(f"b64le array of shape {shape} {dtype} holds {len(raw)} bytes, not {count * width}")
    if _np is not None:
        array = _np.frombuffer(raw, dtype="<f8" if width == 8 else "<f4").astype(_np.float64).reshape(shape)
        return array.tolist() if as_lists else array
    import array
    flat = array.array("d" if width == 8 else "f")
    flat.frombytes(raw)
    if sys.byteorder == "big":
        flat.byteswap()
    return _nest([float(v) for v in flat], list(shape))


def _nest(flat, shape):
    """A flat row-major list as nested lists of `shape`."""
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return flat
    step = math.prod(shape[1:])
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _decode_arrays(request, as_lists):
    for key in _ARRAY_KEYS:
        value = request.get(key)
        if isinstance(value, dict):
            request[key] = _from_b64le(value, as_lists)
        elif not as_lists and isinstance(value, list):
            request[key] = _np.asarray(value, dtype=_np.float64)


def _float_array(value):
    """A float NumPy array for `value` (an array, or a torch tensor on any device: bfloat16 and float16
    widened to float32, exactly), or None for anything else."""
    if _np is None:
        return None
    if not isinstance(value, _np.ndarray):
        if not (hasattr(value, "detach") and getattr(value, "is_floating_point", lambda: False)()):
            return None
        value = value.detach().cpu()
        if value.element_size() < 4:
            value = value.float()
        value = value.numpy()
    return value if value.dtype.kind == "f" else None


def _b64le_text(value):
    """A float array or tensor as the JSON text of a b64le object (float16 widened to float32, exactly);
    None otherwise. Written by hand: json.dumps of a dict costs more than the encoding itself."""
    value = _float_array(value)
    if value is None:
        return None
    wide = value.dtype.itemsize > 4
    data = _np.ascontiguousarray(value, dtype="<f8" if wide else "<f4")
    shape = data.shape
    return ('{"b64le":"' + binascii.b2a_base64(data, newline=False).decode("ascii") +
            ('","dtype":"float64","shape":[' if wide else '","dtype":"float32","shape":[') +
            (f"{shape[0]},{shape[1]}" if len(shape) == 2 else ",".join(map(str, shape))) + "]}")


def _plain(value):
    """json.dumps fallback: arrays, tensors and their scalars as Python values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{type(value).__name__} is not a number or an array of numbers") from None


def _dumps(value):
    # allow_nan (the default) writes NaN, Infinity, -Infinity as bare tokens,
    # which the protocol reads as values; ensure_ascii keeps lines ASCII.
    return json.dumps(value, separators=(",", ":"), default=_plain)


def _result_text(value, b64le):
    """The JSON text of a result: b64le where negotiated and the value is a float array, else numbers; a dict
    (a backward's gradients, {"x": dx} or {"q": dq, "k": dk, "v": dv}) as an object of such arrays."""
    if isinstance(value, dict):
        return "{" + ",".join(_dumps(str(key)) + ":" + _result_text(item, b64le) for key, item in value.items()) + "}"
    if b64le:
        text = _b64le_text(value)
        if text is not None:
            return text
    # One .tolist() for a whole array is far faster than one per element.
    return _dumps(value.tolist() if hasattr(value, "tolist") else value)


# ---------------------------------------------------------------- requests

# The ops whose functions may take a whole batch at once (decode and reset keep a cache: one call each).
BATCHABLE = ("encode", "attention", "rotate", "bias", "forward")


def _arguments(op, request, rotate_takes_seq_len):
    """The positional arguments of `op`'s function for one request (rotate's seq_len only where the
    request carries one and the function takes it; a batched rotate always gets it, None when absent)."""
    if op == "encode":
        return request["dim"], request["positions"], request["seq_len"]
    if op == "attention":
        return request["q"], request["k"], request["v"], request.get("mask", "none")
    if op == "rotate":
        if rotate_takes_seq_len:
            return request["positions"], request["x"], request.get("seq_len")
        return request["positions"], request["x"]
    if op == "bias":
        return request["n"], request["m"], request["head"]
    if op == "forward":
        x = request["x"]
        positions = request.get("positions")
        if positions is None:
            positions = [list(range(len(seq))) for seq in x]
        padding = request.get("padding")
        if padding is None:
            padding = [[True] * len(seq) for seq in x]
        if "segments" in request:  # packed documents (params.forward.segments): a fourth argument
            return x, positions, padding, request["segments"]
        return x, positions, padding
    if op == "decode":
        if "positions" in request:  # several tokens at once: x is k×d, the answer k rows
            return request["session"], request["x"], request["positions"]
        return request["session"], request["x"], request["position"]
    if op == "backward":  # the gradient of another op's request: (of, that op's arguments, grad)
        of = request.get("of")
        if of not in _DIFFERENTIABLE:
            raise ValueError(f"no backward of {of!r}: pecheck asks for {', '.join(_DIFFERENTIABLE)}")
        return of, _arguments(of, request, rotate_takes_seq_len), request["grad"]
    if op == "reset":
        if "capacity" in request:  # the allocated cache length (params.forward.cache_capacity)
            return request["session"], request["capacity"]
        return (request["session"],)
    raise ValueError(f"unsupported op {op!r}")


# The ops a backward may be asked of (SUBJECT-PROTOCOL.md "Gradients"), and the names of their inputs.
_DIFFERENTIABLE = ("rotate", "attention", "forward")
BACKWARD_INPUTS = {"rotate": ("x",), "attention": ("q", "k", "v"), "forward": ("x",)}


# The ops a request may ask of one layer of a module that declares params.forward.layers.
_LAYERED = ("rotate", "forward")


def _keywords(op, request):
    """layer=k for a rotate or forward request that names a layer (pecheck's spelling for
    module.layer_schedule: the rotation layer k applies, or layer k alone); shift=Δ for a rotate request
    that carries one (context_shift: x are keys already rotated at positions, answered at positions + Δ)."""
    out = {}
    if op in _LAYERED and "layer" in request:
        layer = request["layer"]
        if not _is_int(layer) or layer < 0:
            raise ValueError(f"layer must be an integer >= 0, got {layer!r}")
        out["layer"] = layer
    if op == "rotate" and "shift" in request:
        shift = request["shift"]
        if not _is_int(shift):
            raise ValueError(f"shift must be an integer, got {shift!r}")
        out["shift"] = shift
    return out


def _call(op, fn, request, rotate_takes_seq_len):
    value = fn(*_arguments(op, request, rotate_takes_seq_len), **_keywords(op, request))
    return None if op == "reset" else value


def _batched_arguments(op, request, rotate_takes_seq_len):
    """A batched function's argument tuple; a request for one layer is not batched (its tuple has no room)."""
    if _keywords(op, request):
        raise ValueError(f"a batched {op} function takes no layer: serve per-layer requests with a plain function")
    return _arguments(op, request, rotate_takes_seq_len)


def _call_batched(op, fn, arguments):
    """A batched function on a list of argument tuples: its list of answers, one per tuple, checked."""
    answers = list(fn(arguments))
    if len(answers) != len(arguments):
        raise ValueError(f"the batched {op} function returned {len(answers)} answers for {len(arguments)} requests")
    return answers


def _batched_ops(batched, handlers):
    """The set of ops whose functions take a batch: `batched` is True (every batchable op given), False,
    or a collection of op names."""
    if batched is True:
        return {op for op in handlers if op in BATCHABLE}
    if not batched:
        return set()
    if isinstance(batched, str):
        batched = [batched]
    ops = set(batched)
    for op in ops:
        if op not in BATCHABLE:
            raise ValueError(f"batched: {op!r} cannot take a batch (one of {', '.join(BATCHABLE)})")
        if op not in handlers:
            raise ValueError(f"batched: no {op} function was given")
    return ops


def serve(name, dtype, encode=None, attention=None, rotate=None, layout=None, *, bias=None, forward=None,
          decode=None, reset=None, backward=None, compute=None, params=None, batch=False, batched=False, as_arrays=False,
          fork=None, stdin=None, stdout=None, _copy_exit=None):
    """Answer pecheck's requests until it says shutdown (or closes stdin).

    name       what the subject calls itself in reports
    dtype      the precision of the values your code returns: float64,
               float32, bfloat16 or float16 (pecheck's tolerances are derived
               from it: declare the precision you actually compute in)
    encode     encode(dim, positions, seq_len) -> len(positions) rows of dim
               numbers; row r encodes positions[r] in a sequence of seq_len
    attention  attention(q, k, v, mask) -> softmax(q kᵀ/√d_k + mask) v, one head;
               mask is "none", "causal" (query i sees keys 0..i) or an n×m list
               of booleans, True where query i MAY attend to key j; with
               params["attention"]["heads"] declared, q is H×n×d, k and v are
               G×m×d and the answer H×n×d_v (grouped-query attention)
    rotate     rotate(positions, x) or rotate(positions, x, seq_len) -> row r
               is R_{positions[r]} x[r]; seq_len is passed when the request
               carries one and the function takes a third argument. With
               params.rotate.mrope_section, positions is 3 × n (t, h, w: one
               list per axis). A module declaring params.forward.layers gets
               layer=k (a keyword) when pecheck asks for layer k's rotation.
               With context_shift declared (params.rotate or params.forward),
               shift=Δ (a keyword): x are keys already rotated at positions,
               to be answered as the same keys rotated at positions + Δ
    forward    forward(x, positions, padding) -> B×N×d_out: a whole module on
               a batch (x B×N×d; positions B×N ints; padding B×N booleans,
               True for a real token); rows at pads are not compared; layer=k
               (a keyword) asks for layer k alone; with
               params["forward"]["segments"] declared, forward(x, positions,
               padding, segments) for packed documents (segments B×N ids)
    bias       bias(n, m, head) -> the n×m additive logit bias of one head
               (0-based), e.g. ALiBi or T5 relative buckets
    decode     decode(session, x, position) -> the output row (d_out numbers)
               for token x appended at `position` to `session`'s cache; with
               params["forward"]["multi_token_decode"], decode(session, x,
               positions) for k tokens at once (x k×d) -> k rows
    reset      reset(session): forget that session's cache (with decode);
               reset(session, capacity) with params["forward"]["cache_capacity"]
    backward   backward(of, arguments, grad) -> {"x": dx} for of "rotate",
               {"q": dq, "k": dk, "v": dv} for "attention", {"x": dx} (B×N×d) for
               "forward": the vector-Jacobian
               products of that op's function at `arguments` (the tuple its
               own function gets) for the upstream gradient grad; declare
               params={"backward": {"of": ["rotate", ...]}}
    layout     "interleaved" or "halves", for encoders and rotaries that
               declare how their (sin, cos) pairs are laid out
    compute    finer precision per stage: {"angles": "float32"} (sin/cos and
               angles), {"accumulate": ...} (dot products, softmax sums)
    params     the conventions you implement, keyed by op: {"encode": {...},
               "rotate": {...}, "bias": {...}, "forward": {...}} (see docs/python.md)
    batch      True to accept `batch` requests (several calls in one line)
    batched    True (or the ops' names): those functions take a whole batch at once,
               fn([args, args, ...]) -> [answer, answer, ...], each args the
               tuple the plain function would get (rotate's always has seq_len,
               None when pecheck sends none), so one vectorised call answers
               many requests; implies batch. If the call raises, each request is
               retried alone (fn([args])), so one refusal refuses one request
    as_arrays  True: matrices (x, q, k, v) arrive as float64 NumPy arrays
               instead of nested lists (needs NumPy)
    fork       None (the default): declare "fork" where this process can fork
               safely when pecheck says hello (one thread, CUDA not initialised,
               Linux), so that pecheck forks every further copy it needs from
               this one instead of starting the script again; False: never
    stdin, stdout  binary streams to serve on instead of the process's own
               (pecheck's fd:READ,WRITE subjects); print() is redirected to
               stderr only while serving on the real stdout
    """
    handlers = {op: fn for op, fn in (("encode", encode), ("attention", attention), ("rotate", rotate),
                                      ("bias", bias), ("forward", forward), ("decode", decode), ("reset", reset),
                                      ("backward", backward))
                if fn is not None}
    # pecheck's judgement, where a pecheck executable is found (pecheck reads the hello itself in any case).
    _check_declarations(dtype, layout, compute, params, handlers, required=False)
    batched_ops = _batched_ops(batched, handlers)
    rotate_takes_seq_len = rotate is not None and ("rotate" in batched_ops or _accepts_seq_len(rotate))
    length_dependent = _length_dependent(params)
    if rotate is not None and length_dependent and not rotate_takes_seq_len:
        raise ValueError(f"a {length_dependent} rotary depends on the sequence length: rotate must take "
                         "(positions, x, seq_len)")

    declaration = {"name": str(name), "ops": list(handlers), "dtype": dtype, "layout": layout,
                   "compute": compute, "params": params, "batch": bool(batch or batched_ops),
                   "fork": fork is not False}
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    if as_arrays and _np is None:
        raise ValueError("as_arrays=True needs NumPy")
    loop = _Loop(inp, out, declaration, handlers, rotate_takes_seq_len, not as_arrays, batched_ops, _copy_exit)
    if stdout is not None:
        loop.run()
        return
    saved_stdout = sys.stdout
    sys.stdout = sys.stderr  # a stray print() must not corrupt the protocol stream
    try:
        loop.run()
    finally:
        sys.stdout = saved_stdout


def _hello(declaration, asked, forks=False):
    """The hello result for the protocol pecheck asked for (1 or 2); `forks`: declare fork."""
    protocol = 2 if _is_int(asked) and asked >= 2 else 1
    ops = declaration["ops"]
    if protocol == 1:
        ops = [op for op in ops if op in _V1_OPS] or ops
    hello = {"protocol": protocol, "name": declaration["name"], "ops": ops, "dtype": declaration["dtype"]}
    if declaration["layout"] is not None:
        hello["layout"] = declaration["layout"]
    if protocol >= 2:
        for key in ("compute", "params"):
            if declaration[key]:
                hello[key] = declaration[key]
        if declaration["batch"]:
            hello["batch"] = True
        if _b64le_enabled():
            hello["arrays"] = ["b64le"]
        if forks:
            hello["fork"] = True
    return hello


# pecheck keeps the first 500 characters of a refusal; some errors (a torch
# error with its C++ frames) run to kilobytes, sent once per refused request.
_REFUSAL_CHARS = 1000


def _refusal(error):
    text = f"{type(error).__name__}: {error}"
    if len(text) > _REFUSAL_CHARS:
        text = text[:_REFUSAL_CHARS] + "..."
    return '"error":' + _dumps(text or "(no message)")


class _Loop:
    def __init__(self, inp, out, declaration, handlers, rotate_takes_seq_len, array_lists=True, batched=(),
                 copy_exit=None):
        self.inp, self.out = inp, out
        self.declaration, self.handlers = declaration, handlers
        self.batched = set(batched)  # ops whose functions take a list of argument tuples
        self.rotate_takes_seq_len = rotate_takes_seq_len
        self.array_lists = array_lists or _np is None  # b64le arrays as lists (serve) or NumPy arrays (check_*)
        self.b64le = False  # answer in b64le: pecheck speaks version 2 and we advertised it
        self.forks = False  # the hello declared fork
        self.pristine = True  # answered nothing but hello and fork: copies forked now are fresh
        self.copies = Copies()
        self.said_why = False  # why this process does not fork, said once on stderr
        self.copy_exit = copy_exit  # called in a forked copy once its conversation is over (check_*'s errors)

    def write(self, line):
        self.out.write(line.encode("ascii") + b"\n")
        self.out.flush()

    def send(self, payload):
        self.write(_dumps(payload))

    def outcome(self, request):
        """'"result":…' or '"error":"…"' for one call, as JSON text: a result
        that cannot be written (not numbers) is refused like an exception."""
        op = request.get("op") if isinstance(request, dict) else None
        if op not in self.handlers:
            return '"error":' + _dumps(f"unsupported op {op!r}")
        try:
            _decode_arrays(request, self.array_lists)
            if op in self.batched:
                arguments = _batched_arguments(op, request, self.rotate_takes_seq_len)
                value = _call_batched(op, self.handlers[op], [arguments])[0]
            else:
                value = _call(op, self.handlers[op], request, self.rotate_takes_seq_len)
            return '"result":' + _result_text(value, self.b64le)
        except Exception as e:  # the implementation refuses this input
            return _refusal(e)

    def outcomes(self, items):
        """The outcome of each item of a batch, in order: one call per batched op for all of its items."""
        texts = [None] * len(items)
        groups = {}  # op -> [(index, arguments)]
        for index, item in enumerate(items):
            op = item.get("op") if isinstance(item, dict) else None
            if op not in self.batched:
                texts[index] = self.outcome(item)
                continue
            try:
                _decode_arrays(item, self.array_lists)
                groups.setdefault(op, []).append((index, _batched_arguments(op, item, self.rotate_takes_seq_len)))
            except Exception as e:
                texts[index] = _refusal(e)
        for op, members in groups.items():
            fn = self.handlers[op]
            try:
                values = _call_batched(op, fn, [arguments for _, arguments in members])
            except Exception:
                values = None  # one request spoils the batch: ask each alone, so only its own is refused
            for k, (index, arguments) in enumerate(members):
                try:
                    value = values[k] if values is not None else _call_batched(op, fn, [arguments])[0]
                    texts[index] = '"result":' + _result_text(value, self.b64le)
                except Exception as e:
                    texts[index] = _refusal(e)
        return texts

    def run(self):
        try:
            self.answer_until_shutdown()
        except (BrokenPipeError, ConnectionResetError):
            return  # pecheck went away mid-answer: nobody is left to read it
        finally:
            self.copies.stop()  # pecheck is done with this zygote: no copy outlives it

    def fork_copy(self, request_id, request):
        """Forks a fresh copy for pecheck (a `fork` request): it serves one conversation on the
        request's socket and exits; the answer is its pid."""
        sockets = request.get("socket"), request.get("stderr")
        if not self.forks or not self.pristine:
            why = ("this subject does not declare fork" if not self.forks else
                   "this process has answered requests: a copy of it would not be fresh")
            self.send({"id": request_id, "error": why})
            return
        if not all(isinstance(path, str) and path for path in sockets):
            self.send({"id": request_id, "error": "a fork request names its socket and stderr paths"})
            return
        reap = request.get("reap")
        if reap is not None and not (isinstance(reap, list) and all(
                isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 for pid in reap)):
            self.send({"id": request_id, "error": "malformed fork request: reap must be a list of process ids"})
            return
        refusal = fork_refusal()
        if refusal is not None:
            self.send({"id": request_id, "error": f"cannot fork safely now: {refusal}"})
            return

        def serve_copy(inp, out):
            _Loop(inp, out, self.declaration, self.handlers, self.rotate_takes_seq_len, self.array_lists,
                  self.batched).run()
            if self.copy_exit is not None:
                self.copy_exit()

        pid = self.copies.fork(sockets[0], sockets[1], serve_copy, (self.inp, self.out), reap)
        self.send({"id": request_id, "result": {"pid": pid}})

    def answer_until_shutdown(self):
        while True:
            line = self.inp.readline()
            if not line:
                return  # pecheck went away: nothing left to answer
            try:
                request = json.loads(line)
                request_id, op = request["id"], request["op"]
            except (ValueError, KeyError, TypeError) as e:
                self.send({"id": None, "error": f"unreadable request: {e}"})
                continue
            if op == "hello":
                refusal = fork_refusal() if self.declaration.get("fork", False) else None
                if refusal is not None and not self.said_why:
                    sys.stderr.write(f"pecheck: this subject does not declare fork ({refusal}): pecheck starts "
                                     "it afresh for every fresh copy\n")
                    sys.stderr.flush()
                    self.said_why = True
                forks = self.declaration.get("fork", False) and refusal is None
                hello = _hello(self.declaration, request.get("protocol", 1), forks)
                self.b64le = "arrays" in hello
                self.forks = "fork" in hello
                self.send({"id": request_id, "result": hello})
            elif op == "fork":
                self.fork_copy(request_id, request)
            elif op == "shutdown":
                self.send({"id": request_id, "result": None})
                return
            elif op == "batch":
                self.pristine = False
                items = request.get("requests")
                if not self.declaration["batch"]:
                    self.send({"id": request_id, "error": "this subject did not declare batch"})
                elif not isinstance(items, list):
                    self.send({"id": request_id, "error": "a batch request needs a list of requests"})
                else:
                    answers = ",".join("{" + text + "}" for text in self.outcomes(items))
                    self.write('{"id":' + _dumps(request_id) + ',"result":[' + answers + "]}")
            else:
                self.pristine = False
                self.write('{"id":' + _dumps(request_id) + "," + self.outcome(request) + "}")

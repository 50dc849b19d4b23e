"""A user's functions as the serve loop's handlers: each protocol op's arguments in order,
converted (pecheck._convert), and the answer brought back as a NumPy array.

The first exception a function raises is kept with its traceback: the serve
loop answers it as a refusal (pecheck discards that input), and a check that
then fails shows what the function raised.
"""

import inspect
import traceback

import numpy as np

from ._framework import owner_module
from ._declarations import declared_size

# The ops whose arguments are converted per request (decode and reset have their own handlers).
_CONVERTED = ("encode", "rotate", "attention", "bias", "forward")

# The probe input each op is called with when the dtype must be inferred (what the function returns).
_PROBE_POSITIONS = [0, 1, 2]


def _sections(rotate):
    """mrope_section, beside the scaling or inside it (None when neither)."""
    scaling = rotate.get("scaling") if isinstance(rotate.get("scaling"), dict) else {}
    return rotate.get("mrope_section") or scaling.get("mrope_section")


def _fixed_pairs(rotate):
    """The rotated pairs a rotate declaration's per-pair lists fix (freq_factors, LongRoPE's factors, the
    mrope sections), or 0."""
    scaling = rotate.get("scaling") if isinstance(rotate.get("scaling"), dict) else {}
    for values in (rotate.get("freq_factors"), scaling.get("short_factor")):
        if values:
            return len(values)
    return sum(_sections(rotate) or ())


def takes_keyword(fn, name):
    """Whether `fn` accepts `name=` (a parameter of that name, or **kwargs). A torch.nn.Module is asked
    about its forward: its __call__ takes any keyword and hands it on."""
    if owner_module(fn) is fn:
        fn = fn.forward
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind == p.VAR_KEYWORD or (p.name == name and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
               for p in parameters)


class Handlers:
    """The handler functions for serve(), one per op the user gave. A batched function (`batched`: the ops
    whose function takes a list of argument tuples and returns a list of answers) gets each tuple
    converted as the plain function's arguments would be; rotate's tuples always hold seq_len (None
    when pecheck sends none)."""

    def __init__(self, functions, converter, batched=()):
        self.functions, self.convert = functions, converter
        self.batched = set(batched)
        self.first_error = None  # (op, formatted traceback) of the first exception a function raised
        self.rotate_takes_seq_len = "rotate" in functions and (
            "rotate" in self.batched or takes_keyword(functions["rotate"], "seq_len"))

    def _run(self, op, *args, **kwargs):
        try:
            return self.convert.call(self.functions[op], *args, **kwargs)
        except Exception:
            if self.first_error is None:
                self.first_error = (op, traceback.format_exc())
            raise

    def _answer(self, op, *args, **kwargs):
        return self.convert.answer(self._run(op, *args, **kwargs))

    # The user function's arguments for one request of each op, from what pecheck._serve passes (lists, or
    # float64 arrays for b64le matrices): (positional, keyword).
    def _encode_arguments(self, dim, positions, seq_len):
        return (int(dim), self.convert.integers(positions), int(seq_len)), {}

    def _rotate_arguments(self, positions, x, seq_len=None):
        seq_len = int(seq_len) if seq_len is not None else None
        arguments = (self.convert.integers(positions), self.convert.values(x))
        if "rotate" in self.batched:
            return arguments + (seq_len,), {}
        return arguments, ({"seq_len": seq_len} if seq_len is not None and self.rotate_takes_seq_len else {})

    def _attention_arguments(self, q, k, v, mask):
        mask = mask if isinstance(mask, str) else self.convert.booleans(mask)
        return (self.convert.values(q), self.convert.values(k), self.convert.values(v), mask), {}

    def _bias_arguments(self, n, m, head):
        return (int(n), int(m), int(head)), {}

    def _forward_arguments(self, x, positions, padding, segments=None):
        arguments = (self.convert.values(x), self.convert.integers(positions), self.convert.booleans(padding))
        if segments is not None:  # packed documents
            arguments += (self.convert.integers(segments),)
        return arguments, {}

    def _handler(self, op):
        convert_arguments = getattr(self, f"_{op}_arguments")
        if op in self.batched:
            def batched(requests):
                tuples = [convert_arguments(*request)[0] for request in requests]
                return [self.convert.answer(answer) for answer in self._run(op, tuples)]
            return batched

        def plain(*request, **asked):
            arguments, keywords = convert_arguments(*request)
            return self._answer(op, *arguments, **keywords, **asked)  # asked: layer=k
        return plain

    def decode(self, session, x, position):
        if isinstance(position, (list, tuple)):  # several tokens at once: x is k×d
            return self._answer("decode", session, self.convert.values(x), self.convert.integers(position))
        return self._answer("decode", session, self.convert.values(x), int(position))

    def backward(self, of, inner, grad):
        """The gradients of `of`'s function at the request's arguments, each as a NumPy array."""
        arguments, keywords = getattr(self, f"_{of}_arguments")(*inner)
        try:
            values = self.functions["backward"](of, arguments, keywords, self.convert.values(grad))
        except Exception:
            if self.first_error is None:
                self.first_error = ("backward", traceback.format_exc())
            raise
        return {name: self.convert.answer(value) for name, value in values.items()}

    def reset(self, session, *capacity):
        self._run("reset", session, *(int(c) for c in capacity))

    def for_serve(self):
        """{op: handler} for serve()'s keywords."""
        return {op: self._handler(op) if op in _CONVERTED else getattr(self, op) for op in self.functions}

    def probe(self, op, params, width=None):
        """What the function returns on a small input (its dtype is the subject's, when not declared), at
        `width` (the feature width of encode and rotate; default: the first of probe_widths)."""
        if op in self.batched:
            def call(*arguments):
                if op == "rotate":
                    arguments += (None,)  # a batched rotate's tuples hold seq_len
                return self._run(op, [arguments])[0]
        else:
            def call(*arguments):
                return self._run(op, *arguments)
        rng = np.random.default_rng(0)
        # Sizes inside what the subject declares (params.<op>.shapes): a probe
        # outside them would be refused, as pecheck would never send it.
        def size(dim, usual, of=op):
            return declared_size(params, of, dim, usual)
        positions = _PROBE_POSITIONS
        if width is None:
            width = probe_widths(op, params)[0]
        if op == "encode":
            length = size("n", len(positions))
            return call(size("d", width), self.convert.integers(positions[:length]), length)
        if op == "rotate":
            rotate = ((params or {}).get("rotate") or {})
            width = size("d", width)
            if _sections(rotate):
                positions = [_PROBE_POSITIONS] * 3  # multi-axis: one list per axis
            return call(self.convert.integers(positions),
                        self.convert.values(rng.uniform(-1, 1, (len(_PROBE_POSITIONS), width))))
        if op == "attention":
            attention = (params or {}).get("attention") or {}
            heads = attention.get("heads") or attention.get("num_attention_heads")
            n, m, d = size("n", 3), size("m", 3), size("d", 4)
            if heads:  # declared heads: H×n×d queries over G×m×d keys and values
                kv = attention.get("kv_heads") or attention.get("num_key_value_heads") or heads
                q = self.convert.values(rng.uniform(-1, 1, (heads, n, d)))
                k, v = (self.convert.values(rng.uniform(-1, 1, (kv, m, d))) for _ in range(2))
                return call(q, k, v, "none")
            q = self.convert.values(rng.uniform(-1, 1, (n, d)))
            k, v = (self.convert.values(rng.uniform(-1, 1, (m, d))) for _ in range(2))
            return call(q, k, v, "none")
        if op == "bias":
            return call(size("n", 3), size("m", 3), 0)
        if op == "forward":
            width = ((params or {}).get("forward") or {}).get("width")
            width = size("d", width) if width is not None else size("d", None)
            if width is None:
                return None
            n, batch = size("n", 3), size("batch", 1)
            return call(self.convert.values(rng.uniform(-1, 1, (batch, n, width))),
                        self.convert.integers([list(range(n))] * batch), self.convert.booleans([[True] * n] * batch))
        raise ValueError(f"no probe for op {op!r}")


def probe_widths(op, params):
    """The widths a dtype probe tries, in order: a module built for one width refuses the others."""
    if op == "rotate":
        rotate = ((params or {}).get("rotate") or {})
        rotary_dim = rotate.get("rotary_dim") or 0
        pairs = _fixed_pairs(rotate)
        if pairs and not rotary_dim:
            return [2 * pairs]  # per-pair lists (freq_factors, LongRoPE's factors, mrope sections) fix the width
        first = max(64, rotary_dim)
        return [first] + [w for w in (128, 32, 256, 16, 8, 4, 2, 512) if w > rotary_dim and w != first]
    if op == "encode":
        return [8, 16, 64, 128, 32, 4, 256, 2, 512]
    return [None]

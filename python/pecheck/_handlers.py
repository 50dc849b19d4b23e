"""A user's functions as the serve loop's handlers: each protocol op's arguments in order,
converted (pecheck._convert), and the answer brought back as a NumPy array.

The first exception a function raises is kept with its traceback: the serve
loop answers it as a refusal (pecheck discards that input), and a check that
then fails shows what the function raised.
"""

import inspect
import traceback

import numpy as np

# The probe input each op is called with when the dtype must be inferred (what the function returns).
_PROBE_POSITIONS = [0, 1, 2]


def takes_keyword(fn, name):
    """Whether `fn` accepts `name=` (a parameter of that name, or **kwargs)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind == p.VAR_KEYWORD or (p.name == name and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
               for p in parameters)


class Handlers:
    """The handler functions for serve(), one per op the user gave."""

    def __init__(self, functions, converter):
        self.functions, self.convert = functions, converter
        self.first_error = None  # (op, formatted traceback) of the first exception a function raised
        self.rotate_takes_seq_len = "rotate" in functions and takes_keyword(functions["rotate"], "seq_len")

    def _run(self, op, *args, **kwargs):
        try:
            return self.convert.call(self.functions[op], *args, **kwargs)
        except Exception:
            if self.first_error is None:
                self.first_error = (op, traceback.format_exc())
            raise

    def _answer(self, op, *args, **kwargs):
        return self.convert.answer(self._run(op, *args, **kwargs))

    # Each takes what pecheck._serve passes (lists, or float64 arrays for b64le matrices).
    def encode(self, dim, positions, seq_len):
        return self._answer("encode", int(dim), self.convert.integers(positions), int(seq_len))

    def rotate(self, positions, x, seq_len=None):
        kwargs = {"seq_len": int(seq_len)} if seq_len is not None and self.rotate_takes_seq_len else {}
        return self._answer("rotate", self.convert.integers(positions), self.convert.values(x), **kwargs)

    def attention(self, q, k, v, mask):
        mask = mask if isinstance(mask, str) else self.convert.booleans(mask)
        return self._answer("attention", self.convert.values(q), self.convert.values(k), self.convert.values(v), mask)

    def bias(self, n, m, head):
        return self._answer("bias", int(n), int(m), int(head))

    def forward(self, x, positions, padding):
        return self._answer("forward", self.convert.values(x), self.convert.integers(positions),
                            self.convert.booleans(padding))

    def decode(self, session, x, position):
        return self._answer("decode", session, self.convert.values(x), int(position))

    def reset(self, session):
        self._run("reset", session)

    def for_serve(self):
        """{op: handler} for serve()'s keywords."""
        return {op: getattr(self, op) for op in self.functions}

    def probe(self, op, params):
        """What the function returns on a small input (its dtype is the subject's, when not declared)."""
        rng = np.random.default_rng(0)
        if op == "encode":
            return self._run(op, 8, self.convert.integers(_PROBE_POSITIONS), len(_PROBE_POSITIONS))
        if op == "rotate":
            rotary_dim = ((params or {}).get("rotate") or {}).get("rotary_dim") or 0
            width = max(64, rotary_dim)
            return self._run(op, self.convert.integers(_PROBE_POSITIONS),
                             self.convert.values(rng.uniform(-1, 1, (len(_PROBE_POSITIONS), width))))
        if op == "attention":
            q, k, v = (self.convert.values(rng.uniform(-1, 1, (3, 4))) for _ in range(3))
            return self._run(op, q, k, v, "none")
        if op == "bias":
            return self._run(op, 3, 3, 0)
        if op == "forward":
            width = ((params or {}).get("forward") or {}).get("width")
            if width is None:
                return None
            return self._run(op, self.convert.values(rng.uniform(-1, 1, (1, 3, width))),
                             self.convert.integers([[0, 1, 2]]), self.convert.booleans([[True, True, True]]))
        raise ValueError(f"no probe for op {op!r}")

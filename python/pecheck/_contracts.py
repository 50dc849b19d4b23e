"""The signature pecheck calls each function with, under the declarations given (docs/python-contracts.md).

Checked before anything runs: a function that cannot take the arguments pecheck will pass is a TypeError
naming the call pecheck makes and the function's own signature, not a refusal at the first request (which
pecheck would discard as an input the function does not support) nor a timeout.
"""

import inspect

from ._framework import owner_module


def _declared(params, op, field):
    return bool(((params or {}).get(op) or {}).get(field))


def contract(op, params, batched=False):
    """(how pecheck calls the function, its positional arguments, the keywords it must accept); None for an op
    whose function the user does not write as pecheck calls it."""
    if batched:
        return f"{op}(requests) -> [answer, ...], requests a list of argument tuples", ("requests",), ()
    layered = ("layer",) if _declared(params, "forward", "layers") else ()
    if op == "encode":
        return "encode(dim, positions, seq_len) -> len(positions) × dim", ("dim", "positions", "seq_len"), ()
    if op == "rotate":
        call = "rotate(positions, x) -> n × d" + (", layer=k asks for layer k's rotation" if layered else "")
        # context_shift (module.context_shift): x are keys already rotated at positions, shift=Δ asks for
        # them rotated at positions + Δ.
        shifted = ("shift",) if _declared(params, "rotate", "context_shift") or \
            _declared(params, "forward", "context_shift") else ()
        if shifted:
            call += ", shift=Δ re-rotates keys rotated at positions to positions + Δ"
        return call, ("positions", "x"), layered + shifted
    if op == "attention":
        return "attention(q, k, v, mask) -> n × d_v", ("q", "k", "v", "mask"), ()
    if op == "bias":
        return "bias(n, m, head) -> n × m", ("n", "m", "head"), ()
    if op == "forward":
        arguments = ("x", "positions", "padding") + (("segments",) if _declared(params, "forward", "segments") else ())
        call = f"forward({', '.join(arguments)}) -> B × N × d_out" + (", layer=k asks for layer k alone"
                                                                      if layered else "")
        return call, arguments, layered
    if op == "decode":
        if _declared(params, "forward", "multi_token_decode"):
            return ("decode(session, x, position) -> d_out for one token, or (x k × d, position a list of k "
                    "positions) -> k × d_out for k tokens at once"), ("session", "x", "position"), ()
        return "decode(session, x, position) -> d_out", ("session", "x", "position"), ()
    if op == "reset":
        if _declared(params, "forward", "cache_capacity"):
            return "reset(session, capacity)", ("session", "capacity"), ()
        return "reset(session)", ("session",), ()
    return None  # an op whose function is pecheck's own wrapper (backward through autograd)


def _signature(fn):
    """The signature pecheck's call meets: a torch.nn.Module's forward (its __call__ takes anything)."""
    target = fn.forward if owner_module(fn) is fn else fn
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None  # a builtin without a signature: its first call tells


def _name(fn):
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


def check_signatures(functions, params, batched=()):
    """Raises TypeError when a function cannot be called as pecheck will call it under `params`."""
    __tracebackhide__ = True
    for op, fn in functions.items():
        terms = contract(op, params, op in batched)
        signature = _signature(fn) if terms is not None else None
        if signature is None:
            continue
        call, arguments, keywords = terms
        try:
            signature.bind(*arguments, **{k: 0 for k in keywords})
        except TypeError as e:
            raise TypeError(f"pecheck calls {call}; {_name(fn)}{signature} cannot be called so ({e}). "
                            "The calls under every declaration: docs/python-contracts.md") from None

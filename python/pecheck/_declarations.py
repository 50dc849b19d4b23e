"""What a subject may declare, judged by pecheck itself before anything is served.

The rules live in one place: the protocol's schema (protocol.schema.json beside this file, which pecheck's C++
hello readers embed at build time) and the C++ readers that apply it. This module keeps no copy of them: it asks
`pecheck check-declarations` (the same reading a run applies to a subject's hello) and raises pecheck's own
message as UsageError (a ValueError, as a refused run raises), so that a mistake shows where it was made (in the call to serve() or check_*()), naming
the field, in the words a run would use. What stays here is Python's own: the names read from the schema, the
probe's sizes, and which declarations a function's signature must follow.
"""

import json
import subprocess

from . import _schema
from ._cli import CliNotFound, find_cli
from ._result import UsageError

PROTOCOL = _schema.PROTOCOL
DTYPES = _schema.DTYPES
LAYOUTS = _schema.LAYOUTS
OPS = _schema.OPS
_V1_OPS = _schema.V1_OPS
SCALINGS = _schema.SCALINGS
SCALING_NAMES = _schema.SCALING_NAMES


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


# The hellos pecheck accepted in this process (and in the copies forked from it): a subject served after its
# check_*() call was judged is not judged again.
_ACCEPTED = set()


def _hello_text(dtype, layout, compute, params, ops):
    from ._serve import _dumps  # arrays and tensors as Python values, as serve() writes its hello

    hello = {"protocol": PROTOCOL, "name": "declarations", "ops": list(ops), "dtype": dtype}
    for key, value in (("layout", layout), ("compute", compute), ("params", params)):
        if value is not None:
            hello[key] = value
    try:
        return _dumps(hello)
    except (TypeError, ValueError) as e:
        raise ValueError(f"the declarations cannot be written as JSON (the subject protocol's): {e}") from None


def verdicts(lines, cli=None):
    """pecheck's verdict on each hello line ({"ok": True} or {"ok": False, "field", "message", "kind"})."""
    done = subprocess.run([cli or find_cli(), "check-declarations"], input="".join(line + "\n" for line in lines),
                          capture_output=True, text=True, timeout=120)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    if len(answers) != len(lines):
        raise RuntimeError(f"pecheck check-declarations answered {len(answers)} of {len(lines)} hellos "
                           f"(exit {done.returncode}): {done.stderr.strip()[-500:]}")
    return answers


def check_hello_text(text, required=True):
    """Raises UsageError (a ValueError) with pecheck's message when pecheck refuses this hello. Without a pecheck executable
    (`required` False: a subject pecheck started, which reads the hello itself) nothing is judged here."""
    if text in _ACCEPTED:
        return
    try:
        cli = find_cli()
    except CliNotFound:
        if required:
            raise
        return
    verdict = verdicts([text], cli)[0]
    if not verdict["ok"]:
        raise UsageError(verdict["message"])
    _ACCEPTED.add(text)


def _check_declarations(dtype, layout, compute, params, handlers, required=True):
    """The declarations of a subject serving `handlers` ({op: function}): Python's own checks of the
    functions, then pecheck's judgement of the hello they make."""
    for op, fn in handlers.items():
        if not callable(fn):
            raise ValueError(f"{op}= must be a function, got {fn!r}")
    if not handlers:
        raise ValueError("serve() needs at least one of encode=, attention=, rotate=, bias=, forward=, decode=")
    check_hello_text(_hello_text(dtype, layout, compute, params, handlers), required)


def declared_size(params, op, dim, usual):
    """A size inside params.<op>.shapes.<dim> near `usual` (`usual` when nothing is declared there): what a
    probe of the subject may send."""
    extent = (((params or {}).get(op) or {}).get("shapes") or {}).get(dim)
    if extent is None:
        return usual
    if usual is None:  # no usual size: the smallest declared
        if isinstance(extent, dict):
            return extent.get("min", 1)
        return min(extent) if isinstance(extent, (list, tuple)) else extent
    if isinstance(extent, dict):
        low, high = extent.get("min", 1), extent.get("max")
        return max(low, usual) if high is None else min(max(low, usual), high)
    if isinstance(extent, (list, tuple)):
        return min(extent, key=lambda v: (abs(v - usual), v))
    return extent


def _length_dependent(params):
    """The scaling a params dict declares when its rotation follows the sequence length (the rotate function
    must then take seq_len): "dynamic_ntk" or "longrope" (the schema's x-pecheck-length-dependent), else None.
    A LongRoPE that switches its factors by the context it was built for (factor_switch "context") does not."""
    rotate = (params or {}).get("rotate") if isinstance(params, dict) else None
    scaling = (rotate or {}).get("scaling") if isinstance(rotate, dict) else None
    if not isinstance(scaling, dict):
        return None
    kind = SCALING_NAMES.get(scaling.get("type", scaling.get(_schema.SCALING_TYPE_ALIAS)))
    if kind in _schema.LENGTH_DEPENDENT and not (kind == "longrope" and scaling.get("factor_switch") == "context"):
        return kind
    return None

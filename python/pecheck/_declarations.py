"""What a subject may declare, checked before anything is served.

The same rules pecheck applies to a hello (a usage error there, exit 2),
raised here as ValueError so that a mistake shows where it was made: in the
call to serve() or check_*(), naming the field.
"""

import math

PROTOCOL = 2
DTYPES = ("float64", "float32", "bfloat16", "float16")
LAYOUTS = ("interleaved", "halves")
OPS = ("encode", "attention", "rotate", "bias", "forward", "decode", "reset")
_V1_OPS = ("encode", "attention", "rotate")

# params.rotate.scaling: each type's fields, and which of them are required.
SCALINGS = {
    "none": ((), ()),
    "linear": (("factor",), ("factor",)),
    "ntk": (("factor",), ("factor",)),
    "dynamic_ntk": (("factor", "original_max_position"), ("factor", "original_max_position")),
    "yarn": (("factor", "original_max_position", "beta_fast", "beta_slow"), ("factor", "original_max_position")),
    "llama3": (("factor", "low_freq_factor", "high_freq_factor", "original_max_position"),
               ("factor", "low_freq_factor", "high_freq_factor", "original_max_position")),
}


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


class _Fields:
    """One dict of declarations at `path`, read field by field."""

    def __init__(self, value, path, known):
        if not isinstance(value, dict):
            raise ValueError(f"{path} must be a dict, got {value!r}")
        for key in value:
            if key not in known:
                raise ValueError(f"{path}.{key} is not a field pecheck knows ({path} has: {', '.join(known)})")
        self.value, self.path = value, path

    def __contains__(self, key):
        return key in self.value

    def number(self, key, low, strict=True, high=None):
        if key not in self.value:
            return None
        v = self.value[key]
        ok = _is_number(v) and math.isfinite(v) and (v > low if strict else v >= low) and (high is None or v <= high)
        if not ok:
            bound = f"> {low}" if strict else f">= {low}"
            raise ValueError(f"{self.path}.{key} must be a finite number {bound}"
                             f"{'' if high is None else f' and <= {high}'}, got {v!r}")
        return v

    def integer(self, key, low):
        if key not in self.value:
            return None
        v = self.value[key]
        if not _is_int(v) or v < low:
            raise ValueError(f"{self.path}.{key} must be an integer >= {low}, got {v!r}")
        return v

    def boolean(self, key):
        if key not in self.value:
            return None
        v = self.value[key]
        if not isinstance(v, bool):
            raise ValueError(f"{self.path}.{key} must be True or False, got {v!r}")
        return v

    def choice(self, key, choices):
        if key not in self.value:
            return None
        v = self.value[key]
        if v not in choices:
            raise ValueError(f"{self.path}.{key} must be one of {', '.join(choices)}, got {v!r}")
        return v


SHAPE_DIMS = ("d", "heads", "kv_heads", "n", "m", "batch")
_LARGEST_SIZE = 1 << 40


def _check_extent(value, path):
    """One dimension of params.<op>.shapes: a size, a non-empty list of sizes, or {"min": …, "max": …}."""
    def size(v):
        if not _is_int(v) or not 1 <= v <= _LARGEST_SIZE:
            raise ValueError(f"{path} must be a size from 1 to {_LARGEST_SIZE}, a non-empty list of them, "
                             f"or {{'min': …, 'max': …}}, got {v!r}")
        return v
    if isinstance(value, dict):
        for key in value:
            if key not in ("min", "max"):
                raise ValueError(f"{path} may hold min and max, not {key!r}")
        if not value:
            raise ValueError(f"{path} needs min, max or both")
        low, high = size(value.get("min", 1)), value.get("max")
        if high is not None and size(high) < low:
            raise ValueError(f"{path}: min ({low}) exceeds max ({high})")
    elif isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{path} is an empty list: declare the sizes the subject supports")
        for v in value:
            size(v)
    else:
        size(value)


def _check_shapes(value, op):
    """params.<op>.shapes (SUBJECT-PROTOCOL.md, "Declared shapes")."""
    path = f"params.{op}.shapes"
    if not isinstance(value, dict):
        raise ValueError(f"{path} must be a dict of {', '.join(SHAPE_DIMS)}, got {value!r}")
    for key, extent in value.items():
        if key not in SHAPE_DIMS:
            raise ValueError(f"{path}.{key} is not a dimension pecheck knows ({path} has: {', '.join(SHAPE_DIMS)})")
        _check_extent(extent, f"{path}.{key}")


def check_declared_shapes(params):
    """Every params.<op>.shapes, before a probe is sized from them (the rest is checked with the declarations)."""
    if not isinstance(params, dict):
        return
    for op, value in params.items():
        if isinstance(value, dict) and "shapes" in value:
            _check_shapes(value["shapes"], op)


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


def _check_encode(value):
    f = _Fields(value, "params.encode", ("base", "schedule", "position_offset", "amplitude", "layout", "shapes"))
    if "shapes" in f:
        _check_shapes(value["shapes"], "encode")
    f.number("base", 0)
    f.choice("schedule", ("2i/d", "i/(h-1)"))
    f.integer("position_offset", 0)
    f.number("amplitude", 0)
    f.choice("layout", LAYOUTS)


def _check_scaling(value, rotary_dim):
    path = "params.rotate.scaling"
    if not isinstance(value, dict):
        raise ValueError(f"{path} must be a dict, got {value!r}")
    kind = value.get("type")
    if kind not in SCALINGS:
        raise ValueError(f"{path}.type must be one of {', '.join(SCALINGS)}, got {kind!r}")
    fields, required = SCALINGS[kind]
    f = _Fields(value, path, ("type",) + fields)
    for key in required:
        if key not in f:
            raise ValueError(f"scaling type {kind} needs {path}.{key}")
    f.number("factor", 1, strict=False)
    f.integer("original_max_position", 1)
    beta_fast, beta_slow = f.number("beta_fast", 0), f.number("beta_slow", 0)
    if kind == "yarn" and not (beta_fast or 32) > (beta_slow or 1):
        raise ValueError(f"{path}.beta_fast must exceed beta_slow")
    low, high = f.number("low_freq_factor", 0), f.number("high_freq_factor", 0)
    if kind == "llama3" and not high > low:
        raise ValueError(f"{path}.high_freq_factor must exceed low_freq_factor")
    if kind in ("ntk", "dynamic_ntk") and rotary_dim is not None and rotary_dim <= 2:
        raise ValueError(f"scaling type {kind} (base·F^(r/(r−2))) needs rotary_dim >= 4, got {rotary_dim}")


def _check_rotate(value):
    f = _Fields(value, "params.rotate", ("base", "rotary_dim", "rotary_fraction", "layout", "scaling", "shapes"))
    if "shapes" in f:
        _check_shapes(value["shapes"], "rotate")
    if "rotary_dim" in f and "rotary_fraction" in f:
        raise ValueError("params.rotate declares both rotary_dim and rotary_fraction: give one")
    f.number("base", 0)
    rotary_dim = f.integer("rotary_dim", 2)
    if rotary_dim is not None and rotary_dim % 2:
        raise ValueError(f"params.rotate.rotary_dim must be even (features rotate in pairs), got {rotary_dim}")
    f.number("rotary_fraction", 0, high=1)
    f.choice("layout", LAYOUTS)
    if "scaling" in f:
        _check_scaling(value["scaling"], rotary_dim)


def _check_bias(value):
    f = _Fields(value, "params.bias", ("scheme", "heads", "num_buckets", "max_distance", "bidirectional", "shapes"))
    if "shapes" in f:
        _check_shapes(value["shapes"], "bias")
    for key in ("scheme", "heads"):
        if key not in f:
            raise ValueError(f"params.bias needs {key}")
    scheme = f.choice("scheme", ("alibi", "t5"))
    f.integer("heads", 1)
    if scheme == "alibi":
        for key in ("num_buckets", "max_distance", "bidirectional"):
            if key in f:
                raise ValueError(f"params.bias.{key} is a field of scheme t5, not alibi")
        return
    bidirectional = f.boolean("bidirectional")
    num_buckets = f.integer("num_buckets", 2) or 32
    max_distance = f.integer("max_distance", 1) or 128
    max_exact = (num_buckets // 2 if bidirectional is not False else num_buckets) // 2
    if max_exact < 1 or max_distance <= max_exact:
        raise ValueError(f"params.bias.max_distance ({max_distance}) must exceed the exact buckets' reach ({max_exact})")


def _check_forward(value):
    f = _Fields(value, "params.forward", ("causal", "positional", "width", "shapes"))
    if "shapes" in f:
        _check_shapes(value["shapes"], "forward")
    f.boolean("causal")
    f.choice("positional", ("none", "absolute", "relative"))
    f.integer("width", 1)


def _check_shapes_only(op):
    def check(value):
        _Fields(value, f"params.{op}", ("shapes",))
        if "shapes" in value:
            _check_shapes(value["shapes"], op)
    return check


_PARAM_CHECKS = {"encode": _check_encode, "rotate": _check_rotate, "bias": _check_bias, "forward": _check_forward,
                 "attention": _check_shapes_only("attention"), "decode": _check_shapes_only("decode")}


def _check_declarations(dtype, layout, compute, params, handlers):
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if layout is not None and layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)} or None, got {layout!r}")
    if not handlers:
        raise ValueError("serve() needs at least one of encode=, attention=, rotate=, bias=, forward=, decode=")
    for op, fn in handlers.items():
        if not callable(fn):
            raise ValueError(f"{op}= must be a function, got {fn!r}")
    if ("decode" in handlers) != ("reset" in handlers):
        raise ValueError("decode= and reset= go together: incremental decoding needs both")
    if compute is not None:
        f = _Fields(compute, "compute", ("angles", "accumulate"))
        f.choice("angles", DTYPES)
        f.choice("accumulate", DTYPES)
    if params is not None:
        f = _Fields(params, "params", tuple(_PARAM_CHECKS))
        for op, value in params.items():
            needs = ("forward", "decode") if op == "forward" else (op,)
            if not any(o in handlers for o in needs):
                raise ValueError(f"params.{op} is given, but not {op}=")
            _PARAM_CHECKS[op](value)

"""What a subject may declare, checked before anything is served.

The same rules pecheck applies to a hello (a usage error there, exit 2),
raised here as ValueError so that a mistake shows where it was made: in the
call to serve() or check_*(), naming the field.
"""

import difflib
import math

PROTOCOL = 2
DTYPES = ("float64", "float32", "bfloat16", "float16")
LAYOUTS = ("interleaved", "halves")
# How query i lines up with the keys when n != m (params.bias.alignment): top_left, query i at key i;
# bottom_right, the last query at the last key (queries after a KV cache).
ALIGNMENTS = ("top_left", "bottom_right")
# Where a module's positions come from (params.forward.positions): the request's, or the padding's.
POSITIONS = ("given", "from_padding")
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
                close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]}?" if close else ""
                raise ValueError(f"{path}.{key} is not a field pecheck knows ({path} has: {', '.join(known)}){hint}")
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
            hint = " (a string: write the number itself, e.g. 10000 or 1e4)" if isinstance(v, str) else ""
            raise ValueError(f"{self.path}.{key} must be a finite number {bound}"
                             f"{'' if high is None else f' and <= {high}'}, got {v!r}{hint}")
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


def _check_encode(value):
    f = _Fields(value, "params.encode", ("base", "schedule", "position_offset", "amplitude", "layout"))
    f.number("base", 0)
    f.choice("schedule", ("2i/d", "i/(h-1)"))
    f.integer("position_offset", 0)
    f.number("amplitude", 0)
    f.choice("layout", LAYOUTS)


# transformers' spellings (a model's config.json rope_scaling / rope_parameters, pasted as is).
_SCALING_KEY_ALIASES = {"rope_type": "type", "original_max_position_embeddings": "original_max_position"}
_SCALING_TYPE_ALIASES = {"default": "none", "dynamic": "dynamic_ntk"}
_SCALING_ROTATE_KEYS = {"rope_theta": "base", "partial_rotary_factor": "rotary_fraction"}


def canonical_scaling(value, path="params.rotate.scaling"):
    """(the scaling dict in pecheck's spelling, the rope_parameters keys that belong to params.rotate):
    `rope_type` for `type`, `original_max_position_embeddings` for `original_max_position`, the type
    names "default" and "dynamic"; a key given under both names must agree."""
    if not isinstance(value, dict):
        raise ValueError(f"{path} must be a dict, got {value!r}")
    out, rotate, spelt = {}, {}, {}
    for key, v in value.items():
        if key in _SCALING_ROTATE_KEYS:
            rotate[_SCALING_ROTATE_KEYS[key]] = v
            continue
        name = _SCALING_KEY_ALIASES.get(key, key)
        if name in out and out[name] != v:
            raise ValueError(f"{path}.{spelt[name]} ({out[name]!r}) and {path}.{key} ({v!r}) say different things: "
                             f"give one")
        out[name], spelt[name] = v, key
    if isinstance(out.get("type"), str):
        out["type"] = _SCALING_TYPE_ALIASES.get(out["type"], out["type"])
    return out, rotate


def _check_scaling(value, rotary_dim):
    path = "params.rotate.scaling"
    value, rotate = canonical_scaling(value, path)
    kind = value.get("type")
    if kind not in SCALINGS:
        raise ValueError(f"{path}.type (or rope_type) must be one of {', '.join(SCALINGS)} (or transformers' "
                         f"default, dynamic), got {kind!r}")
    fields, required = SCALINGS[kind]
    f = _Fields(value, path, ("type",) + fields)
    for key in required:
        if key not in f:
            raise ValueError(f"scaling type {kind} needs {path}.{key} (or original_max_position_embeddings)"
                             if key == "original_max_position" else f"scaling type {kind} needs {path}.{key}")
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
    return rotate


def _check_rotate(value):
    f = _Fields(value, "params.rotate", ("base", "rotary_dim", "rotary_fraction", "layout", "scaling"))
    if "rotary_dim" in f and "rotary_fraction" in f:
        raise ValueError("params.rotate declares both rotary_dim and rotary_fraction: give one")
    f.number("base", 0)
    rotary_dim = f.integer("rotary_dim", 2)
    if rotary_dim is not None and rotary_dim % 2:
        raise ValueError(f"params.rotate.rotary_dim must be even (features rotate in pairs), got {rotary_dim}")
    f.number("rotary_fraction", 0, high=1)
    f.choice("layout", LAYOUTS)
    if "scaling" in f:
        rotate = _check_scaling(value["scaling"], rotary_dim)
        theta = rotate.get("base")
        if theta is not None:
            if not (_is_number(theta) and math.isfinite(theta) and theta > 0):
                raise ValueError(f"params.rotate.scaling.rope_theta must be a finite number > 0, got {theta!r}")
            if "base" in f and value["base"] != theta:
                raise ValueError(f"params.rotate.scaling.rope_theta ({theta!r}) and params.rotate.base "
                                 f"({value['base']!r}) say different things: give one")
        fraction = rotate.get("rotary_fraction")
        if fraction is not None:
            if not (_is_number(fraction) and 0 < fraction <= 1):
                raise ValueError(f"params.rotate.scaling.partial_rotary_factor must be a number in (0, 1], "
                                 f"got {fraction!r}")
            if "rotary_dim" in f or ("rotary_fraction" in f and value["rotary_fraction"] != fraction):
                raise ValueError("params.rotate.scaling.partial_rotary_factor and params.rotate's rotary_dim or "
                                 "rotary_fraction are both declared: give one")


def _check_bias(value):
    f = _Fields(value, "params.bias", ("scheme", "heads", "alignment", "num_buckets", "max_distance",
                                       "bidirectional"))
    for key in ("scheme", "heads"):
        if key not in f:
            raise ValueError(f"params.bias needs {key}")
    scheme = f.choice("scheme", ("alibi", "t5"))
    f.integer("heads", 1)
    f.choice("alignment", ALIGNMENTS)
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
    f = _Fields(value, "params.forward", ("causal", "positional", "width", "positions"))
    f.boolean("causal")
    f.choice("positions", POSITIONS)
    f.choice("positional", ("none", "absolute", "relative"))
    f.integer("width", 1)


_PARAM_CHECKS = {"encode": _check_encode, "rotate": _check_rotate, "bias": _check_bias, "forward": _check_forward}


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

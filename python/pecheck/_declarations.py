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


def _check_encode(value):
    f = _Fields(value, "params.encode", ("base", "schedule", "position_offset", "amplitude", "layout"))
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
        _check_scaling(value["scaling"], rotary_dim)


def _check_bias(value):
    f = _Fields(value, "params.bias", ("scheme", "heads", "num_buckets", "max_distance", "bidirectional"))
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


# The attention conventions (params.attention, and the same fields in params.forward), with
# transformers' config.json names read as pecheck's; a None value is a field not declared.
ATTENTION_FIELDS = ("heads", "kv_heads", "grouping", "window", "chunk", "softcap", "sinks", "sink_logits", "scale",
                    "alignment", "fully_masked")
ATTENTION_ALIASES = {"num_attention_heads": "heads", "num_key_value_heads": "kv_heads", "sliding_window": "window",
                     "attention_chunk_size": "chunk", "attn_logit_softcapping": "softcap"}


def _canonical_attention(value, path):
    if not isinstance(value, dict):
        raise ValueError(f"{path} must be a dict, got {value!r}")
    out = {}
    for key, v in value.items():
        name = ATTENTION_ALIASES.get(key, key)
        if v is None and name in ATTENTION_FIELDS:
            continue
        if name in out and out[name] != v:
            raise ValueError(f"{path}.{key} ({v!r}) and {path}.{name} ({out[name]!r}) say different things: give one")
        out[name] = v
    return out


def _check_attention_fields(f):
    heads = f.integer("heads", 1)
    kv_heads = f.integer("kv_heads", 1)
    if kv_heads is not None:
        if heads is None:
            raise ValueError(f"{f.path}.kv_heads needs {f.path}.heads (the query heads it groups)")
        if heads % kv_heads:
            raise ValueError(f"{f.path}.kv_heads ({kv_heads}) must divide {f.path}.heads ({heads})")
    if f.choice("grouping", ("repeat_interleave", "tile")) is not None and heads is None:
        raise ValueError(f"{f.path}.grouping needs {f.path}.heads")
    f.integer("window", 1)
    f.integer("chunk", 1)
    if "softcap" in f and f.value["softcap"] == 0:
        raise ValueError(f"{f.path}.softcap must be > 0, got 0 (leave it out for no cap: 0 means \"none\" in some "
                         f"kernels and \"every logit 0\" in others)")
    f.number("softcap", 0)
    sinks = f.boolean("sinks")
    logits = f.value.get("sink_logits")
    if logits is not None:
        if not sinks:
            raise ValueError(f"{f.path}.sink_logits is given, but not {f.path}.sinks: True")
        if not isinstance(logits, (list, tuple)) or not all(_is_number(x) and math.isfinite(x) for x in logits):
            raise ValueError(f"{f.path}.sink_logits must be a list of finite numbers, got {logits!r}")
    if sinks and len(logits or ()) != (heads or 1):
        raise ValueError(f"{f.path}.sinks: True needs {f.path}.sink_logits with one number per head ({heads or 1}), "
                         f"got {len(logits or ())}")
    f.number("scale", 0)
    f.choice("alignment", ("top_left", "bottom_right"))
    f.choice("fully_masked", ("refuse", "zeros"))


def _check_attention(value):
    _check_attention_fields(_Fields(_canonical_attention(value, "params.attention"), "params.attention",
                                    ATTENTION_FIELDS))


def _check_forward(value):
    f = _Fields(_canonical_attention(value, "params.forward"), "params.forward",
                ("causal", "positional", "width", "segments", "cache_capacity", "multi_token_decode")
                + ATTENTION_FIELDS)
    f.boolean("causal")
    f.choice("positional", ("none", "absolute", "relative"))
    f.integer("width", 1)
    f.boolean("segments")
    f.boolean("cache_capacity")
    f.boolean("multi_token_decode")
    _check_attention_fields(f)


_PARAM_CHECKS = {"encode": _check_encode, "rotate": _check_rotate, "attention": _check_attention, "bias": _check_bias,
                 "forward": _check_forward}


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

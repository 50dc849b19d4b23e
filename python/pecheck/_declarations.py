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
ROTATE_LAYOUTS = LAYOUTS + ("interleave_then_halves",)  # DeepSeek's apply_rotary_pos_emb_interleave
OPS = ("encode", "attention", "rotate", "bias", "forward", "decode", "reset", "backward")
_V1_OPS = ("encode", "attention", "rotate")

# params.rotate.scaling: each type's fields, and which of them are required (L, original_max_position, may
# also come from beside the scaling: see _check_scaling).
SCALINGS = {
    "none": ((), ()),
    "linear": (("factor",), ("factor",)),
    "ntk": (("factor",), ("factor",)),
    "dynamic_ntk": (("factor", "original_max_position"), ("factor",)),
    "yarn": (("factor", "original_max_position", "beta_fast", "beta_slow", "mscale", "mscale_all_dim",
              "attention_factor", "truncate"), ("factor",)),
    "llama3": (("factor", "low_freq_factor", "high_freq_factor", "original_max_position"),
               ("factor", "low_freq_factor", "high_freq_factor")),
    "longrope": (("short_factor", "long_factor", "original_max_position", "factor", "attention_factor",
                  "factor_switch"), ("short_factor", "long_factor")),
}
# transformers' names of the types: "default" is none, "dynamic" dynamic_ntk, "su" (Phi-3's first
# configs) longrope, "mrope" (Qwen2-VL's) none with multi-axis positions.
SCALING_NAMES = {"none": "none", "default": "none", "mrope": "none", "linear": "linear", "ntk": "ntk",
                 "dynamic_ntk": "dynamic_ntk", "dynamic": "dynamic_ntk", "yarn": "yarn", "llama3": "llama3",
                 "longrope": "longrope", "su": "longrope"}
# What any scaling may carry besides its type's fields: the keys transformers keeps in rope_parameters.
_SCALING_COMMON = ("type", "rope_type", "rope_theta", "partial_rotary_factor", "mrope_section", "mrope_interleaved")
_ORIGINAL_ALIAS = "original_max_position_embeddings"  # transformers' name of original_max_position
_ROTATE_FIELDS = ("base", "rotary_dim", "rotary_fraction", "layout", "scaling", "max_position_embeddings",
                  "original_max_position", _ORIGINAL_ALIAS, "freq_factors", "mrope_section", "mrope_interleaved",
                  "qk_rope_head_dim", "qk_nope_head_dim", "rope_2d")


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

    def positive_numbers(self, key):
        """A non-empty list of finite numbers > 0 (one per pair)."""
        if key not in self.value:
            return None
        v = self.value[key]
        if not isinstance(v, (list, tuple)) or not v or not all(_is_number(x) and math.isfinite(x) and x > 0 for x in v):
            raise ValueError(f"{self.path}.{key} must be a non-empty list of finite numbers > 0 (one per pair), got {v!r}")
        return list(v)

    def sections(self, key):
        """mrope_section: [t, h, w] pair counts."""
        if key not in self.value:
            return None
        v = self.value[key]
        if not isinstance(v, (list, tuple)) or len(v) != 3 or not all(_is_int(x) and x >= 0 for x in v):
            raise ValueError(f"{self.path}.{key} must be a list of 3 integers >= 0 ([t, h, w] pair counts), got {v!r}")
        return list(v)

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
    _check_sendable(value, op, path)


# What pecheck can send (include/pecheck/core/size_limits.h, the same rules): the largest size on each
# dimension, the most numbers one request carries with its answer, and the shape ladder's top rung on each
# dimension of an op (src/core/op_table.cpp; 64 where it has none).
LARGEST_SENDABLE = {"d": 1 << 16, "n": 1 << 20, "m": 1 << 20, "heads": 1 << 12, "kv_heads": 1 << 12,
                    "batch": 1 << 12}
MOST_NUMBERS_PER_REQUEST = 1 << 24
_LADDER_TOPS = {"encode": {"d": 512, "n": 4096}, "attention": {"d": 256, "n": 1024, "m": 4096, "heads": 16},
                "rotate": {"d": 256, "n": 4096}, "bias": {"n": 1024, "m": 4096},
                "forward": {"n": 256, "batch": 8}, "decode": {"n": 256}}
_SMALL_DRAWS = 64


def _smallest(extent):
    if isinstance(extent, dict):
        return extent.get("min", 1)
    return min(extent) if isinstance(extent, (list, tuple)) else extent


def _largest_sent(op, dim, extent):
    if isinstance(extent, dict):
        top = max(extent.get("min", 1), _LADDER_TOPS.get(op, {}).get(dim, _SMALL_DRAWS))
        return top if extent.get("max") is None else min(top, extent["max"])
    return max(extent) if isinstance(extent, (list, tuple)) else extent


def request_numbers(sizes):
    """The numbers a request with these sizes carries with its answer: batch × heads × (n·d + 2·m·d + n·m)."""
    n, m, d = sizes.get("n", 1), sizes.get("m", 1), sizes.get("d", 1)
    return sizes.get("batch", 1) * sizes.get("heads", 1) * (n * d + 2 * m * d + n * m)


def _check_sendable(shapes, op, path):
    for dim, extent in shapes.items():
        sent = extent.get("min", 1) if isinstance(extent, dict) else _largest_sent(op, dim, extent)
        if sent > LARGEST_SENDABLE[dim]:
            raise ValueError(f"{path}.{dim} declares {sent}, more than pecheck sends on {dim} (at most "
                             f"{LARGEST_SENDABLE[dim]}): declare the sizes the subject is used at, or a range")
    keyed = op in ("attention", "bias")
    worst = None
    for dim in shapes:
        sizes = {other: (_largest_sent(op, other, e) if other == dim else _smallest(e)) for other, e in shapes.items()}
        if keyed and "m" not in shapes and "n" in shapes:
            sizes["m"] = _smallest(shapes["n"])  # self-attention: as many keys as queries
        numbers = request_numbers(sizes)
        if numbers > MOST_NUMBERS_PER_REQUEST and (worst is None or sizes[dim] > worst[1]):
            described = ", ".join(f"{k} {v}" for k, v in sizes.items())
            worst = (dim, sizes[dim], f"{path}.{dim}: a request at the declared sizes ({described}) would carry "
                                      f"{numbers} numbers with its answer, more than pecheck sends in one request "
                                      f"({MOST_NUMBERS_PER_REQUEST}, 128 MiB as float64): declare smaller sizes, "
                                      f"or ranges")
    if worst is not None:
        raise ValueError(worst[2])


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


def _scaling_type(value, path):
    """The scaling's type as pecheck names it (type, rope_type, or both when they agree)."""
    if not isinstance(value, dict):
        raise ValueError(f"{path} must be a dict, got {value!r}")
    if "type" in value and "rope_type" in value and value["type"] != value["rope_type"]:
        raise ValueError(f"{path}.type ({value['type']!r}) and {path}.rope_type ({value['rope_type']!r}) disagree")
    written = value.get("type", value.get("rope_type"))
    if written not in SCALING_NAMES:
        raise ValueError(f"{path}.type must be one of {', '.join(SCALING_NAMES)} (rope_type is the same field), "
                         f"got {written!r}")
    return SCALING_NAMES[written], written


def _check_scaling(value, rotate, path):
    """params.rotate.scaling (a rope_scaling / rope_parameters dict as transformers writes it is accepted);
    `rotate` is the dict it sits in. Returns the pairs its lists and sections fix (None when none)."""
    kind, written = _scaling_type(value, path)
    fields, required = SCALINGS[kind]
    known = _SCALING_COMMON + fields + ((_ORIGINAL_ALIAS,) if "original_max_position" in fields else ())
    f = _Fields(value, path, known)
    if "original_max_position" in f and _ORIGINAL_ALIAS in f:
        raise ValueError(f"{path}.original_max_position and {path}.{_ORIGINAL_ALIAS} are the same field: give one")
    for key in required:
        if key not in f:
            raise ValueError(f"scaling type {written} needs {path}.{key}")
    f.number("factor", 1, strict=False)
    original = f.integer("original_max_position", 1) or f.integer(_ORIGINAL_ALIAS, 1)
    beta_fast, beta_slow = f.number("beta_fast", 0), f.number("beta_slow", 0)
    if kind == "yarn" and not (beta_fast or 32) > (beta_slow or 1):
        raise ValueError(f"{path}.beta_fast must exceed beta_slow")
    f.boolean("truncate")
    f.number("mscale", 0, strict=False)
    f.number("mscale_all_dim", 0, strict=False)
    f.number("attention_factor", 0)
    low, high = f.number("low_freq_factor", 0), f.number("high_freq_factor", 0)
    if kind == "llama3" and high < low:
        raise ValueError(f"{path}.high_freq_factor must be at least low_freq_factor")
    short, long = f.positive_numbers("short_factor"), f.positive_numbers("long_factor")
    if kind == "longrope" and len(short) != len(long):
        raise ValueError(f"{path}.short_factor has {len(short)} entries and long_factor {len(long)}: one per pair each")
    f.choice("factor_switch", ("length", "position", "context"))
    theta = f.number("rope_theta", 0)
    if theta is not None and "base" in rotate and rotate["base"] != theta:
        raise ValueError(f"{path}.rope_theta ({theta}) and the base beside it ({rotate['base']}) disagree: give one")
    partial = f.number("partial_rotary_factor", 0, high=1)
    if partial is not None and ("rotary_dim" in rotate or rotate.get("rotary_fraction", partial) != partial):
        raise ValueError(f"{path}.partial_rotary_factor and the rotary width declared beside it disagree: give one")
    sections = f.sections("mrope_section")
    if sections is not None and "mrope_section" in rotate:
        raise ValueError("mrope_section is declared beside the scaling and inside it: give one")
    f.boolean("mrope_interleaved")
    if written == "mrope" and sections is None:
        raise ValueError(f"scaling type mrope needs {path}.mrope_section ([t, h, w] pair counts)")
    if kind in ("dynamic_ntk", "yarn", "llama3", "longrope") and original is None:
        beside = rotate.get("original_max_position", rotate.get(_ORIGINAL_ALIAS))
        if beside is None and kind != "llama3":
            beside = rotate.get("max_position_embeddings")  # transformers' default for dynamic, yarn, longrope
        if beside is None:
            raise ValueError(f"scaling type {written} needs {path}.original_max_position (or {_ORIGINAL_ALIAS}, in "
                             f"the scaling or beside it in params.rotate)")
    return short, sections


def _check_rotate(value, path="params.rotate"):
    # params.rotate.shapes belongs to the op; a layer's rotary (params.forward.layers[k].rotate) has none.
    f = _Fields(value, path, _ROTATE_FIELDS + (("shapes",) if path == "params.rotate" else ()))
    if "shapes" in f:
        _check_shapes(value["shapes"], "rotate")
    if "rotary_dim" in f and "rotary_fraction" in f:
        raise ValueError(f"{path} declares both rotary_dim and rotary_fraction: give one")
    f.number("base", 0)
    rotary_dim = f.integer("rotary_dim", 2)
    if rotary_dim is not None and rotary_dim % 2:
        raise ValueError(f"{path}.rotary_dim must be even (features rotate in pairs), got {rotary_dim}")
    f.number("rotary_fraction", 0, high=1)
    f.choice("layout", ROTATE_LAYOUTS)
    f.integer("max_position_embeddings", 1)
    if "original_max_position" in f and _ORIGINAL_ALIAS in f:
        raise ValueError(f"{path}.original_max_position and {path}.{_ORIGINAL_ALIAS} are the same field: give one")
    f.integer("original_max_position", 1)
    f.integer(_ORIGINAL_ALIAS, 1)
    pairs = []  # (what, how many pairs it fixes)
    factors = f.positive_numbers("freq_factors")
    if factors is not None:
        pairs.append(("freq_factors", len(factors)))
    sections = f.sections("mrope_section")
    interleaved = f.boolean("mrope_interleaved")
    kind = None
    if "scaling" in f:
        kind, _ = _scaling_type(value["scaling"], f"{path}.scaling")
        short, in_scaling = _check_scaling(value["scaling"], value, f"{path}.scaling")
        if short is not None:
            pairs.append(("scaling.short_factor", len(short)))
        sections = sections if sections is not None else in_scaling
        interleaved = interleaved or value["scaling"].get("mrope_interleaved")
    if sections is not None:
        pairs.append(("mrope_section (its sum)", sum(sections)))
    elif interleaved:
        raise ValueError(f"{path}.mrope_interleaved needs mrope_section")
    for what, count in pairs:
        if count != pairs[0][1]:
            raise ValueError(f"{path}.{what} covers {count} pairs and {path}.{pairs[0][0]} {pairs[0][1]}: "
                             "the rotated pairs are one number")
        if rotary_dim is not None and rotary_dim != 2 * count:
            raise ValueError(f"{path}.rotary_dim is {rotary_dim}, but {path}.{what} covers {count} pairs")
    if kind in ("ntk", "dynamic_ntk") and rotary_dim is not None and rotary_dim <= 2:
        raise ValueError(f"scaling type {kind} (base·F^(r/(r−2))) needs rotary_dim >= 4, got {rotary_dim}")
    _check_meaningful_rotate(value, path, sections)
    # DeepSeek MLA: a head of qk_nope_head_dim + qk_rope_head_dim features, the last qk_rope_head_dim rotate.
    rope, nope = f.integer("qk_rope_head_dim", 2), f.integer("qk_nope_head_dim", 0)
    if (rope is None) != (nope is None):
        raise ValueError(f"{path}.qk_rope_head_dim and {path}.qk_nope_head_dim are declared together")
    if rope is not None:
        if rope % 2:
            raise ValueError(f"{path}.qk_rope_head_dim must be even (features rotate in pairs), got {rope}")
        if "rotary_dim" in f or "rotary_fraction" in f or sections is not None:
            raise ValueError(f"{path}.qk_rope_head_dim fixes the rotated features: rotary_dim, rotary_fraction and "
                             "mrope_section do not stand beside it")
    # Vision 2-D rotary (Pixtral, Qwen2-VL): rotate requests then carry positions as 2 × n (rows, columns).
    if value.get("rope_2d") is not None:
        at = f"{path}.rope_2d"
        g = _Fields(value["rope_2d"], at, ("axes", "frequencies"))
        if list(value["rope_2d"].get("axes", ())) not in (["h", "w"], ["w", "h"]):
            raise ValueError(f'{at}.axes must be ["h", "w"] or ["w", "h"], got {value["rope_2d"].get("axes")!r}')
        if g.choice("frequencies", ("even_odd", "halves")) is None:
            raise ValueError(f'{at}.frequencies is missing: "even_odd" (Pixtral) or "halves" (Qwen2-VL)')
        if sections is not None or rope is not None:
            raise ValueError(f"{at} fixes the position streams and the rotated pairs: mrope_section and "
                             "qk_rope_head_dim do not stand beside it")
    return value


# Values in range but meaningless for the maths (issue 39; the same rules as
# src/subjects/process/rotate_declarations.cpp and attention_declarations.cpp).
_FACTORS = (1e-3, 1e6)  # a per-pair factor divides a frequency: outside it, it overflows or vanishes
_SOFTCAP = (1e-3, 6e4)  # c·tanh(s/c): above float16's largest value it caps nothing, below 1e-3 it flattens all
_SCALE = (1e-4, 1e4)    # the logits' scale (1/√d by default): outside it every logit vanishes or overflows float16


def _check_meaningful_rotate(value, path, sections):
    scaling = value.get("scaling") if isinstance(value.get("scaling"), dict) else {}
    for field, base in ((f"{path}.base", value.get("base")), (f"{path}.scaling.rope_theta", scaling.get("rope_theta"))):
        if base is not None and base <= 1:
            raise ValueError(f"{field} must be > 1 (the frequencies base^(−2i/r) fall with i only above 1; at 1 "
                             f"every pair rotates alike), got {base!r}")
    if sections is not None and sum(sections) == 0:
        field = f"{path}.scaling.mrope_section" if "mrope_section" in scaling else f"{path}.mrope_section"
        raise ValueError(f"{field} gives no pair to any axis ([t, h, w] pair counts, at least one pair in all)")
    for field, factors in ((f"{path}.scaling.short_factor", scaling.get("short_factor")),
                           (f"{path}.scaling.long_factor", scaling.get("long_factor")),
                           (f"{path}.freq_factors", value.get("freq_factors"))):
        for x in factors or ():
            if not _FACTORS[0] <= x <= _FACTORS[1]:
                raise ValueError(f"{field} must hold factors in [{_FACTORS[0]:g}, {_FACTORS[1]:g}] (each divides a "
                                 f"frequency: outside it the frequency overflows or vanishes), got {x:g}")


def _length_dependent(params):
    """The scaling a params dict declares when its rotation follows the sequence length (the rotate function
    must then take seq_len): "dynamic_ntk" or "longrope", else None."""
    rotate = (params or {}).get("rotate") if isinstance(params, dict) else None
    scaling = (rotate or {}).get("scaling") if isinstance(rotate, dict) else None
    if not isinstance(scaling, dict):
        return None
    kind = SCALING_NAMES.get(scaling.get("type", scaling.get("rope_type")))
    if kind == "dynamic_ntk" or (kind == "longrope" and scaling.get("factor_switch") != "context"):
        return kind
    return None


def _check_bias(value):
    f = _Fields(value, "params.bias", ("scheme", "heads", "alignment", "num_buckets", "max_distance",
                                       "bidirectional", "shapes"))
    if "shapes" in f:
        _check_shapes(value["shapes"], "bias")
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
    if "softcap" in f and not _SOFTCAP[0] <= f.value["softcap"] <= _SOFTCAP[1]:
        raise ValueError(f"{f.path}.softcap must be in [0.001, 60000] (c·tanh(s/c) caps nothing above float16's "
                         f"largest value, and flattens every logit below 0.001), got {f.value['softcap']:g}")
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
    if "scale" in f and not _SCALE[0] <= f.value["scale"] <= _SCALE[1]:
        raise ValueError(f"{f.path}.scale must be in [0.0001, 10000] (the default is 1/√d; outside it every logit "
                         f"vanishes or overflows float16), got {f.value['scale']:g}")
    f.choice("alignment", ("top_left", "bottom_right"))
    f.choice("fully_masked", ("refuse", "zeros"))


def _check_attention(value):
    f = _Fields(_canonical_attention(value, "params.attention"), "params.attention",
                ATTENTION_FIELDS + ("shapes", "poison_invariance"))
    if "shapes" in f:
        _check_shapes(value["shapes"], "attention")
    _check_attention_fields(f)
    # Unreachable keys and values may hold NaN or ±1e30 (attention.poison_invariance); the attention op's only.
    f.boolean("poison_invariance")
    if isinstance(value.get("shapes"), dict) and "heads" in value["shapes"] and "heads" not in f:
        raise ValueError("params.attention.shapes.heads is declared without params.attention.heads: declare the "
                         "heads (and kv_heads) the subject has, or leave shapes.heads out")


def _check_forward(value):
    f = _Fields(_canonical_attention(value, "params.forward"), "params.forward",
                ("causal", "positional", "width", "positions", "layers", "segments", "cache_capacity",
                 "multi_token_decode", "shapes") + ATTENTION_FIELDS)
    if "shapes" in f:
        _check_shapes(value["shapes"], "forward")
    f.boolean("causal")
    f.choice("positions", POSITIONS)
    f.choice("positional", ("none", "absolute", "relative"))
    f.integer("width", 1)
    if "layers" in f:
        layers = value["layers"]
        if not isinstance(layers, (list, tuple)) or not layers or len(layers) > 4096:
            raise ValueError('params.forward.layers must be a list of 1 to 4096 layers, each {"rotate": {...}} or '
                             f'{{"rotate": None}} (a NoPE layer), got {layers!r}')
        for k, layer in enumerate(layers):
            at = f"params.forward.layers[{k}]"
            lf = _Fields(layer, at, ("rotate", "attn_temperature_tuning", "attn_scale", "floor_scale", "window", "chunk"))
            lf.integer("window", 1)  # a sliding layer's W
            lf.integer("chunk", 1)  # a chunked layer's C
            if "rotate" not in layer:
                raise ValueError(f"{at}.rotate is missing: a layer declares its rotary, or None for none")
            if layer["rotate"] is not None:
                _check_rotate(layer["rotate"], f"{at}.rotate")
            _check_temperature_tuning(layer, lf, at)
    f.boolean("segments")
    f.boolean("cache_capacity")
    f.boolean("multi_token_decode")
    _check_attention_fields(f)


def _check_temperature_tuning(layer, f, at):
    """Llama 4's attn_temperature_tuning with attn_scale and floor_scale, on a NoPE layer only."""
    if not f.boolean("attn_temperature_tuning"):
        for key in ("attn_scale", "floor_scale"):
            if key in layer:
                raise ValueError(f"{at}.{key} is given, but not {at}.attn_temperature_tuning: True")
        return
    if layer.get("rotate") is not None:
        raise ValueError(f"{at}.attn_temperature_tuning: True on a rotary layer: Llama 4 tunes the temperature of "
                         'its NoPE layers only ("rotate": None)')
    for key in ("attn_scale", "floor_scale"):
        if key not in layer:
            raise ValueError(f"{at}.{key} is missing: attn_temperature_tuning needs attn_scale and floor_scale")
    scale, floor = layer["attn_scale"], layer["floor_scale"]
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale <= 100:
        raise ValueError(f"{at}.attn_scale must be a number in (0, 100], got {scale!r}")
    if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not 1 <= floor <= 1e9:
        raise ValueError(f"{at}.floor_scale must be a number from 1 to 1e9, got {floor!r}")


def _check_shapes_only(op):
    def check(value):
        _Fields(value, f"params.{op}", ("shapes",))
        if "shapes" in value:
            _check_shapes(value["shapes"], op)
    return check


def _check_backward(value):
    """params.backward: {"of": [ops]}, the ops among rotate, attention and forward whose gradients backward= answers."""
    _Fields(value, "params.backward", ("of",))
    of = value.get("of")
    if not isinstance(of, (list, tuple)) or not of or any(op not in ("rotate", "attention", "forward") for op in of):
        raise ValueError(f'params.backward.of must list "rotate", "attention" and/or "forward", got {of!r}')


_PARAM_CHECKS = {"encode": _check_encode, "rotate": _check_rotate, "attention": _check_attention, "bias": _check_bias,
                 "forward": _check_forward, "decode": _check_shapes_only("decode"), "backward": _check_backward}


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
        f = _Fields(params, "params", tuple(_PARAM_CHECKS) + ("model",))
        for op, value in params.items():
            if op == "model":  # a config.json, read by pecheck itself (docs/model-configs.md)
                if not isinstance(value, dict):
                    raise ValueError(f"params.model must be a config.json's dict, got {type(value).__name__}")
                continue
            needs = ("forward", "decode") if op == "forward" else (op,)
            if not any(o in handlers for o in needs):
                raise ValueError(f"params.{op} is given, but not {op}=")
            _PARAM_CHECKS[op](value)
    if "backward" in handlers:
        of = (params or {}).get("backward", {}).get("of") or []
        if not of:
            raise ValueError('backward= needs params={"backward": {"of": [...]}}: the ops whose gradients it answers')
        for op in of:
            if op not in handlers:
                raise ValueError(f"params.backward.of names {op}, but not {op}=")

#!/usr/bin/env python3
"""The hostile pass of issue 39: some 470 runs of pecheck and its Python package on hostile input.

    pass.py [--quick] [--only REGEX] [--json FILE] [--keep] [PECHECK_BIN]

Each case is one run (`pecheck run`, `merge`, `check-declarations`, `explain-config`, or a Python
process calling the package's check_*), in a directory of its own, in a session of its own, under a
memory limit. For each the pass records the exit status, the wall time, the peak resident memory of
the case's processes (wait4), whether a report.json was written, stderr's first line, and which
processes outlived it: this process is a subreaper (PR_SET_CHILD_SUBREAPER), so whatever a case
leaves behind — a subject's daemon that double-forked and exec'd with an empty environment, a pecheck
orphaned by a killed pytest — is reparented here and found by its parent pid. Such leftovers are then
killed by pid (never by name: other work runs on this machine).

A case is classified:
  crash              killed by a signal it was not sent, an exit other than 0/1/2/3, "internal error"
                     or a C++/Python traceback of pecheck's own
  hang               still running at the case's limit (60 s unless the case says less)
  green-on-planted   exit 0 on a subject with a planted bug
  accepted-nonsense  exit 0 on a declaration, option, config or shard that must be refused
                     (for merge: an accepted forgery)
  not-refused        a declaration that must be refused (exit 2) went on to run (exit 1 or 3)
  leftover           a process of the case's outlived it
  memory             a peak above 2 GB
  lost-diagnosis     the output does not name the cause the case expects
  slow-signal        SIGTERM did not end pecheck within 2 s with its partial report written
  unexpected         an exit status outside the case's expected set (reviewed by hand)
Exit status of the pass: 0 when no case is classified, else 1.

--quick runs the cases marked quick (a representative ~40: one or more per surface, stdlib-only
subjects, each a few seconds at most): ctest runs it as `hostile_pass_quick`.

The summary of the pass of 2026-11-29 (issue 39's "Done when") is in docs/hostile-pass.md.
"""
import argparse
import ctypes
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SUBJECT = os.path.join(HERE, "subject.py")
SUBJECTS = os.path.join(ROOT, "tests", "subjects")
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
MARKER = "PECHECK_HOSTILE_CASE"
MEMORY_LIMIT = 2 << 30        # a peak above this is a finding
ADDRESS_LIMIT = 8 << 30       # RLIMIT_AS of each case: a blow-up ends in bad_alloc, not in the machine
FAST = ["--cases", "5", "--no-regressions", "--subject-timeout", "5", "-j", "1"]


class Case:
    def __init__(self, surface, name, argv, expect="any", codes=(0, 1, 2, 3), cause=None, timeout=60, env=None,
                 stdin=None, quick=False, setup=None, signal_after=None, leftover_grace=0.5, report_dir="reports"):
        self.surface, self.name, self.argv, self.expect = surface, name, argv, expect
        self.codes, self.cause, self.timeout, self.env, self.stdin = set(codes), cause, timeout, env or {}, stdin
        self.quick, self.setup, self.signal_after, self.grace = quick, setup, signal_after, leftover_grace
        self.report_dir = report_dir


CASES = []


def case(*args, **kw):
    CASES.append(Case(*args, **kw))


PARAMS_DIR = tempfile.mkdtemp(prefix="pecheck-hostile-params-")  # removed by main()


def proxy(builtin, params):
    """A cmd: spec serving BUILTIN under a hello that declares `params` (a JSON text, kept in a file: some are
    larger than an argument may be, and none is quoted for the shell)."""
    text = params if isinstance(params, str) else json.dumps(params)
    path = os.path.join(PARAMS_DIR, f"params{len(os.listdir(PARAMS_DIR)):04d}.json")
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    return f"cmd:{PY} {SUBJECT} proxy builtin:{builtin} @{path}"


def shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


# ---------------------------------------------------------------------------------------------------
# 1. Declared shapes: every op, every dimension, values from absurd to huge-but-legal.
# ---------------------------------------------------------------------------------------------------
OPS = {  # op: (built-in that answers it, the properties a run checks, the dimensions it declares)
    "encode": ("sinusoidal", "pe.offset_only_dot", ["d", "n"]),
    "rotate": ("rope", "rope.relative_dot", ["d", "n"]),
    "attention": ("attention", "attention.kv_permutation_invariance", ["d", "n", "m", "heads", "kv_heads"]),
    "forward": ("llama-block", "module.causality", ["d", "n", "batch"]),
    "decode": ("llama-block", "module.causality", ["d", "n"]),
    "bias": ("alibi", "bias.offset_only", ["n", "m", "heads"]),
}
BAD_SIZES = {  # text spliced into the hello verbatim
    "zero": "0", "negative": "-1", "2^31": str(2 ** 31), "2^32": str(2 ** 32), "2^40+1": str(2 ** 40 + 1),
    "2^63": str(2 ** 63), "2^64": str(2 ** 64), "1e308": "1e308", "fraction": "1.5", "string": '"8"',
    "bool": "true", "null": "null", "empty-list": "[]", "list-zero": "[0]", "list-negative": "[2, -2]",
    "min>max": '{"min": 5, "max": 2}', "min-negative": '{"min": -3}', "min-2^31": '{"min": 2147483648}',
    "max-1e308": '{"min": 1, "max": 1e308}', "NaN": "NaN", "Infinity": "Infinity", "-Infinity": "-Infinity",
    "min-string": '{"min": "a"}', "nested-list": "[[2]]", "unknown-key": '{"x": 1}', "1e400": "1e400",
    "huge-list": "[" + ",".join(str(i) for i in range(1, 100001)) + "]",
}
BAD_EVERYWHERE = ["zero", "negative", "2^31", "2^32", "2^63", "fraction", "string", "NaN", "min>max", "1e400"]
BAD_ON_OTHER_DIMS = ["zero", "2^32", "NaN", "min>max", "string"]
# Not JSON a parser can hold (a double's overflow, a key twice): the subject's answer is refused as such, a
# subject failure (exit 3) naming the fault, or a declaration refused (exit 2).
TEXT_FAULTS = {"1e400": r"1e400|out of the range", "duplicate": r"twice"}
LEGAL_SIZES = {"max-2^40": '{"max": 1099511627776}', "list-2-4": "[2, 4]", "min-1-max-8": '{"min": 1, "max": 8}'}
BASE_PARAMS = {"attention": '"heads": 4, ', "forward": "", "decode": "", "encode": "", "rotate": "", "bias":
               '"scheme": "alibi", "heads": 8, '}


def shapes_params(op, dim, value):
    block = "{" + BASE_PARAMS[op] + '"shapes": {"' + dim + '": ' + value + "}}"
    params = '{"' + op + '": ' + block + "}"
    return params


for op, (builtin, prop, dims) in OPS.items():
    for dim in dims:
        names = list(BAD_SIZES) if dim == dims[0] and op in ("encode", "rotate", "attention") else \
            BAD_EVERYWHERE if dim == dims[0] else BAD_ON_OTHER_DIMS
        for label in names:
            fault = TEXT_FAULTS.get(label)
            case("shapes", f"{op}.shapes.{dim}={label}",
                 ["run", "--subject", proxy(builtin, shapes_params(op, dim, BAD_SIZES[label])), "--properties",
                  prop] + FAST, expect="any" if fault else "refuse", codes=(2, 3) if fault else (2,),
                 cause=fault or re.escape(f"shapes.{dim}"),
                 quick=(label in ("2^32", "NaN") and dim == dims[0]), timeout=40)
        if dim == dims[0]:
            for label, value in LEGAL_SIZES.items():
                case("shapes", f"{op}.shapes.{dim}={label} (legal)",
                     ["run", "--subject", proxy(builtin, shapes_params(op, dim, value)), "--properties", prop,
                      "--time-budget", "30"] + FAST, codes=(0, 1), timeout=45)
# A request too big as a whole though each size is in range (2^24 numbers), and batch 10^9.
for label, params in {
    "attention n=10^6 d=64": '{"attention": {"shapes": {"n": 1000000, "d": 64}}}',
    "encode n=10^7 d=64": '{"encode": {"shapes": {"n": 10000000, "d": 64}}}',
    "forward batch=10^9": '{"forward": {"shapes": {"batch": 1000000000}}}',
    "forward batch=4096 n=4096 d=4096": '{"forward": {"shapes": {"batch": 4096, "n": 4096, "d": 4096}}}',
    "attention.shapes.heads without heads": '{"attention": {"shapes": {"heads": 4}}}',
    "shapes for an op not offered": '{"forward": {"shapes": {"d": 8}}}',
    "shapes not an object": '{"rotate": {"shapes": [1, 2]}}',
    "unknown op block": '{"frobnicate": {"shapes": {"d": 8}}}',
    "params not an object": '[1]',
    "duplicate shapes key": '{"rotate": {"shapes": {"d": 8, "d": 2147483648}}}',
}.items():
    fault = TEXT_FAULTS["duplicate"] if "duplicate" in label else None
    builtin = "attention" if "attention" in label else "sinusoidal" if "encode" in label or "offered" in label \
        else "rope" if "rotate" in label or "op" in label or "params" in label else "llama-block"
    case("shapes", label, ["run", "--subject", proxy(builtin, params)] + FAST, expect="any" if fault else "refuse",
         codes=(2, 3) if fault else (2,), cause=fault,
         quick=label.startswith("forward batch=10^9"), timeout=40)

# ---------------------------------------------------------------------------------------------------
# 2. Scaling dicts and rotary fields.
# ---------------------------------------------------------------------------------------------------
HOSTILE_NUMBERS = {"0": "0", "negative": "-2", "1e-320": "1e-320", "1e308": "1e308", "NaN": "NaN",
                   "string": '"4"', "null": "null"}
SCALINGS = {
    "linear": ('{"type": "linear", "factor": %s}', ["factor"]),
    "dynamic": ('{"type": "dynamic", "factor": %s, "original_max_position": 2048}', ["factor"]),
    "yarn": ('{"type": "yarn", "factor": %s, "original_max_position": 4096, "beta_fast": 32, "beta_slow": 1}',
             ["factor", "original_max_position", "beta_fast"]),
    "llama3": ('{"rope_type": "llama3", "factor": %s, "low_freq_factor": 1, "high_freq_factor": 4, '
               '"original_max_position_embeddings": 8192}', ["factor", "low_freq_factor", "original"]),
    "longrope": ('{"type": "longrope", "short_factor": [%s, 1, 1, 1], "long_factor": [1, 1, 1, 1], '
                 '"original_max_position": 4096}', ["short_factor"]),
}


def scaling_with(kind, field, value):
    template, _ = SCALINGS[kind]
    if field == "factor" or field == "short_factor":
        return template % value
    base = json.loads(template % "4")
    key = {"original": "original_max_position_embeddings"}.get(field, field)
    text = json.dumps(base)
    return text.replace(f'"{key}": {json.dumps(base[key])}', f'"{key}": {value}')


for kind, (template, fields) in SCALINGS.items():
    for field in fields:
        for label, value in HOSTILE_NUMBERS.items():
            if field != "factor" and label in ("string", "null"):
                continue
            scaling = scaling_with(kind, field, value)
            case("scaling", f"{kind}.{field}={label}",
                 ["run", "--subject", proxy("rope", '{"rotate": {"scaling": ' + scaling + ', "shapes": {"d": 8}}}'),
                  "--properties", "rope.relative_dot"] + FAST, expect="refuse", codes=(2,),
                 quick=(kind == "yarn" and field == "factor" and label == "1e-320"), timeout=40)
    required = json.loads(template % "4")
    for key in list(required):
        if key in ("type", "rope_type"):
            continue
        reduced = {k: v for k, v in required.items() if k != key}
        if kind in ("yarn", "llama3", "longrope", "linear", "dynamic") and key in (
                "factor", "original_max_position", "original_max_position_embeddings", "short_factor", "long_factor"):
            case("scaling", f"{kind} without {key}",
                 ["run", "--subject", proxy("rope", {"rotate": {"scaling": reduced, "shapes": {"d": 8}}}),
                  "--properties", "rope.relative_dot"] + FAST, codes=(1, 2), timeout=40)
for label, rotate in {
    "unknown scaling type": '{"scaling": {"type": "frobnicate", "factor": 2}}',
    "scaling a string": '{"scaling": "yarn"}',
    "scaling deeply nested": '{"scaling": ' + '{"type": ' * 5000 + '"yarn"' + "}" * 5000 + "}",
    "base 1": '{"base": 1}', "base 0": '{"base": 0}', "base NaN": '{"base": NaN}', "base -1e308": '{"base": -1e308}',
    "base 1e308": '{"base": 1e308}',
    "rotary_dim odd": '{"rotary_dim": 3}', "rotary_dim 0": '{"rotary_dim": 0}',
    "rotary_dim 2^40": '{"rotary_dim": 1099511627776}',
    "mrope_section [0,0,0]": '{"mrope_section": [0, 0, 0]}', "mrope_section negative": '{"mrope_section": [-1, 2, 2]}',
    "mrope_section 2^31": '{"mrope_section": [2147483648, 2, 2]}',
    "freq_factors 1e-320": '{"freq_factors": [1e-320, 1, 1, 1]}', "freq_factors empty": '{"freq_factors": []}',
    "layout unknown": '{"layout": "diagonal"}',
}.items():
    case("scaling", label, ["run", "--subject", proxy("rope", '{"rotate": ' + rotate + "}"), "--properties",
                            "rope.relative_dot"] + FAST, expect="refuse", codes=(2,), quick=(label == "base 1"),
         timeout=40)

# ---------------------------------------------------------------------------------------------------
# 3. New conventions: poison_invariance, qk_rope_head_dim, rope_2d, attn_temperature_tuning, backward;
#    attention fields.
# ---------------------------------------------------------------------------------------------------
CONVENTIONS = {
    ("attention", "poison_invariance \"yes\""): '{"attention": {"poison_invariance": "yes"}}',
    ("attention", "poison_invariance 1"): '{"attention": {"poison_invariance": 1}}',
    ("attention", "poison_invariance {}"): '{"attention": {"poison_invariance": {}}}',
    ("attention", "poison_invariance null"): '{"attention": {"poison_invariance": null}}',
    ("rope", "qk_rope_head_dim 0"): '{"rotate": {"qk_rope_head_dim": 0, "qk_nope_head_dim": 8}}',
    ("rope", "qk_rope_head_dim -2"): '{"rotate": {"qk_rope_head_dim": -2, "qk_nope_head_dim": 8}}',
    ("rope", "qk_rope_head_dim odd"): '{"rotate": {"qk_rope_head_dim": 3, "qk_nope_head_dim": 8}}',
    ("rope", "qk_rope_head_dim 1e308"): '{"rotate": {"qk_rope_head_dim": 1e308, "qk_nope_head_dim": 8}}',
    ("rope", "qk_rope_head_dim string"): '{"rotate": {"qk_rope_head_dim": "64"}}',
    ("rope", "qk_rope_head_dim 2^40"): '{"rotate": {"qk_rope_head_dim": 1099511627776, "qk_nope_head_dim": 8}}',
    ("rope", "qk_nope_head_dim negative"): '{"rotate": {"qk_rope_head_dim": 8, "qk_nope_head_dim": -8}}',
    ("rope", "qk_rope_head_dim with shapes.d too small"):
        '{"rotate": {"qk_rope_head_dim": 64, "qk_nope_head_dim": 64, "shapes": {"d": 8}}}',
    ("rope", "rope_2d axes empty"): '{"rotate": {"rope_2d": {"axes": [], "frequencies": "even_odd"}}}',
    ("rope", "rope_2d axes 3"): '{"rotate": {"rope_2d": {"axes": ["h", "w", "t"], "frequencies": "even_odd"}}}',
    ("rope", "rope_2d frequencies bogus"): '{"rotate": {"rope_2d": {"axes": ["h", "w"], "frequencies": "odd_even"}}}',
    ("rope", "rope_2d a string"): '{"rotate": {"rope_2d": "halves"}}',
    ("rope", "rope_2d with mrope_section"):
        '{"rotate": {"rope_2d": {"axes": ["h", "w"], "frequencies": "halves"}, "mrope_section": [1, 1, 2]}}',
    ("rope", "rope_2d axes numbers"): '{"rotate": {"rope_2d": {"axes": [1, 2], "frequencies": "halves"}}}',
    ("llama-block", "temperature tuning without attn_scale"):
        '{"forward": {"layers": [{"attn_temperature_tuning": true, "floor_scale": 8192}]}}',
    ("llama-block", "temperature tuning attn_scale NaN"):
        '{"forward": {"layers": [{"attn_temperature_tuning": true, "attn_scale": NaN, "floor_scale": 8192}]}}',
    ("llama-block", "temperature tuning attn_scale -1"):
        '{"forward": {"layers": [{"attn_temperature_tuning": true, "attn_scale": -1, "floor_scale": 8192}]}}',
    ("llama-block", "temperature tuning attn_scale 1e308"):
        '{"forward": {"layers": [{"attn_temperature_tuning": true, "attn_scale": 1e308, "floor_scale": 8192}]}}',
    ("llama-block", "temperature tuning floor_scale 0"):
        '{"forward": {"layers": [{"attn_temperature_tuning": true, "attn_scale": 0.1, "floor_scale": 0}]}}',
    ("llama-block", "temperature tuning floor_scale -8192"):
        '{"forward": {"layers": [{"attn_temperature_tuning": true, "attn_scale": 0.1, "floor_scale": -8192}]}}',
    ("llama-block", "temperature tuning a string"): '{"forward": {"layers": [{"attn_temperature_tuning": "yes"}]}}',
    ("llama-block", "layers 10^6 entries"): '{"forward": {"layers": [' + ",".join(["{}"] * 1000000) + "]}}",
    ("llama-block", "layers a number"): '{"forward": {"layers": 5}}',
    ("rope", "backward of bogus op"): '{"backward": {"of": ["frobnicate"]}}',
    ("rope", "backward of empty"): '{"backward": {"of": []}}',
    ("rope", "backward of a string"): '{"backward": {"of": "rotate"}}',
    ("sinusoidal", "backward of an op not offered"): '{"backward": {"of": ["attention"]}}',
    ("attention", "softcap 1e308"): '{"attention": {"softcap": 1e308}}',
    ("attention", "softcap 1e-300"): '{"attention": {"softcap": 1e-300}}',
    ("attention", "softcap NaN"): '{"attention": {"softcap": NaN}}',
    ("attention", "scale 1e-320"): '{"attention": {"scale": 1e-320}}',
    ("attention", "scale -1"): '{"attention": {"scale": -1}}',
    ("attention", "window 0"): '{"attention": {"window": 0}}',
    ("attention", "window -4"): '{"attention": {"window": -4}}',
    ("attention", "window 2^63"): '{"attention": {"window": 9223372036854775808}}',
    ("attention", "chunk 0"): '{"attention": {"chunk": 0}}',
    ("attention", "heads 0"): '{"attention": {"heads": 0}}',
    ("attention", "heads 2^31"): '{"attention": {"heads": 2147483648}}',
    ("attention", "kv_heads not dividing"): '{"attention": {"heads": 4, "kv_heads": 3}}',
    ("attention", "grouping bogus"): '{"attention": {"heads": 4, "kv_heads": 2, "grouping": "shuffle"}}',
    ("attention", "sinks without sink_logits"): '{"attention": {"heads": 2, "sinks": true}}',
    ("attention", "sink_logits NaN"): '{"attention": {"heads": 2, "sinks": true, "sink_logits": [NaN, 1]}}',
    ("attention", "sink_logits wrong length"): '{"attention": {"heads": 2, "sinks": true, "sink_logits": [1]}}',
    ("attention", "alignment bogus"): '{"attention": {"alignment": "middle"}}',
}
for (builtin, label), params in CONVENTIONS.items():
    case("conventions", label, ["run", "--subject", proxy(builtin, params)] + FAST + ["--time-budget", "20"],
         expect="refuse", codes=(2,), quick=label in ("softcap 1e308", "rope_2d axes empty"), timeout=40)
# Legal conventions, on subjects they are true of: must run and not be refused.
for label, (spec, params) in {
    "poison_invariance on attention-paged (legal)": ("attention-paged", None),
    "llama4 tuned block (legal)": ("llama4-block@tuned", None),
}.items():
    case("conventions", label, ["run", "--subject", f"builtin:{spec}", "--time-budget", "40"] + FAST, codes=(0, 1),
         timeout=60)

# ---------------------------------------------------------------------------------------------------
# 4. Model configs: --model-config and params.model.
# ---------------------------------------------------------------------------------------------------
LLAMA = {"model_type": "llama", "hidden_size": 32, "num_attention_heads": 4, "num_key_value_heads": 4,
         "num_hidden_layers": 1, "max_position_embeddings": 2048, "rope_theta": 10000.0, "head_dim": 8}


def config_variant(**changes):
    c = dict(LLAMA)
    for k, v in changes.items():
        if v is None:
            c.pop(k, None)
        else:
            c[k] = v
    return json.dumps(c)


CONFIGS = {
    "num_hidden_layers 10^9": config_variant(num_hidden_layers=10 ** 9),
    "num_hidden_layers 2^31": config_variant(num_hidden_layers=2 ** 31),
    "num_hidden_layers 2^63": config_variant(num_hidden_layers=2 ** 63),
    "num_hidden_layers -1": config_variant(num_hidden_layers=-1),
    "num_hidden_layers 0": config_variant(num_hidden_layers=0),
    "num_hidden_layers string": config_variant(num_hidden_layers="1"),
    "num_hidden_layers 1.5": config_variant(num_hidden_layers=1.5),
    "layer_types too short": config_variant(num_hidden_layers=3, layer_types=["full_attention"], sliding_window=4),
    "layer_types too long": config_variant(layer_types=["full_attention"] * 5),
    "layer_types unknown": config_variant(layer_types=["quantum_attention"]),
    "layer_types a string": config_variant(layer_types="full_attention"),
    "sliding_window -4": config_variant(sliding_window=-4, layer_types=["sliding_attention"]),
    "sliding_window 0": config_variant(sliding_window=0, layer_types=["sliding_attention"]),
    "sliding_window string": config_variant(sliding_window="4096", layer_types=["sliding_attention"]),
    "sliding_window 1e308": config_variant(sliding_window=1e308, layer_types=["sliding_attention"]),
    "num_attention_heads 0": config_variant(num_attention_heads=0),
    "num_attention_heads -4": config_variant(num_attention_heads=-4),
    "num_key_value_heads 3": config_variant(num_key_value_heads=3),
    "head_dim 0": config_variant(head_dim=0),
    "head_dim odd": config_variant(head_dim=7),
    "head_dim 2^40": config_variant(head_dim=2 ** 40),
    "hidden_size string": config_variant(hidden_size="32", head_dim=None),
    "max_position_embeddings -1": config_variant(max_position_embeddings=-1),
    "max_position_embeddings 2^62": config_variant(max_position_embeddings=2 ** 62),
    "rope_theta 0": config_variant(rope_theta=0),
    "rope_theta -1": config_variant(rope_theta=-1),
    "rope_theta 1": config_variant(rope_theta=1),
    "rope_theta string": config_variant(rope_theta="1e4"),
    "rope_scaling yarn factor 0": config_variant(rope_scaling={"rope_type": "yarn", "factor": 0,
                                                               "original_max_position_embeddings": 1024}),
    "rope_scaling a list": config_variant(rope_scaling=[1, 2]),
    "rope_parameters by layer type garbage": config_variant(rope_parameters={"full_attention": 7}),
    "partial_rotary_factor 2": config_variant(partial_rotary_factor=2.0),
    "partial_rotary_factor -0.5": config_variant(partial_rotary_factor=-0.5),
    "no_rope_layers wrong length": config_variant(no_rope_layers=[1, 0, 1, 1]),
    "attn_temperature_tuning, floor_scale 0": config_variant(attn_temperature_tuning=True, attn_scale=0.1,
                                                             floor_scale=0, no_rope_layers=[0]),
    "qk_rope_head_dim > head_dim": config_variant(qk_rope_head_dim=64, qk_nope_head_dim=0),
    "llama4 attn_scale -1": config_variant(model_type="llama4_text", num_hidden_layers=4, attn_temperature_tuning=True,
                                           attn_scale=-1, floor_scale=8192),
    "llama4 floor_scale 0": config_variant(model_type="llama4_text", num_hidden_layers=4, attn_temperature_tuning=True,
                                           attn_scale=0.1, floor_scale=0),
    "llama4 no_rope_layers too short": config_variant(model_type="llama4_text", num_hidden_layers=4,
                                                      no_rope_layers=[1, 0]),
    "llama4 temperature tuning a string": config_variant(model_type="llama4_text", attn_temperature_tuning="yes"),
    "text_config deep nesting": '{"text_config": ' * 100000 + "{}" + "}" * 100000,
    "NaN literal": config_variant().replace("10000.0", "NaN"),
    "top level array": "[1, 2, 3]",
    "empty file": "",
    "non-UTF-8": None,  # bytes, written below
    "NUL at 0": None,
    "100 MB": None,
    "truncated": config_variant()[:40],
    "/dev/zero": None,
    "a FIFO": None,
    "a directory": None,
}


def write_config(path, label):
    if label == "/dev/zero":
        return os.symlink("/dev/zero", path)
    if label == "a FIFO":
        return os.mkfifo(path)
    if label == "a directory":
        return os.mkdir(path)
    if label == "non-UTF-8":
        data = config_variant(model_type="ll\udcffama").encode("utf-8", "surrogateescape")
    elif label == "NUL at 0":
        data = b"\0" + config_variant().encode()
    elif label == "100 MB":
        data = config_variant()[:-1].encode() + b', "padding": "' + b"x" * (100 << 20) + b'"}'
    else:
        data = CONFIGS[label].encode()
    with open(path, "wb") as f:
        f.write(data)


def config_setup(label):
    return lambda d: write_config(os.path.join(d, "config.json"), label)


# Fields of another family (Llama 4's, in a llama config) are listed as unread, not refused (docs/model-configs.md).
UNREAD_HERE = {"no_rope_layers wrong length", "attn_temperature_tuning, floor_scale 0"}
for label in CONFIGS:
    case("model-config", f"--model-config: {label}",
         ["run", "--subject", "builtin:llama-block", "--model-config", "config.json", "--properties",
          "module.causality"] + FAST, expect="any" if label in UNREAD_HERE else "refuse",
         codes=(0,) if label in UNREAD_HERE else (2,), setup=config_setup(label),
         quick=label in ("num_hidden_layers 2^63", "100 MB", "non-UTF-8", "a FIFO"), timeout=40)
for label in ("num_hidden_layers 10^9", "text_config deep nesting", "100 MB", "NaN literal", "layer_types too short",
              "sliding_window -4", "/dev/zero", "a FIFO"):
    case("model-config", f"explain-config: {label}", ["explain-config", "config.json", "--json"], expect="refuse",
         codes=(2,), setup=config_setup(label), timeout=40)
for label in ("num_hidden_layers 10^9", "sliding_window -4", "rope_theta 1", "head_dim 2^40", "NaN literal"):
    case("model-config", f"params.model: {label}",
         ["run", "--subject", proxy("llama-block", '{"model": ' + CONFIGS[label] + "}"), "--properties",
          "module.causality"] + FAST, expect="refuse", codes=(2,), timeout=40)
case("model-config", "legal config (control)",
     ["run", "--subject", "builtin:llama-block", "--model-config", "config.json", "--properties",
      "module.causality", "--time-budget", "40"] + FAST, codes=(0, 1),
     setup=lambda d: open(os.path.join(d, "config.json"), "w").write(config_variant()), timeout=60)

# ---------------------------------------------------------------------------------------------------
# 5. Options: --time-budget, --max-width, --history and their neighbours.
# ---------------------------------------------------------------------------------------------------
OPTIONS_BAD = [
    ("--time-budget", "0"), ("--time-budget", "-1"), ("--time-budget", "inf"), ("--time-budget", "nan"),
    ("--time-budget", "1e309"), ("--time-budget", "abc"), ("--time-budget", "1e7"), ("--time-budget", ""),
    ("--max-width", "0"), ("--max-width", "-1"), ("--max-width", "65537"), ("--max-width", "2147483648"),
    ("--max-width", "1e3"), ("--max-width", "x"),
    ("--history", "-1"), ("--history", "2147483648"), ("--history", "1e9"), ("--history", "nan"),
    ("--history", "1000000000"), ("--history", "0"), ("--history", "4097"),
    ("--max-position", "0"), ("--max-position", "1099511627777"), ("--max-position", "-5"),
    ("--cases", "0"), ("--cases", "-1"), ("--subject-timeout", "0"), ("--subject-timeout", "nan"),
    ("--subject-timeout", "inf"), ("--batch", "0"), ("--jobs", "0"), ("--jobs", "100000"), ("--seed", "-1"),
    ("--shard", "5/3"), ("--shard", "0/0"), ("--shard", "-1/2"), ("--tolerance-factor", "nan"),
    ("--tolerance-factor", "0"), ("--precision-target", "-1"), ("--progress-fd", "2"), ("--max-size", "-1"),
]
for option, value in OPTIONS_BAD:
    case("options", f"{option} {value!r}",
         ["run", "--subject", "builtin:rope", "--properties", "rope.relative_dot", "--no-regressions",
          "--cases", "5", option, value], expect="refuse", codes=(2,),
         quick=(option, value) in (("--time-budget", "nan"), ("--max-width", "65537"), ("--history", "-1")),
         timeout=40)
OPTIONS_LEGAL = [
    ("--time-budget", "1e-9", (1,)), ("--time-budget", "0.5", (0, 1)), ("--max-width", "65536", (0, 1)),
    ("--max-width", "1", (0, 1)), ("--history", "1", (0,)), ("--history", "400", (0, 1)),
    ("--history", "4096", (0, 1)), ("--max-position", "1099511627776", (0, 1)),
]
for option, value, codes in OPTIONS_LEGAL:
    case("options", f"{option} {value!r} (legal)",
         ["run", "--subject", "builtin:rope", "--properties", "rope.*", "--no-regressions", "--cases", "5"]
         + (["--time-budget", "30"] if option != "--time-budget" else []) + [option, value], codes=codes, timeout=45)
# Planted bugs under hostile options: never green.
for spec, options in {
    "mutant:rope-position-off-by-one": ["--time-budget", "30"],
    "mutant:sinusoidal-sin-cos-swapped": ["--max-width", "2"],
    "mutant:sinusoidal-sin-cos-swapped@": ["--time-budget", "0.01"],
}.items():
    case("options", f"planted {spec} {' '.join(options)}",
         ["run", "--subject", spec.rstrip("@"), "--no-regressions", "--cases", "20"] + options, expect="planted",
         codes=(1,), quick=True, timeout=45)

# ---------------------------------------------------------------------------------------------------
# 6. pecheck.toml: nan/inf, wrong types, unknown keys, bytes.
# ---------------------------------------------------------------------------------------------------
TOMLS = {
    "time_budget nan": "time_budget = nan\n",
    "time_budget inf": "time_budget = inf\n",
    "time_budget string": 'time_budget = "30"\n',
    "cases -1": "cases = -1\n",
    "cases 2^63": "cases = 9223372036854775807\n",
    "cases float": "cases = 1.5\n",
    "max_width 10^6": "max_width = 1000000\n",
    "history -5": "history = -5\n",
    "unknown key": "frobnicate = 1\n",
    "unknown table": "[frobnicate]\nx = 1\n",
    "subject params shapes nan": '[subject."builtin:rope"]\nparams = { rotate = { shapes = { d = nan } } }\n',
    "subject params shapes inf": '[subject."builtin:rope"]\nparams = { rotate = { shapes = { d = inf } } }\n',
    "subject params shapes 2^32": '[subject."builtin:rope"]\nparams = { rotate = { shapes = { n = 4294967296 } } }\n',
    "subject params base -inf": '[subject."builtin:rope"]\nparams = { rotate = { base = -inf } }\n',
    "subject params a string": '[subject."builtin:rope"]\nparams = "rotate"\n',
    "subject params scaling 1e-320": '[subject."builtin:rope"]\n'
                                     'params = { rotate = { scaling = { type = "linear", factor = 1e-320 } } }\n',
    "model_config missing": 'model_config = "no-such.json"\n',
    "model_config a number": "model_config = 5\n",
    "duplicate key": "cases = 5\ncases = 6\n",
    "syntax error": "cases = = 5\n",
    "deep nesting": "x = " + "[" * 100000 + "]" * 100000 + "\n",
    "non-UTF-8": None,
    "NUL bytes": None,
    "subjects a number": "subjects = 5\n",
    "properties wrong type": "properties = 5\n",
}


def toml_setup(label):
    def setup(d):
        if label == "non-UTF-8":
            data = b"cases = 5\n# \xff\xfe\n"
        elif label == "NUL bytes":
            data = b"cases = 5\n\0\0\0\n"
        else:
            data = TOMLS[label].encode()
        with open(os.path.join(d, "pecheck.toml"), "wb") as f:
            f.write(data)
    return setup


for label in TOMLS:
    case("toml", f"pecheck.toml: {label}",
         ["run", "--config", "pecheck.toml", "--subject", "builtin:rope", "--properties", "rope.relative_dot",
          "--no-regressions", "--cases", "5"], expect="refuse", codes=(2,), setup=toml_setup(label),
         quick=label in ("time_budget nan", "subject params shapes inf", "NUL bytes"), timeout=40)

# ---------------------------------------------------------------------------------------------------
# 7. check-declarations: hellos on stdin.
# ---------------------------------------------------------------------------------------------------
DECLARATION_LINES = {
    "shapes d 2^32": '{"ops": ["encode"], "params": {"encode": {"shapes": {"d": 4294967296}}}}',
    "NaN": '{"ops": ["rotate"], "params": {"rotate": {"base": NaN}}}',
    "not JSON": "{{{",
    "empty line": "",
    "array": "[1]",
    "deep nesting": "[" * 100000 + "]" * 100000,
    "a 30 MB line": '{"ops": ["encode"], "name": "' + "x" * (30 << 20) + '"}',
    "non-UTF-8": None,
    "10^4 lines": None,
    "model with 10^9 layers": '{"ops": ["forward"], "params": {"model": ' + CONFIGS["num_hidden_layers 10^9"] + "}}",
}


def declarations_stdin(label):
    if label == "non-UTF-8":
        return b'{"ops": ["encode"], "name": "\xff\xfe"}\n'
    if label == "10^4 lines":
        return (DECLARATION_LINES["shapes d 2^32"] + "\n").encode() * 10000
    return (DECLARATION_LINES[label] + "\n").encode()


for label in DECLARATION_LINES:
    case("check-declarations", label, ["check-declarations"], stdin=declarations_stdin(label), codes=(0, 1, 2),
         quick=label in ("shapes d 2^32", "deep nesting"), timeout=40)

# ---------------------------------------------------------------------------------------------------
# 8. Merge of forged and corrupt shards.
# ---------------------------------------------------------------------------------------------------
SHARD_RUN = ["run", "--cases", "20", "--quiet", "--subject", "builtin:sinusoidal", "--subject",
             "mutant:sinusoidal-sin-cos-swapped", "--properties", "pe.*", "--no-regressions"]
_SHARDS = {}


def make_shards(bin_path, root):
    if "root" not in _SHARDS:
        base = os.path.join(root, "shards")
        os.makedirs(base)
        for i in range(2):
            subprocess.run([bin_path] + SHARD_RUN + ["--shard", f"{i}/2", "--report-dir", os.path.join(base, f"s{i}")],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        _SHARDS["root"] = base
    return _SHARDS["root"]


def red_shard(d):
    for i in range(2):
        report = json.load(open(os.path.join(d, f"s{i}", "report.json")))
        for k, r in enumerate(report["results"]):
            if r["status"] == "failed":
                return i, k
    return 0, 0


def forge(edit):
    """A setup that copies the two shards into the case's directory and applies edit(dir)."""
    def setup(d):
        for i in range(2):
            shutil.copytree(os.path.join(_SHARDS["root"], f"s{i}"), os.path.join(d, f"s{i}"))
        edit(d)
    return setup


def edit_json(fn):
    def edit(d):
        i, k = red_shard(d)
        path = os.path.join(d, f"s{i}", "report.json")
        report = json.load(open(path))
        fn(report, k)
        with open(path, "w") as f:
            json.dump(report, f)
    return edit


def edit_bytes(fn, shard=0):
    def edit(d):
        path = os.path.join(d, f"s{shard}", "report.json")
        data = open(path, "rb").read()
        with open(path, "wb") as f:
            f.write(fn(data))
    return edit


def set_everywhere(key, value):
    def edit(d):
        for i in range(2):
            path = os.path.join(d, f"s{i}", "report.json")
            report = json.load(open(path))
            report[key] = value
            json.dump(report, open(path, "w"))
    return edit


def relabel_expected(report, k):
    report["results"][k]["expectation"] = "violated"
    report["results"][k]["status"] = "expected_violation"


def add_declared_violation(report, k):
    r = report["results"][k]
    for s in report["subjects"]:
        if s["spec"] == r["subject"]:
            s["declared_violations"] = [r["property"]]


def edit_params(report, k):
    for s in report["subjects"]:
        s["params"] = {"encode": {"shapes": {"d": 2}}}


def sparse(d):
    path = os.path.join(d, "s0", "report.json")
    with open(path, "r+b") as f:
        f.seek(0)
        f.write(b"\0")
        f.truncate(1 << 30)


MERGES = {
    "identical shards (control)": (lambda d: None, (1,), "any"),
    "truncated at half": (edit_bytes(lambda b: b[: len(b) // 2]), (2,), "refuse"),
    "truncated to 0 bytes": (edit_bytes(lambda b: b""), (2,), "refuse"),
    "NUL at byte 0": (edit_bytes(lambda b: b"\0" + b[1:]), (2,), "refuse"),
    "NUL in the middle": (edit_bytes(lambda b: b[: len(b) // 2] + b"\0" + b[len(b) // 2 + 1:]), (2,), "refuse"),
    "1 GiB sparse, NUL at 0": (sparse, (2,), "refuse"),
    "huge seed": (edit_bytes(lambda b: re.sub(rb'"seed": 1,', b'"seed": 1' + b"0" * 400 + b",", b, 1)), (2,),
                  "refuse"),
    "cases 1e308": (edit_bytes(lambda b: b.replace(b'"cases": 20,', b'"cases": 1e308,', 1)), (2,), "refuse"),
    "exit_code 0 on a red": (edit_json(lambda r, k: r.update(exit_code=0)), (2,), "refuse"),
    "status passed on a red": (edit_json(lambda r, k: r["results"][k].update(status="passed", outcome="holds")), (2,),
                               "refuse"),
    "relabelled expected": (edit_json(relabel_expected), (2,), "refuse"),
    "declared_violations added": (edit_json(add_declared_violation), (2,), "refuse"),
    "declarations edited": (edit_json(edit_params), (2,), "refuse"),
    "params_digest edited": (edit_json(lambda r, k: [s.update(params_digest="fnv1a64:0000000000000000")
                                                     for s in r["subjects"]]), (2,), "refuse"),
    "older version in both": (set_everywhere("pecheck_version", "0.0.1"), (1, 2), "refuse"),
    "newer version in both": (set_everywhere("pecheck_version", "99.0.0"), (1, 2), "refuse"),
    "version garbage in both": (set_everywhere("pecheck_version", "\u0000x"), (1, 2), "refuse"),
    "format version 999": (set_everywhere("version", 999), (2,), "refuse"),
    "results removed": (edit_json(lambda r, k: r.update(results=[])), (2,), "refuse"),
    "counterexample dropped": (edit_json(lambda r, k: r["results"][k].pop("counterexample", None)), (1, 2), "any"),
    "shard index duplicated": (lambda d: shutil.rmtree(os.path.join(d, "s1")) or
                               shutil.copytree(os.path.join(d, "s0"), os.path.join(d, "s1")), (2,), "refuse"),
    "report.json a directory": (lambda d: os.remove(os.path.join(d, "s0", "report.json")) or
                                os.mkdir(os.path.join(d, "s0", "report.json")), (2,), "refuse"),
    "report.json -> /dev/zero": (lambda d: os.remove(os.path.join(d, "s0", "report.json")) or
                                 os.symlink("/dev/zero", os.path.join(d, "s0", "report.json")), (2,), "refuse"),
    "report.json a FIFO": (lambda d: os.remove(os.path.join(d, "s0", "report.json")) or
                           os.mkfifo(os.path.join(d, "s0", "report.json")), (2,), "refuse"),
    "deep nesting": (edit_bytes(lambda b: b"[" * 200000 + b"]" * 200000), (2,), "refuse"),
}
for label, (edit, codes, expect) in MERGES.items():
    case("merge", label, ["merge", "s0", "s1", "--report-dir", "merged"], expect=expect, codes=codes,
         setup=forge(edit), quick=label in ("relabelled expected", "declared_violations added", "older version in both",
                                            "NUL at byte 0"), timeout=40, report_dir="merged")

# ---------------------------------------------------------------------------------------------------
# 9. Subjects that crash, hang, flood, lie, answer garbage, fork daemons, exit mid-answer.
# ---------------------------------------------------------------------------------------------------
HOSTILE_MODES = {  # mode: (expected exits, cause the output must name, expectation)
    "hello-nan": ((2, 3), r"NaN|hello", "any"), "hello-huge": ((0, 2, 3), None, "any"),
    "hello-deep": ((2, 3), r"hello|nest|deep", "any"), "hello-array": ((2, 3), r"hello", "any"),
    "hello-twice": ((3,), r"twice|id|answer", "any"), "hello-ops-bogus": ((2, 3), r"frobnicate|ops", "any"),
    "hello-dtype-int8": ((2, 3), r"int8|dtype", "any"), "hello-protocol-99": ((2, 3), r"protocol", "any"),
    "hello-slow": ((0,), None, "any"), "partial-exit": ((3,), r"exit|ended|closed", "any"),
    "partial-hang": ((3,), r"within|timeout|answer", "any"),
    "close-stdout-live": ((3,), r"closed|ended|exit", "any"), "ignore-term-hang": ((3,), None, "any"),
    "stop-self": ((3,), None, "any"), "segv": ((3,), r"SIGSEGV|signal", "any"), "exec-sleep": ((3,), None, "any"),
    "daemon-empty-env": ((0,), None, "any"), "escape-empty-env": ((0,), None, "any"),
    "many-children": ((0,), None, "any"), "answer-huge": ((3,), None, "any"),
    "answer-infinity": ((3,), r"Infinity|not a number|JSON|number", "any"), "answer-1e400": ((1, 3), None, "planted"),
    "answer-null": ((3,), None, "any"), "answer-string-numbers": ((3,), None, "any"),
    "answer-error-object": ((1, 3), None, "any"), "answer-wrong-id-later": ((3,), r"id", "any"),
    "answer-both": ((3,), None, "any"), "binary": ((3,), None, "any"), "lie-dtype": ((1,), None, "planted"),
    "kill-parent": ((1, 3, 143), None, "any"), "flood-then-answer": ((0, 3), None, "any"),
}
for mode, (codes, cause, expect) in HOSTILE_MODES.items():
    case("subjects", f"hostile subject: {mode}",
         ["run", "--subject", f"cmd:{PY} {SUBJECT} {mode}", "--properties", "pe.offset_only_dot",
          "--subject-timeout", "3", "--no-regressions", "--cases", "10", "-j", "1"], expect=expect, codes=codes,
         cause=cause, quick=mode in ("daemon-empty-env", "partial-exit", "segv", "close-stdout-live", "lie-dtype"),
         timeout=60)
MISBEHAVING = ["crash-after-hello", "killed", "exit-quietly", "hang", "hang-before-hello", "garbage", "wrong-id",
               "wrong-shape", "not-numbers", "flood-stderr", "flood-stdout", "bad-hello", "silent-close",
               "crash-later", "crash-while-shrinking", "duplicate-id", "overflow", "escape", "daemon", "nul-garbage",
               "bom"]
for mode in MISBEHAVING:
    # escape and daemon serve correctly: what they start must not outlive the run.
    case("subjects", f"misbehaving.py {mode}",
         ["run", "--subject", f"cmd:{PY} {SUBJECTS}/misbehaving.py {mode}", "--properties", "pe.*",
          "--subject-timeout", "3", "--no-regressions", "--cases", "20", "-j", "1"], expect="any",
         codes=(0,) if mode in ("escape", "daemon") else (3,), timeout=60)
for mode in ["dies", "never-connects", "inline", "chain", "reuse", "wrong-hello", "refuses", "ok", "garbage", "twice",
             "exits", "connects-twice"]:
    case("subjects", f"broken_fork.py {mode}",
         ["run", "--subject", f"cmd:{PY} {SUBJECTS}/broken_fork.py {mode}", "--properties", "history_independence",
          "--subject-timeout", "3", "--no-regressions", "--cases", "10", "-j", "2"],
         # Every mode serves an encoder with a history bug (its cache keyed by length): "ok" forks correctly, so
         # history_independence is red on it (exit 1); every other mode breaks the fork (exit 3).
         codes=(1,) if mode == "ok" else (3,), expect="planted" if mode == "ok" else "any", timeout=90)
case("subjects", "forking_daemons.py, daemons exec'd with an empty environment",
     ["run", "--subject", f"cmd:{PY} {SUBJECTS}/forking_daemons.py", "--properties", "pe.*", "--no-regressions",
      "--cases", "10", "-j", "2"], codes=(0,), env={"PECHECK_TEST_DAEMON_EXEC": "1"}, timeout=90)
for cases in ("20", "30"):
    case("subjects", f"planted: shared_memory_cache.py through forked copies, {cases} cases",
         ["run", "--subject", f"cmd:{PY} {SUBJECTS}/shared_memory_cache.py", "--properties", "history_independence",
          "--no-regressions", "--cases", cases, "-j", "1"], expect="planted", codes=(1, 3), timeout=90,
         quick=True)  # 20 cases: green until issue 39's cell-wide proof (tests/hostile/README.md)
case("subjects", "planted: drifts_after.py 300 with --history 400",
     ["run", "--subject", f"cmd:{PY} {SUBJECTS}/drifts_after.py 300", "--properties", "history_independence",
      "--no-regressions", "--cases", "5", "--history", "400", "-j", "1"], expect="planted", codes=(1,), timeout=90)
case("subjects", "planted: wide_rotary.py cached_2048_pairs (declares d = 8192)",
     ["run", "--subject", f"cmd:{PY} {SUBJECTS}/wide_rotary.py cached_2048_pairs", "--properties",
      "rope.reference_values", "--no-shrink", "--no-regressions", "--cases", "20", "-j", "1"], expect="planted", codes=(1,),
     timeout=90)
case("subjects", "wide_rotary.py correct (control)",
     ["run", "--subject", f"cmd:{PY} {SUBJECTS}/wide_rotary.py correct", "--properties", "rope.reference_values",
      "--no-shrink", "--no-regressions", "--cases", "20", "-j", "1"], codes=(0,), timeout=90)
for spec in ["mutant:rope-position-off-by-one", "mutant:attention-causal-ignored", "mutant:sinusoidal-sin-cos-swapped"]:
    case("subjects", f"planted {spec} under --time-budget 3",
         ["run", "--subject", spec, "--no-regressions", "--time-budget", "3", "-j", "1"], expect="planted",
         codes=(1,), timeout=30)

# ---------------------------------------------------------------------------------------------------
# 10. The Python package's check_* with hostile arguments (each a Python process).
# ---------------------------------------------------------------------------------------------------
PY_PRELUDE = r'''
import math, os, signal, subprocess, sys, time
import numpy as np
import pecheck
MAIN = os.getpid()  # the calling process: its children are the user's own (a probe call runs here)
def sinusoidal(dim, positions, seq_len=None):
    p = np.asarray(positions, dtype=np.float64)[:, None]
    i = np.arange(dim // 2)
    a = p * 10000.0 ** (-2.0 * i / dim)
    out = np.empty((len(positions), dim)); out[:, 0::2] = np.sin(a); out[:, 1::2] = np.cos(a)
    return out
def rotate(positions, x, seq_len=None):
    x = np.asarray(x, dtype=np.float64); d = x.shape[1]; p = np.asarray(positions, dtype=np.float64)[:, None]
    a = p * 10000.0 ** (-2.0 * np.arange(d // 2) / d)
    out = np.empty_like(x); c, s = np.cos(a), np.sin(a)
    out[:, 0::2] = x[:, 0::2] * c - x[:, 1::2] * s; out[:, 1::2] = x[:, 0::2] * s + x[:, 1::2] * c
    return out
def attention(q, k, v, mask):
    q, k, v = (np.asarray(t, dtype=np.float64) for t in (q, k, v))
    s = q @ k.T / math.sqrt(q.shape[-1])
    if isinstance(mask, str) and mask == "causal":
        s = np.where(np.tril(np.ones(s.shape, bool), s.shape[1] - s.shape[0]), s, -np.inf)
    elif not isinstance(mask, str):
        s = np.where(np.asarray(mask), s, -np.inf)
    w = np.exp(s - s.max(axis=1, keepdims=True)); w /= w.sum(axis=1, keepdims=True)
    return w @ v
try:
    RESULT = (BODY)
except pecheck.UsageError as e:
    print("UsageError:", str(e).splitlines()[0] if str(e) else "", file=sys.stderr); sys.exit(2)
except (ValueError, TypeError) as e:
    print(type(e).__name__ + ":", str(e).splitlines()[0] if str(e) else "", file=sys.stderr); sys.exit(2)
except pecheck.CheckFailed as e:
    print("CheckFailed:", str(e).splitlines()[0] if str(e) else "", file=sys.stderr); sys.exit(1)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0] if str(e) else "", file=sys.stderr); sys.exit(3)
sys.exit(0)
'''
PY_CASES = {  # label: (expression, expected exits, expectation)
    "check_encoder cases=-1": ("pecheck.check_encoder(sinusoidal, cases=-1)", (2,), "refuse"),
    "check_encoder cases=1e9": ("pecheck.check_encoder(sinusoidal, cases=10**9, time_budget=5)", (1, 2), "any"),
    "check_encoder cases='5'": ("pecheck.check_encoder(sinusoidal, cases='5')", (0, 2), "any"),
    "check_encoder time_budget=nan": ("pecheck.check_encoder(sinusoidal, time_budget=float('nan'))", (2,), "refuse"),
    "check_encoder time_budget=inf": ("pecheck.check_encoder(sinusoidal, time_budget=float('inf'))", (2,), "refuse"),
    "check_encoder time_budget=-1": ("pecheck.check_encoder(sinusoidal, time_budget=-1)", (2,), "refuse"),
    "check_encoder time_budget=0": ("pecheck.check_encoder(sinusoidal, time_budget=0)", (2,), "refuse"),
    "check_encoder max_position=-1": ("pecheck.check_encoder(sinusoidal, max_position=-1)", (2,), "refuse"),
    "check_encoder max_position=2**63": ("pecheck.check_encoder(sinusoidal, max_position=2**63)", (2,), "refuse"),
    "check_encoder dtype=int8": ("pecheck.check_encoder(sinusoidal, dtype='int8')", (2,), "refuse"),
    "check_encoder timeout=nan": ("pecheck.check_encoder(sinusoidal, timeout=float('nan'))", (2,), "refuse"),
    "check_encoder params shapes d=2**32":
        ("pecheck.check_encoder(sinusoidal, params={'encode': {'shapes': {'d': 2**32}}})", (2,), "refuse"),
    "check_encoder params shapes d=nan":
        ("pecheck.check_encoder(sinusoidal, params={'encode': {'shapes': {'d': float('nan')}}})", (2,), "refuse"),
    "check_encoder params shapes n=10^7, d=64":
        ("pecheck.check_encoder(sinusoidal, params={'encode': {'shapes': {'n': 10**7, 'd': 64}}})", (2,), "refuse"),
    "check_encoder params a list": ("pecheck.check_encoder(sinusoidal, params=[1, 2])", (2,), "refuse"),
    "check_encoder params with an object": ("pecheck.check_encoder(sinusoidal, params={'encode': {'x': object()}})",
                                            (2,), "refuse"),
    "check_rotary scaling yarn factor 1e-320":
        ("pecheck.check_rotary(rotate, params={'rotate': {'scaling': {'type': 'yarn', 'factor': 1e-320, "
         "'original_max_position': 4096}}})", (2,), "refuse"),
    "check_rotary base=1": ("pecheck.check_rotary(rotate, params={'rotate': {'base': 1}})", (2,), "refuse"),
    "check_attention softcap=1e308":
        ("pecheck.check_attention(attention, params={'attention': {'softcap': 1e308}})", (2,), "refuse"),
    "check_attention heads 2**31":
        ("pecheck.check_attention(attention, params={'attention': {'heads': 2**31}})", (2,), "refuse"),
    "check_module model_config missing file":
        ("pecheck.check_module(lambda x, p, m: x, model_config='/no/such/config.json')", (2,), "refuse"),
    "check_module model_config 10^9 layers":
        ("pecheck.check_module(lambda x, p, m: x, model_config=" + repr(json.loads(CONFIGS["num_hidden_layers 10^9"]))
         + ")", (2,), "refuse"),
    "check_module model_config not a dict": ("pecheck.check_module(lambda x, p, m: x, model_config=5)", (2,),
                                             "refuse"),
    "check_encoder function not callable": ("pecheck.check_encoder(5)", (2,), "refuse"),
    "check_encoder unknown keyword": ("pecheck.check_encoder(sinusoidal, casez=5)", (2,), "refuse"),
    "encoder raising SystemExit, fork=False":
        ("pecheck.check_encoder(lambda d, p, s=None: sys.exit(4), dtype='float64', fork=False, timeout=3, cases=5)", (1, 3), "any"),
    "encoder raising KeyboardInterrupt, fork=False":
        ("pecheck.check_encoder(lambda d, p, s=None: (_ for _ in ()).throw(KeyboardInterrupt()), fork=False, "
         "dtype='float64', timeout=3, cases=5)", (1, 3), "any"),
    "encoder calling os._exit": ("pecheck.check_encoder(lambda d, p, s=None: os._exit(9), dtype='float64', timeout=3, "
                                 "cases=5)", (1, 3), "any"),
    "encoder returning None": ("pecheck.check_encoder(lambda d, p, s=None: None, dtype='float64', timeout=3, cases=5)",
                               (1, 3), "any"),
    "encoder returning strings": ("pecheck.check_encoder(lambda d, p, s=None: [['a'] * d] * len(p), dtype='float64', "
                                  "timeout=3, cases=5)", (1, 3), "any"),
    "encoder returning NaN": ("pecheck.check_encoder(lambda d, p, s=None: np.full((len(p), d), np.nan), timeout=3, "
                              "cases=5)", (1, 3), "planted"),
    "encoder hanging": ("pecheck.check_encoder(lambda d, p, s=None: time.sleep(300), dtype='float64', timeout=2, cases=5)", (1, 3),
                        "any"),
    "encoder forking daemons (Popen env={}, new session)":
        ("pecheck.check_encoder(lambda d, p, s=None: (os.getpid() != MAIN and subprocess.Popen(['sleep', '300'], "
         "env={}, start_new_session=True), sinusoidal(d, p))[1], cases=10)", (0,), "any"),
    "encoder forking daemons, fork=False":
        ("pecheck.check_encoder(lambda d, p, s=None: (os.getpid() != MAIN and subprocess.Popen(['sleep', '300'], "
         "env={}, start_new_session=True), sinusoidal(d, p))[1], cases=10, fork=False)", (0,), "any"),
    "planted encoder (sin/cos swapped)":
        ("pecheck.check_encoder(lambda d, p, s=None: sinusoidal(d, p)[:, ::-1].copy(), cases=20)", (1,), "planted"),
    "correct rotary (control)": ("pecheck.check_rotary(rotate, cases=10)", (0,), "any"),
}
for label, (body, codes, expect) in PY_CASES.items():
    case("python", label, [PY, "-c", PY_PRELUDE.replace("(BODY)", "(" + body + ")")], expect=expect, codes=codes,
         quick=label in ("check_encoder time_budget=inf", "encoder forking daemons (Popen env={}, new session)"),
         timeout=90, report_dir=None)

# ---------------------------------------------------------------------------------------------------
# 11. Signals: pecheck and pytest killed mid-run.
# ---------------------------------------------------------------------------------------------------
SLOW = f"cmd:{PY} {SUBJECTS}/slow_wrong_encoder.py"
for sig, after in (("SIGTERM", 1.0), ("SIGTERM", 3.0), ("SIGINT", 2.0), ("SIGKILL", 2.0), ("SIGHUP", 2.0)):
    case("signals", f"pecheck run ({SLOW.split('/')[-1]}) sent {sig} after {after} s",
         ["run", "--subject", SLOW, "--subject", "builtin:rope", "--no-regressions", "--cases", "1000", "-j", "2"],
         codes=(1, 3, 130, 143, -9, -1), signal_after=(after, getattr(signal, sig)), quick=sig == "SIGTERM" and after == 1,
         leftover_grace=3.0 if sig == "SIGKILL" else 0.5, timeout=30)
PYTEST_FILE = r'''
import numpy as np, pecheck, time
def slow(dim, positions, seq_len=None):
    time.sleep(0.05)
    p = np.asarray(positions, dtype=np.float64)[:, None]
    a = p * 10000.0 ** (-2.0 * np.arange(dim // 2) / dim)
    out = np.empty((len(positions), dim)); out[:, 0::2] = np.sin(a); out[:, 1::2] = np.cos(a)
    return out
def test_slow():
    pecheck.check_encoder(slow, cases=100000)
'''
for sig, after in (("SIGTERM", 4.0), ("SIGKILL", 4.0), ("SIGKILL", 8.0), ("SIGINT", 4.0)):
    case("signals", f"pytest running check_encoder sent {sig} after {after} s",
         [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_slow.py"], codes=(1, 2, -9, -15, 130, 143),
         signal_after=(after, getattr(signal, sig)), leftover_grace=3.0, timeout=40, report_dir=None,
         setup=lambda d: open(os.path.join(d, "test_slow.py"), "w").write(PYTEST_FILE))


# ---------------------------------------------------------------------------------------------------
# The runner.
# ---------------------------------------------------------------------------------------------------
def become_subreaper():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def our_orphans():
    """Live processes whose parent is this process (reparented here: we start one child at a time and reap
    it). Those that already ended (zombies waiting for this subreaper) are reaped first: they did not outlive
    anything, this process just had not collected them yet."""
    reap_all()
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                status = f.read()
        except OSError:
            continue
        ppid = re.search(r"^PPid:\s*(\d+)", status, re.M)
        name = re.search(r"^Name:\s*(.*)$", status, re.M)
        state = re.search(r"^State:\s*(\S)", status, re.M)
        if ppid and int(ppid.group(1)) == me and not (state and state.group(1) in "ZX"):
            found.append((int(entry), name.group(1) if name else "?"))
    return found


def marked(tag):
    """Live processes whose environment carries this case's marker (those that kept it)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read()
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if f"{MARKER}={tag}".encode() in env.split(b"\0") and state != "Z":
            found.append(int(entry))
    return found


def reap_all():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_pids(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    time.sleep(0.1)
    reap_all()


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))
    # A shell's background job ignores SIGINT, and an ignored signal stays ignored across exec: each case
    # gets the default dispositions, as from a terminal.
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)


def run_case(index, c, bin_path, work):
    d = os.path.join(work, f"case{index:03d}")
    os.makedirs(d)
    if c.setup:
        c.setup(d)
    tag = f"{os.getpid()}-{index}"
    env = dict(os.environ, PECHECK_BIN=bin_path, PECHECK_NO_REGRESSIONS="1", PYTHONPATH=os.path.join(ROOT, "python"),
               **{MARKER: tag}, **c.env)
    argv = c.argv if c.argv[0] == PY else [bin_path] + c.argv
    out_path, err_path = os.path.join(d, "stdout"), os.path.join(d, "stderr")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.monotonic()
        proc = subprocess.Popen(argv, cwd=d, env=env, stdin=subprocess.PIPE if c.stdin is not None else
                                subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True,
                                preexec_fn=limit_memory)
        if c.stdin is not None:
            try:
                proc.stdin.write(c.stdin)
            except (BrokenPipeError, OSError):
                pass
            try:
                proc.stdin.close()
            except OSError:
                pass
        status = rusage = None
        hung = signalled_at = None
        while status is None:
            pid, st, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status, rusage = st, ru
                break
            now = time.monotonic() - start
            if c.signal_after and signalled_at is None and now >= c.signal_after[0]:
                os.kill(proc.pid, c.signal_after[1])
                signalled_at = now
            if now > c.timeout and hung is None:
                hung = now
                os.killpg(proc.pid, signal.SIGKILL)
            time.sleep(0.02)
        proc.returncode = 0  # reaped above; keeps Popen from waiting again
        wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    # Leftovers: what was reparented here, or still carries the marker, after a grace period.
    deadline = time.monotonic() + c.grace
    while True:
        orphans = our_orphans()
        live = marked(tag)
        if (not orphans and not live) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    leftovers = sorted(set([f"{pid} {name}" for pid, name in orphans] + [f"{pid} (marked)" for pid in live]))
    kill_pids([pid for pid, _ in orphans] + live)
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the case's own session, if anything is left in it
    except OSError:
        pass
    stderr = open(err_path, "rb").read(1 << 20).decode("utf-8", "replace")
    stdout = open(out_path, "rb").read(1 << 20).decode("utf-8", "replace")
    report_path = os.path.join(d, c.report_dir, "report.json") if c.report_dir else None
    report = ""
    if report_path and os.path.isfile(report_path):
        report = open(report_path, "rb").read(1 << 20).decode("utf-8", "replace")
    record = {
        "surface": c.surface, "case": c.name, "exit": code, "wall_s": round(wall, 2),
        "peak_mb": round(rusage.ru_maxrss / 1024, 1) if rusage else None,
        "report": bool(report), "stderr": next((l for l in (stderr + "\n" + stdout).splitlines() if l.strip()), "")[:200],
        "leftovers": leftovers, "findings": [],
    }
    f = record["findings"]
    sent = c.signal_after[1] if c.signal_after and signalled_at is not None else None
    if hung is not None:
        f.append("hang")
    elif code < 0 and -code != sent:
        f.append("crash")
    elif code > 3 and code not in c.codes and not (sent and code == 128 + sent) or re.search(r"internal error|terminate called|Segmentation|"
                                                          r"AddressSanitizer", stderr + stdout):
        f.append("crash")
    if c.argv[0] == PY and re.search(r"^Traceback", stderr, re.M) and code not in (0, 1, 2, 3):
        f.append("crash")
    if c.expect == "planted" and code == 0:
        f.append("green-on-planted")
    if c.expect == "refuse":
        if code == 0:
            f.append("accepted-nonsense")
        elif code in (1, 3) and 2 in c.codes and 1 not in c.codes:
            f.append("not-refused")
    if leftovers:
        f.append("leftover")
    if rusage and rusage.ru_maxrss > MEMORY_LIMIT // 1024:
        f.append("memory")
    if c.cause and code in c.codes and not re.search(c.cause, stderr + stdout + report, re.I):
        f.append("lost-diagnosis")
    if sent in (signal.SIGTERM, signal.SIGINT) and c.argv[0] != PY:
        if wall - signalled_at > 2.0 or not report:
            f.append("slow-signal")
    if not f and code not in c.codes and not (sent and code in (-sent, 128 + sent)):
        f.append("unexpected")
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bin", nargs="?", default=os.environ.get("PECHECK_BIN") or os.path.join(ROOT, "build", "pecheck"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default=None)
    parser.add_argument("--json", default=None)
    parser.add_argument("--keep", action="store_true", help="keep each case's directory (in --work)")
    parser.add_argument("--work", default=None, help="the directory the cases run in (default: a new temporary one)")
    args = parser.parse_args()
    become_subreaper()
    work = args.work or tempfile.mkdtemp(prefix="pecheck-hostile-")
    os.makedirs(work, exist_ok=True)
    # A copy: a rebuild while the pass runs must not swap the binary under it.
    bin_path = os.path.join(work, "pecheck")
    shutil.copy2(os.path.abspath(args.bin), bin_path)
    cases = [c for c in CASES if (not args.quick or c.quick) and
             (not args.only or re.search(args.only, f"{c.surface}: {c.name}"))]
    if any(c.surface == "merge" for c in cases):
        make_shards(bin_path, work)
    records, start = [], time.monotonic()
    for i, c in enumerate(cases):
        r = run_case(i, c, bin_path, work)
        records.append(r)
        mark = "FINDING " + ",".join(r["findings"]) if r["findings"] else "ok"
        print(f"[{i + 1}/{len(cases)}] {r['surface']}: {r['case']} -> exit {r['exit']}, {r['wall_s']} s, "
              f"{r['peak_mb']} MB, report {'yes' if r['report'] else 'no'}: {mark}"
              + (f"\n    stderr: {r['stderr']}" if r["findings"] else "")
              + (f"\n    leftovers: {r['leftovers']}" if r["leftovers"] else ""), flush=True)
        if not args.keep:
            shutil.rmtree(os.path.join(work, f"case{i:03d}"), ignore_errors=True)
    total = time.monotonic() - start
    by_surface = {}
    for r in records:
        s = by_surface.setdefault(r["surface"], {"cases": 0, "findings": 0})
        s["cases"] += 1
        s["findings"] += bool(r["findings"])
    findings = [r for r in records if r["findings"]]
    print(f"\n{len(records)} cases in {total:.0f} s; peak {max((r['peak_mb'] or 0) for r in records):.0f} MB; "
          f"slowest {max(r['wall_s'] for r in records):.1f} s")
    for s, n in by_surface.items():
        print(f"  {s:20s} {n['cases']:4d} cases, {n['findings']} with findings")
    for r in findings:
        print(f"  FINDING {r['surface']}: {r['case']}: {','.join(r['findings'])} (exit {r['exit']}: {r['stderr']})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seconds": total, "records": records}, f, indent=1)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(PARAMS_DIR, ignore_errors=True)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

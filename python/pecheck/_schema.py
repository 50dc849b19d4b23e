"""The protocol's schema (protocol.schema.json beside this file: the one file pecheck's C++ readers embed at
build time): the names both languages share, read from it rather than copied."""

import json
import os

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "protocol.schema.json")

with open(_PATH, encoding="utf-8") as _f:
    SCHEMA = json.load(_f)

_DEFS = SCHEMA["$defs"]


def _enum(definition, field=None):
    node = _DEFS[definition] if field is None else _DEFS[definition]["properties"][field]
    while "$ref" in node:
        node = _DEFS[node["$ref"].rsplit("/", 1)[1]]
    return tuple(v for v in node["enum"] if v is not None)


PROTOCOL = SCHEMA["x-pecheck-protocol"]
DTYPES = _enum("dtype")
LAYOUTS = _enum("layout")
ROTATE_LAYOUTS = _enum("rotate_layout")
ALIGNMENTS = _enum("alignment")
OPS = _enum("op")
V1_OPS = tuple(SCHEMA["x-pecheck-v1-ops"])
REPLAYABLE_OPS = tuple(SCHEMA["x-pecheck-replayable-ops"])
SHAPE_DIMS = tuple(_DEFS["shapes"]["properties"])

_SCALING = _DEFS["scaling"]
# Each scaling type as the protocol or transformers names it → pecheck's type ("default" is none, "su" longrope…).
SCALING_NAMES = dict(_SCALING["x-pecheck-type-names"])
# pecheck's types: (their fields, those required), beside what any scaling may carry (x-pecheck-common).
SCALINGS = {kind: (tuple(t["fields"]), tuple(t["required"])) for kind, t in _SCALING["x-pecheck-types"].items()}
# The scaling's type field and transformers' name of it (rope_type).
SCALING_TYPE_ALIAS = next(k for k, v in _SCALING["properties"].items() if v.get("x-pecheck-alias-of") == "type")
# The types whose rotation follows the sequence length (the rotate function then takes seq_len).
LENGTH_DEPENDENT = tuple(_SCALING["x-pecheck-length-dependent"])

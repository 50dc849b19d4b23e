"""One verdict, one wording (issue 38 item 2): the same corpus of declarations — hellos valid and hostile, the
fuzz corpus of declared shapes, the model configs pecheck reads — judged by pecheck's C++ hello reader
(`pecheck check-declarations`) and by the Python package (what check_*() and serve() call), which must agree on
each: accepted by both, or refused by both with the same message. The package keeps no rule of its own, so a
disagreement is a rule it re-grew, or a declaration it writes differently from what the user gave.

And the schema (protocol.schema.json) is true to the readers: every hello the C++ accepts is valid under it
(JSON Schema 2020-12, Debian's python3-jsonschema), so the schema is never stricter than pecheck."""
import json
import math
import pathlib

import jsonschema
import pytest

from pecheck import _declarations, _schema

ROOT = pathlib.Path(__file__).resolve().parents[2]


def corpus():
    """(name, hello text) of every declaration in the corpus."""
    for k, line in enumerate((ROOT / "tests" / "data" / "declarations" / "hellos.jsonl").read_text().splitlines()):
        yield f"hellos.jsonl:{k + 1}", line
    for path in sorted((ROOT / "fuzz" / "corpus" / "hello_shapes").iterdir()):
        yield f"fuzz/corpus/hello_shapes/{path.name}", path.read_text().strip()
    for path in sorted((ROOT / "tests" / "data" / "configs").glob("*.json")):
        hello = {"protocol": 2, "name": path.stem, "ops": ["forward", "decode", "reset"], "dtype": "float32",
                 "params": {"model": json.loads(path.read_text())}}
        yield f"tests/data/configs/{path.name}", json.dumps(hello)


CORPUS = list(corpus())


@pytest.fixture(scope="module")
def cpp_verdicts():
    """pecheck's verdict on each hello of the corpus, in one call of the CLI."""
    return dict(zip((name for name, _ in CORPUS), _declarations.verdicts([text for _, text in CORPUS])))


def python_form(text):
    """The hello as arguments of the package's entry (dtype, layout, compute, params, ops), or None when the
    package cannot express it (another protocol, framing the package always writes itself, fields it sets)."""
    try:
        hello = json.loads(text)
    except ValueError:
        return None
    if not isinstance(hello, dict) or hello.get("protocol") != 2 or "dtype" not in hello:
        return None
    if set(hello) - {"protocol", "name", "ops", "dtype", "layout", "compute", "params"}:
        return None
    ops = hello.get("ops")
    if not isinstance(ops, list) or not ops or not all(isinstance(op, str) for op in ops) or len(set(ops)) != len(ops):
        return None
    return hello["dtype"], hello.get("layout"), hello.get("compute"), hello.get("params"), ops


def test_the_corpus_holds_valid_and_hostile_declarations_of_every_op(cpp_verdicts):
    refused = [name for name, v in cpp_verdicts.items() if not v["ok"]]
    accepted = [name for name, v in cpp_verdicts.items() if v["ok"]]
    assert len(refused) >= 100 and len(accepted) >= 40, (len(refused), len(accepted))
    fields = {v["field"].split(".")[1] for v in cpp_verdicts.values() if v.get("field", "").startswith("params.")}
    assert set(_schema.SCHEMA["$defs"]["params"]["properties"]) - {"model"} <= fields | {"decode"}, fields


@pytest.mark.parametrize("name,text", CORPUS, ids=[name for name, _ in CORPUS])
def test_python_and_cpp_give_one_verdict_in_one_wording(name, text, cpp_verdicts):
    form = python_form(text)
    if form is None:
        pytest.skip("a hello the package never writes (its framing is the package's own)")
    dtype, layout, compute, params, ops = form
    expected = cpp_verdicts[name]
    _declarations._ACCEPTED.clear()  # judged afresh, not remembered from an earlier case
    handlers = {op: (lambda *args: None) for op in ops}
    if expected["ok"]:
        _declarations._check_declarations(dtype, layout, compute, params, handlers)
    else:
        with pytest.raises(ValueError) as caught:
            _declarations._check_declarations(dtype, layout, compute, params, handlers)
        assert str(caught.value) == expected["message"]


def _finite(value):
    """JSON Schema has no NaN: a hello with one is outside the schema's subject (pecheck refuses it anyway)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def test_every_hello_pecheck_accepts_is_valid_under_the_schema(cpp_verdicts):
    validator = jsonschema.Draft202012Validator(_schema.SCHEMA)
    checked = 0
    for name, text in CORPUS:
        if cpp_verdicts[name]["ok"]:
            hello = json.loads(text)
            errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(hello)]
            assert not errors, (name, errors)
            checked += 1
    assert checked >= 40


def test_the_schema_is_json_schema_2020_12():
    jsonschema.Draft202012Validator.check_schema(_schema.SCHEMA)

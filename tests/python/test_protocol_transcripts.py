"""The requests and answers of real runs obey the protocol's schema (protocol.schema.json, $defs/request,
$defs/answer and $defs/result.<op>; issue 38 item 2). Each run's subject is `pecheck serve` of a built-in behind
two `tee`s, so every line pecheck sent and every line the subject answered is recorded, per subject process,
and checked with Debian's python3-jsonschema (Draft 2020-12): the schema describes what is on the wire, for
every op the built-ins below answer (encode, rotate, attention, bias, forward, decode, reset, batch, hello,
shutdown)."""
import collections
import json
import pathlib
import shlex
import subprocess

import jsonschema
import pytest

from pecheck import _schema
from pecheck._cli import find_cli

SUBJECTS = ["sinusoidal", "rope@yarn", "attention-llama4", "alibi", "llama-block", "gpt-oss-block"]


def validator(definition):
    return jsonschema.Draft202012Validator(dict(_schema.SCHEMA, **{"$ref": f"#/$defs/{definition}"}))


@pytest.fixture(scope="module")
def transcripts(tmp_path_factory):
    """[(request, answer)] of every subject process of a short run against each built-in."""
    cli = find_cli()
    folder = tmp_path_factory.mktemp("transcripts")
    for subject in SUBJECTS:
        logs = shlex.quote(str(folder))
        serve = f"tee {logs}/$$.req | {shlex.quote(cli)} serve builtin:{subject} | tee {logs}/$$.ans"
        done = subprocess.run([cli, "run", "--no-fork", "--jobs", "1", "--cases", "2", "--quiet",
                               "--report-dir", str(folder / "reports"), "--subject", f"cmd:bash -c {shlex.quote(serve)}"],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, (subject, done.stderr[-2000:])
    pairs = []
    for requests in sorted(folder.glob("*.req")):
        sent = [json.loads(line) for line in requests.read_text().splitlines()]
        answered = [json.loads(line) for line in requests.with_suffix(".ans").read_text().splitlines()]
        assert len(answered) == len(sent), requests
        pairs += zip(sent, answered)
    return pairs


def errors(v, value, limit=3):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in v.iter_errors(value)][:limit]


def test_every_request_and_answer_of_a_real_run_obeys_the_schema(transcripts):
    request, answer = validator("request"), validator("answer")
    results = collections.defaultdict(lambda: None)
    ops = collections.Counter()
    for sent, answered in transcripts:
        ops[sent["op"]] += 1
        assert answered["id"] == sent["id"]
        assert not errors(request, sent), (sent["op"], errors(request, sent))
        assert not errors(answer, answered), errors(answer, answered)
        if "result" not in answered:
            continue
        results[sent["op"]] = results[sent["op"]] or validator(f"result.{sent['op']}")
        assert not errors(results[sent["op"]], answered["result"]), (sent["op"], errors(results[sent["op"]],
                                                                                       answered["result"]))
        if sent["op"] == "batch":  # each item's result, as its own op's
            for item, reply in zip(sent["requests"], answered["result"]):
                ops[item["op"]] += 1
                if "result" in reply:
                    results[item["op"]] = results[item["op"]] or validator(f"result.{item['op']}")
                    assert not errors(results[item["op"]], reply["result"]), item["op"]
    assert {"hello", "encode", "rotate", "attention", "bias", "forward", "decode", "reset", "shutdown"} <= set(ops), ops


def test_the_schema_refuses_what_is_not_the_protocol():
    request, answer = validator("request"), validator("answer")
    assert errors(request, {"id": 1, "op": "encode", "dim": 4, "positions": [0, 1], "seq_len": 2}) == []
    assert errors(request, {"id": 1, "op": "encode", "dim": 0, "positions": [0], "seq_len": 1})  # no 0-wide table
    assert errors(request, {"id": 1, "op": "encode", "dims": 4, "positions": [0], "seq_len": 1})  # a field it has not
    assert errors(request, {"id": 1, "op": "teleport"})
    assert errors(request, {"op": "shutdown"})  # a request without its id
    assert errors(request, {"id": 2, "op": "batch", "requests": [{"op": "rotate", "positions": [-1], "x": [[0, 1]]}]})
    assert errors(answer, {"id": 1, "result": [[0.0]], "error": "both"})
    assert errors(answer, {"result": None})

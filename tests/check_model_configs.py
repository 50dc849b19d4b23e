#!/usr/bin/env python3
"""`pecheck explain-config --json` of every published config.json in
tests/fixtures/configs/ matches its hand-written expectation (<name>.expected.json).

An expectation states the model-wide facts it names (heads, kv_heads, head_dim,
layers, max_position_embeddings, scale, softcap, sinks, not_judged), every
layer — as runs of identical layers, {"count": k, "attention": ..., "rope":
..., "window"/"chunk"/"temperature_tuning"/"kv_shared_with" when not null},
or a cycle of runs repeated up to "total" layers — and the exact list of
fields left unread. A value "=fixture:a.b" stands for the fixture's own value
there (LongRoPE's 48 factors, say). Beside the expectations, the test checks
that every field of every fixture is either read or listed unread, that
nothing is listed that the file does not have, and that a broken config is a
usage error (exit 2) naming its field.

Usage: check_model_configs.py PECHECK FIXTURE_DIR
"""
import json
import math
import os
import subprocess
import sys
import tempfile

ROW_KEYS = ("attention", "window", "chunk", "rope", "temperature_tuning", "kv_shared_with")


def resolve(value, fixture):
    if isinstance(value, str) and value.startswith("=fixture:"):
        node = fixture.get("text_config", fixture)
        for part in value[len("=fixture:"):].split("."):
            node = node[part]
        return node
    if isinstance(value, dict):
        return {k: resolve(v, fixture) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, fixture) for v in value]
    return value


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=0)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def expand(layers):
    runs = layers["cycle"] if isinstance(layers, dict) else layers
    total = layers["total"] if isinstance(layers, dict) else sum(r["count"] for r in runs)
    out = []
    while len(out) < total:
        for r in runs:
            for _ in range(r["count"]):
                if len(out) < total:
                    row = {k: r.get(k) for k in ROW_KEYS}
                    row["index"] = len(out)
                    out.append(row)
    return out


def explain(pecheck, path):
    p = subprocess.run([pecheck, "explain-config", path, "--json"], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check_fixture(pecheck, directory, name, problems):
    path = os.path.join(directory, name + ".json")
    with open(path) as f:
        fixture = json.load(f)
    with open(os.path.join(directory, name + ".expected.json")) as f:
        expected = resolve(json.load(f), fixture)
    code, out, err = explain(pecheck, path)
    if code != 0:
        problems.append(f"{name}: explain-config exited {code}: {err.strip()}")
        return
    got = json.loads(out)
    if sorted(got) != ["layers", "model", "unread"]:
        problems.append(f"{name}: the JSON has {sorted(got)}, not model, layers, unread (SUBJECT-PROTOCOL.md)")
    for key, want in expected["model"].items():
        if not same(got["model"].get(key), want):
            problems.append(f"{name}: model.{key} is {got['model'].get(key)!r}, expected {want!r}")
    want_layers = expand(expected["layers"])
    if len(got["layers"]) != len(want_layers):
        problems.append(f"{name}: {len(got['layers'])} layers, expected {len(want_layers)}")
    for g, w in zip(got["layers"], want_layers):
        if not same(g, w):
            diff = {k: (g.get(k), w.get(k)) for k in set(g) | set(w) if not same(g.get(k), w.get(k))}
            problems.append(f"{name}: layer {w['index']}: (got, expected) {diff}")
            break
    if got["unread"] != expected["unread"]:
        extra = sorted(set(got["unread"]) - set(expected["unread"]))
        missing = sorted(set(expected["unread"]) - set(got["unread"]))
        problems.append(f"{name}: unread differs: listed but not expected {extra}; expected but not listed {missing}")
    # Every field is read or listed, and nothing is listed that the file lacks.
    fields = [k for k in fixture if k != "text_config"]
    if isinstance(fixture.get("text_config"), dict):
        fields += ["text_config." + k for k in fixture["text_config"]]
    for listed in got["unread"]:
        if listed not in fields:
            problems.append(f"{name}: unread lists {listed}, which the file does not have")


def check_errors(pecheck, problems):
    """A broken config is exit 2 naming the field, never a crash or a reading."""
    cases = [
        ({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64}, "num_attention_heads"),
        ({"model_type": "gpt_oss", "num_attention_heads": 4, "num_hidden_layers": 3, "head_dim": 16,
          "layer_types": ["sliding_attention", "full_attention"]}, "layer_types"),
        ({"model_type": "llama", "num_attention_heads": 4, "num_hidden_layers": 2, "hidden_size": 64,
          "rope_scaling": {"rope_type": "llama3", "factor": 8.0}}, "rope_scaling"),
        ({"model_type": "llama", "num_attention_heads": 4, "num_key_value_heads": 3, "num_hidden_layers": 2,
          "hidden_size": 64}, "num_key_value_heads"),
        ([1, 2, 3], "config"),
        # DeepSeek MLA: the rope slice turns in pairs; a head needs both of its slices.
        ({"model_type": "deepseek_v3", "num_attention_heads": 4, "num_hidden_layers": 2, "hidden_size": 64,
          "qk_rope_head_dim": 7, "qk_nope_head_dim": 8}, "qk_rope_head_dim"),
        ({"model_type": "my_mla", "num_attention_heads": 4, "num_hidden_layers": 2, "hidden_size": 64,
          "qk_rope_head_dim": 8}, "qk_nope_head_dim"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for k, (config, field) in enumerate(cases):
            path = os.path.join(tmp, f"bad{k}.json")
            with open(path, "w") as f:
                json.dump(config, f)
            code, out, err = explain(pecheck, path)
            if code != 2 or field not in err:
                problems.append(f"broken config {k}: exit {code}, stderr {err.strip()!r}: expected exit 2 naming {field}")
        code, out, err = explain(pecheck, os.path.join(tmp, "absent.json"))
        if code != 2 or "cannot read the model config" not in err:
            problems.append(f"a missing file: exit {code}, {err.strip()!r}")


def main():
    pecheck, directory = sys.argv[1], sys.argv[2]
    names = sorted(n[:-len(".expected.json")] for n in os.listdir(directory) if n.endswith(".expected.json"))
    fixtures = sorted(n[:-len(".json")] for n in os.listdir(directory)
                      if n.endswith(".json") and not n.endswith(".expected.json"))
    problems = []
    if names != fixtures:
        problems.append(f"fixtures without expectations or the reverse: {sorted(set(names) ^ set(fixtures))}")
    if len(fixtures) < 20:
        problems.append(f"only {len(fixtures)} fixtures (issue 34 asks for 20 families)")
    for name in names:
        check_fixture(pecheck, directory, name, problems)
    check_errors(pecheck, problems)
    for p in problems:
        print(p)
    print(f"{len(names)} configs checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

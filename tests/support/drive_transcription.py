#!/usr/bin/env python3
"""Runs one tests/subjects/real/ transcription without pecheck or its adapter.

    /usr/bin/python3 drive_transcription.py SCRIPT < requests.jsonl

The script is run as __main__ with a stand-in ``pecheck_subject.serve`` that
records what the script declares (the version-2 signature: name, dtype,
encode/attention/rotate, layout, compute, params, ...) instead of serving.
Then each request line (``{"op": "rotate", "positions": [...], "x": [...],
"seq_len": 4096}``, the protocol's request fields) is answered by the
script's own function, called as the version-2 adapter calls it. Output, one
JSON line each: first ``{"hello": {...}}`` (what the script declared), then
per request ``{"result": ...}`` or ``{"error": "..."}`` (a refusal).

This checks the transcription's maths and its declaration today, while the
adapter's version-2 ``serve`` is being written; once it lands the same
scripts run under ``pecheck run --subject cmd:...`` unchanged.
"""
import json
import runpy
import sys
import types

OPS = ("encode", "attention", "rotate", "forward")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: drive_transcription.py SCRIPT < requests.jsonl")
    declared = {}

    def serve(name, dtype, **kwargs):
        declared.update(kwargs, name=name, dtype=dtype)

    stand_in = types.ModuleType("pecheck_subject")
    stand_in.serve = serve
    sys.modules["pecheck_subject"] = stand_in
    runpy.run_path(sys.argv[1], run_name="__main__")
    if "name" not in declared:
        sys.exit(f"{sys.argv[1]} never called serve()")

    hello = {key: value for key, value in declared.items() if key not in OPS and value is not None}
    hello["ops"] = [op for op in OPS if declared.get(op) is not None]
    print(json.dumps({"hello": hello}), flush=True)

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request["op"]
        try:
            fn = declared[op]
            layer = {"layer": request["layer"]} if "layer" in request else {}
            if op == "encode":
                result = fn(request["dim"], request["positions"], request["seq_len"])
            elif op == "attention":
                result = fn(request["q"], request["k"], request["v"], request["mask"])
            elif op == "forward":
                x = request["x"]
                positions = request.get("positions", [list(range(len(seq))) for seq in x])
                padding = request.get("padding", [[True] * len(seq) for seq in x])
                result = fn(x, positions, padding, **layer)
            elif "seq_len" in request:
                result = fn(request["positions"], request["x"], seq_len=request["seq_len"], **layer)
            else:
                result = fn(request["positions"], request["x"], **layer)
            if hasattr(result, "tolist"):
                result = result.tolist()
            print(json.dumps({"result": result}), flush=True)
        except Exception as e:  # a refusal, as the adapter answers it
            print(json.dumps({"error": f"{type(e).__name__}: {e}"}), flush=True)


if __name__ == "__main__":
    main()

"""Issue 23, the Python side of a user's first hour: a module that refuses nearly everything stops early
naming the declaration, progress and a time budget, one exception type, did-you-mean for keywords,
framework detection that is certain or asks, and transformers' scaling dicts pasted as they are."""
import json
import os
import subprocess
import sys
import time
import types

import numpy as np
import pytest

import pecheck
from pecheck import _defaults
from pecheck._framework import detect_framework
from support import rope, rope_half_positions


def fixed_width_rope(width):
    def rotate(positions, x):
        x = np.asarray(x)
        if x.shape[1] != width:
            raise ValueError(f"this rotary embedding is built for head_dim={width}, got {x.shape[1]}")
        return rope(positions, x)
    return rotate


def test_a_module_built_for_one_width_stops_early_naming_the_declaration():
    started = time.monotonic()
    with pytest.raises(pecheck.CheckFailed) as caught:
        # The dtype is read from its answer at the width it answers (the probe tries several).
        pecheck.check_rotary(fixed_width_rope(128), properties="rope.norm_preservation")
    seconds = time.monotonic() - started
    message = str(caught.value)
    assert seconds < 30, seconds
    assert "stopped early: the subject refused 100 inputs in a row" in message
    assert "built for head_dim=128, got" in message and "more like it with other numbers" in message
    assert "params.rotate.shapes" in message and "--max-width" in message
    result = caught.value.result
    cell = result.results[0]
    assert cell["status"] == "error" and cell["discards"] >= 100


def test_progress_events_reach_a_callable_and_the_refusal_rate_shows():
    events = []
    pecheck.check_rotary(rope, cases=20, properties="rope.norm_preservation", progress=events.append)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "plan" and events[0]["cells"] == 1 and kinds[-1] == "cell"
    assert events[-1]["status"] == "passed" and events[-1]["done"] == 1


def test_the_terminal_line_draws_and_clears(monkeypatch):
    from pecheck import _progress
    from pecheck._progress import TerminalProgress
    monkeypatch.setattr(_progress, "_SLOW_NOTED", set())  # as in a process that has shown no note yet
    written = []
    line = TerminalProgress("rope", write=written.append)
    line({"event": "plan", "cells": 3})
    line({"event": "slow", "property": "rope.relative_dot", "message": "rope.relative_dot is slow: 12 of 100"})
    line({"event": "progress", "property": "rope.relative_dot", "cases": 12, "planned": 100, "refused": 4,
          "shrinks": 0, "seconds": 1.5})
    line.close()
    text = "".join(written)
    assert "pecheck rope: rope.relative_dot 12/100 cases, 4 refused, 1.5 s · cell 1 of 3" in text
    assert "rope.relative_dot is slow: 12 of 100\n" in text and text.endswith("\r\x1b[K")
    # The next check of the same process (a pytest session) does not say it again; another property's note shows.
    again = []
    second = TerminalProgress("rope_fast", write=again.append)
    second({"event": "slow", "property": "rope.relative_dot", "message": "rope.relative_dot is slow: 9 of 100"})
    second({"event": "slow", "property": "history_independence", "message": "history_independence is slow"})
    second.close()
    assert "rope.relative_dot is slow" not in "".join(again)
    assert "history_independence is slow\n" in "".join(again)


def test_a_time_budget_stops_the_check_and_fails_saying_so():
    def slow(positions, x):
        time.sleep(0.05)
        return rope(positions, x)

    started = time.monotonic()
    with pytest.raises(pecheck.CheckFailed) as caught:
        pecheck.check_rotary(slow, dtype="float64", time_budget=2, batched=False,
                             args=["--batch", "1", "--jobs", "1"])
    # Unbudgeted, one job makes 700 cases (7 properties × 100) of at least one 50 ms call each: 35 s or
    # more. The slack over the 2 s budget is for a loaded machine (a fork can stall for seconds).
    assert time.monotonic() - started < 30
    report = caught.value.result.report
    assert report["time_budget"] == {"seconds": 2, "spent": True} and report["exit_code"] == 1
    assert any("time budget" in (r.get("message") or "") for r in report["results"])


def test_a_keyword_typo_gets_the_keyword_it_meant():
    with pytest.raises(TypeError, match=r"check_rotary\(\) got an unexpected keyword argument 'case'; did you mean "
                                        r"cases=\?"):
        pecheck.check_rotary(rope, case=10)
    with pytest.raises(TypeError, match="did you mean params=?"):
        pecheck.check_encoder(rope, param={})
    with pytest.raises(TypeError, match="did you mean rotate=?"):
        pecheck.replay("x.json", rotat=rope)


def test_replay_raises_the_same_exception_as_the_checks():
    failed = pecheck.check_rotary(rope_half_positions, raise_on_failure=False)
    record = next(r for r in failed.results if r["status"] == "failed")
    with pytest.raises(pecheck.CheckFailed, match="still fails") as caught:
        pecheck.replay(failed.counterexample_file(record), rotate=rope_half_positions)
    assert caught.value.result is None and caught.value.outcome["exit_code"] == 1


def test_the_rerun_lines_of_the_reports_name_the_test_not_the_descriptors(tmp_path):
    with _defaults.settings(rerun="pytest tests/test_x.py::test_rope"):
        result = pecheck.check_rotary(rope_half_positions, raise_on_failure=False, report_dir=tmp_path / "r")
    assert result.report["rerun_command"] == "pytest tests/test_x.py::test_rope --pecheck-seed 1"
    failed = [r for r in result.results if r["status"] == "failed"]
    assert failed and all(r["rerun"] == "pytest tests/test_x.py::test_rope --pecheck-seed 1" for r in failed)
    summary = (tmp_path / "r" / "summary.md").read_text()
    reruns = [line for line in summary.splitlines() if line.startswith("Rerun")]
    assert reruns and all("fd:" not in line and "pytest tests/test_x.py::test_rope" in line for line in reruns), reruns


def test_outside_pytest_the_rerun_line_names_the_script_not_the_descriptors(tmp_path):
    script = tmp_path / "check_rope.py"
    script.write_text("import json, sys\nimport pecheck\nfrom support import rope_half_positions\n"
                      "result = pecheck.check_rotary(rope_half_positions, raise_on_failure=False, "
                      "report_dir=sys.argv[1])\n"
                      "print(json.dumps({'rerun': result.report['rerun_command'], 'message': result.message()}))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "r")], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert str(script) in out["rerun"] and "fd:" not in out["rerun"]
    assert f"rerun:   {out['rerun']}" in out["message"]
    summary = (tmp_path / "r" / "summary.md").read_text()
    reruns = [line for line in summary.splitlines() if line.startswith("Rerun")]
    assert reruns and all("fd:" not in line and str(script) in line for line in reruns), reruns


def test_framework_detection_is_certain_or_asks(torch):
    user = types.ModuleType("user_code")
    user.np, user.torch = np, torch
    exec("def numpy_only(positions, x):\n    return np.asarray(x)\n"
         "def torch_only(positions, x):\n    return torch.as_tensor(x)\n"
         "def both(positions, x):\n    return torch.from_numpy(np.asarray(x))\n"
         "def neither(positions, x):\n    return x\n"
         "def calls_torch(positions, x):\n    return torch_only(positions, x)\n", user.__dict__)
    assert detect_framework(user.numpy_only) == "numpy"
    assert detect_framework(user.torch_only) == "torch"
    assert detect_framework(user.calls_torch) == "torch"  # followed through the function it calls
    assert detect_framework(lambda p, x: user.torch_only(p, x)) == "torch"  # a module attribute it reads
    with pytest.raises(ValueError, match=r"both NumPy \(np in both\) and torch \(torch in both\).*framework="):
        detect_framework(user.both)
    with pytest.raises(ValueError, match="neither NumPy nor torch.*Declare framework='numpy' or framework='torch'"):
        detect_framework(user.neither)
    assert detect_framework(user.neither, "numpy") == "numpy"
    with pytest.raises(pecheck.UsageError, match="cannot tell whether .*neither"):
        pecheck.check_rotary(user.neither, dtype="float64")


def test_transformers_scaling_dicts_are_accepted_as_written():
    def linear(positions, x):
        return rope(np.asarray(positions) / 4.0, x)

    for scaling in ({"rope_type": "linear", "factor": 4.0}, {"type": "linear", "factor": 4.0},
                    {"rope_type": "linear", "factor": 4.0, "rope_theta": 10000.0}):
        result = pecheck.check_rotary(linear, params={"rotate": {"scaling": scaling}}, cases=20,
                                      properties="rope.reference_values")
        assert result.passed, result.message()
    with pytest.raises(ValueError, match=r"scaling.type \(\"ntk\"\) and params.rotate.scaling.rope_type \(\"linear\"\) "
                                         r"disagree"):
        pecheck.check_rotary(linear, params={"rotate": {"scaling": {"rope_type": "linear", "type": "ntk",
                                                                    "factor": 4.0}}})
    with pytest.raises(ValueError, match=r"params.rotate.scaling.facter: a field scaling type linear does not have.*did you mean "
                                         r"factor\?"):
        pecheck.check_rotary(linear, params={"rotate": {"scaling": {"rope_type": "linear", "facter": 4.0}}})


def test_a_string_where_a_number_belongs_says_so():
    with pytest.raises(ValueError, match=r"params.rotate.base must be a finite number > 0, got \"10k\" \(a string"):
        pecheck.check_rotary(rope, params={"rotate": {"base": "10k"}})


def test_a_glob_typo_names_the_glob():
    with pytest.raises(pecheck.UsageError, match=r"--properties 'rope.refrence_values' matches no property; did you "
                                                 r"mean 'rope.reference_values'\?"):
        pecheck.check_rotary(rope, properties=["rope.norm_preservation", "rope.refrence_values"])

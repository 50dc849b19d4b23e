"""The pytest plugin and the examples: options reach pecheck, results reach the JUnit XML,
the correct examples pass and their buggy twins fail with the counterexample in pytest's output."""
import importlib.util
import json
import os
import shlex
import xml.etree.ElementTree as ET

import pytest

ROTARY_TEST = """
import numpy as np
import pecheck

def rotate(positions, x):
    x = np.asarray(x, dtype=np.float64)
    theta = 10000.0 ** (-2.0 * np.arange(x.shape[1] // 2) / x.shape[1])
    angles = positions[:, None] * theta
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * np.cos(angles) - x[:, 1::2] * np.sin(angles)
    out[:, 1::2] = x[:, 0::2] * np.sin(angles) + x[:, 1::2] * np.cos(angles)
    return out

def test_rotary(pecheck_report_dir):
    result = pecheck.check_rotary(rotate, properties="rope.norm_preservation")
    assert result.report_dir.startswith(str(pecheck_report_dir))
    print("REPORT", result.report["seed"], result.report["cases"])
"""


def junit_properties(path):
    cases = {}
    for case in ET.parse(path).iter("testcase"):
        cases[case.get("name")] = [(p.get("name"), p.get("value")) for p in case.iter("property")]
    return cases


def test_options_reach_pecheck_and_results_reach_the_junit_xml(pytester, package_env, tmp_path):
    pytester.makepyfile(test_rotary=ROTARY_TEST)
    reports = tmp_path / "kept"
    junit = tmp_path / "junit.xml"
    result = pytester.runpytest_subprocess("-p", "pecheck.pytest_plugin", "-s", "--pecheck-cases", "7",
                                           "--pecheck-seed", "42", "--pecheck-report-dir", str(reports),
                                           f"--junitxml={junit}")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["pecheck: *pecheck*", "*REPORT 42 7*"])
    properties = dict(junit_properties(junit)["test_rotary"])
    assert properties["pecheck_cells"] == "1" and properties["pecheck_passed"] == "1"
    assert properties["pecheck_failed"] == "0" and properties["pecheck_errors"] == "0"
    folder = properties["pecheck_report_dir"]
    assert folder.startswith(str(reports / "test_rotary.py_test_rotary"))
    assert os.path.isfile(os.path.join(folder, "report.json"))


def test_a_bad_seed_is_a_usage_error(pytester, package_env):
    pytester.makepyfile(test_rotary=ROTARY_TEST)
    result = pytester.runpytest_subprocess("-p", "pecheck.pytest_plugin", "--pecheck-seed", "minus-one")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pecheck-seed must be an integer from 0 to 18446744073709551615 or 'random'*"])


@pytest.mark.parametrize("option, says", [
    # An empty value is not "unset": it is refused, as pecheck run refuses --report-dir "".
    (["--pecheck-report-dir="], "*--pecheck-report-dir needs a folder; it was given an empty value*"),
    (["--pecheck-report-dir", "{file}"], "*--pecheck-report-dir * is not a folder (a file is there)*"),
    (["--pecheck-report-dir", "{file}/below"], "*--pecheck-report-dir */below cannot be created*"),
    # pecheck run's --cases range, refused before any test runs rather than by each test.
    (["--pecheck-cases", "99999999999"], "*--pecheck-cases must be from 1 to 10,000,000 *, got 99999999999*"),
    (["--pecheck-cases", "0"], "*--pecheck-cases must be from 1 to 10,000,000 *, got 0*"),
    (["--pecheck-seed", "18446744073709551616"], "*--pecheck-seed must be an integer from 0 to *"),
    # pecheck run's --time-budget range: inf passed the plugin's check and then failed every test (issue 39).
    (["--pecheck-time-budget=inf"], "*--pecheck-time-budget must be a finite number of seconds > 0 *, got inf*"),
    (["--pecheck-time-budget=nan"], "*--pecheck-time-budget must be a finite number of seconds > 0 *, got nan*"),
    (["--pecheck-time-budget=0"], "*--pecheck-time-budget must be a finite number of seconds > 0 *, got 0.0*"),
])
def test_bad_options_are_usage_errors_before_any_test_runs(pytester, package_env, tmp_path, option, says):
    pytester.makepyfile(test_rotary=ROTARY_TEST)
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    args = [arg.replace("{file}", str(a_file)) for arg in option]
    result = pytester.runpytest_subprocess("-p", "pecheck.pytest_plugin", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    result.stderr.fnmatch_lines([says])


def test_the_numpy_example_passes_and_its_buggy_twin_fails_with_the_counterexample(pytester, package_env,
                                                                                    source_dir, tmp_path):
    examples = source_dir / "examples" / "python"
    junit = tmp_path / "junit.xml"
    # The examples live in the checkout: their reports go to the test's folder, not the checkout's .pecheck/.
    result = pytester.runpytest_subprocess("-p", "pecheck.pytest_plugin", f"--pecheck-report-dir={tmp_path / 'r'}",
                                           str(examples / "test_numpy_sinusoidal.py"),
                                           str(examples / "test_numpy_sinusoidal_buggy.py"), f"--junitxml={junit}")
    result.assert_outcomes(passed=1, failed=1)
    # ω_i = 10000^(−i/d) first differs from 10000^(−2i/d) at pair 1: the smallest witness is d = 4.
    result.stdout.fnmatch_lines([
        "*pecheck: sinusoidal_exponent_i_over_d (encode, float32, numpy): * properties failed (exit 1)",
        "*FAILED pe.reference_values*",
        '*counterexample (shrunk in * steps): {"dim":4,"positions":[[]1[]],*',
        "*check \"entries\": error * > tolerance *",
        "*reports: *",
        "*replay:  pecheck.replay(*encode=*",
        "*rerun:   pytest *test_numpy_sinusoidal_buggy.py::test_sinusoidal_encoding_with_the_exponent_slip --pecheck-seed 1",
    ])
    # The rerun line works from where pytest was started, whatever pytest's rootdir.
    rerun = [line for line in result.stdout.lines if "rerun:   pytest " in line][0]
    test_path = shlex.split(rerun.split("rerun:   pytest ", 1)[1])[0].split("::")[0]
    assert (pytester.path / test_path).is_file(), rerun
    cases = junit_properties(junit)
    assert dict(cases["test_sinusoidal_encoding"])["pecheck_failed"] == "0"
    assert int(dict(cases["test_sinusoidal_encoding_with_the_exponent_slip"])["pecheck_failed"]) >= 1


def test_the_pytorch_example_passes_and_its_buggy_twin_fails_with_the_counterexample(pytester, package_env,
                                                                                      source_dir, tmp_path):
    # Not imported here: pytester restores sys.modules after the test, and a PyTorch imported again in
    # this process fails ("already has a docstring"). The pytest it starts imports it.
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    examples = source_dir / "examples" / "python"
    result = pytester.runpytest_subprocess("-p", "pecheck.pytest_plugin", f"--pecheck-report-dir={tmp_path / 'r'}",
                                           str(examples / "test_torch_rotary.py"),
                                           str(examples / "test_torch_rotary_buggy.py"))
    result.assert_outcomes(passed=2, failed=1)
    # Under autocast the unshielded product inv_freq @ positions is bfloat16: already wrong at position 1.
    result.stdout.fnmatch_lines([
        # The six rope.* claims and history_independence (through copies forked from the test process).
        "*pecheck: *rotate (rotate, float32, torch): * of 7 properties failed (exit 1)",
        "*FAILED rope.*",
        "*counterexample (shrunk in * steps): {*",
        "*error * > tolerance *",
    ])
    assert "test_torch_rotary_buggy.py::test_rotary_in_a_mixed_precision_step" in result.stdout.str()


BUGGY_TEST = """
import numpy as np
import pecheck

def rotate(positions, x):
    x = np.asarray(x, dtype=np.float64)
    theta = 10000.0 ** (-2.0 * np.arange(x.shape[1] // 2) / x.shape[1])
    angles = (np.asarray(positions) + 1)[:, None] * theta   # a 1-based position: R_{t+1}
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * np.cos(angles) - x[:, 1::2] * np.sin(angles)
    out[:, 1::2] = x[:, 0::2] * np.sin(angles) + x[:, 1::2] * np.cos(angles)
    return out

def test_rotary():
    pecheck.check_rotary(rotate, properties="rope.identity_at_zero", cases=20)
"""


def test_a_failure_shows_the_users_frames_keeps_its_reports_in_the_project_and_names_the_test(pytester,
                                                                                             package_env):
    pytester.makepyfile(test_buggy=BUGGY_TEST)
    pytester.makeini("[pytest]\n")  # the project's root: where .pecheck/ goes
    result = pytester.runpytest_subprocess("-p", "pecheck.pytest_plugin")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    # pecheck's own frames are hidden: the test's line is shown, no line of pecheck's source.
    assert "pecheck.check_rotary(rotate" in out
    assert "raise CheckFailed(result)" not in out and "__tracebackhide__" not in out and "_keywords(" not in out
    assert "pecheck.CheckFailed: pecheck: rotate (rotate, float64, numpy)" in out
    # The reports stay in the project's .pecheck/, where the printed replay path keeps pointing.
    replay = [line for line in result.stdout.lines if "replay:  pecheck.replay(" in line][0]
    path = replay.split("pecheck.replay('", 1)[1].split("'", 1)[0]
    assert path.startswith(str(pytester.path / ".pecheck" / "reports" / "test_buggy.py_test_rotary")), path
    assert os.path.isfile(path)
    # The reports' rerun lines name the test, not the descriptors pecheck was handed.
    report = json.loads(open(os.path.join(path.split("/counterexamples/")[0], "report.json")).read())
    assert report["rerun_command"] == "pytest test_buggy.py::test_rotary --pecheck-seed 1"
    assert "fd:" not in report["results"][0]["rerun"]


def test_a_time_budget_option_reaches_the_checks(pytester, package_env):
    pytester.makepyfile(test_rotary=ROTARY_TEST)
    result = pytester.runpytest_subprocess("-p", "pecheck.pytest_plugin", "--pecheck-time-budget", "0.001")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*time budget (0.001 s) was spent*"])

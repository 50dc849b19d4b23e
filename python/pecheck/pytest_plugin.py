"""pytest plugin for pecheck (entry point pytest11; from a checkout: ``pytest -p pecheck.pytest_plugin``).

Options (defaults for the checks a test makes; an argument given in the test wins):
  --pecheck-cases N          successful cases per property (pecheck's default: 100)
  --pecheck-seed S           a non-negative integer or "random" (pecheck's default: 1)
  --pecheck-time-budget S    seconds each check may take; when spent, the check stops and fails saying so
  --pecheck-report-dir DIR   keep each test's reports in DIR/<test id>/<function> (default: the project's
                             .pecheck/reports/, beside pytest's rootdir; each test's latest run is kept,
                             so a replay: path printed in a failure stays valid)

On a terminal each check shows a live progress line (property, cases, refusals, seconds) and says so
while a cell runs slower than expected. A failure is raised as pecheck.CheckFailed, with pecheck's own
frames hidden from the traceback; its "rerun:" line and the reports' Rerun lines name this test.

Each check's outcome is recorded in the test's properties, which pytest writes into its JUnit XML
(``--junitxml``): pecheck_cells, pecheck_passed, pecheck_failed, pecheck_errors, pecheck_report_dir.
The fixture ``pecheck_report_dir`` is the folder the test's checks write under.
"""

import math
import os
import re
import shlex
import shutil
from pathlib import Path

import pytest

from . import _defaults, _progress
from ._cli import CliNotFound, find_cli


def pytest_addoption(parser):
    group = parser.getgroup("pecheck", "pecheck property checks")
    group.addoption("--pecheck-cases", type=int, default=None, metavar="N",
                    help="successful cases per property for pecheck checks (default: pecheck's, 100)")
    group.addoption("--pecheck-seed", default=None, metavar="SEED",
                    help="seed for pecheck checks: a non-negative integer or 'random' (default: 1)")
    group.addoption("--pecheck-time-budget", type=float, default=None, metavar="SECONDS",
                    help="seconds each pecheck check may take; when spent the check stops and fails saying so")
    group.addoption("--pecheck-gradients", action="store_true", default=False,
                    help="check_rotary, check_attention and check_module check the backward pass too (the grad.* claims) "
                         "unless a check says gradients=False")
    group.addoption("--pecheck-model-config", default=None, metavar="PATH",
                    help="a model's config.json that every pecheck check declares (model_config=), unless the "
                         "check gives its own")
    group.addoption("--pecheck-report-dir", default=None, metavar="DIR",
                    help="keep pecheck's reports under DIR/<test id>/ (default: .pecheck/reports/ beside "
                         "pytest's rootdir)")


# pecheck run's own ranges (--cases, --seed): refused here, before any test runs, not by every test.
_MAX_CASES = 10_000_000
_MAX_TIME_BUDGET = 1e6  # pecheck run --time-budget: [finite > 0, at most 1e+06]
_MAX_SEED = 2 ** 64 - 1


def _seed(value):
    if value is None or value == "random":
        return value
    if not re.fullmatch(r"[0-9]+", str(value)) or int(value) > _MAX_SEED:
        raise pytest.UsageError(f"--pecheck-seed must be an integer from 0 to {_MAX_SEED} or 'random', got {value!r}")
    return int(value)


def _checked_report_dir(value):
    """The --pecheck-report-dir folder, created now: an empty value, a file or a path that cannot be a
    folder is a usage error before any test runs (never a NotADirectoryError in each test)."""
    if value is None:
        return None
    if not str(value).strip():
        raise pytest.UsageError("--pecheck-report-dir needs a folder; it was given an empty value (leave the "
                                "option out to keep reports under .pecheck/reports/)")
    root = Path(value)
    if root.exists() and not root.is_dir():
        raise pytest.UsageError(f"--pecheck-report-dir {value} is not a folder (a file is there)")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise pytest.UsageError(f"--pecheck-report-dir {value} cannot be created: {e.strerror or e}") from None
    return root


def pytest_configure(config):
    _seed(config.getoption("pecheck_seed"))  # a bad seed is a usage error before any test runs
    _checked_report_dir(config.getoption("pecheck_report_dir"))
    cases = config.getoption("pecheck_cases")
    if cases is not None and not 1 <= cases <= _MAX_CASES:
        raise pytest.UsageError(f"--pecheck-cases must be from 1 to {_MAX_CASES:,} (pecheck run's range), got {cases}")
    budget = config.getoption("pecheck_time_budget")
    # pecheck run's --time-budget range (finite, > 0, at most 1e6): inf passed here and then failed every test.
    if budget is not None and not (budget > 0 and math.isfinite(budget) and budget <= _MAX_TIME_BUDGET):
        raise pytest.UsageError(f"--pecheck-time-budget must be a finite number of seconds > 0 and at most "
                                f"{_MAX_TIME_BUDGET:g} (pecheck run's range), got {budget}")


def pytest_report_header(config):
    try:
        return f"pecheck: {find_cli()}"
    except CliNotFound as e:
        return f"pecheck: {e}"


def _report_root(config):
    """--pecheck-report-dir, else the project's .pecheck/reports (beside pytest's rootdir, where pecheck's
    regression store lives too)."""
    root = config.getoption("pecheck_report_dir")
    return Path(root) if root is not None else Path(config.rootpath) / ".pecheck" / "reports"


@pytest.fixture
def pecheck_report_dir(request):
    """The folder this test's pecheck checks write their reports under (one subfolder per check); the
    test's reports from an earlier run are replaced, so the folder holds the latest run's."""
    folder = _report_root(request.config) / (re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid).strip("._")
                                             or "test")
    if folder.exists():
        shutil.rmtree(folder)  # this test's reports from an earlier run: the folder holds the latest only
    folder.mkdir(parents=True)
    return folder


def _terminal_progress(config):
    """progress(name) for _defaults: a live line on pytest's terminal, drawn with capture suspended;
    None when pytest does not write to a terminal."""
    reporter = config.pluginmanager.getplugin("terminalreporter")
    capture = config.pluginmanager.getplugin("capturemanager")
    if reporter is None or not getattr(reporter, "isatty", False) or config.getoption("verbose") < 0:
        return None

    def write(text):
        if capture is not None:
            with capture.global_and_fixture_disabled():
                reporter.write(text, flush=True)
        else:
            reporter.write(text, flush=True)

    def progress(name):
        # Below pytest's own line; on close the cursor goes back to the end of that line.
        column = getattr(getattr(reporter, "_tw", None), "width_of_current_line", 0)
        restore = "\x1b[1A" + (f"\x1b[{column}C" if column else "")
        return _progress.TerminalProgress(name, write=write, start="\n", restore=restore)

    return progress


def _rerun_command(request):
    """`pytest PATH::NAME` that runs this test again from the current directory: the node id is relative
    to pytest's rootdir, which need not be where pytest was started."""
    path, _, name = request.node.nodeid.partition("::")
    located = Path(request.config.rootpath) / path
    try:
        shown = os.path.relpath(located)
    except ValueError:  # another drive
        shown = str(located)
    return "pytest " + shlex.quote(shown + ("::" + name if name else ""))


@pytest.fixture(autouse=True)
def _pecheck_settings(request):
    def record(result):
        properties = request.node.user_properties
        properties.append(("pecheck_cells", result.cells))
        properties.append(("pecheck_passed", int(result.summary.get("passed", 0))))
        properties.append(("pecheck_failed", result.failed))
        properties.append(("pecheck_errors", result.errors))
        if result.report_dir:
            properties.append(("pecheck_report_dir", os.path.abspath(result.report_dir)))

    with _defaults.settings(cases=request.config.getoption("pecheck_cases"),
                            gradients=request.config.getoption("pecheck_gradients") or None,
                            seed=_seed(request.config.getoption("pecheck_seed")),
                            report_root=lambda: request.getfixturevalue("pecheck_report_dir"), record=record,
                            rerun=_rerun_command(request),
                            time_budget=request.config.getoption("pecheck_time_budget"),
                            progress=_terminal_progress(request.config),
                            model_config=request.config.getoption("pecheck_model_config")):
        yield

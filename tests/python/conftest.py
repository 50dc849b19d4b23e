"""The Python package's own tests (run by ctest through run_pytest.py; by hand:
PYTHONPATH=python PECHECK_BIN=build/pecheck /usr/bin/python3 -m pytest -p pecheck.pytest_plugin tests/python)."""
import os
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

SOURCE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE / "tests" / "python"))  # support.py


@pytest.fixture
def source_dir():
    return SOURCE


@pytest.fixture
def package_env(monkeypatch):
    """The environment a pytest child needs to import the package from this checkout."""
    path = os.pathsep.join(p for p in (str(SOURCE / "python"), os.environ.get("PYTHONPATH", "")) if p)
    monkeypatch.setenv("PYTHONPATH", path)
    return path


@pytest.fixture(scope="session")
def torch():
    """PyTorch, imported by the first test that asks for it (sorted last: below), or the test is skipped."""
    return pytest.importorskip("torch")


def pytest_collection_modifyitems(items):
    """The tests that import PyTorch (the `torch` fixture) run last, in their order.
    The in-process checks fork this process for every fresh copy, and once PyTorch is imported a fork
    costs some ten times what it did (page tables of its libraries and heap, copied and torn down):
    run first, the other tests fork a process without it. A test imports PyTorch through this
    fixture only, never in its body, or every test after it pays."""
    items.sort(key=lambda item: "torch" in item.fixturenames)

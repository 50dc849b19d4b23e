"""Where the package finds the pecheck CLI: $PECHECK_BIN, the checkout, the environment, PATH."""
import os
import stat

import pytest

from pecheck import _cli


def fake_cli(folder):
    path = folder / "pecheck"
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_pecheck_bin_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("PECHECK_BIN", fake_cli(tmp_path))
    assert _cli.find_cli() == str(tmp_path / "pecheck")


def test_a_pecheck_bin_that_is_not_executable_is_an_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PECHECK_BIN", str(tmp_path / "missing"))
    with pytest.raises(_cli.CliNotFound, match="PECHECK_BIN=.*missing is not an executable file"):
        _cli.find_cli()


def test_the_order_is_pecheck_bin_checkout_environment_path(monkeypatch, tmp_path):
    monkeypatch.delenv("PECHECK_BIN", raising=False)
    assert [where for where, _ in _cli.candidates()] == ["PECHECK_BIN", "the checkout",
                                                         "the checkout it was installed from", "the environment",
                                                         "PATH"]
    checkout = dict(_cli.candidates())["the checkout"]
    assert checkout == os.path.normpath(os.path.join(os.path.dirname(_cli.__file__), "..", "..", "build", "pecheck"))


def test_path_is_the_last_resort(monkeypatch, tmp_path):
    monkeypatch.delenv("PECHECK_BIN", raising=False)
    monkeypatch.setattr(_cli, "_HERE", str(tmp_path / "nowhere" / "pecheck"))
    monkeypatch.setattr(_cli.sysconfig, "get_path", lambda name: str(tmp_path / "no-scripts"))
    monkeypatch.setenv("PATH", str(tmp_path))
    fake_cli(tmp_path)
    assert _cli.find_cli() == str(tmp_path / "pecheck")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(_cli, "_installed_from", lambda: None)
    with pytest.raises(_cli.CliNotFound, match=r"not found \(looked in the checkout: .*\): build it .*PECHECK_BIN"):
        _cli.find_cli()


def test_an_environment_installed_from_a_checkout_finds_its_cli(monkeypatch, tmp_path):
    # python/setup.py records the checkout's build/pecheck in pecheck/_installed.py at install.
    monkeypatch.delenv("PECHECK_BIN", raising=False)
    monkeypatch.setattr(_cli, "_HERE", str(tmp_path / "site-packages" / "pecheck"))
    monkeypatch.setattr(_cli.sysconfig, "get_path", lambda name: str(tmp_path / "no-scripts"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    checkout_build = tmp_path / "checkout" / "build"
    checkout_build.mkdir(parents=True)
    monkeypatch.setattr(_cli, "_installed_from", lambda: str(checkout_build / "pecheck"))
    built = fake_cli(checkout_build)
    assert _cli.find_cli() == built


def test_the_package_version_is_the_projects(source_dir):
    import re

    import pecheck

    cmake = (source_dir / "CMakeLists.txt").read_text()
    pyproject = (source_dir / "python" / "pyproject.toml").read_text()
    project = re.search(r"project\(pecheck VERSION ([0-9.]+)", cmake).group(1)
    assert re.search(r'^version = "([0-9.]+)"', pyproject, re.MULTILINE).group(1) == project
    assert pecheck.__version__ == project

#!/usr/bin/env python3
"""ctest's entry to the Python package's tests: runs pytest and judges its JUnit XML, so that
"no tests ran" (pytest's exit 5) or tests skipped where they could run never pass silently.

  run_pytest.py SOURCE_DIR PECHECK_BIN WORK_DIR
      the package from the checkout (PYTHONPATH=SOURCE_DIR/python, plugin loaded with -p):
      tests/python, the package's own tests, which also run the examples through pytester
  run_pytest.py --installed SOURCE_DIR PECHECK_BIN WORK_DIR
      pip-installs the package from the checkout, offline, as the README says, into a fresh virtual
      environment WORK_DIR/venv (--system-site-packages: Debian's NumPy, PyTorch and pytest), checks that
      the build left nothing in the checkout, and runs the NumPy examples with the plugin loaded by its
      pytest11 entry point alone

Exits 0 only when pytest exited 0, ran at least the expected number of tests, and skipped none
(PyTorch tests may skip only where PyTorch does not import). Prints "N passed, N failed".
"""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

PYTHON = "/usr/bin/python3"


def torch_imports():
    return subprocess.run([PYTHON, "-c", "import torch"], capture_output=True).returncode == 0


def judge(command, env, junit, minimum, cwd):
    print("+", " ".join(command), flush=True)
    status = subprocess.run(command, env=env, cwd=cwd).returncode
    try:
        root = ET.parse(junit).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"run_pytest: no JUnit XML from pytest ({e}); exit {status}")
        return 1
    cases = list(root.iter("testcase"))
    failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
    skipped = [c for c in cases if c.find("skipped") is not None]
    passed = len(cases) - failed - len(skipped)
    problems = []
    if status != 0:
        problems.append(f"pytest exited {status}" + (" (no tests ran)" if status == 5 else ""))
    if len(cases) < minimum:
        problems.append(f"{len(cases)} tests ran, expected at least {minimum}")
    for case in skipped:
        reason = case.find("skipped").get("message", "")
        if "torch" in reason and not torch_imports():
            print(f"run_pytest: skipped (PyTorch is not installed): {case.get('name')}")
        else:
            problems.append(f"{case.get('name')} skipped: {reason}")
    print(f"{passed} passed, {failed} failed, {len(skipped)} skipped")
    for problem in problems:
        print(f"run_pytest: {problem}")
    return 1 if problems else 0


def from_checkout(source, cli, work):
    env = dict(os.environ, PYTHONPATH=os.path.join(source, "python"), PECHECK_BIN=cli, PECHECK_NO_REGRESSIONS="1")
    junit = os.path.join(work, "junit.xml")
    command = [PYTHON, "-m", "pytest", "-p", "pecheck.pytest_plugin", "-p", "no:cacheprovider", "-q", "-rs",
               f"--basetemp={os.path.join(work, 'tmp')}", f"--junitxml={junit}",
               f"--pecheck-report-dir={os.path.join(work, 'pecheck-reports')}", os.path.join(source, "tests", "python")]
    return judge(command, env, junit, minimum=30, cwd=work)


def _build_outputs(folder):
    """What a setuptools build leaves in a source folder: build/ and *.egg-info."""
    return sorted(name for name in os.listdir(folder) if name == "build" or name.endswith(".egg-info"))


def installed(source, cli, work):
    venv = os.path.join(work, "venv")
    shutil.rmtree(venv, ignore_errors=True)
    package = os.path.join(source, "python")
    before = _build_outputs(package)
    subprocess.run([PYTHON, "-m", "venv", "--system-site-packages", venv], check=True)
    # The README's command, from the checkout itself: the build must happen outside it.
    pip = [os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--no-build-isolation", "--no-index", "-q",
           package]
    print("+", " ".join(pip), flush=True)
    subprocess.run(pip, check=True, env={k: v for k, v in os.environ.items() if k != "PECHECK_BIN"})
    left = sorted(set(_build_outputs(package)) - set(before))
    if left:
        print(f"run_pytest: pip install ./python wrote {left} into the checkout's python/")
        return 1
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PECHECK_BIN=cli, PECHECK_NO_REGRESSIONS="1")
    probe = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import pecheck; print(pecheck.__file__)"],
                           env=env, capture_output=True, text=True, check=True, cwd=work)
    if not probe.stdout.startswith(venv):
        print(f"run_pytest: pecheck imports from {probe.stdout.strip()}, not from the environment {venv}")
        return 1
    # Installed from the checkout, the package finds the checkout's CLI with no PECHECK_BIN and nothing linked.
    checkout_cli = os.path.join(source, "build", "pecheck")
    bare = {k: v for k, v in env.items() if k != "PECHECK_BIN"}
    found = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                            "import pecheck, pecheck._installed as i; print(i.CLI); print(pecheck.find_cli())"],
                           env=bare, capture_output=True, text=True, cwd=work)
    lines = found.stdout.split()
    if not lines or lines[0] != checkout_cli:
        print(f"run_pytest: the installed package records {lines[:1]}, not the checkout's CLI {checkout_cli}: "
              f"{found.stderr.strip()}")
        return 1
    if os.access(checkout_cli, os.X_OK) and lines[1:] != [checkout_cli]:
        print(f"run_pytest: the installed package does not find {checkout_cli}: {found.stdout} {found.stderr}")
        return 1
    examples = os.path.join(source, "examples", "python")
    junit = os.path.join(work, "junit-installed.xml")
    # No -p: the plugin must come from the entry point; --pecheck-cases would be unknown without it.
    command = [os.path.join(venv, "bin", "python"), "-m", "pytest", "-p", "no:cacheprovider", "-q",
               "--pecheck-cases", "30", f"--basetemp={os.path.join(work, 'tmp-installed')}", f"--junitxml={junit}",
               f"--pecheck-report-dir={os.path.join(work, 'pecheck-reports-installed')}",
               os.path.join(examples, "test_numpy_sinusoidal.py")]
    return judge(command, env, junit, minimum=1, cwd=work)


def main(argv):
    mode = installed if argv[:1] == ["--installed"] else from_checkout
    argv = argv[1:] if mode is installed else argv
    if len(argv) != 3:
        sys.exit(__doc__)
    source, cli, work = (os.path.abspath(a) for a in argv)
    os.makedirs(work, exist_ok=True)
    return mode(source, cli, work)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

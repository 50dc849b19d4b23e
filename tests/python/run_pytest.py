#!/usr/bin/env python3
"""ctest's entry to the Python package's tests: runs pytest and judges its JUnit XML, so that
"no tests ran" (pytest's exit 5) or tests skipped where they could run never pass silently.

  run_pytest.py SOURCE_DIR PECHECK_BIN WORK_DIR
      the package from the checkout (PYTHONPATH=SOURCE_DIR/python, plugin loaded with -p):
      tests/python, the package's own tests, which also run the examples through pytester
  run_pytest.py --installed SOURCE_DIR PECHECK_BIN WORK_DIR
      pip-installs the package, offline, into a fresh virtual environment WORK_DIR/venv
      (--system-site-packages: Debian's NumPy, PyTorch and pytest) and runs the NumPy examples
      with the plugin loaded by its pytest11 entry point alone

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
               f"--basetemp={os.path.join(work, 'tmp')}", f"--junitxml={junit}", os.path.join(source, "tests", "python")]
    return judge(command, env, junit, minimum=30, cwd=work)


def installed(source, cli, work):
    venv, copy = os.path.join(work, "venv"), os.path.join(work, "python-source")
    for path in (venv, copy):
        shutil.rmtree(path, ignore_errors=True)
    # A copy: an in-tree setuptools build would leave build/ and *.egg-info in the checkout.
    shutil.copytree(os.path.join(source, "python"), copy, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    subprocess.run([PYTHON, "-m", "venv", "--system-site-packages", venv], check=True)
    pip = [os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--no-build-isolation", "--no-index", "-q", copy]
    print("+", " ".join(pip), flush=True)
    subprocess.run(pip, check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PECHECK_BIN=cli, PECHECK_NO_REGRESSIONS="1")
    probe = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import pecheck; print(pecheck.__file__)"],
                           env=env, capture_output=True, text=True, check=True, cwd=work)
    if not probe.stdout.startswith(venv):
        print(f"run_pytest: pecheck imports from {probe.stdout.strip()}, not from the environment {venv}")
        return 1
    examples = os.path.join(source, "examples", "python")
    junit = os.path.join(work, "junit-installed.xml")
    # No -p: the plugin must come from the entry point; --pecheck-cases would be unknown without it.
    command = [os.path.join(venv, "bin", "python"), "-m", "pytest", "-p", "no:cacheprovider", "-q",
               "--pecheck-cases", "30", f"--basetemp={os.path.join(work, 'tmp-installed')}", f"--junitxml={junit}",
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

"""setuptools' hooks for the pecheck package (the metadata is in pyproject.toml).

Two things a plain `pip install ./python` would get wrong in a checkout:
- where the CLI is: the package records the checkout's build/pecheck (or
  $PECHECK_BIN, when set at install) in pecheck/_installed.py, so an
  environment installed from the checkout finds the CLI built there;
- where setuptools builds: build/ and pecheck.egg-info go to a scratch
  folder outside the checkout, never into python/.
"""
import atexit
import os
import shutil
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.egg_info import egg_info

HERE = os.path.dirname(os.path.abspath(__file__))
# A checkout: python/ beside the project's CMakeLists.txt; its CLI is build/pecheck.
CHECKOUT = os.path.dirname(HERE) if os.path.isfile(os.path.join(HERE, "..", "CMakeLists.txt")) else None
# Fresh per run (pip runs this file once per build step): no stale file of an earlier build can reach the wheel.
SCRATCH = tempfile.mkdtemp(prefix="pecheck-python-build-")
atexit.register(shutil.rmtree, SCRATCH, True)


def recorded_cli():
    """The CLI the installed package looks for first (after $PECHECK_BIN at run time), or None."""
    given = os.environ.get("PECHECK_BIN")
    if given:
        return os.path.abspath(given)
    return os.path.join(CHECKOUT, "build", "pecheck") if CHECKOUT else None


class BuildRecordingTheCli(build_py):
    """build_py that also writes pecheck/_installed.py: where the CLI was when the package was installed."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "pecheck", "_installed.py")
        with open(target, "w", encoding="utf-8") as f:
            f.write('"""Written at install by python/setup.py: the CLI of the checkout the package was installed '
                    'from."""\n')
            f.write(f"CLI = {recorded_cli()!r}\n")


class EggInfoOutside(egg_info):
    """egg_info whose pecheck.egg-info goes to the scratch folder, not into python/."""

    def initialize_options(self):
        super().initialize_options()
        self.egg_base = os.path.relpath(SCRATCH, HERE)


setup(cmdclass={"build_py": BuildRecordingTheCli, "egg_info": EggInfoOutside},
      options={"build": {"build_base": os.path.join(SCRATCH, "build")}})

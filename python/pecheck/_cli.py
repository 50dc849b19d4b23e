"""Where the pecheck command-line tool is: the package drives it as a child."""

import os
import shutil
import sysconfig

_HERE = os.path.dirname(os.path.abspath(__file__))


class CliNotFound(RuntimeError):
    """No pecheck executable where the package looks for one."""


def _executable(path):
    return path if path and os.path.isfile(path) and os.access(path, os.X_OK) else None


def _installed_from():
    """The CLI of the checkout the package was installed from (python/setup.py records it), or None."""
    try:
        from . import _installed
    except ImportError:  # a checkout used in place, or a package built without setup.py's hook
        return None
    return getattr(_installed, "CLI", None)


def candidates():
    """(where, path) in the order find_cli() tries them."""
    yield "PECHECK_BIN", os.environ.get("PECHECK_BIN") or None
    # A checkout used with PYTHONPATH=python: the CLI its scripts/build.sh built.
    yield "the checkout", os.path.normpath(os.path.join(_HERE, "..", "..", "build", "pecheck"))
    # An environment installed from a checkout (pip install ./python): that checkout's build/pecheck.
    yield "the checkout it was installed from", _installed_from()
    # A virtual environment the package was installed into (scripts/python-venv.sh links the CLI there),
    # also when that environment is not activated.
    yield "the environment", os.path.join(sysconfig.get_path("scripts"), "pecheck")
    yield "PATH", shutil.which("pecheck")


def find_cli():
    """The pecheck executable: $PECHECK_BIN, else next to the package (a
    checkout's build/pecheck, the environment's bin/pecheck), else PATH."""
    explicit = os.environ.get("PECHECK_BIN")
    if explicit:
        found = _executable(explicit)
        if not found:
            raise CliNotFound(f"PECHECK_BIN={explicit} is not an executable file")
        return found
    looked = []
    for where, path in candidates():
        found = _executable(path)
        if found:
            return found
        if path:
            looked.append(f"{where}: {path}")
    raise CliNotFound("the pecheck command-line tool was not found (looked in " + "; ".join(looked) + "): build it "
                      "in the checkout (bash scripts/build.sh: build/pecheck), set PECHECK_BIN=/path/to/pecheck, or "
                      "install the pecheck Debian package (it puts pecheck on PATH)")

"""pecheck from Python: check a positional encoding, rotary embedding, attention, bias or whole
module written in NumPy or PyTorch, from a test, with the pecheck CLI as a child process.

    import pecheck
    from my_model import rotary

    def test_rotary():
        pecheck.check_rotary(rotary.rotate, params={"rotate": {"layout": "halves"}})

The calling process is the subject: pecheck runs with ``--subject fd:R,W`` and
the function is answered from a thread of this process. A failure raises
CheckFailed (an AssertionError) whose message is the shrunk counterexample,
the diagnosis and how to replay it; the reports are kept.

``serve`` (the subject loop for a separate script, formerly
adapters/python/pecheck_subject.py) needs only the standard library; the
checks need NumPy, and PyTorch for torch functions.
"""

from ._cli import CliNotFound, find_cli
from ._result import CheckFailed, Result, UsageError
from ._serve import serve

__version__ = "0.2.0"

__all__ = ["check_encoder", "check_rotary", "check_attention", "check_bias", "check_module", "replay", "Result",
           "CheckFailed", "UsageError", "CliNotFound", "find_cli", "serve", "__version__"]

_CHECKS = ("check_encoder", "check_rotary", "check_attention", "check_bias", "check_module", "replay")


def __getattr__(name):
    # The checks import NumPy: only when first used, so that `serve` stays standard-library only.
    if name in _CHECKS:
        from . import _api
        return getattr(_api, name)
    raise AttributeError(f"module 'pecheck' has no attribute {name!r}")

"""Defaults a test runner sets for the checks made inside one test (the pytest plugin does).

An argument given to check_*() wins over these; these win over pecheck's own
defaults (100 cases, seed 1).
"""

import contextlib

_current = {"cases": None, "seed": None, "report_root": None, "record": None, "rerun": None, "time_budget": None,
            "progress": None, "gradients": None, "model_config": None}


def get(key):
    return _current[key]


@contextlib.contextmanager
def settings(*, cases=None, seed=None, report_root=None, record=None, rerun=None, time_budget=None, progress=None,
             gradients=None, model_config=None):
    """Within the block: `cases`, `seed`, a folder (or a function returning it, called when first
    needed) under which each check writes its reports, one subfolder per check, `record(result)`
    called with every Result, `rerun`, the command that runs this test again, `time_budget`, the
    seconds each check may take, and `progress(name)`, which returns the callable that shows one
    check's progress events (or None: none shown), `gradients`, whether check_rotary and
    check_attention check the backward too when not told, and `model_config`, a config.json every check
    declares (params.model) unless it gives its own."""
    saved = dict(_current)
    _current.update(cases=cases, seed=seed, report_root=report_root, record=record, rerun=rerun,
                    time_budget=time_budget, progress=progress, gradients=gradients, model_config=model_config)
    try:
        yield
    finally:
        _current.clear()
        _current.update(saved)

"""The buggy twin of test_torch_rotary.py: this test FAILS, with the shrunk counterexample."""
import pytest

torch = pytest.importorskip("torch")  # the PyTorch examples are skipped without PyTorch

import pecheck  # noqa: E402
from rotary_torch import RotaryBeforeAutocastFix  # noqa: E402

rotary = RotaryBeforeAutocastFix(base=10000.0)


def test_rotary_in_a_mixed_precision_step():
    def rotate(positions, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):  # as a bfloat16 training step runs it
            return rotary.rotate(positions, x)

    pecheck.check_rotary(rotate, params={"rotate": {"base": 10000, "layout": "halves"}})

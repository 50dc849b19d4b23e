"""attention.poison_invariance from the Python package (issue 35): params.attention.poison_invariance is
accepted and only then judged; a NumPy attention that masks its logits by a select but multiplies every value
slot by its weight (vLLM PR #30887) fails with the value product named, its fix passes."""
import numpy as np
import pytest

import pecheck

PARAMS = {"attention": {"alignment": "bottom_right", "window": 4, "poison_invariance": True}}


def _paged(mask_values):
    def attention(q, k, v, mask):
        n, m = q.shape[0], k.shape[0]
        if isinstance(mask, str) and mask == "causal":
            at = np.arange(n)[:, None] + (m - n)
            j = np.arange(m)[None, :]
            allowed = (j <= at) & (j > at - 4)
        elif isinstance(mask, str):
            allowed = np.ones((n, m), dtype=bool)
        else:
            allowed = np.asarray(mask, dtype=bool)
        with np.errstate(invalid="ignore", over="ignore"):
            s = np.where(allowed, (q @ k.T) / np.sqrt(q.shape[-1]), -np.inf)
            p = np.exp(s - s.max(axis=-1, keepdims=True))
            p /= p.sum(axis=-1, keepdims=True)
            if mask_values:
                v = np.where(allowed.any(axis=0)[:, None], v, 0.0)
            return p @ v
    return attention


def test_the_value_product_leak_fails_and_its_fix_passes():
    fixed = pecheck.check_attention(_paged(True), dtype="float64", params=PARAMS, cases=50,
                                    properties=["attention.poison_invariance"], raise_on_failure=False)
    assert fixed.passed, fixed.message()
    leaking = pecheck.check_attention(_paged(False), dtype="float64", params=PARAMS, cases=50,
                                      properties=["attention.poison_invariance"], raise_on_failure=False)
    assert not leaking.passed
    witness = [r for r in leaking.results if r["status"] == "failed"][0]["counterexample"]
    assert witness["check"] == "finite output"
    assert "value product" in witness["diagnosis"]


def test_the_declaration_is_checked_and_belongs_to_the_attention_op():
    with pytest.raises(ValueError, match="poison_invariance must be true or false"):
        pecheck.check_attention(_paged(True), dtype="float64", params={"attention": {"poison_invariance": 1}})
    with pytest.raises(ValueError, match="poison_invariance: a field pecheck does not know"):
        pecheck.check_module(lambda x, positions, padding: x, dtype="float64",
                             params={"forward": {"causal": True, "positional": "none", "poison_invariance": True}})

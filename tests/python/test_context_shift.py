"""module.context_shift from the Python package (issues 34, 35): params.rotate.context_shift makes pecheck
call the user's rotate with shift=Δ (keys already rotated at positions, answered at positions + Δ); a NumPy
rotary that shifts correctly passes, one that turns the keys the other way fails with the sign named, and a
rotate that cannot take shift= is refused before anything runs."""
import numpy as np
import pytest

import pecheck

BASE = 10000.0
PARAMS = {"rotate": {"base": BASE, "layout": "interleaved", "context_shift": True}}


def _turn(x, angles):
    x = np.asarray(x, dtype=np.float64)
    out = x.copy()
    c, s = np.cos(angles), np.sin(angles)
    out[:, 0::2] = x[:, 0::2] * c - x[:, 1::2] * s
    out[:, 1::2] = x[:, 0::2] * s + x[:, 1::2] * c
    return out


def _rotary(sign):
    def rotate(positions, x, shift=None):
        d = np.asarray(x).shape[-1]
        inv_freq = BASE ** (-np.arange(0, d, 2) / d)
        if shift is None:
            return _turn(x, np.asarray(positions, dtype=np.float64)[:, None] * inv_freq[None, :])
        # llama.cpp's K-shift: R(Δ) on keys rotated at p (ggml_rope_ext with positions Δ).
        return _turn(x, np.full((len(positions), 1), sign * float(shift)) * inv_freq[None, :])
    return rotate


def test_a_correct_shift_passes_and_a_reversed_one_fails_naming_the_sign():
    right = pecheck.check_rotary(_rotary(1), dtype="float64", params=PARAMS, cases=60,
                                 properties=["module.context_shift"], raise_on_failure=False)
    assert right.passed, right.message()
    reversed_ = pecheck.check_rotary(_rotary(-1), dtype="float64", params=PARAMS, cases=60,
                                     properties=["module.context_shift"], raise_on_failure=False)
    assert not reversed_.passed
    witness = [r for r in reversed_.results if r["status"] == "failed"][0]["counterexample"]
    assert witness["check"] == "keys re-rotated to p + Δ"
    assert "sign reversed" in witness["diagnosis"]


def test_without_the_declaration_the_claim_does_not_apply_and_a_rotate_without_shift_is_refused():
    plain = {"rotate": {"base": BASE, "layout": "interleaved"}}
    # Never green by accident: the claim does not apply, so nothing is verified and the check fails.
    with pytest.raises(pecheck.CheckFailed, match="no property was checked"):
        pecheck.check_rotary(_rotary(1), dtype="float64", params=plain, properties=["module.context_shift"])
    with pytest.raises(TypeError, match="shift"):
        pecheck.check_rotary(lambda positions, x: x, dtype="float64", params=PARAMS)
    with pytest.raises(ValueError, match="context_shift must be true or false"):
        pecheck.check_rotary(_rotary(1), dtype="float64", params={"rotate": {"base": BASE, "context_shift": 1}})

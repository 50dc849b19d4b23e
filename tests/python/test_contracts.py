"""The calls pecheck makes under each declaration (docs/python-contracts.md): a function that cannot take
them is a TypeError naming the call and the function's own signature, before anything runs."""
import numpy as np
import pytest

import pecheck
from pecheck._contracts import check_signatures, contract
from support import rope


def _two_argument_reset(session, capacity):
    pass


def _one_argument_reset(session):
    pass


def _forward(x, positions, padding):
    return x


def _decode(session, x, position):
    return x


def test_a_rotate_of_one_argument_is_named_with_the_call_pecheck_makes():
    def rotate(x):
        return x

    with pytest.raises(TypeError) as caught:
        pecheck.check_rotary(rotate, cases=5)
    message = str(caught.value)
    assert "pecheck calls rotate(positions, x)" in message
    assert "rotate(x)" in message  # its own signature
    assert "docs/python-contracts.md" in message


def test_reset_takes_the_capacity_exactly_when_cache_capacity_is_declared():
    params = {"forward": {"width": 4, "cache_capacity": True}}
    with pytest.raises(TypeError) as caught:
        check_signatures({"forward": _forward, "decode": _decode, "reset": _one_argument_reset}, params)
    assert "reset(session, capacity)" in str(caught.value)
    check_signatures({"forward": _forward, "decode": _decode, "reset": _two_argument_reset}, params)
    # Without the declaration pecheck calls reset(session): the two-argument form is the wrong one.
    with pytest.raises(TypeError) as caught:
        check_signatures({"forward": _forward, "decode": _decode, "reset": _two_argument_reset},
                         {"forward": {"width": 4}})
    assert "pecheck calls reset(session);" in str(caught.value)


def test_forward_takes_segments_and_layer_when_declared():
    with pytest.raises(TypeError) as caught:
        check_signatures({"forward": _forward}, {"forward": {"width": 4, "segments": True}})
    assert "forward(x, positions, padding, segments)" in str(caught.value)

    def layered(x, positions, padding, layer=None):
        return x

    params = {"forward": {"width": 4, "layers": [{"rope": None}]}}
    check_signatures({"forward": layered}, params)
    with pytest.raises(TypeError) as caught:
        check_signatures({"forward": _forward}, params)
    assert "layer=k" in str(caught.value)


def test_multi_token_decode_says_the_position_is_a_list():
    call, arguments, _ = contract("decode", {"forward": {"multi_token_decode": True}})
    assert arguments == ("session", "x", "position") and "a list of k positions" in call


def test_batched_functions_take_one_list_and_defaults_or_varargs_are_fine():
    check_signatures({"rotate": lambda requests: requests}, None, {"rotate"})
    with pytest.raises(TypeError):
        check_signatures({"rotate": lambda positions, x: x}, None, {"rotate"})
    check_signatures({"rotate": lambda *arguments, **keywords: None}, None)
    check_signatures({"rotate": rope}, None)
    check_signatures({"rotate": np.add}, None)  # a ufunc: no signature to read; its first call tells

"""Declared sizes within what pecheck can send (issue 39): the package refuses, before any probe of the
function, what pecheck's hello reader refuses (include/pecheck/core/size_limits.h; the C++ twin of these
cases is tests/test_declared_sizes.cpp), naming the field — by asking pecheck (`pecheck check-declarations`),
so in its words; what pecheck can do is accepted."""
import time

import pytest

import pecheck
from pecheck import _declarations
from support import attention, rope

ABSURD = [
    ("rotate", {"d": 2 ** 32}, r"params\.rotate\.shapes\.d declares 4294967296, more than pecheck sends"),
    ("rotate", {"d": 2 ** 31}, r"params\.rotate\.shapes\.d declares 2147483648"),
    ("rotate", {"n": 2 ** 40}, r"params\.rotate\.shapes\.n declares"),
    ("attention", {"n": 10 ** 7, "d": 64}, r"params\.attention\.shapes\.n declares 10000000"),
    ("attention", {"n": {"min": 10 ** 6}}, r"params\.attention\.shapes\.n: a request at the declared sizes"),
    ("encode", {"n": 2 ** 20, "d": 64}, r"params\.encode\.shapes\.n: a request at the declared sizes"),
    ("forward", {"batch": 10 ** 9}, r"params\.forward\.shapes\.batch declares 1000000000"),
]


def declare(op, value):
    """pecheck's judgement of params={op: value} for a subject serving op, as check_*() and serve() ask it."""
    _declarations._check_declarations("float32", None, None, {op: value}, {op: lambda *args: None})


@pytest.mark.parametrize("op,shapes,message", ABSURD)
def test_absurd_sizes_are_refused_naming_the_field(op, shapes, message):
    with pytest.raises(ValueError, match=message):
        declare(op, {"shapes": shapes})


def test_check_rotary_refuses_them_before_probing_the_function():
    calls = []

    def counting_rope(positions, x):
        calls.append(len(x))
        return rope(positions, x)

    start = time.monotonic()
    with pytest.raises(ValueError, match=r"params\.rotate\.shapes\.d declares 4294967296"):
        pecheck.check_rotary(counting_rope, params={"rotate": {"shapes": {"d": 2 ** 32}}})
    with pytest.raises(ValueError, match=r"params\.attention\.shapes\.n declares 10000000"):
        pecheck.check_attention(attention, params={"attention": {"shapes": {"n": 10 ** 7, "d": 64}}})
    assert calls == [] and time.monotonic() - start < 5


def test_what_pecheck_can_do_is_accepted():
    # shapes.heads counts the heads params.attention.heads declares (a head count without them is refused).
    for op, value in [("attention", {"shapes": {"n": {"min": 1, "max": 2 ** 40}}}),
                      ("attention", {"heads": 32, "shapes": {"heads": 32, "d": 128, "n": {"min": 1, "max": 8192}}}),
                      ("rotate", {"shapes": {"d": 8192}}),
                      ("forward", {"shapes": {"batch": [1, 2, 8], "n": {"min": 1, "max": 4096}}})]:
        declare(op, value)


# Accepted nonsense refused (issue 39), as pecheck's hello reader refuses it
# (tests/test_declared_nonsense.cpp): in range for its type, meaningless for the maths.
NONSENSE = [
    (pecheck.check_attention, attention, {"attention": {"softcap": 1e308}}, r"params\.attention\.softcap must be in"),
    (pecheck.check_attention, attention, {"attention": {"softcap": 1e-300}}, r"params\.attention\.softcap must be in"),
    (pecheck.check_attention, attention, {"attention": {"scale": 1e-320}}, r"params\.attention\.scale must be in"),
    (pecheck.check_attention, attention, {"attention": {"shapes": {"heads": 8}}},
     r"params\.attention\.shapes\.heads is declared without params\.attention\.heads"),
    (pecheck.check_rotary, rope, {"rotate": {"base": 1}}, r"params\.rotate\.base must be > 1"),
    (pecheck.check_rotary, rope, {"rotate": {"mrope_section": [0, 0, 0]}}, r"params\.rotate\.mrope_section gives no"),
    (pecheck.check_rotary, rope, {"rotate": {"scaling": {"type": "longrope", "short_factor": [1e-320, 1.0],
                                                         "long_factor": [1.0, 1.0], "original_max_position": 4096}}},
     r"params\.rotate\.scaling\.short_factor must hold factors"),
]


@pytest.mark.parametrize("check,fn,params,message", NONSENSE)
def test_nonsense_in_range_is_refused_naming_the_field(check, fn, params, message):
    with pytest.raises(ValueError, match=message):
        check(fn, dtype="float64", params=params)


def test_what_real_models_declare_is_accepted():
    declare("attention", {"softcap": 50.0, "scale": 0.0625, "heads": 8, "shapes": {"heads": 8}})
    declare("rotate", {"base": 500000, "mrope_section": [16, 24, 24]})

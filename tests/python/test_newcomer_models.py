"""Issue 40's newcomer: eight implementations of current models written from their maths
(tests/python/newcomer/: Llama 3 scaling, YaRN, LongRoPE, mrope, GQA with a window, Gemma 2's soft-cap,
GPT-OSS sinks, a block with a rolling cache), each with its published kind of bug. The correct one passes;
the buggy one fails with the claim built for its bug leading the message, its diagnosis naming the cause
before any consequence is listed, and no refused input's traceback anywhere in it.

Issue 40's fourteen mis-named cases planted here (the C++ planted bugs of each are in tests/test_cause_first.cpp):
  YaRN without its mscale                   test_yarn_without_its_attention_factor
  mrope section sizes swapped               test_mrope_with_its_section_sizes_swapped
  rope.axis_independence's two failures     C++ only (rope-mrope-text-positions, -section-local-frequencies)
  a sink carrying key 0's value             test_gpt_oss_sink_carrying_key_0s_value (also case 13: it leads over
                                            permutation_equivariance, which fails beside it)
  Gemma's 1/√d scale                        test_gemma2_with_one_over_sqrt_d
  Llama 3 scaling with a wrong boundary     test_llama3_with_wavelengths_of_1_over_omega
  FA4's (s/c)·tanh(s/c)                     test_gemma2_with_fa4_s_scaled_tanh
  YaRN range rounded under truncate: false  test_yarn_rounded_where_truncate_false_is_declared
  partial rotary on the whole head          C++ only (rope-partial-applied-whole)
  tiled kv heads                            test_gqa_with_tiled_kv_heads (and test_checks.py::test_tiled_kv_heads_...)
  a window one too wide                     test_gqa_with_a_window_one_too_wide
  the window's numbers against its witness  test_gqa_with_a_window_one_too_wide (query and keys of its own row)
  LongRoPE's wording against its witness    test_longrope_switching_by_positions
  no usual suspect only when none fits      test_no_usual_suspect_only_when_none_fits
Budget: about 1.5–4 s a check at CASES cases (measured: the whole file in 36 s on a 2-core machine at load 11)."""
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import pecheck

sys.path.insert(0, str(Path(__file__).parent / "newcomer"))

import gemma2_softcap as gemma2  # noqa: E402
import gpt_oss_sinks as sinks  # noqa: E402
import gqa_window  # noqa: E402
import llama3_scaling as llama3  # noqa: E402
import longrope  # noqa: E402
import mrope  # noqa: E402
import rolling_cache  # noqa: E402
import yarn  # noqa: E402

CASES = 20


def cause_first(check, subject, claim, words, **keywords):
    """The failure message of a buggy subject: `claim` leads, `words` (its diagnosis) come before any
    consequence, and no refused input's traceback is in it."""
    with pytest.raises(pecheck.CheckFailed) as caught:
        check(subject, cases=CASES, **keywords)
    message = str(caught.value)
    first = next(line for line in message.splitlines() if line.startswith(("FAILED", "ERROR")))
    assert first.startswith(f"FAILED {claim} "), message
    assert words in message, message
    if "likely consequences" in message:
        assert message.index(words) < message.index("likely consequences"), message
    assert "Traceback" not in message and "ValueError" not in message, message
    return message


# --- rotary ------------------------------------------------------------------------------------

LLAMA3 = {"rotate": {"base": llama3.CONFIG["rope_theta"], "layout": "halves", "scaling": llama3.CONFIG["rope_scaling"]}}


def test_llama3_scaling_written_from_the_formula_passes():
    pecheck.check_rotary(llama3.rotate, params=LLAMA3, cases=CASES)


def test_llama3_with_wavelengths_of_1_over_omega():
    cause_first(pecheck.check_rotary, llama3.rotate_wavelength_without_2pi, "rope.reference_values",
                "takes a wavelength as 1/ω, not 2π/ω", params=LLAMA3)


YARN = {"rotate": {"layout": "halves", "scaling": yarn.SCALING}}
GPT_OSS_YARN = {"rotate": {"layout": "halves", "scaling": dict(yarn.SCALING, truncate=False)}}


def test_yarn_passes_with_and_without_truncation():
    pecheck.check_rotary(yarn.rotate, params=YARN, cases=CASES)
    pecheck.check_rotary(yarn.rotate_untruncated, params=GPT_OSS_YARN, cases=CASES)


def test_yarn_without_its_attention_factor():
    message = cause_first(pecheck.check_rotary, yarn.rotate_without_mscale, "rope.reference_values",
                          "leaves YaRN's attention factor off the cos/sin tables", params=YARN)
    assert "did not repeat" not in message
    # The norm check fails beside it, grouped as its consequence.
    assert re.search(r"likely consequences of rope.reference_values .*rope.norm_preservation", message), message


def test_yarn_rounded_where_truncate_false_is_declared():
    cause_first(pecheck.check_rotary, yarn.rotate_rounded_where_untruncated, "rope.reference_values",
                "rounds YaRN's correction range (floor/ceil, truncate: true) where truncate: false is declared",
                params=GPT_OSS_YARN)


def test_longrope_passes():
    pecheck.check_rotary(longrope.rotate, params=longrope.PARAMS, cases=CASES)


def test_longrope_switching_by_positions():
    message = cause_first(pecheck.check_rotary, longrope.rotate_by_positions, "rope.factor_switch",
                          "the factor set follows the request's positions", params=longrope.PARAMS)
    # The wording agrees with the counterexample: the positions below L fit the short factors.
    assert "positions below L alone fit the short factors" in message, message


def test_no_usual_suspect_only_when_none_fits():
    """A rotation by t·ω_i + 10⁻³·t²: no convention and no usual mistake computes it, and the message says what
    was ruled out instead of naming a cause that does not fit."""
    def drifting(positions, x):
        x = np.asarray(x, dtype=np.float64)
        t = np.asarray(positions, dtype=np.float64)[:, None]
        angles = t * 10000.0 ** (-np.arange(0, x.shape[1], 2) / x.shape[1])[None, :] + 1e-3 * t ** 2
        cos, sin = np.cos(angles), np.sin(angles)
        h = x.shape[1] // 2
        return np.concatenate([x[:, :h] * cos - x[:, h:] * sin, x[:, h:] * cos + x[:, :h] * sin], axis=1)
    message = cause_first(pecheck.check_rotary, drifting, "rope.reference_values",
                          "no usual suspect explains the answers", params={"rotate": {"layout": "halves"}},
                          properties=["rope.reference_values"])
    assert "ruled out base, exponent, layout" in message and "it explains every re-queried answer" not in message


def test_mrope_passes():
    pecheck.check_rotary(mrope.rotate, params=mrope.PARAMS, cases=CASES)


def test_mrope_with_its_section_sizes_swapped():
    message = cause_first(pecheck.check_rotary, mrope.rotate_section_sizes_swapped, "rope.axis_independence",
                          "the sections' sizes are taken in another order (24, 16, 24 pairs", params=mrope.PARAMS)
    assert "turns every pair by the t position" not in message
    # rope.reference_values, failing beside it, names the same sizes from its own re-queried answers.
    assert "has the section sizes [24, 16, 24] where mrope_section [16, 24, 24] is declared" in message, message


# --- attention ---------------------------------------------------------------------------------

def test_gqa_with_a_window_passes():
    pecheck.check_attention(gqa_window.attention, params=gqa_window.PARAMS, cases=CASES)


def test_gqa_with_a_window_one_too_wide():
    message = cause_first(pecheck.check_attention, gqa_window.attention_window_one_too_wide,
                          "attention.window_no_lookback", "W + 1 = 5 keys where the declared window is W = 4",
                          params=gqa_window.PARAMS)
    # The diagnosis speaks of the counterexample's own row.
    row = re.search(r"diagnosis: query (\d+) sees keys (\d+)\.\.(\d+)", message)
    assert row and row.group(1) == row.group(3), message
    assert int(row.group(1)) - int(row.group(2)) + 1 == 5


def test_gqa_with_tiled_kv_heads():
    cause_first(pecheck.check_attention, gqa_window.attention_tiled_kv_heads, "attention.gqa_grouping",
                "the kv heads are tiled", params=gqa_window.PARAMS)


def test_gemma2_softcap_passes():
    pecheck.check_attention(gemma2.attention, params=gemma2.PARAMS, cases=CASES)


def test_gemma2_with_one_over_sqrt_d():
    message = cause_first(pecheck.check_attention, gemma2.attention_inverse_sqrt_d, "attention.softcap_bound",
                          "the cap is right, the scale is not", params=gemma2.PARAMS)
    assert "applied elsewhere" not in message


def test_gemma2_with_fa4_s_scaled_tanh():
    message = cause_first(pecheck.check_attention, gemma2.attention_scaled_tanh, "attention.softcap_bound",
                          "the answers are those of (s/c)·tanh(s/c)", params=gemma2.PARAMS)
    assert "without the division" not in message


def test_gpt_oss_sinks_pass():
    pecheck.check_attention(sinks.attention, params=sinks.PARAMS, cases=CASES)


def test_gpt_oss_sink_carrying_key_0s_value():
    message = cause_first(pecheck.check_attention, sinks.attention_sink_carries_key0_value, "attention.sink_mass",
                          "carries key 0's value", params=sinks.PARAMS)
    assert "not in the softmax" not in message.split("likely consequences")[0]
    assert re.search(r"likely consequences of attention.sink_mass .*attention.permutation_equivariance", message)


# --- a block with a rolling cache -------------------------------------------------------------------

def test_a_rolling_cache_block_passes():
    block = rolling_cache.RollingWindowAttention()
    pecheck.check_module(block.forward, decode=block.decode, reset=block.reset, params=rolling_cache.PARAMS,
                         cases=CASES)


def test_a_rolling_cache_trimmed_after_attending():
    block = rolling_cache.evicting_after_attending()
    cause_first(pecheck.check_module, block.forward, "module.incremental_decoding",
                "forward and decode keep windows of different sizes", decode=block.decode, reset=block.reset,
                params=rolling_cache.PARAMS)

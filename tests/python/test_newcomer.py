"""A newcomer's first hour (issue 23): eight implementations of their own (tests/python/newcomer/) gated
as docs/first-hour.md says, with the declarations a user writes. Every correct version passes and
every realistic bug fails, with a message that points at its cause."""
import sys
from pathlib import Path

import pytest

import pecheck

sys.path.insert(0, str(Path(__file__).parent / "newcomer"))

import alibi  # noqa: E402
import linear_rope  # noqa: E402
import sinusoidal_table  # noqa: E402

CASES = 60  # per property: enough for every bug here, well under the default's time


def fails(check, *args, **keywords):
    with pytest.raises(pecheck.CheckFailed) as caught:
        check(*args, cases=CASES, **keywords)
    return str(caught.value)


# --- NumPy -------------------------------------------------------------------------------------

def test_numpy_sinusoidal_table():
    pecheck.check_encoder(sinusoidal_table.encoder(sinusoidal_table.sinusoidal_table), cases=CASES)


def test_numpy_sinusoidal_table_with_cosines_from_their_own_column_fails_naming_the_mismatch():
    message = fails(pecheck.check_encoder, sinusoidal_table.encoder(sinusoidal_table.sinusoidal_table_cos_from_column))
    assert "FAILED pe.reference_values" in message
    assert "sine and cosine turn at different frequencies" in message


ALIBI = {"bias": {"scheme": "alibi", "heads": 12, "alignment": "bottom_right"}}


def test_alibi_built_for_a_kv_cache_passes_with_its_alignment_declared():
    pecheck.check_bias(alibi.builder(alibi.slopes, 12), params=ALIBI, cases=CASES)


def test_alibi_built_for_a_kv_cache_undeclared_names_the_alignment():
    undeclared = {"bias": {"scheme": "alibi", "heads": 12}}
    message = fails(pecheck.check_bias, alibi.builder(alibi.slopes, 12), params=undeclared)
    assert 'params.bias.alignment = "bottom_right"' in message


def test_alibi_with_naive_slopes_fails():
    message = fails(pecheck.check_bias, alibi.builder(alibi.naive_slopes, 12), params=ALIBI)
    assert "FAILED bias.reference_values" in message


LINEAR = {"rotate": {"base": linear_rope.CONFIG["rope_theta"], "scaling": linear_rope.CONFIG["rope_scaling"]}}


def test_linear_scaled_rope_declared_from_its_config_json():
    pecheck.check_rotary(linear_rope.rotate, params=LINEAR, cases=CASES)


def test_linear_scaled_rope_multiplying_by_the_factor_fails():
    message = fails(pecheck.check_rotary, linear_rope.rotate_multiplied, params=LINEAR)
    assert "FAILED rope.reference_values" in message


# --- PyTorch (the `torch` fixture: conftest.py) ------------------------------------------------

def test_hf_llama_rope(torch):
    import llama_rope
    pecheck.check_rotary(llama_rope.LlamaRotaryEmbedding(), params={"rotate": {"layout": "halves"}}, cases=CASES)


def test_hf_llama_rope_ignoring_its_positions_fails_naming_it(torch):
    import llama_rope
    message = fails(pecheck.check_rotary, llama_rope.LlamaRotaryIgnoringPositions(),
                    params={"rotate": {"layout": "halves"}})
    assert "ignores the positions it is given" in message


def test_causal_attention_with_a_kv_cache(torch):
    import kv_cache_attention as kv
    module = kv.CausalSelfAttention()
    pecheck.check_module(module, decode=module.decode, reset=module.reset, cases=CASES,
                         params={"forward": {"causal": True, "positional": "none", "width": 16}})


def test_a_kv_cache_filled_after_attending_fails(torch):
    import kv_cache_attention as kv
    module = kv.CacheAfterAttention()
    message = fails(pecheck.check_module, module, decode=module.decode, reset=module.reset,
                    params={"forward": {"causal": True, "positional": "none", "width": 16}})
    assert "FAILED module.incremental_decoding" in message


GPT2 = {"forward": {"causal": True, "positional": "absolute", "width": 16, "positions": "from_padding"}}


def test_gpt2_positions_from_the_padding(torch):
    import gpt2_positions
    pecheck.check_module(gpt2_positions.Gpt2Block(), params=GPT2, cases=CASES)


def test_gpt2_positions_from_arange_fail_under_left_padding(torch):
    import gpt2_positions
    message = fails(pecheck.check_module, gpt2_positions.Gpt2BlockArangePositions(), params=GPT2)
    assert "FAILED module.padding_invariance" in message


GQA = {"forward": {"causal": True, "positional": "none", "width": 16}}


def test_grouped_query_attention(torch):
    import gqa
    pecheck.check_module(gqa.GroupedQueryAttention(), params=GQA, cases=CASES)


def test_grouped_query_attention_without_its_causal_mask_fails(torch):
    import gqa
    message = fails(pecheck.check_module, gqa.GroupedQueryAttention(causal=False), params=GQA)
    assert "FAILED module.causality" in message


BF16 = {"compute": {"angles": "float32"}, "params": {"rotate": {"layout": "halves"}}}


def test_bf16_rope_with_float32_angles(torch):
    import bf16_rope
    pecheck.check_rotary(bf16_rope.Bf16Rotary().to(torch.bfloat16), cases=CASES, **BF16)


def test_bf16_rope_whose_inv_freq_was_cast_fails_with_a_clear_margin(torch):
    import re

    import bf16_rope
    message = fails(pecheck.check_rotary, bf16_rope.Bf16RotaryCastInvFreq().to(torch.bfloat16), **BF16)
    assert "frequencies are rounded to bfloat16 before the product" in message
    margin = float(re.search(r"off by \S+, (\S+)× its bound", message).group(1))
    assert margin > 10, message


def test_a_rope_module_built_for_one_width_stops_within_30_s_naming_the_declaration(torch):
    import time

    import llama_rope
    started = time.monotonic()
    with pytest.raises(pecheck.CheckFailed) as caught:
        pecheck.check_rotary(llama_rope.LlamaRotaryEmbedding(head_dim=128), params={"rotate": {"layout": "halves"}})
    seconds = time.monotonic() - started
    message = str(caught.value)
    assert seconds < 30, f"{seconds:.1f} s"
    assert "stopped early" in message and "params.rotate.shapes" in message, message
    assert "built for head_dim=128" in message

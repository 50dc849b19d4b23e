"""model_config= (docs/model-configs.md): a config.json declares the function as its model says, through
the real CLI; a declaration that contradicts the config is refused with both values."""
import json
import os

import numpy as np
import pytest

import pecheck
from support import rope

# Cohere's rotary is interleaved (modeling_cohere.py), as support.rope is; heads of 8.
COHERE = {"model_type": "cohere", "hidden_size": 64, "num_attention_heads": 8, "num_hidden_layers": 1,
          "rope_theta": 10000.0, "vocab_size": 256000}


def test_a_rotary_judged_from_its_config_passes_and_fails_when_the_config_says_otherwise(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(COHERE))
    result = pecheck.check_rotary(rope, model_config=str(path), cases=20, properties="rope.reference_values")
    assert result.passed and result.cells == 1
    other = dict(COHERE, rope_theta=500000.0)  # the model this function does not implement
    failed = pecheck.check_rotary(rope, model_config=other, cases=20, properties="rope.reference_values",
                                  raise_on_failure=False)
    assert not failed.passed and failed.failed == 1


def test_a_contradiction_between_params_and_the_config_shows_both_values():
    with pytest.raises(pecheck.UsageError) as caught:
        pecheck.check_rotary(rope, model_config=COHERE, params={"rotate": {"base": 500000}}, cases=5,
                             properties="rope.reference_values")
    message = str(caught.value)
    assert "params.rotate.base" in message and "500000" in message and "10000" in message
    with pytest.raises(ValueError):
        pecheck.check_rotary(rope, model_config=3)


def test_a_model_config_path_is_read_bounded_and_refused_by_name(tmp_path):
    """Issue 39's hostile pass: model_config= a missing file ended in FileNotFoundError's traceback, a FIFO
    would wait for a writer and /dev/zero never end; each is a UsageError naming the path, at once."""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    large = tmp_path / "large.json"
    large.write_text(json.dumps(dict(COHERE, padding="x" * (5 << 20))))
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\xff\xfe{")
    for path, why in ((tmp_path / "missing.json", "cannot be read"), (fifo, "not a regular file"),
                      ("/dev/zero", "not a regular file"), (large, "more than the 4 MiB"), (garbage, "not JSON")):
        with pytest.raises(pecheck.UsageError) as caught:
            pecheck.check_rotary(rope, model_config=str(path), cases=5)
        assert str(path) in str(caught.value) and why in str(caught.value), caught.value


def test_params_that_are_not_a_dict_are_a_usage_error():
    """Issue 39's hostile pass: params=[1, 2] ended in AttributeError from inside the package."""
    with pytest.raises(pecheck.UsageError, match="params= must be a dict"):
        pecheck.check_rotary(rope, params=[1, 2], cases=5)


# DeepSeek-V2's attention fields at a small size (deepseek-ai/DeepSeek-V2-Lite config.json without its
# rope_scaling): transformers' modeling_deepseek_v2.py turns the last qk_rope_head_dim features of a head
# as complex pairs (interleaved, as support.rope), base 10000; the first qk_nope_head_dim pass through.
DEEPSEEK_V2 = {"model_type": "deepseek_v2", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 1,
               "qk_nope_head_dim": 12, "qk_rope_head_dim": 8, "v_head_dim": 12, "rope_theta": 10000.0,
               "kv_lora_rank": 16, "vocab_size": 102400}


def mla_rotary(positions, x):
    out = np.array(x, dtype=np.float64)
    out[:, 12:] = rope(positions, out[:, 12:])
    return out


def mla_rotary_on_the_nope_slice(positions, x):
    out = np.array(x, dtype=np.float64)
    out[:, :8] = rope(positions, out[:, :8])
    return out


def test_an_mla_rotary_is_judged_from_its_config_as_the_decoupled_head():
    """Issue 35: qk_rope_head_dim / qk_nope_head_dim were read but refused; they now declare rope.decoupled."""
    result = pecheck.check_rotary(mla_rotary, model_config=DEEPSEEK_V2, cases=20, properties="rope.decoupled")
    assert result.passed and result.cells == 1
    failed = pecheck.check_rotary(mla_rotary_on_the_nope_slice, model_config=DEEPSEEK_V2, cases=20,
                                  properties="rope.decoupled", raise_on_failure=False)
    assert not failed.passed and failed.failed == 1

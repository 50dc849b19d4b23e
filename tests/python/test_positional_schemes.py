"""The positional schemes of 2024–2026 models from Python: a config.json's rope_scaling / rope_parameters dict of
each family passes as params={"rotate": {"scaling": ...}} verbatim, what pecheck would refuse is refused here
first (ValueError naming the field), and a Qwen2-VL-style multi-axis rotary and a per-layer module are checked
end to end."""
import json
import pathlib

import numpy as np
import pytest

import pecheck
from pecheck._declarations import _check_declarations

CONFIGS = pathlib.Path(__file__).resolve().parents[1] / "data" / "configs"


def config(name):
    return json.loads((CONFIGS / name).read_text())


def rotate_params(c, layout="halves"):
    rotate = {"layout": layout, "scaling": c.get("rope_parameters", c.get("rope_scaling"))}
    if "rope_theta" in c:
        rotate["base"] = c["rope_theta"]
    for key in ("max_position_embeddings", "original_max_position_embeddings"):
        if key in c:
            rotate[key] = c[key]
    return {"rotate": rotate}


def declare(params, handlers=None):
    _check_declarations("float32", None, None, params, handlers or {"rotate": lambda p, x, seq_len=None: x})


@pytest.mark.parametrize("name", sorted(p.name for p in CONFIGS.glob("*.json") if not p.name.startswith("gemma")))
def test_each_family_s_dict_is_accepted_verbatim(name):
    c = config(name)
    layout = "interleave_then_halves" if name.startswith("deepseek") else "halves"
    declare(rotate_params(c, layout))


def test_gemma3_s_layers_are_declared_with_its_rope_scaling_verbatim():
    c = config("gemma-3-4b-it.json")
    layers = [{"rotate": {"base": c["rope_theta"], "scaling": c["rope_scaling"]}} if (k + 1) % 6 == 0
              else {"rotate": {"base": c["rope_local_base_freq"]}} for k in range(6)] + [{"rotate": None}]
    declare({"forward": {"causal": True, "positional": "relative", "width": 16, "layers": layers}},
            {"forward": lambda x, positions, padding: x})


def test_deepseek_mla_declares_its_decoupled_head():
    # deepseek-ai/DeepSeek-V3 config.json: qk_rope_head_dim 64, qk_nope_head_dim 128.
    declare({"rotate": {"base": 10000, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128}})


@pytest.mark.parametrize("rotate, field", [
    ({"scaling": {"type": "linear", "rope_type": "yarn", "factor": 2}}, "rope_type"),
    ({"scaling": {"type": "yarn", "factor": 4, "original_max_position": 8, "original_max_position_embeddings": 8}},
     "original_max_position_embeddings"),
    ({"scaling": {"type": "longrope", "short_factor": [1, 1], "long_factor": [2], "original_max_position": 8}},
     "long_factor"),
    ({"scaling": {"type": "longrope", "short_factor": [1], "long_factor": [2]}}, "original_max_position"),
    ({"scaling": {"type": "mrope"}}, "mrope_section"),
    ({"mrope_interleaved": True}, "mrope_interleaved"),
    ({"rotary_dim": 64, "mrope_section": [16, 24, 24]}, "rotary_dim"),
    ({"freq_factors": [1, -2]}, "freq_factors"),
    ({"base": 10000, "scaling": {"rope_type": "default", "rope_theta": 500000}}, "rope_theta"),
    ({"layout": "deepseek"}, "layout"),
    ({"qk_rope_head_dim": 64}, "qk_nope_head_dim"),
    ({"qk_rope_head_dim": 63, "qk_nope_head_dim": 128}, "qk_rope_head_dim"),
    ({"qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "rotary_dim": 64}, "qk_rope_head_dim"),
])
def test_what_pecheck_refuses_is_refused_here_naming_the_field(rotate, field):
    with pytest.raises(ValueError, match=field):
        declare({"rotate": rotate})


def qwen2_vl_rotate(positions, x, seq_len=None):
    """Qwen2-VL's mrope in NumPy float64 (transformers apply_multimodal_rotary_pos_emb): pairs [0, 16) turn
    by t, [16, 40) by h, [40, 64) by w, rotate_half form."""
    ids = np.asarray(positions, dtype=np.float64)
    ids = np.broadcast_to(ids, (3, ids.shape[0])) if ids.ndim == 1 else ids
    x = np.asarray(x, dtype=np.float64)
    inv_freq = 1.0 / 1e6 ** (np.arange(0, 128, 2) / 128)
    axis = np.repeat([0, 1, 2], [16, 24, 24])
    angles = ids[axis, :].T * inv_freq[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    x1, x2 = x[:, :64], x[:, 64:]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=1)


def test_a_multi_axis_rotary_declared_with_qwen2_vl_s_rope_scaling_passes(tmp_path):
    c = config("qwen2-vl-7b-instruct.json")
    result = pecheck.check_rotary(qwen2_vl_rotate, params=rotate_params(c), cases=20,
                                  properties=["rope.reference_values", "rope.axis_independence"],
                                  report_dir=tmp_path)
    assert result.passed
    assert {r["property"] for r in result.results} == {"rope.reference_values", "rope.axis_independence"}


def test_the_same_rotary_with_its_sections_swapped_fails(tmp_path):
    def swapped(positions, x, seq_len=None):
        ids = np.asarray(positions)
        return qwen2_vl_rotate(ids[[0, 2, 1]] if ids.ndim == 2 else ids, x)
    with pytest.raises(pecheck.CheckFailed) as caught:
        pecheck.check_rotary(swapped, params=rotate_params(config("qwen2-vl-7b-instruct.json")), cases=50,
                             properties=["rope.reference_values"], report_dir=tmp_path)
    assert "h and w sections swapped" in str(caught.value)

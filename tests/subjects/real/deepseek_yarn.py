#!/usr/bin/env python3
"""DeepSeek-V3's YaRN rotary with mscale (float32), transcribed as a pecheck subject.

Source: deepseek-ai's modeling_deepseek.py (DeepSeek-V2 and V3 on the Hugging
Face hub: yarn_find_correction_dim/_range, yarn_linear_ramp_mask,
yarn_get_mscale, DeepseekV2YarnRotaryEmbedding, apply_rotary_pos_emb); the
same maths as huggingface/transformers models/deepseek_v3/modeling_deepseek_v3.py
(apply_rotary_pos_emb_interleave) and modeling_rope_utils.py
(_compute_yarn_parameters). Config: deepseek-ai/DeepSeek-V3's
(tests/data/configs/deepseek-v3.json), rope_scaling pasted as config.json has
it. Written here from its maths, in NumPy float32:

    dim(n) = r·ln(L / (2πn)) / (2 ln base);  low, high = ⌊dim(β_fast)⌋, ⌈dim(β_slow)⌉ clamped to [0, r−1]
    ramp_i = clamp((i − low)/(high − low), 0, 1);  mask = 1 − ramp
    inv_freq = (1/(F·base^(2i/r)))·(1 − mask) + (1/base^(2i/r))·mask
    m = g(F, mscale)/g(F, mscale_all_dim),  g(F, s) = 0.1·s·ln F + 1
    q ← q.view(…, r/2, 2).transpose → pairs (2i, 2i+1) regrouped into halves;
    q_embed = q·cos + rotate_half(q)·sin   (cos, sin = cos(emb)·m, sin(emb)·m)

The output stays in the regrouped order: layout "interleave_then_halves". The
logits' scale m(F, mscale_all_dim)² lives in the attention (issue 20's
`scale`), not here. vllm_generic_yarn.py is vLLM's published bug beside it.
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from hf_llama_rope import rotate_half  # noqa: E402
from pecheck_subject import serve  # noqa: E402

CONFIG = json.load(open(os.path.join(HERE, "..", "..", "data", "configs", "deepseek-v3.json")))
BASE = float(CONFIG["rope_theta"])
SCALING = CONFIG["rope_scaling"]


def yarn_find_correction_dim(num_rotations, dim, base, max_position_embeddings):
    return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def yarn_find_correction_range(low_rot, high_rot, dim, base, max_position_embeddings):
    low = math.floor(yarn_find_correction_dim(low_rot, dim, base, max_position_embeddings))
    high = math.ceil(yarn_find_correction_dim(high_rot, dim, base, max_position_embeddings))
    return max(low, 0), min(high, dim - 1)


def yarn_get_mscale(scale=1.0, mscale=1.0):
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def yarn_linear_ramp_mask(low, high, dim):
    if low == high:
        high += 0.001
    return np.clip((np.arange(dim, dtype=np.float32) - np.float32(low)) / np.float32(high - low), 0, 1)


def yarn_inv_freq(dim, base=BASE, scaling=SCALING):
    factor = scaling["factor"]
    pos_freqs = np.float32(base) ** (np.arange(0, dim, 2, dtype=np.float32) / np.float32(dim))
    freq_extra = np.float32(1.0) / pos_freqs
    freq_inter = np.float32(1.0) / (np.float32(factor) * pos_freqs)
    low, high = yarn_find_correction_range(scaling["beta_fast"], scaling["beta_slow"], dim, base,
                                           scaling["original_max_position_embeddings"])
    inv_freq_mask = np.float32(1.0) - yarn_linear_ramp_mask(low, high, dim // 2)
    return freq_inter * (np.float32(1) - inv_freq_mask) + freq_extra * inv_freq_mask


def deepseek_mscale(scaling=SCALING):
    factor = scaling["factor"]
    return yarn_get_mscale(factor, scaling.get("mscale", 1)) / yarn_get_mscale(factor, scaling.get("mscale_all_dim", 0))


def cos_sin(positions, dim, mscale):
    freqs = np.asarray(positions, dtype=np.float32)[:, None] * yarn_inv_freq(dim)[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb) * np.float32(mscale), np.sin(emb) * np.float32(mscale)


def interleave_to_halves(q):
    """q.view(…, d/2, 2).transpose(-1, -2).reshape(…, d): features 0, 2, 4, … then 1, 3, 5, …"""
    n, d = q.shape
    return q.reshape(n, d // 2, 2).transpose(0, 2, 1).reshape(n, d)


def rotate(positions, x, seq_len=None):
    q = np.asarray(x, dtype=np.float32)
    d = q.shape[-1]
    if d < 2 or d % 2:
        raise ValueError(f"the interleaved view needs an even rope head dim, got {d}")
    cos, sin = cos_sin(positions, d, deepseek_mscale())
    q = interleave_to_halves(q)
    return q * cos + rotate_half(q) * sin


if __name__ == "__main__":
    serve("deepseek-v3-yarn", "float32", rotate=rotate,
          params={"rotate": {"base": BASE, "layout": "interleave_then_halves", "scaling": SCALING}})

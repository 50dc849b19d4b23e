#!/usr/bin/env python3
"""llama.cpp's rotary with rope_freqs (ggml freq_factors), transcribed as a pecheck subject.

Source: ggml-org/llama.cpp, ggml/src/ggml-cpu/ops.cpp (ggml_rope_cache_init,
rope_yarn: theta = p·theta_scale^i by a running float product, theta_extrap =
theta / freq_factors[i]; GGML_ROPE_TYPE_NORM rotates adjacent pairs) and
convert_hf_to_gguf.py (LlamaModel.generate_extra_tensors: Llama 3.1's
rope_scaling written as the rope_freqs tensor, 1 where the wavelength is
short, factor where it is long, 1/((1 − s)/factor + s) between). Config:
meta-llama/Llama-3.1-8B's (tests/data/configs/llama-3.1-8b.json), head_dim 128.
Written here from its maths, in NumPy float32; declares the converted tensor
as params.rotate.freq_factors, the interleaved layout of the NORM mode.
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

CONFIG = json.load(open(os.path.join(HERE, "..", "..", "data", "configs", "llama-3.1-8b.json")))
BASE = CONFIG["rope_theta"]
HEAD_DIM = 128


def rope_freqs(dim=HEAD_DIM):
    """convert_hf_to_gguf.py's rope_factors for rope_type llama3."""
    s = CONFIG["rope_scaling"]
    factor, low, high = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
    old_context_len = s["original_max_position_embeddings"]
    low_freq_wavelen, high_freq_wavelen = old_context_len / low, old_context_len / high
    freqs = 1.0 / (BASE ** (np.arange(0, dim, 2, dtype=np.float32) / dim))
    factors = []
    for freq in freqs:
        wavelen = 2 * math.pi / freq
        if wavelen < high_freq_wavelen:
            factors.append(1)
        elif wavelen > low_freq_wavelen:
            factors.append(factor)
        else:
            smooth = (old_context_len / wavelen - low) / (high - low)
            factors.append(1 / ((1 - smooth) / factor + smooth))
    return np.asarray(factors, dtype=np.float32)


FREQ_FACTORS = rope_freqs()


def rotate(positions, x, seq_len=None):
    x = np.asarray(x, dtype=np.float32)
    n_dims = x.shape[-1]
    if n_dims != HEAD_DIM:
        raise ValueError(f"rope_freqs holds {HEAD_DIM // 2} factors: n_dims {HEAD_DIM}, got {n_dims}")
    theta_scale = np.float32(BASE) ** np.float32(-2.0 / n_dims)
    out = x.copy()
    for row, p in enumerate(positions):
        theta = np.float32(p)
        for i0 in range(0, n_dims, 2):
            theta_extrap = theta / FREQ_FACTORS[i0 // 2]
            c, s = np.float32(np.cos(theta_extrap)), np.float32(np.sin(theta_extrap))
            x0, x1 = x[row, i0], x[row, i0 + 1]
            out[row, i0] = x0 * c - x1 * s
            out[row, i0 + 1] = x0 * s + x1 * c
            theta = np.float32(theta * theta_scale)
    return out


if __name__ == "__main__":
    serve("llamacpp-llama3-freq-factors", "float32", rotate=rotate,
          params={"rotate": {"base": BASE, "layout": "interleaved",
                             "freq_factors": [float(f) for f in FREQ_FACTORS]}})

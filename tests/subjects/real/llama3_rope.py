#!/usr/bin/env python3
"""Llama 3.1's rotary scaling, transcribed as a pecheck subject.

Source: huggingface/transformers, src/transformers/modeling_rope_utils.py
(_compute_llama3_parameters), with the published Llama 3.1 config: rope_theta
500000, factor 8, low_freq_factor 1, high_freq_factor 4,
original_max_position_embeddings 8192. Written here from its maths, in NumPy
float32 as the torch original computes (the rotation itself is Llama's, from
hf_llama_rope.py):

    λ_i = 2π / ω_i
    λ_i > L/low:  ω_i / F;   λ_i < L/high: ω_i;
    otherwise     (1 − s)·ω_i/F + s·ω_i,  s = (L/λ_i − low)/(high − low)
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from hf_llama_rope import default_inv_freq, rotate_with  # noqa: E402
from pecheck_subject import serve  # noqa: E402

ROPE_THETA = 500000.0
SCALING = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}


def llama3_inv_freq(dim):
    inv_freq = default_inv_freq(dim, ROPE_THETA)
    factor = np.float32(SCALING["factor"])
    low, high = SCALING["low_freq_factor"], SCALING["high_freq_factor"]
    old_context_len = SCALING["original_max_position_embeddings"]
    low_freq_wavelen = old_context_len / low
    high_freq_wavelen = old_context_len / high
    wavelen = np.float32(2 * math.pi) / inv_freq
    inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (np.float32(old_context_len) / wavelen - np.float32(low)) / np.float32(high - low)
    smoothed = (np.float32(1) - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
    return np.where(is_medium, smoothed, inv_freq_llama).astype(np.float32)


def rotate(positions, x, seq_len=None):
    return rotate_with(llama3_inv_freq, positions, x)


if __name__ == "__main__":
    serve("llama3-rope", "float32", rotate=rotate,
          params={"rotate": {"base": ROPE_THETA, "layout": "halves",
                             "scaling": {"type": "llama3", "factor": SCALING["factor"],
                                         "low_freq_factor": SCALING["low_freq_factor"],
                                         "high_freq_factor": SCALING["high_freq_factor"],
                                         "original_max_position": SCALING["original_max_position_embeddings"]}}})

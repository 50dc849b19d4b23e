#!/usr/bin/env python3
"""vLLM's dynamic-NTK rotary, transcribed as a pecheck subject: its "dynamic" base does not depend on
the length of the sequence at all.

Source: vllm-project/vllm, vllm/model_executor/layers/rotary_embedding.py
(DynamicNTKScalingRotaryEmbedding._compute_cos_sin_cache; issue #41236).
Written here from its maths, in NumPy float64:

    max_len = max_position_embeddings · scaling_factor
    base = base · ((scaling_factor · max_len / max_position_embeddings) − (scaling_factor − 1))^(r / (r − 2))
    cos, sin tables for positions 0 .. max_len − 1 (layout "halves", rotate_half)

One table, built once for the longest sequence: every sequence is rotated
with the base the published formula gives only at length max_len, also the
short ones, where dynamic NTK means the original base.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

BASE, FACTOR, ORIGINAL = 10000.0, 2.0, 16


def rotate(positions, x, seq_len):
    x = np.asarray(x, dtype=np.float64)
    r = x.shape[1]
    if r < 4 or r % 2:
        raise ValueError(f"rotate_half needs an even rotary_dim of at least 4, got {r}")
    max_len = ORIGINAL * FACTOR
    base = BASE * ((FACTOR * max_len / ORIGINAL) - (FACTOR - 1)) ** (r / (r - 2))
    inv_freq = 1.0 / base ** (np.arange(0, r, 2, dtype=np.float64) / r)
    freqs = np.asarray(positions, dtype=np.float64)[:, None] * inv_freq[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    half = r // 2
    rotated_half = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
    return x * np.cos(emb) + rotated_half * np.sin(emb)


serve("vllm-dynamic-ntk", "float64", rotate=rotate, batch=True,
      params={"rotate": {"base": BASE, "layout": "halves",
                         "scaling": {"type": "dynamic_ntk", "factor": FACTOR, "original_max_position": ORIGINAL}}})

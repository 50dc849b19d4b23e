#!/usr/bin/env python3
"""GPT-NeoX's partial rotary embedding, transcribed as a pecheck subject.

Source: huggingface/transformers, src/transformers/models/gpt_neox/modeling_gpt_neox.py
(GPTNeoXRotaryEmbedding, rotate_half, apply_rotary_pos_emb, and
GPTNeoXAttention's rotary_ndims split); EleutherAI/gpt-neox configs use
rotary_pct = 0.25. Written here from its maths, in NumPy float32 as the torch
original computes:

    rotary_ndims = int(head_size · rotary_pct)
    inv_freq = 1 / 10000^(arange(0, r, 2) / r),  emb = cat(freqs, freqs)
    q_rot · cos + rotate_half(q_rot) · sin on q_rot = q[:, :r]; q[:, r:] passes through.

Declared as rotary_fraction 0.25 (rotary_dim = 2·⌊0.25·d/2⌋). Where
int(0.25·d) is odd the original's rotate_half splits a pair and the two
disagree; such widths (and r = 0) are refused.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

ROTARY_PCT = 0.25
BASE = 10000


def rotary_cos_sin(dim, positions):
    inv_freq = np.float32(1.0) / (np.float32(BASE) ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / np.float32(dim)))
    t = np.asarray(positions, dtype=np.int64).astype(np.float32)
    freqs = t[:, None] * inv_freq[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def rotate(positions, x, seq_len=None):
    q = np.asarray(x, dtype=np.float32)
    head_size = q.shape[1]
    rotary_ndims = int(head_size * ROTARY_PCT)
    if rotary_ndims < 2 or rotary_ndims % 2:
        raise ValueError(f"rotary_ndims = int({head_size} * {ROTARY_PCT}) = {rotary_ndims} is not an even width >= 2")
    cos, sin = rotary_cos_sin(rotary_ndims, positions)
    q_rot, q_pass = q[:, :rotary_ndims], q[:, rotary_ndims:]
    return np.concatenate([q_rot * cos + rotate_half(q_rot) * sin, q_pass], axis=-1)


if __name__ == "__main__":
    serve("gpt-neox-rotary", "float32", rotate=rotate,
          params={"rotate": {"base": BASE, "rotary_fraction": ROTARY_PCT, "layout": "halves"}})

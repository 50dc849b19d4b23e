#!/usr/bin/env python3
"""Hugging Face Llama rotary embedding (float32), transcribed as a pecheck subject.

Source: huggingface/transformers, src/transformers/models/llama/modeling_llama.py
(LlamaRotaryEmbedding, rotate_half, apply_rotary_pos_emb; v4.38 on) and
src/transformers/modeling_rope_utils.py (_compute_default_rope_parameters).
Written here from its maths, in NumPy float32 as the torch original computes:

    inv_freq = 1 / base^(arange(0, r, 2) / r)              (float32)
    freqs = position · inv_freq,  emb = cat(freqs, freqs)   (float32)
    cos, sin = cos(emb) · attention_scaling, sin(emb) · attention_scaling
    q_embed = q · cos + rotate_half(q) · sin,  rotate_half(q) = cat(−q[r/2:], q[:r/2])

The rotate_half form pairs feature i with i + r/2: layout "halves".
llama3_rope.py reuses these functions with Llama 3's frequencies.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

BASE = 10000.0


def default_inv_freq(dim, base=BASE):
    return np.float32(1.0) / (np.float32(base) ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / np.float32(dim)))


def cos_sin(inv_freq, position_ids, attention_scaling=1.0):
    freqs = np.asarray(position_ids, dtype=np.float32)[:, None] * inv_freq[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb) * np.float32(attention_scaling), np.sin(emb) * np.float32(attention_scaling)


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def apply_rotary_pos_emb(q, cos, sin):
    return q * cos + rotate_half(q) * sin


def rotate_with(inv_freq_of, positions, x):
    q = np.asarray(x, dtype=np.float32)
    dim = q.shape[-1]
    if dim < 2 or dim % 2:
        raise ValueError(f"rotate_half splits the head in two: needs an even head_dim, got {dim}")
    cos, sin = cos_sin(inv_freq_of(dim), positions)
    return apply_rotary_pos_emb(q, cos, sin)


def rotate(positions, x, seq_len=None):
    return rotate_with(default_inv_freq, positions, x)


if __name__ == "__main__":
    serve("hf-llama-rope", "float32", rotate=rotate, params={"rotate": {"base": BASE, "layout": "halves"}})

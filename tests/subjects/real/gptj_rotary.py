#!/usr/bin/env python3
"""GPT-J's rotary embedding, transcribed as a pecheck subject.

Source: huggingface/transformers, src/transformers/models/gptj/modeling_gptj.py
(create_sinusoidal_positions, rotate_every_two, apply_rotary_pos_emb, and
GPTJAttention.forward's rotary_dim split); GPT-J-6B's config has
rotary_dim = 64 of head_dim 256. Written here from its maths, in NumPy float32
as the torch original computes:

    inv_freq = 1 / 10000^(arange(0, r, 2) / r),  sinusoid = position · inv_freq
    sin, cos repeated twice along the features (repeat_interleave(…, 2))
    x_rot · cos + rotate_every_two(x_rot) · sin,  rotate_every_two: (x0, x1) → (−x1, x0)
    on x_rot = x[:, :64]; x[:, 64:] passes through.

Pairs (2i, 2i+1): layout "interleaved". A head narrower than rotary_dim fails
in the original (the 64-wide table does not broadcast) and is refused.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

ROTARY_DIM = 64


def create_sinusoidal_positions(positions, dim):
    inv_freq = np.float32(1.0) / (np.float32(10000) ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / np.float32(dim)))
    sinusoid_inp = np.asarray(positions, dtype=np.int64).astype(np.float32)[:, None] * inv_freq[None, :]
    return np.concatenate([np.sin(sinusoid_inp), np.cos(sinusoid_inp)], axis=1)


def rotate_every_two(x):
    x1, x2 = x[:, ::2], x[:, 1::2]
    return np.stack((-x2, x1), axis=-1).reshape(x.shape)


def apply_rotary_pos_emb(tensor, sin, cos):
    sin = np.repeat(sin, 2, axis=1)
    cos = np.repeat(cos, 2, axis=1)
    return tensor * cos + rotate_every_two(tensor) * sin


def rotate(positions, x, seq_len=None):
    k = np.asarray(x, dtype=np.float32)
    if k.shape[1] < ROTARY_DIM:
        raise ValueError(f"rotary_dim {ROTARY_DIM} exceeds the head dim {k.shape[1]}")
    sincos = create_sinusoidal_positions(positions, ROTARY_DIM)
    sin, cos = np.split(sincos, 2, axis=-1)
    k_rot, k_pass = k[:, :ROTARY_DIM], k[:, ROTARY_DIM:]
    return np.concatenate([apply_rotary_pos_emb(k_rot, sin, cos), k_pass], axis=-1)


if __name__ == "__main__":
    serve("gptj-rotary", "float32", rotate=rotate,
          params={"rotate": {"base": 10000, "rotary_dim": ROTARY_DIM, "layout": "interleaved"}})

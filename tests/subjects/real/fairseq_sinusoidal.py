#!/usr/bin/env python3
"""fairseq's SinusoidalPositionalEmbedding, transcribed as a pecheck subject.

Source: facebookresearch/fairseq, fairseq/modules/sinusoidal_positional_embedding.py
(SinusoidalPositionalEmbedding.get_embedding, forward) and fairseq/utils.py
(make_positions). Written here from its maths, in NumPy float32 as the torch
original computes:

    half_dim = d // 2,  ω_i = exp(−i · ln(10000)/(half_dim − 1))   (= 10000^(−i/(h−1)))
    table[n] = [sin(n·ω_0..ω_{h−1}) | cos(n·ω_0..ω_{h−1})], a zero column for odd d,
    table[padding_idx] = 0,
    a real token at index i (no padding before it) reads table[padding_idx + 1 + i].

With padding_idx = 1 (fairseq's dictionaries), position t is the timing
signal at t + 2: declared as params.encode.position_offset = 2.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

PADDING_IDX = 1


def get_embedding(num_embeddings, embedding_dim, padding_idx):
    half_dim = embedding_dim // 2
    scale = math.log(10000) / (half_dim - 1)
    freqs = np.exp(np.arange(half_dim, dtype=np.float32) * np.float32(-scale))
    angles = np.arange(num_embeddings, dtype=np.float32)[:, None] * freqs[None, :]
    table = np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    if embedding_dim % 2 == 1:
        table = np.concatenate([table, np.zeros((num_embeddings, 1), dtype=np.float32)], axis=1)
    table[padding_idx, :] = 0
    return table


def make_positions(seq_len, padding_idx):
    # cumsum of the non-pad mask, offset by padding_idx: 2, 3, … for an unpadded row
    mask = np.ones(seq_len, dtype=np.int64)
    return np.cumsum(mask) * mask + padding_idx


def encode(dim, positions, seq_len):
    if dim < 4:
        raise ValueError(f"ln(10000)/(half_dim - 1) needs half_dim >= 2, got d = {dim}")
    length = max(seq_len, max(positions) + 1)
    table = get_embedding(length + PADDING_IDX + 1, dim, PADDING_IDX)
    index = make_positions(length, PADDING_IDX)
    return table[index[np.asarray(positions, dtype=np.int64)]]


if __name__ == "__main__":
    serve("fairseq-sinusoidal", "float32", encode=encode,
          params={"encode": {"base": 10000, "schedule": "i/(h-1)", "position_offset": PADDING_IDX + 1,
                             "layout": "halves"}})

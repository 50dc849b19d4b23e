#!/usr/bin/env python3
"""Padding-free packed sequences in ms-swift, transcribed as a pecheck module
subject (forward with `segments`).

Source: modelscope/ms-swift, swift/llm (revert_padding_free / the cumulative
sequence lengths of a padding-free batch). Issue: ms-swift PR #9904 ("Fix
padding-free single-token sequence boundaries") — boundaries were found only
where the next position id is smaller than the previous one; a one-token
sequence followed by another gives positions 0 → 0, not a decrease, and the
two merge. The fix restores the lengths from cu_seq_lens (here: the request's
segments). Written here from that maths in NumPy float64: one rotary head of
width 8 (halves layout, base 10000), h = x + softmax(RoPE(q) RoPE(k)ᵀ/√d +
block-diagonal causal mask) v.

`--fixed`: the documents are the segments given.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

D = 8
FIXED = "--fixed" in sys.argv
_rng = np.random.default_rng(9904)
W_Q, W_K, W_V = (_rng.uniform(-0.6, 0.6, (D, D)) for _ in range(3))


def rope(x, positions):
    inv_freq = 10000.0 ** (-np.arange(0, D, 2) / D)
    angles = np.asarray(positions, dtype=float)[:, None] * inv_freq[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    a, b = x[:, : D // 2], x[:, D // 2:]
    return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=1)


def documents_from_positions(positions):
    """A new document where a position id is smaller than the one before it (the bug: 0 → 0 is not)."""
    ids, current = [], 0
    for r, p in enumerate(positions):
        if r > 0 and p < positions[r - 1]:
            current += 1
        ids.append(current)
    return np.array(ids)


def layer(seq, at, real, documents):
    n = len(seq)
    allowed = np.tril(np.ones((n, n), dtype=bool)) & real[None, :] & (documents[:, None] == documents[None, :])
    q, k, v = rope(seq @ W_Q, at), rope(seq @ W_K, at), seq @ W_V
    scores = np.where(allowed, (q @ k.T) / np.sqrt(D), -np.inf)
    out = np.zeros_like(seq)
    for i in range(n):
        if allowed[i].any():
            e = np.exp(scores[i] - scores[i].max())
            out[i] = (e / e.sum()) @ v
    return seq + out


def forward(x, positions, padding, segments=None):
    out = []
    for b, (seq, at, real) in enumerate(zip(np.asarray(x, dtype=float), np.asarray(positions),
                                             np.asarray(padding, dtype=bool))):
        if segments is None:
            documents = np.zeros(len(seq), dtype=int)
        elif FIXED:
            documents = np.asarray(segments[b])
        else:
            documents = documents_from_positions(list(at))
        out.append(layer(seq, at, real, documents))
    return out


if __name__ == "__main__":
    serve("ms-swift-padding-free", "float64", forward=forward,
          params={"forward": {"causal": True, "positional": "relative", "width": D, "segments": True}})

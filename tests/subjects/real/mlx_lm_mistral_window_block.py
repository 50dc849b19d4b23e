#!/usr/bin/env python3
"""A Mistral-style decoder block with a sliding window and mlx-lm's rotating
KV cache, transcribed as a pecheck module subject (forward, decode, reset).

Sources: ml-explore/mlx-lm, mlx_lm/models/llama.py (the Attention and
TransformerBlock that Mistral checkpoints run: RMSNorm, q/k/v projections,
RoPE with traditional=False — the halves layout —, softmax(q kᵀ/√d) v,
residuals, a SwiGLU MLP), mlx_lm/models/cache.py (RotatingKVCache: max_size
is the config's sliding_window; a prompt's keys are concatenated then
trimmed, a generated key overwrites the oldest slot) and mlx_lm/models/base.py
(create_attention_mask with window_size). Issue: mlx-lm PR #390 (and
mlx-examples PR #1093, "Fix rotating kv cache size"), the "one too many":
the cache kept max_size + 1 keys, so each query attended to W + 1 keys where
the window is W. This transcription keeps W + 1 on both paths, the prompt's
mask and the generated tokens' cache (the form issue 34 reports: decode then
agrees with forward, and only the window's width is wrong). Written here from
that maths in NumPy float64, not copied: d = 16, 2 heads of 8, base 10⁴,
window W = 4 (a config's sliding_window, declared as params.forward.window).
`--fixed`: both paths keep W keys.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

D, HEADS, HIDDEN, BASE, WINDOW = 16, 2, 32, 10000.0, 4
HEAD = D // HEADS
FIXED = "--fixed" in sys.argv
KEEP = WINDOW if FIXED else WINDOW + 1  # the keys a query attends to (the bug: max_size + 1)
_rng = np.random.default_rng(390)
W_Q, W_K, W_V, W_O = (_rng.uniform(-0.6, 0.6, (D, D)) for _ in range(4))
W_GATE, W_UP = (_rng.uniform(-0.4, 0.4, (D, HIDDEN)) for _ in range(2))
W_DOWN = _rng.uniform(-0.3, 0.3, (HIDDEN, D))
NORM_ATTN, NORM_MLP = _rng.uniform(0.8, 1.2, D), _rng.uniform(0.8, 1.2, D)
SESSIONS = {}


def rms_norm(x, gain):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * gain


def rope(x, positions):
    """RoPE in the halves layout on each head: (x1, x2) → (x1 cos − x2 sin, x2 cos + x1 sin)."""
    positions = np.asarray(positions, dtype=float)
    inv_freq = BASE ** (-np.arange(0, HEAD, 2) / HEAD)
    angles = positions[:, None] * inv_freq[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    out = np.empty_like(x)
    for h in range(HEADS):
        block = x[:, h * HEAD:(h + 1) * HEAD]
        x1, x2 = block[:, :HEAD // 2], block[:, HEAD // 2:]
        out[:, h * HEAD:(h + 1) * HEAD] = np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=1)
    return out


def attend(q, k, v, allowed):
    out = np.zeros((q.shape[0], D))
    for h in range(HEADS):
        cols = slice(h * HEAD, (h + 1) * HEAD)
        scores = np.where(allowed, (q[:, cols] @ k[:, cols].T) / np.sqrt(HEAD), -np.inf)
        for i in range(q.shape[0]):
            if not allowed[i].any():
                continue
            e = np.exp(scores[i] - scores[i].max())
            out[i, cols] = (e / e.sum()) @ v[:, cols]
    return out @ W_O


def mlp(h):
    n = rms_norm(h, NORM_MLP)
    gate = n @ W_GATE
    return ((gate / (1 + np.exp(-gate))) * (n @ W_UP)) @ W_DOWN


def window_mask(n):
    """create_attention_mask(window_size=KEEP): key j visible to query i when i − KEEP < j ≤ i."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j <= i) & (j > i - KEEP)


def forward(x, positions, padding):
    out = []
    for seq, at, real in zip(np.asarray(x, dtype=float), np.asarray(positions), np.asarray(padding, dtype=bool)):
        if seq.shape[1] != D:
            raise ValueError(f"tokens of width {D}")
        n = rms_norm(seq, NORM_ATTN)
        allowed = window_mask(len(seq)) & real[None, :]
        h = seq + attend(rope(n @ W_Q, at), rope(n @ W_K, at), n @ W_V, allowed)
        out.append(h + mlp(h))
    return out


def decode(session, x, position):
    x = np.asarray(x, dtype=float)
    if x.shape != (D,):
        raise ValueError(f"a token of width {D}")
    keys, values = SESSIONS.setdefault(session, ([], []))
    n = rms_norm(x[None, :], NORM_ATTN)
    keys.append(rope(n @ W_K, [position])[0])  # cached rotated at its own position
    values.append((n @ W_V)[0])
    del keys[:-KEEP], values[:-KEEP]  # the rotating cache: the oldest slot overwritten
    q = rope(n @ W_Q, [position])
    h = x + attend(q, np.array(keys), np.array(values), np.ones((1, len(keys)), dtype=bool))[0]
    return (h + mlp(h[None, :]))[0]


def reset(session):
    SESSIONS.pop(session, None)


if __name__ == "__main__":
    serve("mlx-lm-mistral-window-block", "float64", forward=forward, decode=decode, reset=reset,
          params={"forward": {"causal": True, "positional": "relative", "width": D, "window": WINDOW}})

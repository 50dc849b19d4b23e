#!/usr/bin/env python3
"""LongRoPE's factor choice in llama.cpp, transcribed as a pecheck module
subject (forward, decode, reset with a cache capacity).

Source: ggml-org/llama.cpp, src/llama-model.cpp (get_rope_factors: the
long/short rope factor set of a Phi-3 / Phi-4 model chosen by
cparams.n_ctx_seq, the allocated context) and Hugging Face's reference
(models/phi3 LongRoPE: the long factors when the sequence is longer than
original_max_position_embeddings). Issue: llama.cpp #24823 — a model loaded
with a context larger than the original length encodes every sequence,
short ones included, with the long-context factors; PR #24875 chooses by the
largest position reached. Written here from that maths in NumPy float64: one
rotary head of width 8 (frequencies base^(−2i/d) / factor_i, halves layout),
h = x + softmax(RoPE(q) RoPE(k)ᵀ/√d + causal) v.

Declares cache_capacity: reset(session, capacity) allocates the context.
`--fixed`: the factors follow the sequence, not the allocation.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

D, BASE, ORIGINAL = 8, 10000.0, 4096
SHORT_FACTOR = np.array([1.0, 1.1, 1.3, 1.6])
LONG_FACTOR = np.array([1.0, 3.0, 9.0, 27.0])
FIXED = "--fixed" in sys.argv
_rng = np.random.default_rng(24823)
W_Q, W_K, W_V = (_rng.uniform(-0.6, 0.6, (D, D)) for _ in range(3))
SESSIONS = {}


def factors(length):
    return LONG_FACTOR if length > ORIGINAL else SHORT_FACTOR


def rope(x, positions, factor):
    inv_freq = BASE ** (-np.arange(0, D, 2) / D) / factor
    angles = np.asarray(positions, dtype=float)[:, None] * inv_freq[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    a, b = x[:, : D // 2], x[:, D // 2:]
    return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=1)


def attend(q, k, v, allowed):
    scores = np.where(allowed, (q @ k.T) / np.sqrt(D), -np.inf)
    out = np.zeros_like(q)
    for i in range(q.shape[0]):
        if allowed[i].any():
            e = np.exp(scores[i] - scores[i].max())
            out[i] = (e / e.sum()) @ v
    return out


def forward(x, positions, padding):
    out = []
    for seq, at, real in zip(np.asarray(x, dtype=float), np.asarray(positions), np.asarray(padding, dtype=bool)):
        factor = factors(int(at[real].max()) + 1 if real.any() else 1)
        n = len(seq)
        allowed = np.tril(np.ones((n, n), dtype=bool)) & real[None, :]
        out.append(seq + attend(rope(seq @ W_Q, at, factor), rope(seq @ W_K, at, factor), seq @ W_V, allowed))
    return out


def decode(session, x, position):
    x = np.asarray(x, dtype=float)
    s = SESSIONS.setdefault(session, {"x": [], "positions": [], "capacity": None})
    s["x"].append(x)
    s["positions"].append(int(position))
    reached = max(s["positions"]) + 1
    length = s["capacity"] if (s["capacity"] is not None and not FIXED) else reached  # n_ctx_seq: the bug
    factor = factors(length)
    xs, at = np.array(s["x"]), np.array(s["positions"])
    q = rope((x @ W_Q)[None, :], [position], factor)
    k = rope(xs @ W_K, at, factor)
    return x + attend(q, k, xs @ W_V, np.ones((1, len(xs)), dtype=bool))[0]


def reset(session, capacity=None):
    SESSIONS[session] = {"x": [], "positions": [], "capacity": capacity}


if __name__ == "__main__":
    serve("llama-cpp-longrope", "float64", forward=forward, decode=decode, reset=reset,
          params={"forward": {"causal": True, "positional": "relative", "width": D, "cache_capacity": True}})

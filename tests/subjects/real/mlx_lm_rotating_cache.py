#!/usr/bin/env python3
"""A sliding-window attention layer over mlx-lm's rotating KV cache,
transcribed as a pecheck module subject (forward, decode, reset, and the
layer's attention kernel as the attention op).

Source: ml-explore/mlx-lm (formerly mlx-examples/llms), mlx_lm/models/cache.py
(RotatingKVCache: max_size = the sliding window; update_and_fetch concatenates
a prompt's keys and trims to max_size, a generated token overwrites the oldest
slot) and the models' sliding-window mask. Issue: mlx-lm PR #390 /
mlx-examples PR #1093 ("Fix rotating kv cache size") — the cache held
max_size keys when filled by generation but max_size + 1 when filled by
prompt processing, so a prompt's queries saw W + 1 keys and generated tokens
W. Written here from that maths in NumPy float64: one head of width 8,
h = x + softmax(q kᵀ/√d + window mask) v, q, k, v = x W_q, x W_k, x W_v.

Declares the window W = 4 (config sliding_window) for the module and its kernel.
`--fixed`: the prompt path trims to W keys as well.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

D, WINDOW = 8, 4
FIXED = "--fixed" in sys.argv
_rng = np.random.default_rng(390)
W_Q, W_K, W_V = (_rng.uniform(-0.6, 0.6, (D, D)) for _ in range(3))
SESSIONS = {}


def softmax_attend(q, k, v, allowed):
    scores = np.where(allowed, (q @ k.T) / np.sqrt(q.shape[-1]), -np.inf)
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        if not allowed[i].any():
            continue  # no visible key: a zero row
        e = np.exp(scores[i] - scores[i].max())
        out[i] = (e / e.sum()) @ v
    return out


def prompt_keep():
    """How many keys a prompt's queries see: the cache after a prompt update."""
    return WINDOW if FIXED else WINDOW + 1  # the prompt path kept max_size + 1


def window_mask(n, m, keep):
    i = np.arange(n)[:, None] + (m - n)
    j = np.arange(m)[None, :]
    return (j <= i) & (j > i - keep)


def forward(x, positions, padding):
    out = []
    for seq, real in zip(np.asarray(x, dtype=float), np.asarray(padding, dtype=bool)):
        if seq.shape[1] != D:
            raise ValueError(f"tokens of width {D}")
        allowed = window_mask(len(seq), len(seq), prompt_keep()) & real[None, :]
        out.append(seq + softmax_attend(seq @ W_Q, seq @ W_K, seq @ W_V, allowed))
    return out


def decode(session, x, position):
    x = np.asarray(x, dtype=float)
    if x.shape != (D,):
        raise ValueError(f"a token of width {D}")
    keys, values = SESSIONS.setdefault(session, ([], []))
    keys.append(x @ W_K)
    values.append(x @ W_V)
    del keys[:-WINDOW], values[:-WINDOW]  # generation overwrites the oldest slot: W keys
    allowed = np.ones((1, len(keys)), dtype=bool)
    return x + softmax_attend((x @ W_Q)[None, :], np.array(keys), np.array(values), allowed)[0]


def reset(session):
    SESSIONS.pop(session, None)


def attention(q, k, v, mask):
    """The layer's kernel on given q, k, v (the prompt path: a cache's bottom-right causal mask)."""
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    n, m = q.shape[0], k.shape[0]
    if isinstance(mask, str) and mask == "causal":
        allowed = window_mask(n, m, prompt_keep())
    elif isinstance(mask, str):
        allowed = np.ones((n, m), dtype=bool)
    else:
        allowed = np.asarray(mask, dtype=bool)
    return softmax_attend(q, k, v, allowed)


if __name__ == "__main__":
    window = {"window": WINDOW}
    serve("mlx-lm-rotating-cache", "float64", attention=attention, forward=forward, decode=decode, reset=reset,
          params={"forward": {"causal": True, "positional": "none", "width": D, **window},
                  "attention": {**window, "alignment": "bottom_right", "fully_masked": "zeros"}})

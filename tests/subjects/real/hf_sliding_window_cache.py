#!/usr/bin/env python3
"""A sliding-window attention layer over transformers' static SlidingWindowCache,
transcribed as a pecheck module subject (forward, decode, reset), in float32.

Source: huggingface/transformers, src/transformers/cache_utils.py
(SlidingWindowCache._sliding_update: a buffer of W slots, zero-filled; before a
token is written at slot min(p, W − 1), the buffer rolls left by one when the
token's cache position p is past the window) and the sliding-window causal mask
(query at p sees the keys p − W < j ≤ p: W keys, itself included). Issue:
transformers #37574 ("Wrong KV cache update for sliding-window attention (SWA)
layers when total sequence length reaches window size"), fixed by PR #37972 (and
restated in PR #38046: "the order of operations here is important as we check
strict inequality"): the roll was taken at p ≥ W − 1 instead of p ≥ W, so when
the length reaches W the buffer rolls one slot early: the W-th token's keys are
[k1 … k(W−2), 0, k(W−1)], an empty (zero) slot where k0 belongs, and the zero
slot stays in the window, rolling along, for the next W − 1 tokens. One key of W:
about 10⁻¹ of a row at W = 8, 3·10⁻⁴ at Mistral's W = 4096.
Written here from that maths in NumPy float32: one head of width 8,
h = x + softmax(q kᵀ/√d + window mask) v, q, k, v = x W_q, x W_k, x W_v.

`--window W` (default 8) sets the config's sliding_window; `--fixed`: the roll
at p ≥ W, as PR #37972 has it; `--sessions N` declares sessions of up to N
tokens (params.forward.shapes.n = {"max": N}), as a model with a 4,100-token
context would.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

D = 8
FIXED = "--fixed" in sys.argv
WINDOW = int(sys.argv[sys.argv.index("--window") + 1]) if "--window" in sys.argv else 8
SESSIONS_UP_TO = int(sys.argv[sys.argv.index("--sessions") + 1]) if "--sessions" in sys.argv else None
F32 = np.float32
_rng = np.random.default_rng(37574)
W_Q, W_K, W_V = (_rng.uniform(-0.6, 0.6, (D, D)).astype(F32) for _ in range(3))
SESSIONS = {}


def attend(q, k, v, allowed):
    """softmax(q kᵀ/√d + mask) v in float32, row by row."""
    scores = (q @ k.T) * F32(1.0 / np.sqrt(D))
    out = np.zeros((q.shape[0], v.shape[1]), dtype=F32)
    for i in range(q.shape[0]):
        if not allowed[i].any():
            continue
        s = np.where(allowed[i], scores[i], F32(-np.inf))
        e = np.exp(s - s.max())
        out[i] = (e / e.sum()) @ v
    return out


def forward(x, positions, padding):
    """The prefill: the sliding-window causal mask over the whole sequence (correct in both twins)."""
    out = []
    for seq, real in zip(np.asarray(x, dtype=F32), np.asarray(padding, dtype=bool)):
        if seq.shape[1] != D:
            raise ValueError(f"tokens of width {D}")
        n = len(seq)
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        allowed = (j <= i) & (j > i - WINDOW) & real[None, :]
        out.append(seq + attend(seq @ W_Q, seq @ W_K, seq @ W_V, allowed))
    return out


def decode(session, x, position):
    """One generated token through the static sliding-window cache."""
    x = np.asarray(x, dtype=F32)
    if x.shape != (D,):
        raise ValueError(f"a token of width {D}")
    state = SESSIONS.setdefault(session, {"p": 0, "k": np.zeros((WINDOW, D), F32), "v": np.zeros((WINDOW, D), F32)})
    p = state["p"]
    # cache_utils: to_shift = cache_position >= sliding_window - 1 (the bug) / > sliding_window - 1 (PR #37972)
    to_shift = p > WINDOW - 1 if FIXED else p >= WINDOW - 1
    if to_shift:
        state["k"], state["v"] = np.roll(state["k"], -1, axis=0), np.roll(state["v"], -1, axis=0)
    slot = min(p, WINDOW - 1)
    state["k"][slot], state["v"][slot] = x @ W_K, x @ W_V
    state["p"] = p + 1
    allowed = (np.arange(WINDOW) <= p)[None, :]  # slots past the cache position are empty; a full buffer: all W
    return x + attend((x @ W_Q)[None, :], state["k"], state["v"], allowed)[0]


def reset(session):
    SESSIONS.pop(session, None)


if __name__ == "__main__":
    declared = {"causal": True, "positional": "none", "width": D, "window": WINDOW}
    if SESSIONS_UP_TO is not None:
        declared["shapes"] = {"n": {"max": SESSIONS_UP_TO}}
    serve("hf-sliding-window-cache", "float32", forward=forward, decode=decode, reset=reset,
          params={"forward": declared})

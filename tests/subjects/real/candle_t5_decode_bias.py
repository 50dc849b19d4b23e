#!/usr/bin/env python3
"""T5's decoder self-attention with a key/value cache in candle, transcribed as
a pecheck module subject (forward, decode, reset).

Source: huggingface/candle, candle-transformers/src/models/t5.rs
(T5Attention::forward: the relative position bias of the new query against
the cached keys). Issue: candle PR #899 ("Fix T5 kv cache") — with the cache
on, the bias was computed for query_length = 1 as if the new query stood at
position 0, not at the end of the cache; the fix offsets the query by the
cached length. T5's bias (Raffel et al.; transformers' _relative_position_bucket)
is a learned scalar per bucket of key − query; the decoder is unidirectional
(32 buckets, max distance 128) and T5 does not scale q kᵀ. Written here from
that maths in NumPy float64: one head of width 8,
h = x + softmax(q kᵀ + bias(bucket(j − i)) + causal) v.

`--fixed`: the new query's position is the cached length (PR #899).
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

D, NUM_BUCKETS, MAX_DISTANCE = 8, 32, 128
FIXED = "--fixed" in sys.argv
_rng = np.random.default_rng(899)
W_Q, W_K, W_V = (_rng.uniform(-0.4, 0.4, (D, D)) for _ in range(3))
BIAS_TABLE = _rng.uniform(-1.5, 1.5, NUM_BUCKETS)
SESSIONS = {}


def bucket(relative):
    """Unidirectional: every future key shares bucket 0; exact below 16, logarithmic to 128."""
    n = max(-relative, 0)
    max_exact = NUM_BUCKETS // 2
    if n < max_exact:
        return n
    large = max_exact + int(math.log(n / max_exact) / math.log(MAX_DISTANCE / max_exact) * (NUM_BUCKETS - max_exact))
    return min(large, NUM_BUCKETS - 1)


def bias(query_positions, key_positions):
    return np.array([[BIAS_TABLE[bucket(j - i)] for j in key_positions] for i in query_positions])


def attend(q, k, v, b, allowed):
    scores = np.where(allowed, q @ k.T + b, -np.inf)
    out = np.zeros_like(q)
    for i in range(q.shape[0]):
        if allowed[i].any():
            e = np.exp(scores[i] - scores[i].max())
            out[i] = (e / e.sum()) @ v
    return out


def forward(x, positions, padding):
    out = []
    for seq, at, real in zip(np.asarray(x, dtype=float), np.asarray(positions), np.asarray(padding, dtype=bool)):
        n = len(seq)
        allowed = np.tril(np.ones((n, n), dtype=bool)) & real[None, :]
        out.append(seq + attend(seq @ W_Q, seq @ W_K, seq @ W_V, bias(at, at), allowed))
    return out


def decode(session, x, position):
    x = np.asarray(x, dtype=float)
    xs, positions = SESSIONS.setdefault(session, ([], []))
    xs.append(x)
    positions.append(int(position))
    keys = np.array(xs)
    if FIXED:
        b = bias([position], positions)
    else:  # the bug: the new query's bias for query_length 1, as if it stood at the cache's first slot
        b = bias([positions[0]], positions)
    return x + attend((x @ W_Q)[None, :], keys @ W_K, keys @ W_V, b, np.ones((1, len(xs)), dtype=bool))[0]


def reset(session):
    SESSIONS.pop(session, None)


if __name__ == "__main__":
    serve("candle-t5-decoder-self-attention", "float64", forward=forward, decode=decode, reset=reset,
          params={"forward": {"causal": True, "positional": "relative", "width": D}})

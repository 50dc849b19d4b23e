#!/usr/bin/env python3
"""The ONNX Attention operator's reference implementation with grouped-query
attention, transcribed as a pecheck subject (multi-head attention op).

Source: onnx/onnx, onnx/reference/ops/op_attention.py and the function body in
onnx/defs/nn/defs.cc (Attention-23): when q_num_heads ≠ kv_num_heads the key and
value heads are repeated to the query heads before the softmax. PR #7274
("Update attention gqa to use repeat interleave within repeat kv") replaced a
Tile of the kv heads — [h0, h1, h0, h1] — with repeat_interleave —
[h0, h0, h1, h1] — which is what torch (repeat_kv) and every GQA checkpoint
mean. Written here from that maths in NumPy float32: q is H×n×d, k and v G×m×d.

Declares heads 4 over kv_heads 2 (repeat_interleave, the default).
`--fixed`: repeat_interleave (after PR #7274); without it, Tile (before).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

Q_HEADS, KV_HEADS = 4, 2
FIXED = "--fixed" in sys.argv


def repeat_kv(x, reps):
    if FIXED:
        return np.repeat(x, reps, axis=0)  # [h0, h0, h1, h1]
    return np.tile(x, (reps, 1, 1))  # [h0, h1, h0, h1]: the Tile before PR #7274


def attention(q, k, v, mask):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    if q.ndim != 3 or q.shape[0] != Q_HEADS or k.shape[0] != KV_HEADS:
        raise ValueError(f"expected {Q_HEADS}×n×d queries over {KV_HEADS}×m×d keys")
    reps = Q_HEADS // KV_HEADS
    k, v = repeat_kv(k, reps), repeat_kv(v, reps)
    n, m = q.shape[1], k.shape[1]
    scores = q @ np.transpose(k, (0, 2, 1)) * np.float32(1.0 / np.sqrt(q.shape[-1]))
    if isinstance(mask, str) and mask == "causal":
        if n != m:
            raise ValueError("is_causal needs as many queries as keys here")
        allowed = np.tril(np.ones((n, m), dtype=bool))
    elif isinstance(mask, str):
        allowed = np.ones((n, m), dtype=bool)
    else:
        allowed = np.asarray(mask, dtype=bool)
    scores = np.where(allowed[None], scores, np.float32(-np.inf))
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    return (e / e.sum(axis=-1, keepdims=True)) @ v


if __name__ == "__main__":
    serve("onnx-attention-gqa", "float32", attention=attention,
          params={"attention": {"num_attention_heads": Q_HEADS, "num_key_value_heads": KV_HEADS}})

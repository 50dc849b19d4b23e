#!/usr/bin/env python3
"""An eager attention backward with grouped-query heads, transcribed as a pecheck subject (attention and
backward ops), with two published kinds of gradient bug.

Source: the eager attention of huggingface/transformers (src/transformers/models/llama/modeling_llama.py,
`eager_attention_forward` with `repeat_kv`: kv head g serves query heads g·r … g·r + r − 1, r = H/G), whose
gradient a hand-written backward must reproduce: for P = softmax(λ q kᵀ + mask),
    dV = Pᵀ g,  dS = P ⊙ (g vᵀ − rowsum(P ⊙ g vᵀ)),  dQ = λ dS k,  dK = λ dSᵀ q,
and the backward of repeat_kv is a sum of dK, dV over the r query heads of each kv head (flash-attention's
GQA backward reduces its expanded dk/dv so: Dao-AILab/flash-attention, flash_attn/flash_attn_interface.py).
Written here from that maths in NumPy float32, not copied.

Declares 4 query heads over 2 kv heads (repeat_interleave) and params.backward.of = ["attention"].
`--leak`: the backward recomputes P without the causal mask (gradient reaches future keys);
`--gqa-sum`: dK is summed over the heads h mod G (the expanded axis reshaped as (r, G) where (G, r) is meant);
`--fixed` (or neither flag): the correct backward.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

Q_HEADS, KV_HEADS = 4, 2
LEAK = "--leak" in sys.argv
GQA_SUM = "--gqa-sum" in sys.argv


def _allowed(mask, n, m):
    if isinstance(mask, str):
        if mask == "causal":
            if n != m:
                raise ValueError("is_causal needs as many queries as keys here")
            return np.tril(np.ones((n, m), dtype=bool))
        return np.ones((n, m), dtype=bool)
    return np.asarray(mask, dtype=bool)


def _weights(q, k, allowed):
    scale = np.float32(1.0 / np.sqrt(q.shape[-1]))
    scores = q @ np.transpose(k, (0, 2, 1)) * scale
    scores = np.where(allowed[None], scores, np.float32(-np.inf))
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32), scale


def _inputs(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    if q.ndim != 3 or q.shape[0] != Q_HEADS or k.shape[0] != KV_HEADS:
        raise ValueError(f"expected {Q_HEADS}×n×d queries over {KV_HEADS}×m×d keys")
    reps = Q_HEADS // KV_HEADS
    return q, np.repeat(k, reps, axis=0), np.repeat(v, reps, axis=0), reps  # repeat_kv


def attention(q, k, v, mask):
    q, k, v, _ = _inputs(q, k, v)
    p, _ = _weights(q, k, _allowed(mask, q.shape[1], k.shape[1]))
    return p @ v


def _reduce(expanded, reps):
    """repeat_kv's backward: the sum over the query heads of each kv head."""
    if GQA_SUM:
        return expanded.reshape(reps, KV_HEADS, *expanded.shape[1:]).sum(axis=0)  # heads h mod G: wrong
    return expanded.reshape(KV_HEADS, reps, *expanded.shape[1:]).sum(axis=1)


def backward(of, arguments, grad):
    if of != "attention":
        raise ValueError(f"no backward of {of}")
    q, k_in, v_in, mask = arguments
    q, k, v, reps = _inputs(q, k_in, v_in)
    g = np.asarray(grad, dtype=np.float32)
    n, m = q.shape[1], k.shape[1]
    p, scale = _weights(q, k, _allowed("none" if LEAK else mask, n, m))
    dv = np.transpose(p, (0, 2, 1)) @ g
    dp = g @ np.transpose(v, (0, 2, 1))
    ds = p * (dp - (p * dp).sum(axis=-1, keepdims=True))
    dq = ds @ k * scale
    dk = np.transpose(ds, (0, 2, 1)) @ q * scale
    return {"q": dq, "k": _reduce(dk, reps), "v": _reduce(dv, reps) if not GQA_SUM else
            dv.reshape(KV_HEADS, reps, *dv.shape[1:]).sum(axis=1)}


if __name__ == "__main__":
    serve("eager-attention-backward", "float32", attention=attention, backward=backward,
          params={"attention": {"num_attention_heads": Q_HEADS, "num_key_value_heads": KV_HEADS},
                  "backward": {"of": ["attention"]}})

#!/usr/bin/env python3
"""ExecuTorch's MLX backend lowering scaled_dot_product_attention(is_causal=True),
transcribed as a pecheck subject (one head, the protocol's attention op).

Source: pytorch/executorch, backends/mlx (the SDPA lowering to
mx.fast.scaled_dot_product_attention(..., mask="causal")) and ml-explore/mlx,
mlx/fast.cpp (the causal mask anchored bottom-right: the last query at the last
key). Issues: executorch #22426 and mlx #2835 — torch's is_causal=True is
anchored top-left (query i sees keys 0..i); the two agree only when the query
and key lengths are equal, so a model written for torch gets other numbers with
one query over sixteen keys. The fix (executorch PR #22443) slices the keys
and values to the query length before the kernel's own causal mask, which is
what torch computes. Written here from that maths in NumPy float32.

Declares the alignment the model is written for: top_left (torch).
`--fixed`: keys and values sliced to the query length first (PR #22443).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

FIXED = "--fixed" in sys.argv


def mlx_sdpa(q, k, v, scale, mask):
    """mx.fast.scaled_dot_product_attention: mask "causal" is bottom-right aligned."""
    n, m = q.shape[0], k.shape[0]
    scores = (q @ k.T) * np.float32(scale)
    if isinstance(mask, str) and mask == "causal":
        allowed = np.arange(m)[None, :] <= np.arange(n)[:, None] + (m - n)
    elif mask is None:
        allowed = np.ones((n, m), dtype=bool)
    else:
        allowed = mask
    scores = np.where(allowed, scores, np.float32(-np.inf))
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    return (e / e.sum(axis=-1, keepdims=True)) @ v


def attention(q, k, v, mask):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    n, m = q.shape[0], k.shape[0]
    scale = 1.0 / np.sqrt(q.shape[-1])
    if isinstance(mask, str) and mask == "causal":
        if n > m:
            raise ValueError("a causal query longer than its keys is decomposed elsewhere")
        if FIXED and n != m:
            k, v = k[:n], v[:n]  # a row past the last query never reads a later key
        return mlx_sdpa(q, k, v, scale, "causal")
    if isinstance(mask, str):
        return mlx_sdpa(q, k, v, scale, None)
    return mlx_sdpa(q, k, v, scale, np.asarray(mask, dtype=bool))


if __name__ == "__main__":
    serve("executorch-mlx-sdpa", "float32", attention=attention, params={"attention": {"alignment": "top_left"}})

#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention on a fully masked query row,
transcribed as a pecheck subject (one head, the protocol's attention op).

Source: pytorch/pytorch, torch/nn/functional.py (scaled_dot_product_attention's
reference maths: attn = softmax(q kᵀ · scale + bias) with masked entries −∞)
and the memory-efficient CUDA kernel. Issue: pytorch #110213 — from v2.1 the
GPU kernels return NaN for a row whose every key is masked (the softmax of a
row of −∞ is 0/0), which breaks left-padded batches (transformers' Falcon);
v2.0 and the CPU path did not. transformers' workaround masks with
torch.finfo(dtype).min instead of −∞, which turns such a row into the mean of
the values. Written here from that maths in NumPy float32.

Declares fully_masked: zeros (a zero row, what SDPA returns for such rows
since). Default: the NaN kernel; `--finfo-min`: the finite-minimum mask;
`--fixed`: zero rows.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

FIXED = "--fixed" in sys.argv
FINFO_MIN = "--finfo-min" in sys.argv


def attention(q, k, v, mask):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    n, m = q.shape[0], k.shape[0]
    if isinstance(mask, str) and mask == "causal":
        if n != m:
            raise ValueError("is_causal needs as many queries as keys here")
        allowed = np.tril(np.ones((n, m), dtype=bool))
    elif isinstance(mask, str):
        allowed = np.ones((n, m), dtype=bool)
    else:
        allowed = np.asarray(mask, dtype=bool)
    scores = (q @ k.T) * np.float32(1.0 / np.sqrt(q.shape[-1]))
    masked = np.finfo(np.float32).min if FINFO_MIN else -np.inf
    scores = np.where(allowed, scores, np.float32(masked))
    with np.errstate(invalid="ignore"):
        top = scores.max(axis=-1, keepdims=True)
        e = np.exp(scores - top)  # a row of −∞: −∞ − (−∞) = NaN
        out = (e / e.sum(axis=-1, keepdims=True)) @ v
    if FIXED:
        out[~allowed.any(axis=-1)] = 0.0
    return out


if __name__ == "__main__":
    serve("torch-sdpa", "float32", attention=attention, params={"attention": {"fully_masked": "zeros"}})

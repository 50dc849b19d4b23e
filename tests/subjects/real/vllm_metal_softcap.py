#!/usr/bin/env python3
"""Gemma 2's attention through vllm-metal's paged SDPA call, transcribed as a
pecheck subject (one head, the protocol's attention op).

Source: vllm-project/vllm-metal, the model runner's sdpa_forward (both call
sites pass the attention softcap to the Metal kernel as the constant 0.0,
"0 = disabled"). Issue: vllm-metal #665 (fixed by PR #666, which reads
attn_logit_softcapping off the attention module). Gemma 2 sets it to 50.0 and
its reference (mlx_lm/models/gemma2.py, transformers' modeling_gemma2.py)
applies scores = cap · tanh(scores / cap) before the mask. Written here from
that maths in NumPy float32; the kernel's scale is query_pre_attn_scalar^(−1/2).

`--fixed`: the module's attn_logit_softcapping passed through (PR #666).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

ATTN_LOGIT_SOFTCAPPING = 50.0
SCALE = 256 ** -0.5
FIXED = "--fixed" in sys.argv


def paged_sdpa_kernel(q, k, v, allowed, scale, softcap):
    """The kernel: softcap 0 means disabled."""
    scores = (q @ k.T) * np.float32(scale)
    if softcap > 0:
        scores = np.float32(softcap) * np.tanh(scores / np.float32(softcap))
    scores = np.where(allowed, scores, np.float32(-np.inf))
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    return (e / e.sum(axis=-1, keepdims=True)) @ v


def sdpa_forward(q, k, v, allowed, module_softcap):
    return paged_sdpa_kernel(q, k, v, allowed, SCALE, module_softcap if FIXED else 0.0)  # 0.0: the bug


def attention(q, k, v, mask):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    n, m = q.shape[0], k.shape[0]
    if isinstance(mask, str) and mask == "causal":
        if n != m:
            raise ValueError("self-attention: a causal request has as many queries as keys")
        allowed = np.tril(np.ones((n, m), dtype=bool))
    elif isinstance(mask, str):
        allowed = np.ones((n, m), dtype=bool)
    else:
        allowed = np.asarray(mask, dtype=bool)
    return sdpa_forward(q, k, v, allowed, ATTN_LOGIT_SOFTCAPPING)


if __name__ == "__main__":
    serve("vllm-metal-gemma2", "float32", attention=attention,
          params={"attention": {"softcap": ATTN_LOGIT_SOFTCAPPING, "scale": SCALE}})

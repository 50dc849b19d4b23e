#!/usr/bin/env python3
"""Mistral's sliding-window attention in transformers' flash-attention path,
transcribed as a pecheck subject (one head, the protocol's attention op).

Source: huggingface/transformers, src/transformers/modeling_flash_attention_utils.py
(_flash_attention_forward: `window_size=(sliding_window, sliding_window)` passed to
flash_attn_func with causal=True) and src/transformers/modeling_attn_mask_utils.py
(AttentionMaskConverter: the eager path masks keys j ≤ i − sliding_window).
Issue: transformers #29623 (and vLLM #3385): with sliding_window = W the eager
path lets query i see W keys, i − W < j ≤ i; flash-attention's window_size=(L, R)
is inclusive — query i sees keys i − L ≤ j ≤ i + R — so the flash path sees
W + 1 keys. Written here from that maths in NumPy float32.

The subject declares the model's config as it reads: sliding_window = 4.
`--fixed`: window_size=(W − 1, W − 1), as transformers later passes it (W keys).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

SLIDING_WINDOW = 4
FIXED = "--fixed" in sys.argv


def window_size(sliding_window):
    """flash_attn's (left, right): inclusive counts of keys before and after the query."""
    return (sliding_window - 1, sliding_window - 1) if FIXED else (sliding_window, sliding_window)


def flash_mask(n, m, causal, window):
    """flash-attention's local + causal mask (bottom-right aligned; n == m here)."""
    i = np.arange(n)[:, None] + (m - n)
    j = np.arange(m)[None, :]
    allowed = np.ones((n, m), dtype=bool)
    if causal:
        allowed &= j <= i
    left, right = window
    allowed &= (j >= i - left) & (j <= i + right)
    return allowed


def attention(q, k, v, mask):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    n, m = q.shape[0], k.shape[0]
    if isinstance(mask, str) and mask == "causal":
        if n != m:
            raise ValueError("self-attention: a causal request has as many queries as keys")
        allowed = flash_mask(n, m, True, window_size(SLIDING_WINDOW))
    elif isinstance(mask, str):
        allowed = np.ones((n, m), dtype=bool)  # no mask: the window is applied with causal=True only
    else:
        allowed = np.asarray(mask, dtype=bool)
    scores = (q @ k.T) * np.float32(1.0 / np.sqrt(q.shape[-1]))
    scores = np.where(allowed, scores, np.float32(-np.inf))
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    return (e / e.sum(axis=-1, keepdims=True)) @ v


if __name__ == "__main__":
    serve("hf-mistral-flash-sliding-window", "float32", attention=attention,
          params={"attention": {"sliding_window": SLIDING_WINDOW}})

#!/usr/bin/env python3
"""minGPT's causal self-attention masking, transcribed as a pecheck subject.

Source: karpathy/minGPT, mingpt/model.py (CausalSelfAttention: the `bias`
buffer torch.tril(torch.ones(block_size, block_size)) and forward's
masked_fill / softmax / att @ v). Written here from its maths, in NumPy
float32 as the torch original computes, for one head given its q, k and v
(the protocol's attention op; minGPT's c_attn projection and head split come
before this point):

    att = (q @ kᵀ) · 1/√d_k
    att = masked_fill(bias[:T, :T] == 0, −∞)
    y = softmax(att) @ v      (softmax subtracts the row maximum, as torch's does)

minGPT's attention is always causal and always self-attention: a request for
another mask, or with n ≠ m, is refused. mingpt_lookahead.py is its twin with
tril(…, diagonal=1).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402


def causal_bias(block_size, diagonal=0):
    return np.tril(np.ones((block_size, block_size), dtype=np.float32), k=diagonal)


def softmax(att):
    att = att - att.max(axis=-1, keepdims=True)
    e = np.exp(att)
    return e / e.sum(axis=-1, keepdims=True)


def causal_attention(q, k, v, mask, diagonal=0):
    if mask != "causal":
        raise ValueError("minGPT's CausalSelfAttention is always causal: it takes no other mask")
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    T = q.shape[0]
    if k.shape[0] != T:
        raise ValueError(f"self-attention: {T} queries but {k.shape[0]} keys")
    att = (q @ k.T) * np.float32(1.0 / np.sqrt(k.shape[-1]))
    att = np.where(causal_bias(T, diagonal)[:T, :T] == 0, np.float32(-np.inf), att)
    return softmax(att) @ v


def attention(q, k, v, mask):
    return causal_attention(q, k, v, mask)


if __name__ == "__main__":
    serve("mingpt-causal-attention", "float32", attention=attention)

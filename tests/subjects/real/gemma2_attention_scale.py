#!/usr/bin/env python3
"""Gemma-2-27B's attention as a pecheck subject (one head, the protocol's
attention op), with the scale a port got wrong.

Source: huggingface/transformers, src/transformers/models/gemma2/modeling_gemma2.py
(Gemma2Attention: self.scaling = config.query_pre_attn_scalar ** -0.5;
eager_attention_forward: scores = q kᵀ · scaling, then scores / softcap, tanh,
· softcap (attn_logit_softcapping = 50), then + the causal mask, softmax in
float32). Gemma-2-27B's config has head_dim 128 but query_pre_attn_scalar 144
(hidden_size / num_attention_heads = 4608 / 32): llama.cpp's f_attention_scale
for LLM_TYPE_27B is 1/sqrt(n_embd / n_head) (ggml-org/llama.cpp PR #8197).
Issue: antonellof/ferrox #40 — the loader hard-codes attention_scale = None,
so the kernel applies 1/sqrt(head_dim) (of the tensors it is given) on every
Gemma size, 27B included; fixed in ferrox PR #65 by deriving the override.
Written here from that maths in NumPy float32.

`--fixed`: scaling = query_pre_attn_scalar^(−1/2), as transformers has it.
`--cap-after-mask`: the fixed scale, but the mask added before the cap (a
planted ordering, not a published bug: tanh(−∞) = −1 gives every hidden key
the logit −50, which a row of saturated visible logits shares with them).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

ATTN_LOGIT_SOFTCAPPING = 50.0
QUERY_PRE_ATTN_SCALAR = 144  # Gemma-2-27B: 4608 / 32; head_dim is 128
FIXED = "--fixed" in sys.argv
CAP_AFTER_MASK = "--cap-after-mask" in sys.argv


def eager_attention_forward(q, k, v, allowed, scaling, softcap):
    scores = (q @ k.T) * np.float32(scaling)
    mask = np.where(allowed, np.float32(0), np.float32(-np.inf))
    if CAP_AFTER_MASK:
        scores = scores + mask
    scores = scores / np.float32(softcap)
    scores = np.tanh(scores)
    scores = scores * np.float32(softcap)
    if not CAP_AFTER_MASK:
        scores = scores + mask
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    return (e / e.sum(axis=-1, keepdims=True)) @ v


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
    head_dim = q.shape[-1]
    # ferrox #40: the kernel's own 1/sqrt(head_dim), the config's scalar unread.
    scaling = QUERY_PRE_ATTN_SCALAR ** -0.5 if FIXED or CAP_AFTER_MASK else head_dim ** -0.5
    return eager_attention_forward(q, k, v, allowed, scaling, ATTN_LOGIT_SOFTCAPPING)


if __name__ == "__main__":
    serve("gemma2-27b-attention", "float32", attention=attention,
          params={"attention": {"attn_logit_softcapping": ATTN_LOGIT_SOFTCAPPING,
                                "scale": QUERY_PRE_ATTN_SCALAR ** -0.5}})

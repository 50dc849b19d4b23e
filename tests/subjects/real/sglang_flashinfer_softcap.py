#!/usr/bin/env python3
"""Gemma 2's soft-capped attention on sglang's FlashInfer backend, transcribed
as a pecheck subject (one head, the protocol's attention op).

Source: sgl-project/sglang, python/sglang/srt/layers/attention/flashinfer_backend.py
and python/sglang/srt/models/gemma2.py (logit_cap = config.attn_logit_softcapping,
50.0). Issue: sglang #33915 — the cap is handed to the FlashInfer wrapper's
deprecated forward(), but use_logits_soft_cap is fixed when the wrapper is
planned (plan() / begin_forward()), so forward() accepts it and ignores it:
gemma-2 runs uncapped. The reference is Gemma 2's eager attention
(transformers models/gemma2/modeling_gemma2.py): scores = q kᵀ · scaling,
scores = cap · tanh(scores / cap), then the mask and the softmax; scaling =
query_pre_attn_scalar^(−1/2) (256 → 1/16). Written here from that maths in
NumPy float32.

`--fixed`: the cap applied (the plan carries it).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

ATTN_LOGIT_SOFTCAPPING = 50.0
QUERY_PRE_ATTN_SCALAR = 256
FIXED = "--fixed" in sys.argv


class Wrapper:
    """FlashInfer's prefill wrapper: what plan() fixes, forward() cannot change."""

    def __init__(self):
        self.use_logits_soft_cap = False

    def plan(self, logits_soft_cap):
        self.use_logits_soft_cap = logits_soft_cap > 0
        self.cap = logits_soft_cap

    def forward(self, q, k, v, allowed, sm_scale, logits_soft_cap=0.0):
        # logits_soft_cap is accepted for compatibility and unused (the bug).
        scores = (q @ k.T) * np.float32(sm_scale)
        if self.use_logits_soft_cap:
            scores = np.float32(self.cap) * np.tanh(scores / np.float32(self.cap))
        scores = np.where(allowed, scores, np.float32(-np.inf))
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
    wrapper = Wrapper()
    wrapper.plan(ATTN_LOGIT_SOFTCAPPING if FIXED else 0.0)
    return wrapper.forward(q, k, v, allowed, QUERY_PRE_ATTN_SCALAR ** -0.5, logits_soft_cap=ATTN_LOGIT_SOFTCAPPING)


if __name__ == "__main__":
    serve("sglang-flashinfer-gemma2", "float32", attention=attention,
          params={"attention": {"attn_logit_softcapping": ATTN_LOGIT_SOFTCAPPING,
                                "scale": QUERY_PRE_ATTN_SCALAR ** -0.5}})

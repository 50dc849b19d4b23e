"""Gemma 2's attention logits in NumPy, from its config and paper: scores scaled by query_pre_attn_scalar^−½
(144 for the 27B model, whose head_dim is 128), then soft-capped c·tanh(s/c) with attn_logit_softcapping
c = 50, then masked and softmaxed."""
import numpy as np

CAP, QUERY_PRE_ATTN_SCALAR = 50.0, 144
PARAMS = {"attention": {"softcap": CAP, "scale": QUERY_PRE_ATTN_SCALAR ** -0.5}}


def attention_with(scale_of, cap):
    def attention(q, k, v, mask):
        q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
        n, m = q.shape[0], k.shape[0]
        scores = cap(q @ k.T * scale_of(q.shape[-1]))
        if isinstance(mask, str):
            allowed = np.tril(np.ones((n, m), dtype=bool)) if mask == "causal" else np.ones((n, m), dtype=bool)
        else:
            allowed = np.asarray(mask, dtype=bool)
        scores = np.where(allowed, scores, -np.inf)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)) @ v
    return attention


def softcap(s):
    return CAP * np.tanh(s / CAP)


attention = attention_with(lambda d: QUERY_PRE_ATTN_SCALAR ** -0.5, softcap)
# The bug: the usual 1/√head_dim kept where Gemma 2 declares query_pre_attn_scalar.
attention_inverse_sqrt_d = attention_with(lambda d: d ** -0.5, softcap)
# The bug of a FlashAttention-4 score_mod: (s/c)·tanh(s/c) typed for c·tanh(s/c).
attention_scaled_tanh = attention_with(lambda d: QUERY_PRE_ATTN_SCALAR ** -0.5, lambda s: s / CAP * np.tanh(s / CAP))

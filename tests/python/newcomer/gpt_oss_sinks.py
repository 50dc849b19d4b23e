"""GPT-OSS's attention sinks in NumPy, from the model card: each head has a learned sink logit σ_h that joins
the softmax as one more column and carries no value, so the keys' weights sum to 1 − e^σ/(e^σ + Σ e^s)."""
import numpy as np

SINKS = [0.5, -0.25]
PARAMS = {"attention": {"heads": 2, "sinks": True, "sink_logits": SINKS}}


def attention_with(values_for_sink):
    def attention(q, k, v, mask):
        q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
        h, n, m = q.shape[0], q.shape[1], k.shape[1]
        scores = q @ np.transpose(k, (0, 2, 1)) / np.sqrt(q.shape[-1])
        if isinstance(mask, str):
            allowed = np.tril(np.ones((n, m), dtype=bool)) if mask == "causal" else np.ones((n, m), dtype=bool)
        else:
            allowed = np.asarray(mask, dtype=bool)
        scores = np.where(allowed[None], scores, -np.inf)
        sink = np.broadcast_to(np.asarray(SINKS)[:h, None, None], (h, n, 1))
        logits = np.concatenate([sink, scores], axis=-1)
        e = np.exp(logits - logits.max(axis=-1, keepdims=True))
        weights = e / e.sum(axis=-1, keepdims=True)
        return weights @ np.concatenate([values_for_sink(v), v], axis=1)
    return attention


attention = attention_with(lambda v: np.zeros_like(v[:, :1]))
# The bug: the values padded to the logits' width by repeating v[0] (np.pad's mode="edge"), not with zeros.
attention_sink_carries_key0_value = attention_with(lambda v: v[:, :1])

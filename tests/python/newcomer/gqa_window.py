"""Grouped-query attention with a sliding window (Mistral's sliding_window, Gemma 2's local layers) in NumPy,
from the definition: 4 query heads share 2 kv heads (query head h reads kv head h // 2, torch's
repeat_interleave), and query i sees the W keys i − W < j ≤ i."""
import numpy as np

PARAMS = {"attention": {"num_attention_heads": 4, "num_key_value_heads": 2, "sliding_window": 4}}


def attention_with(lookback, tile=False):
    """lookback(i, j, W): whether causal query i sees key j under the window."""
    def attention(q, k, v, mask):
        q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
        group = q.shape[0] // k.shape[0]
        k, v = ((np.tile(a, (group, 1, 1)) if tile else np.repeat(a, group, axis=0)) for a in (k, v))
        n, m = q.shape[1], k.shape[1]
        if isinstance(mask, str):
            i, j = np.arange(n)[:, None], np.arange(m)[None, :]
            allowed = (j <= i) & lookback(i, j, 4) if mask == "causal" else np.ones((n, m), dtype=bool)
        else:
            allowed = np.asarray(mask, dtype=bool)
        scores = np.where(allowed[None], q @ np.transpose(k, (0, 2, 1)) / np.sqrt(q.shape[-1]), -np.inf)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)) @ v
    return attention


attention = attention_with(lambda i, j, w: j > i - w)
# The bug of transformers #29623's kind: the window written j >= i − W, W + 1 keys.
attention_window_one_too_wide = attention_with(lambda i, j, w: j >= i - w)
# The bug: kv heads repeated with np.tile (h reads kv head h mod 2), not repeat_interleave.
attention_tiled_kv_heads = attention_with(lambda i, j, w: j > i - w, tile=True)

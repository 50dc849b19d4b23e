#!/usr/bin/env python3
"""Grouped-query attention with Mistral 7B's real sliding window, W = 4,096, in NumPy float32
(issue 36: a window declared at a model's size is checked at that size by a default run).

From the definition: 4 query heads share 2 kv heads (query head h reads kv head h // 2, torch's
repeat_interleave), and with mask "causal" query i sees the W keys i − W < j ≤ i
(transformers' eager sliding-window mask, modeling_attn_mask_utils.py). Computed per query block
so that a 4,097-key request stays a few MB.

`--wide`: the bug of transformers #29623's kind (flash-attention's inclusive window_size=(W, W)):
query i sees keys i − W ≤ j ≤ i, W + 1 of them, which differs from the correct window only once
a request holds more than W keys.

Declares batch, so pecheck's look-ahead sends it several cases in one line: the first batch holds
one case and later ones as many as its measured rate answers well within the subject timeout.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

WINDOW = 4096
WIDE = "--wide" in sys.argv
BLOCK = 512  # queries per block: a 512 × 4,097 score block is 8 MB in float32


def allowed(rows, m, n, mask):
    """Which keys the queries `rows` may read (mask is "none", "causal" or n × m booleans)."""
    if isinstance(mask, str):
        j = np.arange(m)[None, :]
        i = rows[:, None] + (m - n)
        if mask != "causal":
            return np.ones((len(rows), m), dtype=bool)
        low = i - WINDOW if WIDE else i - WINDOW + 1
        return (j <= i) & (j >= low)
    return np.asarray(mask, dtype=bool)[rows]


def attention(q, k, v, mask):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    group = q.shape[0] // k.shape[0]
    k, v = np.repeat(k, group, axis=0), np.repeat(v, group, axis=0)
    n, m = q.shape[1], k.shape[1]
    scale = np.float32(1.0 / np.sqrt(q.shape[-1]))
    out = np.empty((q.shape[0], n, v.shape[-1]), dtype=np.float32)
    for start in range(0, n, BLOCK):
        rows = np.arange(start, min(n, start + BLOCK))
        a = allowed(rows, m, n, mask)
        s = np.where(a[None], (q[:, rows] @ np.transpose(k, (0, 2, 1))) * scale, np.float32(-np.inf))
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        out[:, rows] = (e / e.sum(axis=-1, keepdims=True)) @ v
    return out


if __name__ == "__main__":
    serve("gqa-window-4096" + ("-wide" if WIDE else ""), "float32", attention=attention, batch=True,
          params={"attention": {"num_attention_heads": 4, "num_key_value_heads": 2, "sliding_window": WINDOW}})

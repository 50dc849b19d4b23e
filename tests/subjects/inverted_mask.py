#!/usr/bin/env python3
"""Planted bug: the boolean mask's polarity is inverted.

The protocol's mask is True where query i MAY attend to key j; PyTorch's
boolean attn_mask is True where it may NOT. Handing one to code expecting the
other masks exactly the keys that should be seen (and a row that may see
every key sees none: NaN). attention.padding_mask_isolation finds it.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402


def attention(q, k, v, mask):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    n, m = len(q), len(k)
    scores = q @ k.T / np.sqrt(q.shape[1])
    if mask == "causal":
        scores = np.where(np.tril(np.ones((n, m), dtype=bool)), scores, -np.inf)
    elif mask != "none":
        blocked = np.asarray(mask, dtype=bool)  # BUG: True means "may attend", not "blocked"
        scores = np.where(blocked, -np.inf, scores)
    with np.errstate(invalid="ignore"):
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
    return weights @ v


serve("planted-inverted-mask", "float64", attention=attention)

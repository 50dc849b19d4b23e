#!/usr/bin/env python3
"""A correct attention that refuses odd widths (as kernels specialised for
even head sizes do). Each refusal is an `error` answer: pecheck counts the
input as discarded and reports it, it is not a crash and not a violation."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402


def attention(q, k, v, mask):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    n, m = len(q), len(k)
    if q.shape[1] % 2:
        raise ValueError(f"only even d_k is supported, got {q.shape[1]}")
    scores = q @ k.T / np.sqrt(q.shape[1])
    if mask == "causal":
        scores = np.where(np.tril(np.ones((n, m), dtype=bool)), scores, -np.inf)
    elif mask != "none":
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ v


serve("refuses-odd-dims", "float64", attention=attention)

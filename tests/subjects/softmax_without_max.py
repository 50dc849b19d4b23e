#!/usr/bin/env python3
"""Planted bug: softmax without subtracting the row maximum.

exp(h) / Σ exp(h) is the textbook formula, and exact in real numbers, but in
floating point exp overflows once a logit passes ~709 (float64): inf / inf is
NaN. Correct code computes exp(h − max h). attention.softmax_stability finds it.
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
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    with np.errstate(over="ignore", invalid="ignore"):
        weights = np.exp(scores)  # BUG: should be np.exp(scores - scores.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
    return weights @ v


serve("planted-softmax-without-max", "float64", attention=attention)

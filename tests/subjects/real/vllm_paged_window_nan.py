#!/usr/bin/env python3
"""vLLM's sliding-window attention over a paged KV cache, transcribed as a
pecheck subject (the protocol's attention op, one head).

Source: vllm-project/vllm, the sliding-window decode/prefill path over cache
blocks (vllm/attention/ops and the v1 attention backends' Triton kernels: the
key blocks a query tile reads are masked with −∞ outside the window, then the
weights P multiply the value blocks of every block the tile loaded). PR #30887
("V blocks outside the window not masked"): blocks that fall out of the
window are freed and reused, so their slots hold whatever another sequence
or no one wrote — NaN pages among them — and P·V with P = 0 still gives
0·NaN = NaN in the output. PR #936 fixed the same leak past the context
length ("we should explicitly zero out the values since they may contain
NaNs", csrc/attention/attention_kernels.cu). The fix masks the value blocks
too: a slot no query of the tile may read contributes an exact zero. Written
here from that maths in NumPy float32, one tile for the whole request.

Declares what a paged cache promises: alignment bottom_right (the queries are
the last tokens of the cache), a window of 4, and poison_invariance (the
unused slots are uninitialised memory). `--fixed`: the value blocks masked.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

FIXED = "--fixed" in sys.argv
WINDOW = 4


def allowed_keys(mask, n, m):
    """Which keys each query may read: the window, bottom-right, or the given boolean mask."""
    if isinstance(mask, str) and mask == "causal":
        at = np.arange(n)[:, None] + (m - n)  # query i is the token at cache position i + m − n
        j = np.arange(m)[None, :]
        return (j <= at) & (j > at - WINDOW)
    if isinstance(mask, str):
        return np.ones((n, m), dtype=bool)
    return np.asarray(mask, dtype=bool)


def attention(q, k, v, mask):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    n, m = q.shape[0], k.shape[0]
    allowed = allowed_keys(mask, n, m)
    with np.errstate(invalid="ignore", over="ignore"):
        scores = (q @ k.T) * np.float32(1.0 / np.sqrt(q.shape[-1]))
        # The key blocks are masked by a select: a NaN or huge logit outside the window is replaced by −∞.
        scores = np.where(allowed, scores, np.float32(-np.inf))
        scores = scores - scores.max(axis=-1, keepdims=True)
        e = np.exp(scores)
        p = e / e.sum(axis=-1, keepdims=True)
        if FIXED:
            # PR #30887: the value blocks no query of the tile may read are masked as well.
            v = np.where(allowed.any(axis=0)[:, None], v, np.float32(0))
        return p @ v  # every loaded value slot times its weight: 0 · NaN = NaN before the fix


if __name__ == "__main__":
    serve("vllm-paged-window", "float32", attention=attention,
          params={"attention": {"alignment": "bottom_right", "window": WINDOW, "poison_invariance": True}})

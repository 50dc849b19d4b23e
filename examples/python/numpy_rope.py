#!/usr/bin/env python3
"""Rotary position embedding (RoPE) in NumPy, served to pecheck.

R_t x rotates each interleaved pair (x[2i], x[2i+1]) by the angle t · θ_i,
θ_i = 10000^(-2i/d), as in RoFormer.

Check it:  pecheck run --subject cmd:'python3 examples/python/numpy_rope.py'
Computes in float64 by default; pass float32 as the first argument for float32.
It declares its conventions (protocol version 2: base 10000, interleaved
pairs, the whole width rotating) and accepts batches of requests.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

DTYPE = sys.argv[1] if len(sys.argv) > 1 else "float64"
FLOAT = {"float64": np.float64, "float32": np.float32}[DTYPE]


def rotate(positions, x, seq_len=None):
    # seq_len (the sequence the positions belong to) matters to dynamic
    # scalings only; this rotary has none.
    if not positions:
        return []
    x = np.asarray(x, dtype=FLOAT)
    d = x.shape[1]
    if d % 2:
        raise ValueError(f"rotary embedding rotates pairs: needs an even dim, got {d}")
    theta = FLOAT(10000.0) ** (FLOAT(-2.0) * np.arange(d // 2, dtype=FLOAT) / FLOAT(d))
    angles = np.asarray(positions, dtype=FLOAT)[:, None] * theta
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[:, 0::2], x[:, 1::2]
    out = np.empty_like(x)
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = even * sin + odd * cos
    return out


serve(f"numpy-rope-{DTYPE}", DTYPE, rotate=rotate, layout="interleaved",
      params={"rotate": {"base": 10000.0, "layout": "interleaved"}}, batch=True)

#!/usr/bin/env python3
"""Planted bug: the cosine columns get the wrong frequency.

The classic slip: the exponent is written with the column index j instead of
2·floor(j/2), so column 2i+1 computes cos(t · 10000^(-(2i+1)/d)) while column
2i computes sin(t · 10000^(-2i/d)). The pairs no longer share a frequency, so
p_t · p_{t+k} depends on t (pe.offset_only_dot) and the values are off the
reference (pe.reference_values).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402


def encode(dim, positions, seq_len):
    if dim % 2:
        raise ValueError(f"needs an even dim, got {dim}")
    t = np.asarray(positions, dtype=np.float64)[:, None]
    j = np.arange(dim, dtype=np.float64)
    angles = t / 10000.0 ** (j / dim)  # BUG: should be 2 * (j // 2) / dim
    pe = np.empty((len(positions), dim))
    pe[:, 0::2] = np.sin(angles[:, 0::2])
    pe[:, 1::2] = np.cos(angles[:, 1::2])
    return pe


serve("planted-sin-cos-frequency-mismatch", "float64", encode=encode, layout="interleaved")

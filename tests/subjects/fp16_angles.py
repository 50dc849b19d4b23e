#!/usr/bin/env python3
"""Planted bug: declares float32 but computes its angles in float16.

Mixed-precision code paths do this when the position tensor inherits the
model's half dtype: t · ω_i is rounded to float16 (11 significant bits), an
absolute angle error of about |t|·2^-11 that float32's fair tolerance
(about |t|·2^-24) cannot excuse. Small positions already show it.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402


def encode(dim, positions, seq_len):
    if dim % 2:
        raise ValueError(f"needs an even dim, got {dim}")
    i = np.arange(dim // 2, dtype=np.float32)
    omega = np.float32(10000.0) ** (np.float32(-2.0) * i / np.float32(dim))
    t = np.asarray(positions, dtype=np.float16)[:, None]
    angles = (t * omega.astype(np.float16)).astype(np.float32)  # BUG: the product rounds to float16
    pe = np.empty((len(positions), dim), dtype=np.float32)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


serve("planted-fp16-angles", "float32", encode=encode, layout="interleaved")

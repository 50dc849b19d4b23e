#!/usr/bin/env python3
"""The sinusoidal positional encoding in NumPy, served to pecheck.

    p_t[2i] = sin(t · ω_i),  p_t[2i+1] = cos(t · ω_i),  ω_i = 10000^(-2i/d)

Check it:  pecheck run --subject cmd:'python3 examples/python/numpy_sinusoidal.py'
It computes in float64 by default; pass float32 as the first argument to
compute (and declare) float32, the precision most models use. It declares
its conventions (protocol version 2: base 10000, the paper's 2i/d schedule)
and accepts batches of requests.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

DTYPE = sys.argv[1] if len(sys.argv) > 1 else "float64"
FLOAT = {"float64": np.float64, "float32": np.float32}[DTYPE]


def encode(dim, positions, seq_len):
    if dim % 2:
        raise ValueError(f"the sinusoidal encoding needs an even dim, got {dim}")
    t = np.asarray(positions, dtype=FLOAT)[:, None]
    i = np.arange(dim // 2, dtype=FLOAT)
    omega = FLOAT(10000.0) ** (FLOAT(-2.0) * i / FLOAT(dim))
    angles = t * omega
    pe = np.empty((len(positions), dim), dtype=FLOAT)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


serve(f"numpy-sinusoidal-{DTYPE}", DTYPE, encode=encode, layout="interleaved",
      params={"encode": {"base": 10000.0, "schedule": "2i/d"}}, batch=True)

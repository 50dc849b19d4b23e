#!/usr/bin/env python3
"""A subject whose output turns NaN past position 100 (say, an overflow in a
scaled intermediate). NaN is a value, not a protocol breach: pecheck must
report a violation with the (shrunk) position as the counterexample."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402


def encode(dim, positions, seq_len):
    t = np.asarray(positions, dtype=np.float64)[:, None]
    i = np.arange(dim // 2, dtype=np.float64)
    angles = t * 10000.0 ** (-2.0 * i / dim)
    pe = np.empty((len(positions), dim))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    pe[t[:, 0] > 100] = np.nan
    return pe


serve("returns-nan-past-100", "float64", encode=encode, layout="interleaved")

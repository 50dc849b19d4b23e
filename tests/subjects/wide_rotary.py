#!/usr/bin/python3
"""A rotary built for one wide width, declared: params.rotate.shapes.d = 8192 (and rows up to 64).

    wide_rotary.py correct            Llama's rotate_half rotary (halves layout, base 10000), float64
    wide_rotary.py cached_2048_pairs  planted bug: its inverse frequencies are a table of 2048 pairs
                                      (a cache sized for head dims up to 4096), indexed modulo its
                                      length, so pairs 2048.. rotate at the frequencies of pairs 0..

The bug is invisible at any width up to 4096 and wrong at the declared 8192: pecheck must send the
declared width (issue 39: it sent d = 2 alone and passed). Standard library and NumPy.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

MODE = sys.argv[1] if len(sys.argv) > 1 else "correct"
WIDTH = 8192
CACHED_PAIRS = 2048


def inv_freq(d):
    i = np.arange(d // 2, dtype=np.float64)
    if MODE == "cached_2048_pairs":
        table = 10000.0 ** (-2.0 * np.arange(CACHED_PAIRS, dtype=np.float64) / d)
        return table[i.astype(int) % CACHED_PAIRS]
    return 10000.0 ** (-2.0 * i / d)


def rotate(positions, x):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[1]  # any even width is answered: the bug needs more than 2048 pairs to show
    angles = np.asarray(positions, dtype=np.float64)[:, None] * inv_freq(d)[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    x1, x2 = x[:, : d // 2], x[:, d // 2:]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=1)


serve(f"wide-rotary-{MODE}", "float64", rotate=rotate,
      params={"rotate": {"base": 10000, "layout": "halves", "shapes": {"d": WIDTH, "n": {"min": 1, "max": 64}}}})

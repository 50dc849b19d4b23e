#!/usr/bin/env python3
"""Planted bug, slowly: sin and cos swapped in every pair, each answer after a pause
(PECHECK_TEST_ANSWER_SECONDS, 0.1 s by default). Every case fails, so a run shrinks at once and
every shrink step costs a pause: a time budget must end the shrink (issue 39: a 90 s budget ended
at 276 s while a counterexample shrank).
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

PAUSE = float(os.environ.get("PECHECK_TEST_ANSWER_SECONDS", "0.1"))


def encode(dim, positions, seq_len):
    time.sleep(PAUSE)
    t = np.asarray(positions, dtype=np.float64)[:, None]
    angles = t * 10000.0 ** (-2.0 * np.arange(dim // 2, dtype=np.float64) / dim)
    pe = np.empty((len(positions), dim))
    pe[:, 0::2] = np.cos(angles)  # BUG: sin and cos swapped
    pe[:, 1::2] = np.sin(angles)
    return pe


if __name__ == "__main__":
    serve("slow-wrong-encoder", "float64", encode=encode, layout="interleaved")

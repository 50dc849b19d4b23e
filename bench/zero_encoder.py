#!/usr/bin/env python3
"""An encoder that answers zeros of the right shape: the protocol's own cost, as a limit.

pe.bounded holds for it (every component is within the amplitude), so the
benchmark can time the round trip (pecheck's request, the adapter's reading
and writing, pecheck's reading) with almost no work in between.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402


def encode(dim, positions, seq_len):
    return np.zeros((len(positions), dim))


serve("zeros", "float64", encode=encode, batch=True)

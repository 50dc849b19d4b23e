"""The paper's sinusoidal encoding in pure Python (no NumPy, so a subject starts in milliseconds), shared
by the test subjects that misbehave in every way but the encoding: their answers are right, so what they do
wrong (crash, hang, fork badly, drift, answer NaN) is all that can fail."""
import math


def sinusoid_rows(dim, positions, drift=0.0):
    """One row per position: [sin(t·ω_i), cos(t·ω_i)] interleaved, ω_i = 10000^(−2i/d), each plus `drift`."""
    rows = []
    for t in positions:
        row = []
        for i in range(dim // 2):
            angle = t * 10000.0 ** (-2.0 * i / dim)
            row += [math.sin(angle) + drift, math.cos(angle) + drift]
        rows.append(row)
    return rows

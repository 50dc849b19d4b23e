#!/usr/bin/env python3
"""A sinusoidal encoder whose answers drift once it has answered N requests (issue 39).

A process that keeps state across calls (a cache grown and never cleaned, a counter that
overflows a buffer) can be exact for hundreds of requests and wrong after: here, from the
N-th request on (N from the first argument, 300 by default), every entry is off by 1e-3.
history_independence's default scripts (16, 64 and 256 requests to one copy) never reach
300, so pecheck says "history 256 of 256" and the bug is green; `pecheck run --history 400`
sends a script of 400 requests and it is red.
"""
import os
import sys

from plain_sinusoid import sinusoid_rows

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

from pecheck_subject import serve  # noqa: E402

DRIFTS_AFTER = int(sys.argv[1]) if len(sys.argv) > 1 else 300
_answered = [0]


def encode(dim, positions, seq_len):
    drift = 1e-3 if _answered[0] >= DRIFTS_AFTER else 0.0
    _answered[0] += 1
    return sinusoid_rows(dim, positions, drift)


if __name__ == "__main__":
    serve("drifts-after", "float64", encode=encode, layout="interleaved")

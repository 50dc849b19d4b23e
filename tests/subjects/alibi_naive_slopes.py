#!/usr/bin/env python3
"""Planted bug: ALiBi slopes 2^(-8(h+1)/H) for every head count H.

The geometric rule of ALiBi (Press et al.) holds for a power-of-two head
count only; the paper's code (ofirpress/attention_with_linear_biases,
fairseq/models/transformer.py, get_slopes) interleaves the slopes of the
next power of two otherwise. A port that keeps just the geometric branch is
right at 8 heads and wrong at every head of 12 — while each head still
decays with distance and depends on j - i only, so bias.reference_values is
the claim that finds it. Twin of examples/python/numpy_alibi.py.

Heads: 12 by default; pass another count as the first argument.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "python"))
sys.argv = sys.argv[:1] + (sys.argv[1:] or ["12"])

import numpy as np  # noqa: E402

import numpy_alibi  # noqa: E402
from pecheck_subject import serve  # noqa: E402

numpy_alibi.SLOPES = np.array([2.0 ** (-8.0 * (h + 1) / numpy_alibi.HEADS) for h in range(numpy_alibi.HEADS)])  # BUG

if __name__ == "__main__":
    serve(f"numpy-alibi-naive-slopes-{numpy_alibi.HEADS}", "float64", bias=numpy_alibi.bias,
          params={"bias": {"scheme": "alibi", "heads": numpy_alibi.HEADS}})

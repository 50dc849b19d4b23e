#!/usr/bin/env python3
"""ALiBi attention biases in NumPy, served to pecheck.

ALiBi (Press, Smith & Lewis, "Train Short, Test Long", ICLR 2022) adds
-slope_h * |i - j| to the logit of query i and key j in head h. The slopes,
as the paper's code computes them (ofirpress/attention_with_linear_biases,
fairseq/models/transformer.py, get_slopes; rewritten here from its rule):
a geometric sequence starting at 2^(-8/H) with ratio 2^(-8/H) when the head
count H is a power of two; otherwise the slopes of the closest power of two
n below H, followed by every other slope of 2n heads until there are H.

Check it:  pecheck run --subject cmd:'python3 examples/python/numpy_alibi.py'
Heads: 8 by default; pass another count as the first argument.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

HEADS = int(sys.argv[1]) if len(sys.argv) > 1 else 8


def geometric_slopes(n):
    """n slopes start·ratio^h with start = ratio = 2^(-8/n)."""
    start = 2.0 ** (-8.0 / n)
    return [start * start ** h for h in range(n)]


def alibi_slopes(heads):
    if heads < 1:
        raise ValueError(f"ALiBi needs at least one head, got {heads}")
    if math.log2(heads).is_integer():
        return geometric_slopes(heads)
    below = 2 ** math.floor(math.log2(heads))
    return geometric_slopes(below) + alibi_slopes(2 * below)[0::2][: heads - below]


SLOPES = np.array(alibi_slopes(HEADS))


def bias(n, m, head):
    if not 0 <= head < HEADS:
        raise ValueError(f"head {head} outside 0..{HEADS - 1}")
    distance = np.abs(np.arange(n)[:, None] - np.arange(m)[None, :])
    return -SLOPES[head] * distance


if __name__ == "__main__":
    serve(f"numpy-alibi-{HEADS}", "float64", bias=bias, params={"bias": {"scheme": "alibi", "heads": HEADS}})

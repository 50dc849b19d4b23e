"""ALiBi biases in NumPy, built as a decoder with a KV cache uses them: the n queries are the last n of m keys."""
import math

import numpy as np


def slopes(heads):
    def power_of_two(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]
    if math.log2(heads).is_integer():
        return power_of_two(heads)
    closest = 2 ** math.floor(math.log2(heads))
    return power_of_two(closest) + power_of_two(2 * closest)[0::2][: heads - closest]


def naive_slopes(heads):
    """The bug: the geometric rule for every head count, also where it is not a power of two."""
    return [2 ** (-8 * (h + 1) / heads) for h in range(heads)]


def builder(slope_rule, heads):
    def bias(n, m, head):
        query_positions = np.arange(m - n, m)[:, None]  # the queries are the last n keys
        key_positions = np.arange(m)[None, :]
        return -slope_rule(heads)[head] * np.abs(query_positions - key_positions)
    return bias

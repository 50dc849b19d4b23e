#!/usr/bin/env python3
"""tensor2tensor's get_timing_signal_1d, transcribed as a pecheck subject.

Source: tensorflow/tensor2tensor, tensor2tensor/layers/common_attention.py
(get_timing_signal_1d). Written here from its maths, in NumPy float32 as the
TensorFlow original computes:

    num_timescales h = channels // 2
    log_timescale_increment = ln(max_timescale/min_timescale) / max(h − 1, 1)
    inv_timescales = min_timescale · exp(arange(h) · −increment)   (= 10000^(−i/(h−1)))
    signal = [sin(t · inv) | cos(t · inv)], padded with a zero column for odd channels.

At h = 1 the original silently uses ω_0 = 1 (max(h − 1, 1)); the declared
schedule i/(h-1) is undefined there, so d < 4 is refused.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402


def get_timing_signal_1d(length, channels, min_timescale=1.0, max_timescale=1.0e4, start_index=0):
    position = np.arange(length, dtype=np.float32) + np.float32(start_index)
    num_timescales = channels // 2
    log_timescale_increment = math.log(float(max_timescale) / float(min_timescale)) / max(num_timescales - 1, 1)
    inv_timescales = np.float32(min_timescale) * np.exp(
        np.arange(num_timescales, dtype=np.float32) * np.float32(-log_timescale_increment))
    scaled_time = position[:, None] * inv_timescales[None, :]
    signal = np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)
    return np.pad(signal, [[0, 0], [0, channels % 2]])


def encode(dim, positions, seq_len):
    if dim < 4:
        raise ValueError(f"the schedule i/(h-1) needs h >= 2, got d = {dim}")
    signal = get_timing_signal_1d(max(seq_len, max(positions) + 1), dim)
    return signal[np.asarray(positions, dtype=np.int64)]


if __name__ == "__main__":
    serve("tensor2tensor-timing-signal", "float32", encode=encode,
          params={"encode": {"base": 10000, "schedule": "i/(h-1)", "layout": "halves"}})

#!/usr/bin/env python3
"""A small module served with protocol version 2 features, in NumPy.

An ALiBi bias over 4 heads (slopes 2^(-8(h+1)/4), the bias -slope·|i-j|), a
forward that scales each token by its position + 1 and appends its padding
flag (width 3 in, 4 out), and a decoding cache that adds the session's
previous token. Simple on purpose: tests/test_protocol_v2_python.cpp computes
the same in C++ and compares bit for bit, with answers in b64le and (with
PECHECK_SUBJECT_B64LE=0) in JSON numbers. Refuses widths other than 3.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

HEADS = 4
_previous = {}


def bias(n, m, head):
    slope = 2.0 ** (-8.0 * (head + 1) / HEADS)
    i, j = np.arange(n)[:, None], np.arange(m)[None, :]
    return -slope * np.abs(i - j).astype(np.float64)


def forward(x, positions, padding):
    x = np.asarray(x, dtype=np.float64).reshape(len(x), len(x[0]) if x else 0, -1)
    if x.shape[2] != 3:
        raise ValueError(f"this module takes width 3, got {x.shape[2]}")
    scale = np.asarray(positions, dtype=np.float64)[:, :, None] + 1
    flag = np.asarray(padding, dtype=np.float64)[:, :, None]
    return np.concatenate([x * scale, flag], axis=2)


def decode(session, x, position):
    x = np.asarray(x, dtype=np.float64)
    out = x * (position + 1) + _previous.get(session, np.zeros_like(x))
    _previous[session] = x
    return out


def reset(session):
    _previous.pop(session, None)


serve("numpy-module", "float64", bias=bias, forward=forward, decode=decode, reset=reset,
      compute={"accumulate": "float64"},
      params={"bias": {"scheme": "alibi", "heads": HEADS},
              "forward": {"causal": False, "positional": "absolute", "width": 3}},
      batch=True)

#!/usr/bin/env python3
"""A fused RoPE kernel's backward (Triton style), transcribed as a pecheck subject (rotate and backward ops).

Source: linkedin/Liger-Kernel, src/liger_kernel/ops/rope.py — `_triton_rope`, one kernel for both passes:
the forward turns each (first half, second half) pair by +θ (the rotate_half layout),
    new_x1 = x1·cos − x2·sin,   new_x2 = x2·cos + x1·sin,
and the backward runs the same kernel with BACKWARD_PASS set, which negates sin: dx = R(−θ)·g. The issue
this project files it under (pecheck issue 37) cites Liger-Kernel #1373 for a wrong RoPE gradient that no
random test caught. Written here from that maths in NumPy float32, not copied.

Declares params.rotate.layout = "halves" and params.backward.of = ["rotate"].
`--fixed`: the backward negates sin (BACKWARD_PASS); without it, the backward launches the kernel as the
forward does and turns the gradient by +θ — an exact forward, a wrong gradient.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

FIXED = "--fixed" in sys.argv


def _cos_sin(positions, d):
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d)))
    angles = np.asarray(positions, dtype=np.float32)[:, None] * inv_freq[None, :]
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def _kernel(x, cos, sin, backward_pass):
    """One launch of the kernel on rows of x (n × d): halves (x1, x2) turned by the cos/sin row."""
    if backward_pass:
        sin = -sin
    half = x.shape[1] // 2
    x1, x2 = x[:, :half], x[:, half:]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=1).astype(np.float32)


def rotate(positions, x):
    x = np.asarray(x, dtype=np.float32)
    if x.shape[1] % 2:
        raise ValueError("the kernel rotates pairs: an even width")
    cos, sin = _cos_sin(positions, x.shape[1])
    return _kernel(x, cos, sin, backward_pass=False)


def backward(of, arguments, grad):
    if of != "rotate":
        raise ValueError(f"no backward of {of}")
    positions, x = arguments[:2]
    g = np.asarray(grad, dtype=np.float32)
    cos, sin = _cos_sin(positions, g.shape[1])
    return {"x": _kernel(g, cos, sin, backward_pass=FIXED)}


if __name__ == "__main__":
    serve("liger-rope" + ("-fixed" if FIXED else ""), "float32", rotate=rotate, backward=backward,
          params={"rotate": {"layout": "halves"}, "backward": {"of": ["rotate"]}})

"""YaRN in NumPy, written from the paper's formulas (Peng et al. 2023, §3.2–3.4; transformers'
_compute_yarn_parameters): pairs that turn fewer than beta_slow times over the original length L are
interpolated (ω/F), those that turn more than beta_fast times kept, a linear ramp between; cos and sin carry
the attention factor 0.1·ln F + 1. GPT-OSS declares truncate: false (the ramp's ends left unrounded)."""
import math

import numpy as np

FACTOR, ORIGINAL, BASE = 4.0, 4096, 10000.0


def inv_freq(dim, truncate=True):
    def correction_dim(rotations):  # the pair index that turns `rotations` times over L
        return dim * math.log(ORIGINAL / (rotations * 2 * math.pi)) / (2 * math.log(BASE))
    low, high = correction_dim(32.0), correction_dim(1.0)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(dim // 2) - low) / (high - low), 0, 1)
    extrapolation = 1.0 / BASE ** (np.arange(0, dim, 2) / dim)
    return extrapolation / FACTOR * ramp + extrapolation * (1 - ramp)


def rotate_with(truncate, magnitude):
    def rotate(positions, x):
        x = np.asarray(x, dtype=np.float64)
        angles = np.asarray(positions, dtype=np.float64)[:, None] * inv_freq(x.shape[1], truncate)[None, :]
        cos, sin = magnitude * np.cos(angles), magnitude * np.sin(angles)
        h = x.shape[1] // 2
        return np.concatenate([x[:, :h] * cos - x[:, h:] * sin, x[:, h:] * cos + x[:, :h] * sin], axis=1)
    return rotate


MSCALE = 0.1 * math.log(FACTOR) + 1
SCALING = {"rope_type": "yarn", "factor": FACTOR, "original_max_position_embeddings": ORIGINAL}
rotate = rotate_with(True, MSCALE)
# The bug of vLLM #48621's kind: the tables built without the attention factor (cos, sin of norm 1).
rotate_without_mscale = rotate_with(True, 1.0)
# GPT-OSS (truncate: false) ...
rotate_untruncated = rotate_with(False, MSCALE)
# ... ported from code that always floors/ceils the ramp's ends.
rotate_rounded_where_untruncated = rotate_with(True, MSCALE)

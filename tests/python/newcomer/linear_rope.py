"""Rotary embedding with linear scaling (position interpolation) in NumPy, configured from a model's config.json."""
import numpy as np

CONFIG = {"rope_theta": 10000.0, "rope_scaling": {"rope_type": "linear", "factor": 4.0}}


def rotate(positions, x, stretch=lambda t, factor: t / factor):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[1]
    inv_freq = 1.0 / CONFIG["rope_theta"] ** (np.arange(0, d, 2) / d)
    t = stretch(np.asarray(positions, dtype=np.float64), CONFIG["rope_scaling"]["factor"])
    angles = t[:, None] * inv_freq[None, :]
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * np.cos(angles) - x[:, 1::2] * np.sin(angles)
    out[:, 1::2] = x[:, 0::2] * np.sin(angles) + x[:, 1::2] * np.cos(angles)
    return out


def rotate_multiplied(positions, x):
    """The bug: positions multiplied by the factor instead of divided by it."""
    return rotate(positions, x, stretch=lambda t, factor: t * factor)

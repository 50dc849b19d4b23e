"""Llama 3.1's rotary scaling in NumPy, written from the formula (transformers' _compute_llama3_parameters in
modeling_rope_utils.py; Llama 3.1 config.json: rope_theta 500000, factor 8, low 1, high 4, original 8192):
wavelengths longer than L/low_freq_factor are divided by the factor, shorter than L/high_freq_factor kept, the
band between blended by smooth = (L/wavelength − low)/(high − low)."""
import numpy as np

CONFIG = {"rope_theta": 500000.0,
          "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                           "original_max_position_embeddings": 8192}}


def inv_freq(dim, two_pi=2 * np.pi):
    s = CONFIG["rope_scaling"]
    base = 1.0 / CONFIG["rope_theta"] ** (np.arange(0, dim, 2) / dim)
    L, low, high, factor = s["original_max_position_embeddings"], s["low_freq_factor"], s["high_freq_factor"], s["factor"]
    wavelength = two_pi / base
    smooth = (L / wavelength - low) / (high - low)
    blended = (1 - smooth) * base / factor + smooth * base
    out = np.where(wavelength > L / low, base / factor, base)
    return np.where((wavelength >= L / high) & (wavelength <= L / low), blended, out)


def rotate_with(frequencies):
    def rotate(positions, x):
        x = np.asarray(x, dtype=np.float64)
        angles = np.asarray(positions, dtype=np.float64)[:, None] * frequencies(x.shape[1])[None, :]
        cos, sin = np.cos(angles), np.sin(angles)
        h = x.shape[1] // 2
        return np.concatenate([x[:, :h] * cos - x[:, h:] * sin, x[:, h:] * cos + x[:, :h] * sin], axis=1)
    return rotate


rotate = rotate_with(inv_freq)
# The bug: the wavelength written 1/ω (the 2π forgotten), so every band boundary sits 2π times further out.
rotate_wavelength_without_2pi = rotate_with(lambda dim: inv_freq(dim, two_pi=1.0))

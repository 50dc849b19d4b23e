"""The sinusoidal position encoding of "Attention Is All You Need" in NumPy, float32
(the user's code in the pytest examples test_numpy_sinusoidal*.py).

p_t[2i] = sin(t·ω_i), p_t[2i+1] = cos(t·ω_i), ω_i = 10000^(−2i/d): interleaved pairs.
"""
import numpy as np


def _table(dim, positions, omega):
    if dim % 2:
        raise ValueError(f"pairs of sin and cos need an even dim, got {dim}")
    angles = np.asarray(positions).astype(np.float32)[:, None] * omega
    pe = np.empty((len(angles), dim), dtype=np.float32)
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe


def sinusoidal(dim, positions, seq_len):
    omega = np.float32(10000.0) ** (-np.arange(0, dim, 2, dtype=np.float32) / np.float32(dim))
    return _table(dim, positions, omega)


def sinusoidal_exponent_i_over_d(dim, positions, seq_len):
    """A frequent transcription slip: ω_i = 10000^(−i/d), i counting pairs, for 10000^(−2i/d)
    (pecheck's planted bug sinusoidal-exponent-i-over-d). Still a valid-looking sinusoid:
    only the comparison with the formula sees it."""
    omega = np.float32(10000.0) ** (-np.arange(dim // 2, dtype=np.float32) / np.float32(dim))
    return _table(dim, positions, omega)

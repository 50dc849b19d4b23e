"""The Transformer paper's sinusoidal table in NumPy, precomputed for a maximum length."""
import numpy as np


def sinusoidal_table(max_len, d_model):
    position = np.arange(max_len)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * (-np.log(10000.0) / d_model))
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term[: d_model // 2])
    return pe


def sinusoidal_table_cos_from_column(max_len, d_model):
    """The bug: each cosine's exponent from its own column index (2i+1), the sine's from 2i."""
    position = np.arange(max_len)[:, None]
    rates = 1.0 / np.power(10000.0, np.arange(d_model) / d_model)
    angles = position * rates[None, :]
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles[:, 0::2])
    pe[:, 1::2] = np.cos(angles[:, 1::2])
    return pe


def encoder(build):
    def encode(dim, positions, seq_len):
        return build(seq_len, dim)[positions]
    return encode

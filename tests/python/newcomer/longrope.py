"""LongRoPE (Phi-3's "longrope" rope_scaling) in NumPy, from the paper and transformers'
_compute_longrope_parameters: ω_i divided by short_factor[i] while the sequence fits the original length L,
by long_factor[i] past it, the tables carrying sqrt(1 + ln(max/L)/ln L)."""
import math

import numpy as np

ORIGINAL, MAX_POSITIONS, DIM = 4096, 131072, 8
SHORT, LONG = [1.0, 1.1, 1.3, 1.7], [1.0, 2.0, 5.0, 16.0]
SCALING = {"rope_type": "longrope", "short_factor": SHORT, "long_factor": LONG,
           "original_max_position_embeddings": ORIGINAL}
PARAMS = {"rotate": {"layout": "halves", "scaling": SCALING, "max_position_embeddings": MAX_POSITIONS,
                     "shapes": {"d": DIM}}}
MAGNITUDE = math.sqrt(1 + math.log(MAX_POSITIONS / ORIGINAL) / math.log(ORIGINAL))


def rotate_by(long_when):
    def rotate(positions, x, seq_len=None):
        positions = np.asarray(positions, dtype=np.float64)
        length = seq_len if seq_len is not None else int(positions.max()) + 1
        factors = np.asarray(LONG if long_when(positions, length) else SHORT)
        x = np.asarray(x, dtype=np.float64)
        inv_freq = 1.0 / (factors * 10000.0 ** (np.arange(0, DIM, 2) / DIM))
        angles = positions[:, None] * inv_freq[None, :]
        cos, sin = MAGNITUDE * np.cos(angles), MAGNITUDE * np.sin(angles)
        h = DIM // 2
        return np.concatenate([x[:, :h] * cos - x[:, h:] * sin, x[:, h:] * cos + x[:, :h] * sin], axis=1)
    return rotate


rotate = rotate_by(lambda positions, length: length > ORIGINAL)
# The bug of vLLM #27414's kind: the factor set picked by the request's positions, not the sequence's length.
rotate_by_positions = rotate_by(lambda positions, length: positions.max() >= ORIGINAL)

"""Qwen2-VL's multi-axis rotary (mrope) in NumPy, from the model card's description and transformers'
apply_multimodal_rotary_pos_emb: the r/2 pairs split into mrope_section [16, 24, 24] for the temporal, height
and width position streams, rotate_half form, base 10⁶."""
import numpy as np

SECTIONS = [16, 24, 24]


def rotate_with(sections):
    def rotate(positions, x, seq_len=None):
        ids = np.asarray(positions, dtype=np.float64)
        ids = np.broadcast_to(ids, (3, ids.shape[0])) if ids.ndim == 1 else ids
        x = np.asarray(x, dtype=np.float64)
        d = x.shape[1]
        inv_freq = 1.0 / 1e6 ** (np.arange(0, d, 2) / d)
        axis = np.repeat([0, 1, 2], sections)
        angles = ids[axis, :].T * inv_freq[None, :]
        cos, sin = np.cos(angles), np.sin(angles)
        h = d // 2
        return np.concatenate([x[:, :h] * cos - x[:, h:] * sin, x[:, h:] * cos + x[:, :h] * sin], axis=1)
    return rotate


rotate = rotate_with(SECTIONS)
# The bug: the section sizes typed in another order (t's 16 pairs and h's 24 exchanged).
rotate_section_sizes_swapped = rotate_with([24, 16, 24])
PARAMS = {"rotate": {"base": 1e6, "layout": "halves", "mrope_section": SECTIONS, "shapes": {"d": 128}}}

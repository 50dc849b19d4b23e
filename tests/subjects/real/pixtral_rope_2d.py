#!/usr/bin/env python3
"""Pixtral's vision 2-D rotary (float32) as a pecheck rotate subject.

Source: huggingface/transformers, src/transformers/models/pixtral/modeling_pixtral.py
(PixtralRotaryEmbedding: freqs = 1 / theta^(arange(0, head_dim, 2) / head_dim);
freqs_h = outer(h, freqs[::2]); freqs_w = outer(w, freqs[1::2]); inv_freq =
cat([freqs_h, freqs_w], -1) per patch (row h, column w), then cat((inv_freq,
inv_freq), -1) as cos/sin; apply_rotary_pos_emb with rotate_half), and
mistralai/mistral-inference src/mistral_inference/rope.py
(precompute_freqs_cis_2d: the same split, as complex numbers). Pixtral-12B's
vision_config: head_dim 64 (hidden_size 1024 / 16 heads), rope_theta 10000.
Written here from that maths in NumPy float32.

The protocol's 2-D rotate (docs/SUBJECT-PROTOCOL.md "New conventions"):
positions arrive as 2 × n, [rows, columns] (rope_2d.axes ["h", "w"]).

`--rows-columns-swapped`: the patch's (h, w) read as (w, h) — position ids
built from a grid meshed in the other order. `--halves`: Qwen2-VL's split
(modeling_qwen2_vl.py VisionRotaryEmbedding(head_dim / 2): the same
frequencies freqs[::2] for both axes) where Pixtral's is declared. Both are
planted kinds of the published code, not bugs of a named repository.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

ROPE_THETA = 10000.0
SWAPPED = "--rows-columns-swapped" in sys.argv
HALVES = "--halves" in sys.argv


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def rotate(positions, x, seq_len=None):
    x = np.asarray(x, dtype=np.float32)
    dim = x.shape[-1]
    if dim % 4:
        raise ValueError(f"a 2-D rotary splits its pairs between rows and columns: head_dim must be a multiple of 4, got {dim}")
    positions = np.asarray(positions)
    if positions.ndim != 2 or positions.shape[0] != 2:
        raise ValueError(f"2 × n positions (rows, columns), got shape {positions.shape}")
    h, w = positions[0], positions[1]
    if SWAPPED:
        h, w = w, h
    freqs = 1.0 / (ROPE_THETA ** (np.arange(0, dim, 2, dtype=np.float32) / np.float32(dim)))
    freqs = freqs.astype(np.float32)
    freqs_h = np.outer(h.astype(np.float32), freqs[::2])
    freqs_w = np.outer(w.astype(np.float32), freqs[::2] if HALVES else freqs[1::2])
    inv_freq = np.concatenate([freqs_h, freqs_w], axis=-1).astype(np.float32)  # n × dim/2
    emb = np.concatenate([inv_freq, inv_freq], axis=-1)
    cos, sin = np.cos(emb).astype(np.float32), np.sin(emb).astype(np.float32)
    return (x * cos + rotate_half(x) * sin).astype(np.float32)


if __name__ == "__main__":
    name = "pixtral-rope-swapped" if SWAPPED else "pixtral-rope-halves" if HALVES else "pixtral-rope-2d"
    serve(name, "float32", rotate=rotate,
          params={"rotate": {"base": ROPE_THETA, "layout": "halves",
                             "rope_2d": {"axes": ["h", "w"], "frequencies": "even_odd"}}})

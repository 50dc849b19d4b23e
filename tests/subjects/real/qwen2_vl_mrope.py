#!/usr/bin/env python3
"""Qwen2-VL's multi-axis rotary, mrope (float32), transcribed as a pecheck subject.

Source: huggingface/transformers, src/transformers/models/qwen2_vl/modeling_qwen2_vl.py
(Qwen2VLRotaryEmbedding.forward, apply_multimodal_rotary_pos_emb, rotate_half);
config Qwen/Qwen2-VL-7B-Instruct's (tests/data/configs/qwen2-vl-7b-instruct.json),
rope_scaling pasted as config.json has it. Written here from its maths, in
NumPy float32:

    freqs[a] = position_ids[a] · inv_freq        a = t, h, w (3 × n positions)
    emb[a] = cat(freqs[a], freqs[a]);  cos[a], sin[a] = cos(emb[a]), sin(emb[a])
    cos = cat(chunk_i[i mod 3] for chunk_i in split(cos, mrope_section · 2))
    q_embed = q·cos + rotate_half(q)·sin

so pairs [0, 16) turn by t, [16, 40) by h, [40, 64) by w. A request with one
position per row (text) is expanded to the three axes, as the model does.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from hf_llama_rope import apply_rotary_pos_emb, default_inv_freq  # noqa: E402
from pecheck_subject import serve  # noqa: E402

CONFIG = json.load(open(os.path.join(HERE, "..", "..", "data", "configs", "qwen2-vl-7b-instruct.json")))
BASE = CONFIG["rope_theta"]
SCALING = CONFIG["rope_scaling"]
SECTION = SCALING["mrope_section"]


def axes_of(positions):
    """3 × n position ids (one list per row of text is expanded to t, h, w)."""
    ids = np.asarray(positions, dtype=np.int64)
    return np.broadcast_to(ids, (3, ids.shape[0])) if ids.ndim == 1 else ids


def cos_sin_per_axis(position_ids, dim, base=BASE):
    inv_freq = default_inv_freq(dim, base)
    freqs = position_ids.astype(np.float32)[:, :, None] * inv_freq[None, None, :]  # 3 × n × r/2
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


def multimodal(table, section):
    """apply_multimodal_rotary_pos_emb's selection: chunk i of split(table, section·2) from axis i mod 3."""
    sizes = list(section) * 2
    chunks, start = [], 0
    for i, size in enumerate(sizes):
        chunks.append(table[i % 3, :, start:start + size])
        start += size
    return np.concatenate(chunks, axis=-1)


def rotate(positions, x, seq_len=None):
    q = np.asarray(x, dtype=np.float32)
    if q.shape[-1] != 2 * sum(SECTION):
        raise ValueError(f"mrope_section {SECTION} covers a head_dim of {2 * sum(SECTION)}, got {q.shape[-1]}")
    cos, sin = cos_sin_per_axis(axes_of(positions), q.shape[-1])
    return apply_rotary_pos_emb(q, multimodal(cos, SECTION), multimodal(sin, SECTION))


if __name__ == "__main__":
    serve("qwen2-vl-mrope", "float32", rotate=rotate,
          params={"rotate": {"base": BASE, "layout": "halves", "scaling": SCALING}})

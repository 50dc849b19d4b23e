#!/usr/bin/env python3
"""Qwen3-VL's interleaved multi-axis rotary (float32), transcribed as a pecheck subject.

Source: huggingface/transformers, src/transformers/models/qwen3_vl/modeling_qwen3_vl.py
(Qwen3VLTextRotaryEmbedding.forward and apply_interleaved_mrope,
apply_rotary_pos_emb); config Qwen/Qwen3-VL-8B-Instruct's text_config
(tests/data/configs/qwen3-vl-8b-instruct.json), rope_scaling pasted as is.
Written here from its maths, in NumPy float32:

    freqs[a] = position_ids[a] · inv_freq                  a = t, h, w
    freqs_t = freqs[t];  freqs_t[1 : 3·h : 3] = freqs[h][1 : 3·h : 3]
                         freqs_t[2 : 3·w : 3] = freqs[w][2 : 3·w : 3]
    emb = cat(freqs_t, freqs_t);  q_embed = q·cos(emb) + rotate_half(q)·sin(emb)

so the axes take pairs round-robin (t, h, w, t, h, w, …) and t the tail.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from hf_llama_rope import apply_rotary_pos_emb, default_inv_freq  # noqa: E402
from qwen2_vl_mrope import axes_of  # noqa: E402
from pecheck_subject import serve  # noqa: E402

CONFIG = json.load(open(os.path.join(HERE, "..", "..", "data", "configs", "qwen3-vl-8b-instruct.json")))
BASE = CONFIG["rope_theta"]
SCALING = CONFIG["rope_scaling"]
SECTION = SCALING["mrope_section"]


def apply_interleaved_mrope(freqs, section):
    freqs_t = freqs[0].copy()
    for dim, offset in enumerate((1, 2), start=1):  # H, W
        length = section[dim] * 3
        freqs_t[..., offset:length:3] = freqs[dim][..., offset:length:3]
    return freqs_t


def rotate(positions, x, seq_len=None):
    q = np.asarray(x, dtype=np.float32)
    dim = q.shape[-1]
    if dim != 2 * sum(SECTION):
        raise ValueError(f"mrope_section {SECTION} covers a head_dim of {2 * sum(SECTION)}, got {dim}")
    ids = axes_of(positions).astype(np.float32)
    freqs = ids[:, :, None] * default_inv_freq(dim, BASE)[None, None, :]
    freqs = apply_interleaved_mrope(freqs, SECTION)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return apply_rotary_pos_emb(q, np.cos(emb), np.sin(emb))


if __name__ == "__main__":
    serve("qwen3-vl-mrope", "float32", rotate=rotate,
          params={"rotate": {"base": BASE, "layout": "halves", "scaling": SCALING}})

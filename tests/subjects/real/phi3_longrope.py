#!/usr/bin/env python3
"""Phi-3.5-mini's LongRoPE (float32), transcribed as a pecheck subject.

Source: huggingface/transformers, src/transformers/modeling_rope_utils.py
(_compute_longrope_parameters, and dynamic_rope_update's longrope branch that
picks the long or short inverse frequencies by the sequence length) with
models/phi3/modeling_phi3.py (rotate_half: layout "halves"); the config is
microsoft/Phi-3.5-mini-instruct's (tests/data/configs/phi-3.5-mini-instruct.json).
Written here from its maths, in NumPy float32 as the torch original computes:

    ext = long_factor if seq_len > original_max_position_embeddings else short_factor
    inv_freq = 1 / (ext · base^(arange(0, r, 2) / r))
    attention_factor = √(1 + ln(max_position_embeddings / original) / ln(original))
    cos, sin = cos(t·inv_freq)·attention_factor, sin(t·inv_freq)·attention_factor

transformers takes seq_len = max(position_ids) + 1 of the forward call, and
Phi-3's prepare_inputs_for_generation drops the cache when a generation
crosses original_max_position_embeddings (PR #33129), so every call that
matters sees its whole sequence: the protocol's seq_len is that length.
vllm_longrope_short_cache.py is vLLM's published bug beside it.
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from hf_llama_rope import apply_rotary_pos_emb  # noqa: E402
from pecheck_subject import serve  # noqa: E402

CONFIG = json.load(open(os.path.join(HERE, "..", "..", "data", "configs", "phi-3.5-mini-instruct.json")))
BASE = CONFIG["rope_theta"]
ORIGINAL = CONFIG["original_max_position_embeddings"]
MAX_POSITIONS = CONFIG["max_position_embeddings"]
SCALING = CONFIG["rope_scaling"]


def attention_factor():
    factor = MAX_POSITIONS / ORIGINAL
    return 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(ORIGINAL))


def inv_freq(dim, long):
    ext = np.asarray(SCALING["long_factor" if long else "short_factor"], dtype=np.float32)
    if ext.shape[0] != dim // 2:
        raise ValueError(f"Phi-3.5's factor lists cover {ext.shape[0]} pairs: head_dim {2 * ext.shape[0]}, got {dim}")
    exponent = np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / np.float32(dim)
    return np.float32(1.0) / (ext * np.float32(BASE) ** exponent)


def rotate(positions, x, seq_len=None):
    q = np.asarray(x, dtype=np.float32)
    length = seq_len if seq_len is not None else max(positions) + 1
    w = inv_freq(q.shape[-1], length > ORIGINAL)
    freqs = np.asarray(positions, dtype=np.float32)[:, None] * w[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    scale = np.float32(attention_factor())
    return apply_rotary_pos_emb(q, np.cos(emb) * scale, np.sin(emb) * scale)


if __name__ == "__main__":
    # rope_scaling pasted as config.json has it; both lengths beside it, as Phi-3 keeps them.
    serve("phi3.5-longrope", "float32", rotate=rotate,
          params={"rotate": {"base": BASE, "layout": "halves", "max_position_embeddings": MAX_POSITIONS,
                             "original_max_position_embeddings": ORIGINAL, "scaling": SCALING}})

#!/usr/bin/env python3
"""vLLM's LongRoPE before PR #27431 (issue #27414), transcribed as a pecheck subject.

Source: vllm-project/vllm, vllm/model_executor/layers/rotary_embedding/
phi3_long_rope_scaled_rope.py (Phi3LongRoPEScaledRotaryEmbedding, as of
v0.11): two cos/sin caches, one with the short factors for positions
[0, original) and one with the long factors for [0, max_position_embeddings),
concatenated; each forward call indexes them with

    offset = original if any(positions > original) else 0
    cos_sin = cache[positions + offset]

so the factor set follows the positions of each call. A prompt below 4096
tokens is cached with the short factors; once decoding passes 4096 the
queries turn with the long ones while the cached keys keep the short: a mix
no single rotation gives (the random tokens of #27414). The fix (PR #27431)
picks one set at start-up from max_model_len. Written from its maths in NumPy
float32 (the cache rows computed when indexed: the same numbers). Declares
what the model declares (phi3_longrope.py's convention).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from hf_llama_rope import apply_rotary_pos_emb  # noqa: E402
from phi3_longrope import BASE, MAX_POSITIONS, ORIGINAL, SCALING, attention_factor, inv_freq  # noqa: E402
from pecheck_subject import serve  # noqa: E402


def cache_row(index, dim):
    """Row `index` of cat(short_cache[0:original], long_cache[0:max]): (cos, sin) of half width."""
    long = index >= ORIGINAL
    t = np.float32(index - ORIGINAL if long else index)
    freqs = t * inv_freq(dim, long)
    scale = np.float32(attention_factor())
    return np.cos(freqs) * scale, np.sin(freqs) * scale


def rotate(positions, x, seq_len=None):
    q = np.asarray(x, dtype=np.float32)
    dim = q.shape[-1]
    offset = ORIGINAL if any(p > ORIGINAL for p in positions) else 0
    rows = [cache_row(p + offset, dim) for p in positions]
    cos = np.stack([np.concatenate([c, c]) for c, _ in rows])
    sin = np.stack([np.concatenate([s, s]) for _, s in rows])
    return apply_rotary_pos_emb(q, cos, sin)


if __name__ == "__main__":
    serve("vllm-longrope", "float32", rotate=rotate,
          params={"rotate": {"base": BASE, "layout": "halves", "max_position_embeddings": MAX_POSITIONS,
                             "original_max_position_embeddings": ORIGINAL, "scaling": SCALING}})

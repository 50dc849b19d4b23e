#!/usr/bin/env python3
"""Hugging Face's dynamic-NTK Llama rotary (v4.31–v4.35), transcribed as a pecheck subject: its cache
is grown for a long sequence and never scaled back for a short one.

Source: huggingface/transformers, src/transformers/models/llama/modeling_llama.py
(LlamaDynamicNTKScalingRotaryEmbedding._set_cos_sin_cache and forward, before
PR #27033; issue #25306). Written here from its maths, in NumPy float64:

    forward(x, seq_len): if seq_len > max_seq_len_cached: _set_cos_sin_cache(seq_len)
    _set_cos_sin_cache(seq_len):
        if seq_len > max_position_embeddings:
            base = base · ((factor · seq_len / max_position_embeddings) − (factor − 1))^(dim / (dim − 2))
            inv_freq = 1 / base^(arange(0, dim, 2) / dim)
        cos, sin tables for positions 0 .. seq_len − 1 (layout "halves", rotate_half)

The published dynamic-NTK formula (SUBJECT-PROTOCOL.md v2) takes the length of
*this* sequence: the original base at or below max_position_embeddings. Here,
once one long sequence has grown the cache, every later sequence, however
short, is rotated with the long sequence's base: each answer depends on the
requests before it. With --fixed, the cache is rebuilt whenever the length's
base changes (the behaviour after the fix), and the subject is correct.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

BASE, FACTOR, ORIGINAL = 10000.0, 2.0, 16
FIXED = "--fixed" in sys.argv[1:]


class DynamicNTKRotary:
    def __init__(self, dim):
        self.dim = dim
        self.inv_freq = self.frequencies(BASE)
        self.cached_len = ORIGINAL  # the cache built at start covers max_position_embeddings

    def frequencies(self, base):
        return 1.0 / base ** (np.arange(0, self.dim, 2, dtype=np.float64) / self.dim)

    def base_for(self, seq_len):
        if seq_len <= ORIGINAL:
            return BASE
        return BASE * ((FACTOR * seq_len / ORIGINAL) - (FACTOR - 1)) ** (self.dim / (self.dim - 2))

    def forward(self, positions, x, seq_len):
        if FIXED:
            self.inv_freq = self.frequencies(self.base_for(seq_len))
        elif seq_len > self.cached_len:
            self.cached_len = seq_len
            self.inv_freq = self.frequencies(self.base_for(seq_len))
        freqs = np.asarray(positions, dtype=np.float64)[:, None] * self.inv_freq[None, :]
        emb = np.concatenate([freqs, freqs], axis=-1)
        half = self.dim // 2
        rotated_half = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
        return x * np.cos(emb) + rotated_half * np.sin(emb)


_rotaries = {}  # one module per head width, as a model has one per attention layer


def rotate(positions, x, seq_len):
    x = np.asarray(x, dtype=np.float64)
    dim = x.shape[1]
    if dim < 4 or dim % 2:
        raise ValueError(f"rotate_half needs an even head_dim of at least 4, got {dim}")
    if dim not in _rotaries:
        _rotaries[dim] = DynamicNTKRotary(dim)
    return _rotaries[dim].forward(positions, x, seq_len)


serve("hf-llama-dynamic-ntk" + ("-fixed" if FIXED else ""), "float64", rotate=rotate, batch=True,
      params={"rotate": {"base": BASE, "layout": "halves",
                         "scaling": {"type": "dynamic_ntk", "factor": FACTOR, "original_max_position": ORIGINAL}}})

#!/usr/bin/env python3
"""Gemma 3's local and global layers (float32), transcribed as a pecheck module subject.

Source: huggingface/transformers, src/transformers/models/gemma3/modeling_gemma3.py
(Gemma3TextModel: rotary_emb at rope_theta with rope_scaling, rotary_emb_local
at rope_local_base_freq, default; Gemma3DecoderLayer: a sliding layer takes
position_embeddings_local, a full-attention one position_embeddings_global;
Gemma3Attention with q_norm and k_norm; Gemma3RMSNorm's (1 + weight)) and
configuration_gemma3.py (layer_types: "full_attention" when (i + 1) %
sliding_window_pattern == 0). Config: google/gemma-3-4b-it's text_config
(tests/data/configs/gemma-3-4b-it.json): local base 10⁴ unscaled, global base
10⁶ with rope_scaling {"factor": 8.0, "rope_type": "linear"} pasted as is.

One period of the pattern (6 layers, the last global) at hidden 16, 2 heads of
8, fixed random weights, no MLP (positions reach the output only through the
attention). As pecheck asks (docs/SUBJECT-PROTOCOL.md, per-layer settings):
forward(x, positions, padding, layer=k) runs layer k alone, rotate(positions,
x, layer=k) is the rotation layer k gives one head's queries and keys, and
without a layer, forward runs the stack and rotate is layer 0's.

`python3 gemma3_layers.py --local-scaled` is the published bug: the local
layers built with the global scaling too (llama.cpp #14367 read one
freq_scale for both kinds; vLLM's Gemma3 regression fixed by PR #29111).
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

CONFIG = json.load(open(os.path.join(HERE, "..", "..", "data", "configs", "gemma-3-4b-it.json")))
HIDDEN, HEADS, HEAD_DIM, LAYERS = 16, 2, 8, CONFIG["sliding_window_pattern"]
LAYER_TYPES = ["full_attention" if (i + 1) % CONFIG["sliding_window_pattern"] == 0 else "sliding_attention"
               for i in range(LAYERS)]
LOCAL = {"base": CONFIG["rope_local_base_freq"], "layout": "halves"}
GLOBAL = {"base": CONFIG["rope_theta"], "layout": "halves", "scaling": CONFIG["rope_scaling"]}
LOCAL_SCALED = "--local-scaled" in sys.argv


def inv_freq(kind, dim):
    """rotary_emb_local (default rope at rope_local_base_freq) or rotary_emb (linear: inv_freq / factor)."""
    if kind == "sliding_attention" and not LOCAL_SCALED:
        return default_inv_freq(dim, LOCAL["base"])
    base = GLOBAL["base"] if kind == "full_attention" else LOCAL["base"]
    return default_inv_freq(dim, base) / np.float32(GLOBAL["scaling"]["factor"])


def cos_sin(kind, positions, dim):
    freqs = np.asarray(positions, dtype=np.float32)[:, None] * inv_freq(kind, dim)[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float32)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + np.float32(eps)) * (np.float32(1) + weight)


rng = np.random.default_rng(0x6E3A)
WEIGHTS = [{name: rng.uniform(-1, 1, shape).astype(np.float32) / np.float32(np.sqrt(shape[0]))
            for name, shape in (("q", (HIDDEN, HIDDEN)), ("k", (HIDDEN, HIDDEN)), ("v", (HIDDEN, HIDDEN)),
                                ("o", (HIDDEN, HIDDEN)))} for _ in range(LAYERS)]
for w in WEIGHTS:
    w.update({name: rng.uniform(-0.2, 0.2, size).astype(np.float32)
              for name, size in (("input_norm", HIDDEN), ("post_norm", HIDDEN), ("q_norm", HEAD_DIM),
                                 ("k_norm", HEAD_DIM))})


def decoder_layer(k, x, positions, real):
    """Gemma3DecoderLayer k on one sequence (x N×HIDDEN), causal, pads masked."""
    w = WEIGHTS[k]
    h = rms_norm(x, w["input_norm"])
    n = h.shape[0]
    cos, sin = cos_sin(LAYER_TYPES[k], positions, HEAD_DIM)
    out = np.zeros((n, HIDDEN), dtype=np.float32)
    allowed = np.tril(np.ones((n, n), dtype=bool)) & real[None, :]
    for head in range(HEADS):
        cols = slice(head * HEAD_DIM, (head + 1) * HEAD_DIM)
        q = apply_rotary_pos_emb(rms_norm(h @ w["q"][:, cols], w["q_norm"]), cos, sin)
        kk = apply_rotary_pos_emb(rms_norm(h @ w["k"][:, cols], w["k_norm"]), cos, sin)
        v = h @ w["v"][:, cols]
        logits = (q @ kk.T) * np.float32(HEAD_DIM ** -0.5)  # query_pre_attn_scalar = head_dim
        logits = np.where(allowed, logits, -np.inf)
        logits = logits - np.max(np.where(allowed, logits, -1e30), axis=-1, keepdims=True)
        weights = np.where(allowed, np.exp(logits), 0)
        total = weights.sum(axis=-1, keepdims=True)
        out[:, cols] = (weights / np.where(total > 0, total, 1)) @ v
    return x + rms_norm(out @ w["o"], w["post_norm"])


def forward(x, positions, padding, layer=None):
    x = np.asarray(x, dtype=np.float32)
    if x.shape[-1] != HIDDEN:
        raise ValueError(f"hidden size {HIDDEN}, got {x.shape[-1]}")
    if layer is not None and not 0 <= layer < LAYERS:
        raise ValueError(f"layer {layer} of {LAYERS}")
    ks = range(LAYERS) if layer is None else [layer]
    out = []
    for seq, pos, real in zip(x, positions, padding):
        h = seq
        for k in ks:
            h = decoder_layer(k, h, pos, np.asarray(real, dtype=bool))
        out.append(h)
    return np.stack(out)


def rotate(positions, x, seq_len=None, layer=None):
    q = np.asarray(x, dtype=np.float32)
    dim = q.shape[-1]
    if dim < 2 or dim % 2:
        raise ValueError(f"rotate_half needs an even head_dim, got {dim}")
    if layer is not None and not 0 <= layer < LAYERS:
        raise ValueError(f"layer {layer} of {LAYERS}")
    cos, sin = cos_sin(LAYER_TYPES[layer or 0], positions, dim)
    return apply_rotary_pos_emb(q, cos, sin)


def declared_layers():
    return [{"rotate": dict(GLOBAL if kind == "full_attention" else LOCAL)} for kind in LAYER_TYPES]


if __name__ == "__main__":
    serve("gemma3-local-scaled" if LOCAL_SCALED else "gemma3", "float32", rotate=rotate, forward=forward,
          params={"rotate": dict(LOCAL),
                  "forward": {"causal": True, "positional": "relative", "width": HIDDEN,
                              "layers": declared_layers()}})

#!/usr/bin/env python3
"""Llama 4's attention temperature tuning on its NoPE layers (float32), as a
pecheck module subject.

Source: huggingface/transformers, src/transformers/models/llama4/modeling_llama4.py
(Llama4TextAttention.forward: `if self.attn_temperature_tuning and not
self.use_rope: attn_scales = (torch.log(torch.floor((cache_position.float() +
1.0) / self.floor_scale) + 1.0) * self.attn_scale + 1.0); query_states =
(query_states * attn_scales).to(query_states.dtype)`, added with Llama 4 in
transformers PR #37063) and configuration_llama4.py (no_rope_layers: every
fourth layer NoPE; attn_temperature_tuning true, floor_scale 8192, attn_scale
0.1). vLLM's port, vllm/model_executor/models/llama4.py
(Llama4Attention._get_attn_scale), computes the same from `positions`.
Written here from that maths in NumPy float32.

Four layers at hidden 16, 2 heads of 8, fixed random weights, no MLP; layers
0–2 would rotate (their rotary is not what this subject shows: it answers
forward for the NoPE layer 3 and the stack), layer 3 is NoPE with temperature
tuning. forward(x, positions, padding, layer=k) runs layer k alone; the
token at positions[i] is the cache position the temperature reads.

`--floor-missing`: the floor dropped, log((p + 1)/floor_scale + 1), so τ
grows at every position. `--off-by-one`: floor(p / floor_scale), the position
not counted from 1 (every step one position late). Both are planted kinds of
the published formula, not bugs of a named repository.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

HIDDEN, HEADS, HEAD_DIM, LAYERS = 16, 2, 8, 4
NO_ROPE_LAYERS = [0 if (i + 1) % 4 == 0 else 1 for i in range(LAYERS)]  # configuration_llama4.py: 1 = RoPE
ROPE_THETA = 500000.0
FLOOR_SCALE, ATTN_SCALE = 8192, 0.1
FLOOR_MISSING = "--floor-missing" in sys.argv
OFF_BY_ONE = "--off-by-one" in sys.argv

rng = np.random.default_rng(0x11A4)
WEIGHTS = [{name: rng.uniform(-1, 1, (HIDDEN, HIDDEN)).astype(np.float32) / np.float32(np.sqrt(HIDDEN))
            for name in ("q", "k", "v", "o")} for _ in range(LAYERS)]
for w in WEIGHTS:
    w["input_norm"] = (1 + rng.uniform(-0.2, 0.2, HIDDEN)).astype(np.float32)


def rms_norm(x, weight, eps=1e-5):
    x = np.asarray(x, dtype=np.float32)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + np.float32(eps)) * weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def rope(x, positions):
    inv_freq = 1.0 / (ROPE_THETA ** (np.arange(0, HEAD_DIM, 2, dtype=np.float32) / HEAD_DIM))
    freqs = np.asarray(positions, dtype=np.float32)[:, None] * inv_freq[None, :].astype(np.float32)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return x * np.cos(emb) + rotate_half(x) * np.sin(emb)


def attn_scales(cache_position):
    """Llama4TextAttention: log(floor((cache_position + 1) / floor_scale) + 1) * attn_scale + 1."""
    p = np.asarray(cache_position, dtype=np.float32)
    if FLOOR_MISSING:
        return np.log((p + np.float32(1.0)) / np.float32(FLOOR_SCALE) + np.float32(1.0)) * np.float32(ATTN_SCALE) + 1
    if OFF_BY_ONE:
        return np.log(np.floor(p / np.float32(FLOOR_SCALE)) + np.float32(1.0)) * np.float32(ATTN_SCALE) + 1
    return np.log(np.floor((p + np.float32(1.0)) / np.float32(FLOOR_SCALE)) + np.float32(1.0)) * \
        np.float32(ATTN_SCALE) + np.float32(1.0)


def decoder_layer(k, x, positions, real):
    """Layer k's attention (residual, no MLP) on one sequence, causal, pads masked."""
    w = WEIGHTS[k]
    use_rope = NO_ROPE_LAYERS[k] == 1
    h = rms_norm(x, w["input_norm"])
    n = h.shape[0]
    allowed = np.tril(np.ones((n, n), dtype=bool)) & real[None, :]
    out = np.zeros((n, HIDDEN), dtype=np.float32)
    for head in range(HEADS):
        cols = slice(head * HEAD_DIM, (head + 1) * HEAD_DIM)
        q, kk, v = h @ w["q"][:, cols], h @ w["k"][:, cols], h @ w["v"][:, cols]
        if use_rope:
            q, kk = rope(q, positions), rope(kk, positions)
        else:  # attn_temperature_tuning and not use_rope
            q = (q * attn_scales(positions)[:, None]).astype(np.float32)
        logits = (q @ kk.T) * np.float32(HEAD_DIM ** -0.5)
        logits = np.where(allowed, logits, -np.inf)
        logits = logits - np.max(np.where(allowed, logits, -1e30), axis=-1, keepdims=True)
        weights = np.where(allowed, np.exp(logits), 0)
        total = weights.sum(axis=-1, keepdims=True)
        out[:, cols] = (weights / np.where(total > 0, total, 1)) @ v
    return x + out @ w["o"]


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


def declared_layers():
    layers = []
    for k in range(LAYERS):
        if NO_ROPE_LAYERS[k]:
            layers.append({"rotate": {"base": ROPE_THETA, "layout": "halves"}})
        else:
            layers.append({"rotate": None, "attn_temperature_tuning": True, "attn_scale": ATTN_SCALE,
                           "floor_scale": FLOOR_SCALE})
    return layers


if __name__ == "__main__":
    name = "llama4-tuning-floor-missing" if FLOOR_MISSING else "llama4-tuning-off-by-one" if OFF_BY_ONE else "llama4"
    serve(name, "float32", forward=forward,
          params={"forward": {"causal": True, "positional": "relative", "width": HIDDEN,
                              "layers": declared_layers()}})

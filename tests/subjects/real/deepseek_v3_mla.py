#!/usr/bin/env python3
"""DeepSeek-V3's multi-head latent attention (MLA) as a pecheck subject declared by its
config.json alone: the rotate op (one query/key head of qk_nope_head_dim + qk_rope_head_dim
features) and the attention op (one head, the MLA softmax scale), in NumPy float32.

Sources, written here from their maths (not copied):
- huggingface/transformers, src/transformers/models/deepseek_v3/modeling_deepseek_v3.py:
  DeepseekV3Attention.forward (q_pass, q_rot = split(q, [qk_nope_head_dim, qk_rope_head_dim]);
  only q_rot and the shared k_rot turn; query = cat(q_pass, q_rot)), apply_rotary_pos_emb_interleave
  (rope_interleave, default true: pairs (2i, 2i+1) regrouped into halves, then rotate_half; the
  output stays regrouped), DeepseekV3Attention.__init__ (scaling = qk_head_dim^−½, times
  yarn_get_mscale(factor, mscale_all_dim)² when rope_scaling sets mscale_all_dim),
  eager_attention_forward (softmax in float32).
- The rope slice's YaRN: transformers modeling_rope_utils.py _compute_yarn_parameters and
  deepseek-ai's modeling_deepseek.py DeepseekV2YarnRotaryEmbedding (dim = qk_rope_head_dim;
  correction range ⌊dim(β_fast)⌋, ⌈dim(β_slow)⌉; cos/sin × g(F, mscale)/g(F, mscale_all_dim),
  g(F, m) = 0.1·m·ln F + 1), shared with deepseek_yarn.py.
- Config: deepseek-ai/DeepSeek-V3 config.json (tests/fixtures/configs/deepseek_v3.json, as published), declared as
  the hello's params.model verbatim: pecheck derives params.rotate (the decoupled rotary) and
  params.attention.scale from it.

Published and planted twins (each fails the claim built for it, with the cause named):
`--no-softmax-mscale`  the softmax scale qk_head_dim^−½ without the YaRN mscale² (onnxruntime/mobius
                       PR #548; transformers' deepseek_v2 until PR #47435; vLLM PR #41569's prefill)
`--rope-mscale-all-dim` cos/sin scaled by g(F, mscale_all_dim) instead of the ratio (kekzl/imp PR #880)
`--rope-on-nope`       the rotary on the first qk_rope_head_dim features (the split reversed; planted)
`--no-interleave`      rotate_half on the rope slice without the regrouping (rope_interleave ignored; planted)
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from deepseek_yarn import interleave_to_halves, yarn_get_mscale, yarn_inv_freq  # noqa: E402
from hf_llama_rope import rotate_half  # noqa: E402
from pecheck_subject import serve  # noqa: E402

CONFIG = json.load(open(os.path.join(HERE, "..", "..", "fixtures", "configs", "deepseek_v3.json")))
NOPE = CONFIG["qk_nope_head_dim"]
ROPE = CONFIG["qk_rope_head_dim"]
QK_HEAD_DIM = NOPE + ROPE
SCALING = CONFIG["rope_scaling"]

NO_SOFTMAX_MSCALE = "--no-softmax-mscale" in sys.argv
ROPE_MSCALE_ALL_DIM = "--rope-mscale-all-dim" in sys.argv
ROPE_ON_NOPE = "--rope-on-nope" in sys.argv
NO_INTERLEAVE = "--no-interleave" in sys.argv


def attention_factor():
    """The magnitude on the rope slice's cos/sin: the ratio of the two mscales."""
    factor = SCALING["factor"]
    if ROPE_MSCALE_ALL_DIM:  # kekzl/imp PR #880: one mscale, mscale_all_dim's, on the rotary
        return yarn_get_mscale(factor, SCALING.get("mscale_all_dim", 0))
    return yarn_get_mscale(factor, SCALING.get("mscale", 1)) / yarn_get_mscale(factor, SCALING.get("mscale_all_dim", 0))


def rope_slice(positions, x):
    """apply_rotary_pos_emb_interleave on a rope slice (rows = positions)."""
    freqs = np.asarray(positions, dtype=np.float32)[:, None] * yarn_inv_freq(ROPE, float(CONFIG["rope_theta"]), SCALING)[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    m = np.float32(attention_factor())
    cos, sin = np.cos(emb) * m, np.sin(emb) * m
    if CONFIG.get("rope_interleave", True) and not NO_INTERLEAVE:
        x = interleave_to_halves(x)
    return x * cos + rotate_half(x) * sin


def rotate(positions, x, seq_len=None):
    q = np.asarray(x, dtype=np.float32)
    if q.shape[-1] != QK_HEAD_DIM:
        raise ValueError(f"an MLA head is {NOPE} + {ROPE} features, got {q.shape[-1]}")
    if ROPE_ON_NOPE:  # the split reversed: [rope | nope]
        q_rot, q_pass = q[:, :ROPE], q[:, ROPE:]
        return np.concatenate([rope_slice(positions, q_rot), q_pass], axis=-1)
    q_pass, q_rot = q[:, :NOPE], q[:, NOPE:]
    return np.concatenate([q_pass, rope_slice(positions, q_rot)], axis=-1)


def softmax_scale():
    scaling = QK_HEAD_DIM ** -0.5
    if NO_SOFTMAX_MSCALE:  # mobius PR #548: only the rotary's mscale ratio, which is 1 here
        return scaling
    mscale_all_dim = SCALING.get("mscale_all_dim", 0)
    if mscale_all_dim:
        m = yarn_get_mscale(SCALING["factor"], mscale_all_dim)
        scaling = scaling * m * m
    return scaling


def attention(q, k, v, mask):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    n, m = q.shape[0], k.shape[0]
    if isinstance(mask, str) and mask == "causal":
        allowed = np.tril(np.ones((n, m), dtype=bool))  # top-left, the protocol's default alignment
    elif isinstance(mask, str):
        allowed = np.ones((n, m), dtype=bool)
    else:
        allowed = np.asarray(mask, dtype=bool)
    scores = (q @ k.T) * np.float32(softmax_scale())
    scores = np.where(allowed, scores, np.float32(-np.inf))
    top = scores.max(axis=-1, keepdims=True)
    e = np.where(allowed, np.exp(scores - np.where(np.isfinite(top), top, 0)), np.float32(0))
    total = e.sum(axis=-1, keepdims=True)
    return np.where(total > 0, e / np.where(total > 0, total, 1), 0) @ v


if __name__ == "__main__":
    serve("deepseek-v3-mla", "float32", rotate=rotate, attention=attention, params={"model": CONFIG})

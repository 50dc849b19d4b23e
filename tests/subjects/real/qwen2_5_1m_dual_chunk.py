#!/usr/bin/env python3
"""Qwen2.5-1M's dual chunk attention (DCA) as a pecheck subject: the
attention op, given queries and keys BEFORE their rotary, rotates them itself
at the chunk-remapped positions and attends causally.

Sources, written here from their maths in NumPy float32 (no code copied):
- vllm-project/vllm, vllm/model_executor/layers/rotary_embedding/dual_chunk_rope.py,
  DualChunkRotaryEmbedding._compute_cos_sin_cache and forward_native: with
  chunk_len L = chunk_size − local_size, keys rotate at k_t = j mod L; the
  query has three rotations: q_t = p mod L (its own chunk), qc_t =
  min(p mod L + L, chunk_size) (the chunk before), and the qc table's last row
  min(2L − 1, chunk_size) for every earlier chunk (query_inter); inv_freq in
  float32 from torch.arange(0, rotary_dim, 2, dtype=float) / rotary_dim;
  is_neox_style (Qwen2) rotates the halves.
- vllm-project/vllm, vllm/attention/backends/dual_chunk_flash_attn.py,
  DualChunkFlashAttentionImpl._dual_chunk_flash_attn_prefill_func: the queries
  of chunk ⌊p/L⌋ attend causally to their own chunk's keys with the intra
  query, fully to the previous chunk's keys with the successive one and to
  every earlier key with the inter one, each part a flash attention returning
  its log-sum-exp, merged (merge_attn_states) into one softmax.
- HKUNLP/ChunkLlama (An et al. 2024, "Training-Free Long-Context Scaling of
  Large Language Models"), chunkllama_attn_replace.py: the same three ranges.
Sizes come from the model's config.json (`--config PATH`), as vLLM reads
them: dual_chunk_attention_config's chunk_size and local_size, rope_theta,
num_attention_heads / num_key_value_heads (here 2 over 1: the test declares
its own head counts).

`--successive-unclamped`: a planted twin, not a published bug: the previous
chunk's queries rotated from the table vLLM keeps for its sparse "critical"
path, cos_sin_qc_no_clamp_cache (p mod L + L, no clamp at chunk_size), in
place of the clamped cos_sin_qc_cache the dense path reads.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402

UNCLAMPED = "--successive-unclamped" in sys.argv
HEADS, KV_HEADS = 2, 1


def config_path():
    if "--config" not in sys.argv:
        raise SystemExit("usage: qwen2_5_1m_dual_chunk.py --config CONFIG.json [--successive-unclamped]")
    return sys.argv[sys.argv.index("--config") + 1]


CONFIG = json.load(open(config_path()))
DCA = CONFIG["dual_chunk_attention_config"]
CHUNK_SIZE, LOCAL_SIZE = DCA["chunk_size"], DCA["local_size"]
CHUNK_LEN = CHUNK_SIZE - LOCAL_SIZE
BASE = CONFIG.get("rope_theta", 10000.0)


def rotary_tables(rotary_dim):
    """The cos/sin tables of DualChunkRotaryEmbedding, indexed by position within the chunk."""
    inv_freq = np.float32(1.0) / np.power(np.float32(BASE),
                                          np.arange(0, rotary_dim, 2, dtype=np.float32) / np.float32(rotary_dim))
    t = np.arange(CHUNK_LEN, dtype=np.float32)
    q_t = t
    qc_t = t + CHUNK_LEN if UNCLAMPED else np.minimum(t + CHUNK_LEN, np.float32(CHUNK_SIZE))
    tables = {}
    for name, pos in (("q", q_t), ("qc", qc_t)):
        freqs = np.outer(pos, inv_freq).astype(np.float32)
        tables[name] = (np.cos(freqs), np.sin(freqs))
    return tables, inv_freq


def rotate_neox(x, cos, sin):
    """x * cos + rotate_half(x) * sin, the halves turned together."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    c = np.concatenate([cos, cos], axis=-1)
    s = np.concatenate([sin, sin], axis=-1)
    rotated_half = np.concatenate([-x2, x1], axis=-1)
    return (x * c + rotated_half * s).astype(np.float32)


def dual_chunk_rotary(q, k):
    """forward_native: the key and the three query rotations (rows are positions 0..n-1)."""
    n, m, d = q.shape[-2], k.shape[-2], q.shape[-1]
    tables, inv_freq = rotary_tables(d)
    k_freqs = np.outer((np.arange(m) % CHUNK_LEN).astype(np.float32), inv_freq).astype(np.float32)
    key = rotate_neox(k, np.cos(k_freqs), np.sin(k_freqs))
    p = np.arange(n) % CHUNK_LEN
    query = rotate_neox(q, tables["q"][0][p], tables["q"][1][p])
    query_succ = rotate_neox(q, tables["qc"][0][p], tables["qc"][1][p])
    last = np.full(n, CHUNK_LEN - 1)
    query_inter = rotate_neox(q, tables["qc"][0][last], tables["qc"][1][last])
    return query, query_succ, query_inter, key


def attend(q, k, v, causal, scale):
    """One flash-attention part: its output and log-sum-exp per query row (−inf where it sees no key)."""
    s = (q @ k.T) * np.float32(scale)
    if causal:
        s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, np.float32(-np.inf))
    top = s.max(axis=-1, keepdims=True)
    safe = np.where(np.isfinite(top), top, np.float32(0))
    e = np.exp(s - safe)
    total = e.sum(axis=-1, keepdims=True)
    out = (e @ v) / np.where(total > 0, total, np.float32(1))
    lse = np.where(total[:, 0] > 0, np.log(np.where(total[:, 0] > 0, total[:, 0], 1)) + safe[:, 0], -np.inf)
    return out.astype(np.float32), lse.astype(np.float32)


def merge(parts):
    """merge_attn_states: the parts' outputs weighted by exp(lse − max lse)."""
    lses = np.stack([lse for _, lse in parts])
    top = lses.max(axis=0)
    weights = np.exp(lses - top)
    weights = weights / weights.sum(axis=0)
    return sum(w[:, None] * out for (out, _), w in zip(parts, weights)).astype(np.float32)


def prefill_head(q, q_succ, q_inter, k, v, scale):
    """_dual_chunk_flash_attn_prefill_func for one head, queries and keys at positions 0..n-1."""
    n = q.shape[0]
    out = np.zeros((n, v.shape[-1]), dtype=np.float32)
    begin = 0
    while begin < n:
        start = (begin // CHUNK_LEN) * CHUNK_LEN
        end = min(start + CHUNK_LEN, n)
        parts = [attend(q[begin:end], k[start:end], v[start:end], True, scale)]
        if start - CHUNK_LEN >= 0:
            parts.append(attend(q_succ[begin:end], k[start - CHUNK_LEN:start], v[start - CHUNK_LEN:start], False, scale))
        if start - 2 * CHUNK_LEN >= 0:
            parts.append(attend(q_inter[begin:end], k[:start - CHUNK_LEN], v[:start - CHUNK_LEN], False, scale))
        out[begin:end] = merge(parts)
        begin = end
    return out


def attention(q, k, v, mask):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    if not (isinstance(mask, str) and mask == "causal"):
        raise ValueError("dual chunk attention is causal (vLLM's backend refuses causal=False)")
    if q.shape[1] != k.shape[1]:
        raise ValueError("self-attention: as many queries as keys")
    group = q.shape[0] // k.shape[0]
    scale = q.shape[-1] ** -0.5
    out = np.zeros((q.shape[0], q.shape[1], v.shape[-1]), dtype=np.float32)
    for kv in range(k.shape[0]):
        for h in range(kv * group, (kv + 1) * group):
            query, query_succ, query_inter, key = dual_chunk_rotary(q[h], k[kv])
            out[h] = prefill_head(query, query_succ, query_inter, key, v[kv], scale)
    return out


if __name__ == "__main__":
    serve("qwen2.5-1m-dual-chunk-attention", "float32", attention=attention,
          params={"attention": {"heads": HEADS, "kv_heads": KV_HEADS}})

#!/usr/bin/env python3
"""A small Llama-style decoder block in PyTorch, with a key/value cache, served to pecheck.

Written from the equations of huggingface/transformers
src/transformers/models/llama/modeling_llama.py (LlamaDecoderLayer,
LlamaAttention, LlamaMLP, LlamaRMSNorm, rotate_half / apply_rotary_pos_emb),
at toy size with fixed random weights (seed 0, float64):

    h = x + W_o · Attn(RoPE(RMSNorm(x) W_q), RoPE(RMSNorm(x) W_k), RMSNorm(x) W_v)
    y = h + W_down · (SiLU(RMSNorm(h) W_gate) ⊙ RMSNorm(h) W_up)

RoPE rotates each head in the halves layout (pairs (i, i + d_h/2)) at the
positions pecheck gives; attention is causal and ignores pads.

`forward(x, positions, padding)` runs the block on a batch;
`decode(session, x, position)` appends one token to the session's cache
(keys cached after rotation, as HF does) and returns its output row;
`reset(session)` forgets it. Step-by-step decoding must equal one forward
(module.incremental_decoding); tests/subjects/llama_*.py are buggy twins.

Check it:  pecheck run --subject cmd:'python3 examples/python/torch_llama_block.py'
pecheck starts it once: serve declares fork (one thread, below), and each job's
instance and every fresh copy history_independence compares with is a copy
forked from it once the block is built (docs/fresh-copies.md).
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import torch  # noqa: E402

from pecheck_subject import serve  # noqa: E402

torch.set_num_threads(1)  # small matrices: threads cost more than they save (and one thread can fork)
F64 = torch.float64


class LlamaBlock:
    width, heads, hidden, base, eps = 32, 4, 64, 10000.0, 1e-6

    def __init__(self, seed=0):
        g = torch.Generator().manual_seed(seed)

        def projection(fan_in, fan_out):  # unit-variance map, applied as x @ w
            return (torch.rand(fan_in, fan_out, generator=g, dtype=F64) * 2 - 1) * math.sqrt(3 / fan_in)

        d, f = self.width, self.hidden
        self.wq, self.wk, self.wv, self.wo = (projection(d, d) for _ in range(4))
        self.w_gate, self.w_up, self.w_down = projection(d, f), projection(d, f), projection(f, d)
        self.attention_norm = 1 + 0.2 * (torch.rand(d, generator=g, dtype=F64) * 2 - 1)
        self.mlp_norm = 1 + 0.2 * (torch.rand(d, generator=g, dtype=F64) * 2 - 1)
        self.head_width = d // self.heads
        self.inv_freq = self.base ** (-torch.arange(0, self.head_width, 2, dtype=F64) / self.head_width)
        self.sessions = {}

    # --- the pieces -------------------------------------------------------
    def rms_norm(self, x, weight):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * weight

    def split_heads(self, t):  # (B, N, d) -> (B, H, N, d_h)
        b, n, _ = t.shape
        return t.view(b, n, self.heads, self.head_width).transpose(1, 2)

    def rotary(self, t, positions):
        """t (B, H, N, d_h) rotated at positions (B, N): t·cos + rotate_half(t)·sin."""
        angles = positions[:, None, :, None].to(F64) * self.inv_freq
        cos, sin = torch.cat((angles.cos(), angles.cos()), -1), torch.cat((angles.sin(), angles.sin()), -1)
        first, second = t[..., : self.head_width // 2], t[..., self.head_width // 2:]
        return t * cos + torch.cat((-second, first), -1) * sin

    def causal(self, n):
        """allowed[i, j]: query i may see key j."""
        return torch.ones(n, n, dtype=torch.bool).tril()

    def attend(self, q, k, v, allowed):
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_width)
        weights = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
        weights = torch.nan_to_num(weights, nan=0.0)  # a pad before any real token sees no key
        b, _, n, _ = q.shape
        return (weights @ v).transpose(1, 2).reshape(b, n, self.width) @ self.wo

    def mlp(self, h):
        normed = self.rms_norm(h, self.mlp_norm)
        return (torch.nn.functional.silu(normed @ self.w_gate) * (normed @ self.w_up)) @ self.w_down

    # --- the ops ----------------------------------------------------------
    def forward(self, x, positions, padding):
        x = torch.tensor(x, dtype=F64)
        if x.ndim != 3 or x.shape[2] != self.width:
            raise ValueError(f"takes a batch of sequences of width {self.width}, got shape {tuple(x.shape)}")
        b, n = x.shape[:2]  # positions and padding default to 0..N-1 and every token real
        positions = torch.arange(n).expand(b, n) if positions is None else \
            torch.tensor(positions, dtype=torch.long).reshape(b, n)
        real = torch.ones(b, n, dtype=torch.bool) if padding is None else \
            torch.tensor(padding, dtype=torch.bool).reshape(b, n)
        normed = self.rms_norm(x, self.attention_norm)
        q = self.rotary(self.split_heads(normed @ self.wq), positions)
        k = self.rotary(self.split_heads(normed @ self.wk), positions)
        v = self.split_heads(normed @ self.wv)
        allowed = self.causal(x.shape[1])[None, None] & real[:, None, None, :]
        h = x + self.attend(q, k, v, allowed)
        return h + self.mlp(h)

    def cache_key(self, cache, k, position):
        """Appends the new token's key to the cache, rotated at its position."""
        cache["k"].append(self.rotary(k, torch.tensor([[position]])))

    def decode(self, session, x, position):
        x = torch.tensor(x, dtype=F64)
        if x.shape != (self.width,):
            raise ValueError(f"decodes tokens of width {self.width}, got shape {tuple(x.shape)}")
        cache = self.sessions.setdefault(session, {"k": [], "v": [], "positions": []})
        token = x[None, None]  # (1, 1, d)
        normed = self.rms_norm(token, self.attention_norm)
        q = self.rotary(self.split_heads(normed @ self.wq), torch.tensor([[position]]))
        cache["positions"].append(position)
        self.cache_key(cache, self.split_heads(normed @ self.wk), position)
        cache["v"].append(self.split_heads(normed @ self.wv))
        keys, values = torch.cat(cache["k"], 2), torch.cat(cache["v"], 2)
        allowed = torch.ones(1, 1, 1, keys.shape[2], dtype=torch.bool)
        h = token + self.attend(q, keys, values, allowed)
        return (h + self.mlp(h))[0, 0]

    def reset(self, session):
        self.sessions.pop(session, None)


def serve_block(name, block):
    serve(name, "float64", forward=block.forward, decode=block.decode, reset=block.reset,
          params={"forward": {"causal": True, "positional": "relative", "width": block.width}})


if __name__ == "__main__":
    serve_block("torch-llama-block", LlamaBlock())

#!/usr/bin/env python3
"""Hugging Face Llama rotary embedding in a bfloat16 model (correct), as a pecheck subject.

Source: huggingface/transformers, src/transformers/models/llama/modeling_llama.py
(LlamaRotaryEmbedding.forward, rotate_half, apply_rotary_pos_emb; v4.38 on,
after issues #25681 and #29496). Written here from its maths in PyTorch: the
angles stay float32 whatever the model dtype (inv_freq and position_ids
.float(), autocast disabled), cos and sin are cast to the model's bfloat16,
and q · cos + rotate_half(q) · sin is computed in bfloat16.

Declared: dtype bfloat16 (the values) with compute.angles float32.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import torch  # noqa: E402

from pecheck_subject import serve  # noqa: E402

BASE = 10000.0


class LlamaRotaryEmbedding(torch.nn.Module):
    def __init__(self, dim, base=BASE):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    @torch.no_grad()
    def forward(self, x, position_ids):
        inv_freq = self.inv_freq[None, :, None].float()
        positions = position_ids[None, None, :].float()
        freqs = (inv_freq @ positions).transpose(1, 2)[0]  # float32 whatever x is
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(dtype=x.dtype), emb.sin().to(dtype=x.dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary_pos_emb(q, cos, sin):
    return (q * cos) + (rotate_half(q) * sin)


_modules = {}


def rotate(positions, x, seq_len=None):
    q = torch.tensor(x, dtype=torch.float32).to(torch.bfloat16)
    dim = q.shape[-1]
    if dim < 2 or dim % 2:
        raise ValueError(f"rotate_half splits the head in two: needs an even head_dim, got {dim}")
    if dim not in _modules:
        # from_pretrained(torch_dtype=torch.bfloat16) builds the module under a
        # bfloat16 default dtype; inv_freq is made with an explicit .float() and
        # stays float32 (a later model.to(torch.bfloat16) would round it: #29496).
        _modules[dim] = LlamaRotaryEmbedding(dim)
    cos, sin = _modules[dim](q, torch.tensor(positions, dtype=torch.int64))
    return apply_rotary_pos_emb(q, cos, sin).float()


if __name__ == "__main__":
    serve("hf-llama-rope-bf16", "bfloat16", rotate=rotate, compute={"angles": "float32"},
          params={"rotate": {"base": BASE, "layout": "halves"}})

#!/usr/bin/env python3
"""Hugging Face Llama rotary embedding, transformers v4.31–v4.37, in a bfloat16 model.

Source: huggingface/transformers v4.31–v4.37,
src/transformers/models/llama/modeling_llama.py (LlamaRotaryEmbedding with
_set_cos_sin_cache, rotate_half, apply_rotary_pos_emb); the bug is issues
#25681 and #29496. Written here from its maths in PyTorch, with the mechanism
that produced it:

  * __init__ computes inv_freq in float32 and builds the cos/sin cache for
    max_position_embeddings = 2048 positions in float32: correct;
  * model.to(torch.bfloat16) casts every buffer, inv_freq included;
  * a forward pass with seq_len > max_seq_len_cached rebuilds the cache from
    t = arange(seq_len, dtype=inv_freq.dtype), now bfloat16: positions past 256
    round (257 → 256), and the angles t·inv_freq are bfloat16 products.

So requests up to 2048 tokens are right; the first longer one rebuilds the
cache in bfloat16, and it stays rebuilt: every later request, short ones
included, reads the bfloat16 cache (a history-dependent answer, as in the
real module). The hello declares what the code claims: bfloat16 values with
float32 angles (compute.angles), like the fixed v4.38 code.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import torch  # noqa: E402

from pecheck_subject import serve  # noqa: E402

BASE = 10000
MAX_POSITION_EMBEDDINGS = 2048


class LlamaRotaryEmbedding(torch.nn.Module):
    def __init__(self, dim, max_position_embeddings=MAX_POSITION_EMBEDDINGS, base=BASE):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._set_cos_sin_cache(max_position_embeddings, dtype=torch.get_default_dtype())

    def _set_cos_sin_cache(self, seq_len, dtype):
        self.max_seq_len_cached = seq_len
        t = torch.arange(self.max_seq_len_cached, dtype=self.inv_freq.dtype)
        freqs = torch.einsum("i,j->ij", t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos().to(dtype), persistent=False)
        self.register_buffer("sin_cached", emb.sin().to(dtype), persistent=False)

    def forward(self, x, seq_len):
        if seq_len > self.max_seq_len_cached:
            self._set_cos_sin_cache(seq_len, dtype=x.dtype)
        return self.cos_cached[:seq_len].to(dtype=x.dtype), self.sin_cached[:seq_len].to(dtype=x.dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary_pos_emb(q, cos, sin, position_ids):
    cos, sin = cos[position_ids], sin[position_ids]
    return (q * cos) + (rotate_half(q) * sin)


_modules = {}


def rotate(positions, x, seq_len=None):
    q = torch.tensor(x, dtype=torch.float32).to(torch.bfloat16)
    dim = q.shape[-1]
    if dim < 2 or dim % 2:
        raise ValueError(f"rotate_half splits the head in two: needs an even head_dim, got {dim}")
    # kv_seq_len: the length of the sequence the positions belong to
    length = seq_len if seq_len is not None else max(positions) + 1
    if max(positions) >= length:
        raise ValueError(f"position {max(positions)} is outside a sequence of {length}")
    if dim not in _modules:
        _modules[dim] = LlamaRotaryEmbedding(dim).to(torch.bfloat16)  # the model cast to bfloat16
    cos, sin = _modules[dim](q, seq_len=length)
    return apply_rotary_pos_emb(q, cos, sin, torch.tensor(positions, dtype=torch.int64)).float()


if __name__ == "__main__":
    serve("hf-llama-rope-bf16-v4.31", "bfloat16", rotate=rotate, compute={"angles": "float32"},
          params={"rotate": {"base": BASE, "layout": "halves"}})

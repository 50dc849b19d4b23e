#!/usr/bin/env python3
"""PyTorch's nn.MultiheadAttention, served to pecheck as one-head attention.

The protocol's attention is softmax(q kᵀ/√d_k + mask) v for the q, k, v it
sends. nn.MultiheadAttention computes out_proj(Attn(W_q q, W_k k, W_v v)), so
with one head, no biases and identity projections it is exactly that (its
1/√head_dim scaling is 1/√d_k when embed_dim = d_k). Values wider than d_k are
sent through in column blocks of d_k (each output column depends only on its
value column), narrower ones are zero-padded; both change nothing.

Masks: the protocol says True where query i MAY attend to key j; a boolean
attn_mask in PyTorch says True where it may NOT. Passing one for the other
is a classic bug (see tests/subjects/inverted_mask.py); here it is inverted.

Check it:  pecheck run --subject cmd:'python3 examples/python/torch_mha.py'
float32 by default (PyTorch's default); pass float64 as the first argument.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import torch  # noqa: E402

from pecheck_subject import serve  # noqa: E402

DTYPE = sys.argv[1] if len(sys.argv) > 1 else "float32"
TORCH_DTYPE = {"float64": torch.float64, "float32": torch.float32}[DTYPE]
torch.set_num_threads(1)  # small matrices: threads cost more than they save

_modules = {}


def identity_mha(d_k):
    """One head, no bias, identity in- and out-projections, embed_dim = d_k."""
    if d_k not in _modules:
        mha = torch.nn.MultiheadAttention(d_k, num_heads=1, bias=False, batch_first=True)
        mha = mha.to(TORCH_DTYPE).eval()
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.eye(d_k, dtype=TORCH_DTYPE).repeat(3, 1))
            mha.out_proj.weight.copy_(torch.eye(d_k, dtype=TORCH_DTYPE))
        _modules[d_k] = mha
    return _modules[d_k]


def torch_mask(mask, n, m):
    """PyTorch's boolean attn_mask: True where attending is NOT allowed."""
    if mask == "none":
        return None
    if mask == "causal":
        return torch.ones(n, m, dtype=torch.bool).triu(diagonal=1)
    return ~torch.tensor(mask, dtype=torch.bool).reshape(n, m)


def attention(q, k, v, mask):
    q = torch.tensor(q, dtype=TORCH_DTYPE)
    k = torch.tensor(k, dtype=TORCH_DTYPE)
    v = torch.tensor(v, dtype=TORCH_DTYPE)
    n, m = len(q), len(k)
    d_k = q.shape[1] if q.ndim == 2 else 0
    d_v = v.shape[1] if v.ndim == 2 else 0
    if n == 0 or m == 0 or d_k == 0:
        raise ValueError(f"nn.MultiheadAttention needs non-empty q, k (got n={n}, m={m}, d_k={d_k})")
    mha = identity_mha(d_k)
    attn_mask = torch_mask(mask, n, m)
    blocks = []
    with torch.no_grad():
        for start in range(0, d_v, d_k):
            block = v[:, start:start + d_k]
            width = block.shape[1]
            if width < d_k:
                block = torch.nn.functional.pad(block, (0, d_k - width))
            out, _ = mha(q[None], k[None], block[None], attn_mask=attn_mask, need_weights=False)
            blocks.append(out[0, :, :width])
    return torch.cat(blocks, dim=1) if blocks else torch.zeros(n, 0, dtype=TORCH_DTYPE)


serve(f"torch-multihead-attention-{DTYPE}", DTYPE, attention=attention, batch=True)

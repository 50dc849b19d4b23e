#!/usr/bin/env python3
"""Planted bug: minGPT's causal self-attention with its mask built by
torch.tril(torch.ones(block_size, block_size), diagonal=1).

The twin of mingpt_causal_attention.py (karpathy/minGPT, mingpt/model.py,
CausalSelfAttention), with the one-character slip a port makes when it reaches
for triu/tril offsets: query i also sees key i + 1, one future token. Every
row but the last differs from causal attention, yet the outputs stay convex
combinations of the values and every order property of attention still holds.
It declares what minGPT declares.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))
sys.path.insert(0, HERE)

from mingpt_causal_attention import causal_attention  # noqa: E402
from pecheck_subject import serve  # noqa: E402


def attention(q, k, v, mask):
    return causal_attention(q, k, v, mask, diagonal=1)  # BUG: tril(…, diagonal=1)


if __name__ == "__main__":
    serve("mingpt-causal-attention", "float32", attention=attention)

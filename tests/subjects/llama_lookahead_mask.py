#!/usr/bin/env python3
"""Planted bug: a causal mask that lets each query see the next token.

torch.ones(n, n).tril(diagonal=1) where tril() (diagonal 0) was meant: query
i sees keys 0..i+1. Through the whole block, output row i then changes when
token i+1 changes (module.causality), and forward no longer equals
step-by-step decoding, which has no future to see (module.incremental_decoding).
Twin of examples/python/torch_llama_block.py.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import torch  # noqa: E402

from torch_llama_block import LlamaBlock, serve_block  # noqa: E402


class LookAheadMask(LlamaBlock):
    def causal(self, n):
        return torch.ones(n, n, dtype=torch.bool).tril(diagonal=1)  # BUG: diagonal=0


if __name__ == "__main__":
    serve_block("torch-llama-block-lookahead-mask", LookAheadMask())

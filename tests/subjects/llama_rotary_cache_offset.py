#!/usr/bin/env python3
"""Planted bug: a rotary cache keyed by the sequence length only, the offset ignored.

lucidrains/rotary-embedding-torch issue #11 ("Bug in cache"):
rotate_queries_or_keys(t, offset=...) cached its frequencies under
cache_key = f'freqs:{seq_len}', so a later call with the same length and a
different offset got the rotation of the first call's offset. Here the block
looks its rotation up by the number of tokens rotated. A forward cannot show
it (RoPE is relative: a whole sequence rotated as if from 0 attends alike),
but decode rotates one token per call, so every token after the first is
rotated as if it stood at the first one's position: module.incremental_decoding
and history_independence find it. Twin of examples/python/torch_llama_block.py.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

from torch_llama_block import LlamaBlock, serve_block  # noqa: E402


class RotaryCacheByLength(LlamaBlock):
    def __init__(self):
        super().__init__()
        self.cached_positions = {}

    def rotary(self, t, positions):
        length = t.shape[-2]
        if length not in self.cached_positions:  # BUG: the key should include the positions (the offset)
            self.cached_positions[length] = positions[:1]  # computed once, for the first sequence
        return super().rotary(t, self.cached_positions[length])


if __name__ == "__main__":
    serve_block("torch-llama-block-rotary-cache-by-length", RotaryCacheByLength())

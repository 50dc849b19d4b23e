#!/usr/bin/env python3
"""Planted bug: decode rotates the cached keys at the wrong positions.

The cache keeps keys unrotated and rotates the whole cache with the position
of the token being decoded, so every cached key stands where the new query
does and every relative distance is 0: decode agrees with forward on the
first token only. The family of huggingface/transformers issue #25104
("Inconsistent Rotation Base for Dynamic NTK Scaling RoPE": cached keys kept
the rotation of another step). module.incremental_decoding finds it.
Twin of examples/python/torch_llama_block.py.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import torch  # noqa: E402

from torch_llama_block import LlamaBlock, serve_block  # noqa: E402


class KvCacheAtCurrentPosition(LlamaBlock):
    def cache_key(self, cache, k, position):
        cache.setdefault("raw", []).append(k)
        raw = torch.cat(cache["raw"], 2)
        # BUG: every cached key rotated at the current position, not at its own.
        cache["k"] = [self.rotary(raw, torch.full((1, raw.shape[2]), position))]


if __name__ == "__main__":
    serve_block("torch-llama-block-kv-cache-wrong-position", KvCacheAtCurrentPosition())

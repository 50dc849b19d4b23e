#!/usr/bin/env python3
"""examples/python/torch_llama_block.py computed in float32, served as float32.

The same block (weights drawn in float64 by the same generator would differ:
here they are drawn in float32, as a float32 checkpoint would hold them); every
tensor, the rotary angles included, in float32. A correct module in the
precision most models run in: pecheck's module claims must hold within the
error model, not only bit for bit (module.* tolerances: properties/module/support.h).

Check it:  pecheck run --subject cmd:'python3 tests/subjects/torch_llama_block_float32.py'
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import torch  # noqa: E402

import torch_llama_block  # noqa: E402

torch_llama_block.F64 = torch.float32  # the module's one dtype, looked up at every use

if __name__ == "__main__":
    block = torch_llama_block.LlamaBlock()
    # Served as inference code is (no autograd bookkeeping: the same numbers, 13% less CPU measured for the
    # 10,000-case test of tests/test_claims_modules_cli.cpp).
    inference = torch.inference_mode()
    torch_llama_block.serve("torch-llama-block-float32", "float32", forward=inference(block.forward),
                            decode=inference(block.decode), reset=block.reset,
                            params={"forward": {"causal": True, "positional": "relative", "width": block.width}})

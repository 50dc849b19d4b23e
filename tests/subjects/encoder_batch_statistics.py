#!/usr/bin/env python3
"""Planted bug: normalisation statistics that mix the sequences of a batch.

nn.TransformerEncoderLayer with its LayerNorms reduced over the wrong axes:
token r is normalised with the mean and variance over the features of token
r of every sequence in the batch (x.mean(dim=(0, 2)) for x.mean(dim=-1)).
A batch of one is normalised exactly as LayerNorm does; beside other
sequences, a sequence's output depends on them (module.batch_invariance).
The layer runs on PyTorch's standard path (grad enabled): its fused
inference fast path would read the norm weights and bypass the replaced
norms. Twin of examples/python/torch_encoder_layer.py.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import torch  # noqa: E402

import torch_encoder_layer as base  # noqa: E402
from pecheck_subject import serve  # noqa: E402


class BatchNormalised(torch.nn.Module):
    def __init__(self, norm):
        super().__init__()
        self.weight, self.bias, self.eps = norm.weight, norm.bias, norm.eps

    def forward(self, x):  # x: (B, N, d)
        mean = x.mean(dim=(0, 2), keepdim=True)  # BUG: dim=-1
        var = x.var(dim=(0, 2), keepdim=True, unbiased=False)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias


base.LAYER.norm1 = BatchNormalised(base.LAYER.norm1)
base.LAYER.norm2 = BatchNormalised(base.LAYER.norm2)


def run_layer(h, padding):
    with torch.enable_grad():
        return base.LAYER(h, src_key_padding_mask=~padding).detach()


base.run_layer = run_layer

if __name__ == "__main__":
    serve("torch-encoder-layer-batch-statistics", "float64", forward=base.forward,
          params={"forward": {"causal": False, "positional": "none", "width": base.WIDTH}})

#!/usr/bin/env python3
"""Planted bug: position ids counted from the start of the row, pads included.

The learned-position encoder (examples/python/torch_encoder_layer.py
--learned-positions) looking up rows 0..N-1 by index instead of the
positions it is given: under left padding its real tokens get the table rows
of later positions, under right padding nothing changes. The bug of
verl-project/verl issue #4159 (response position ids padded on the other
side than the response ids) and tloen/alpaca-lora issue #315 (position_ids
0..N-1 under left padding); module.padding_invariance finds it.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
sys.argv = sys.argv[:1] + ["--learned-positions"]

import torch  # noqa: E402

import torch_encoder_layer as base  # noqa: E402
from pecheck_subject import serve  # noqa: E402


def position_ids(positions, padding):
    batch, tokens = padding.shape
    return torch.arange(tokens).expand(batch, tokens)  # BUG: the given positions ignored


base.position_ids = position_ids

if __name__ == "__main__":
    serve("torch-encoder-layer-position-ids-from-row-start", "float64", forward=base.forward,
          params={"forward": {"causal": False, "positional": "absolute", "width": base.WIDTH}})

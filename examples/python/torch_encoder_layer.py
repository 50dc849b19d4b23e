#!/usr/bin/env python3
"""PyTorch's nn.TransformerEncoderLayer, served to pecheck as a whole module.

One encoder layer with its own fixed weights (torch.manual_seed(0), float64,
eval mode, no dropout): multi-head self-attention, residuals, LayerNorm and
a ReLU feed-forward (PyTorch's defaults: post-norm). pecheck's `forward`
sends a batch of token sequences x (B×N×16), their positions and a padding
mask (True: a real token); the padding becomes src_key_padding_mask (True:
ignore), so pads are never attended to.

Without a positional encoding the layer is permutation-equivariant
(module.permutation_equivariance). With --learned-positions it first adds
a learned absolute position table (nn.Embedding of 4096 rows) at the given
positions, as BERT and GPT-2 do: then some permutation changes more than the
row order (module.absolute_position_sensitivity), and padding must not move
the real tokens' positions (module.padding_invariance).

Check it:  pecheck run --subject cmd:'python3 examples/python/torch_encoder_layer.py'
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import torch  # noqa: E402

from pecheck_subject import serve  # noqa: E402

torch.set_num_threads(1)  # small matrices: threads cost more than they save
WIDTH, HEADS, HIDDEN, TABLE = 16, 4, 32, 4096
LEARNED = "--learned-positions" in sys.argv[1:]

torch.manual_seed(0)
LAYER = torch.nn.TransformerEncoderLayer(WIDTH, HEADS, HIDDEN, dropout=0.0, batch_first=True,
                                         dtype=torch.float64).eval()
POSITIONS = torch.nn.Embedding(TABLE, WIDTH, dtype=torch.float64)


def position_ids(positions, padding):
    """The table row of every token: its given position (pads: row 0, masked anyway)."""
    ids = torch.tensor(positions, dtype=torch.long).masked_fill(~padding, 0)
    real = ids[padding]
    if real.numel() and (real.min() < 0 or real.max() >= TABLE):
        raise ValueError(f"learned positions are 0..{TABLE - 1}, got {real.min().item()}..{real.max().item()}")
    return ids


def embed(x, positions, padding):
    """What enters the layer: x, plus the learned rows of the real tokens' positions."""
    if not LEARNED:
        return x
    return x + POSITIONS(position_ids(positions, padding)) * padding[..., None]


def run_layer(h, padding):
    with torch.no_grad():
        return LAYER(h, src_key_padding_mask=~padding)


def forward(x, positions, padding):
    x = torch.tensor(x, dtype=torch.float64)
    if x.ndim != 3 or x.shape[2] != WIDTH:
        raise ValueError(f"takes a batch of sequences of width {WIDTH}, got shape {tuple(x.shape)}")
    if positions is None:  # the protocol's defaults: 0..N-1, every token real
        positions = [list(range(x.shape[1]))] * x.shape[0]
    padding = torch.ones(x.shape[:2], dtype=torch.bool) if padding is None else \
        torch.tensor(padding, dtype=torch.bool).reshape(x.shape[:2])
    with torch.no_grad():
        h = embed(x, positions, padding)
    return run_layer(h, padding)


if __name__ == "__main__":
    positional = "absolute" if LEARNED else "none"
    serve("torch-encoder-layer" + ("-learned-positions" if LEARNED else ""), "float64", forward=forward,
          params={"forward": {"causal": False, "positional": positional, "width": WIDTH}})

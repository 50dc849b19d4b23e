"""GPT-2-style learned absolute positions under a causal attention layer, in torch, batched with left padding.

As transformers does when position_ids is None, the positions come from the padding mask."""
import torch


class Gpt2Block(torch.nn.Module):
    def __init__(self, width=16, max_positions=1024, seed=0):
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        self.wpe = torch.nn.Parameter(torch.randn(max_positions, width, generator=generator) * 0.5)
        self.q, self.k, self.v = (torch.nn.Parameter(torch.randn(width, width, generator=generator) / width ** 0.5)
                                  for _ in range(3))

    def position_ids(self, padding):
        position_ids = padding.long().cumsum(-1) - 1
        return position_ids.masked_fill(~padding, 1)

    def forward(self, x, positions, padding):
        h = x + self.wpe[self.position_ids(padding)]
        n = x.shape[1]
        allowed = torch.tril(torch.ones(n, n, dtype=torch.bool))[None] & padding[:, None, :]
        logits = (h @ self.q) @ (h @ self.k).transpose(-1, -2) / x.shape[-1] ** 0.5
        weights = torch.nan_to_num(torch.softmax(logits.masked_fill(~allowed, float("-inf")), dim=-1))
        return weights @ (h @ self.v)


class Gpt2BlockArangePositions(Gpt2Block):
    """The bug: position ids from arange(n), so a left-padded sequence's tokens sit at shifted positions."""

    def position_ids(self, padding):
        return torch.arange(padding.shape[1]).expand_as(padding)

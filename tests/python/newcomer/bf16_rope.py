"""A bfloat16 rotary module in torch: the angles in float32 as transformers computes them, the values in bfloat16."""
import torch


class Bf16Rotary(torch.nn.Module):
    def __init__(self, base=10000.0, max_dim=256):
        super().__init__()
        self.base = base
        # Kept float32 by hand: module.to(torch.bfloat16) would cast a registered buffer.
        self.inv_freq_table = {d: 1.0 / base ** (torch.arange(0, d, 2).float() / d) for d in range(2, max_dim + 1, 2)}
        self.anchor = torch.nn.Parameter(torch.zeros(1))  # the module's dtype, bfloat16 after .to()

    def inv_freq(self, d):
        return self.inv_freq_table[d]

    def forward(self, positions, x):
        freqs = positions.float()[:, None] * self.inv_freq(x.shape[-1])[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return x * cos + torch.cat((-x2, x1), dim=-1) * sin


class Bf16RotaryCastInvFreq(Bf16Rotary):
    """The bug: inv_freq registered as a buffer, so module.to(torch.bfloat16) rounds it to bfloat16."""

    def inv_freq(self, d):
        return self.inv_freq_table[d].to(torch.bfloat16).float()

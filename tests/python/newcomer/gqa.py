"""Grouped-query causal self-attention (8 query heads share 2 key/value heads), in torch."""
import torch


class GroupedQueryAttention(torch.nn.Module):
    def __init__(self, width=16, heads=8, kv_heads=2, seed=0, causal=True):
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, width // heads
        self.wq = torch.nn.Parameter(torch.randn(width, heads * self.head_dim, generator=generator) / width ** 0.5)
        self.wk = torch.nn.Parameter(torch.randn(width, kv_heads * self.head_dim, generator=generator) / width ** 0.5)
        self.wv = torch.nn.Parameter(torch.randn(width, kv_heads * self.head_dim, generator=generator) / width ** 0.5)
        self.wo = torch.nn.Parameter(torch.randn(heads * self.head_dim, width, generator=generator) / width ** 0.5)
        self.causal = causal

    def forward(self, x, positions, padding):
        b, n, _ = x.shape
        q = (x @ self.wq).view(b, n, self.heads, self.head_dim).transpose(1, 2)
        k = (x @ self.wk).view(b, n, self.kv_heads, self.head_dim).transpose(1, 2)
        v = (x @ self.wv).view(b, n, self.kv_heads, self.head_dim).transpose(1, 2)
        group = self.heads // self.kv_heads
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        allowed = padding[:, None, None, :].expand(b, 1, n, n)
        if self.causal:
            allowed = allowed & torch.tril(torch.ones(n, n, dtype=torch.bool))
        logits = (q @ k.transpose(-1, -2)) / self.head_dim ** 0.5
        weights = torch.nan_to_num(torch.softmax(logits.masked_fill(~allowed, float("-inf")), dim=-1))
        return (weights @ v).transpose(1, 2).reshape(b, n, -1) @ self.wo

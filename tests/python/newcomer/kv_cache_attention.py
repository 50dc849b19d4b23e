"""Causal self-attention with a KV cache for incremental decoding, in torch (one head, no positional encoding)."""
import torch


class CausalSelfAttention(torch.nn.Module):
    def __init__(self, width=16, seed=0):
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        self.q, self.k, self.v = (torch.nn.Parameter(torch.randn(width, width, generator=generator) / width ** 0.5)
                                  for _ in range(3))
        self.cache = {}

    def attend(self, q, k, v, allowed):
        logits = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
        logits = logits.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(logits, dim=-1)) @ v

    def forward(self, x, positions, padding):
        n = x.shape[1]
        causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
        allowed = causal[None] & padding[:, None, :]
        return self.attend(x @ self.q, x @ self.k, x @ self.v, allowed)

    def reset(self, session):
        self.cache[session] = (torch.zeros(0, self.k.shape[0]), torch.zeros(0, self.v.shape[0]))

    def decode(self, session, x, position):
        keys, values = self.cache[session]
        keys, values = torch.cat([keys, (x @ self.k)[None]]), torch.cat([values, (x @ self.v)[None]])
        self.cache[session] = (keys, values)
        return self.attend((x @ self.q)[None], keys, values, torch.ones(1, keys.shape[0], dtype=torch.bool))[0]


class CacheAfterAttention(CausalSelfAttention):
    """The bug: the new token's key and value are appended after it attends, so it never sees itself."""

    def decode(self, session, x, position):
        keys, values = self.cache[session]
        if keys.shape[0] == 0:
            out = x @ self.v
        else:
            out = self.attend((x @ self.q)[None], keys, values, torch.ones(1, keys.shape[0], dtype=torch.bool))[0]
        self.cache[session] = (torch.cat([keys, (x @ self.k)[None]]), torch.cat([values, (x @ self.v)[None]]))
        return out

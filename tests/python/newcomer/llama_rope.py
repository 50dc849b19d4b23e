"""HF-style Llama rotary embedding (transformers' LlamaRotaryEmbedding + apply_rotary_pos_emb), in torch."""
import torch


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class LlamaRotaryEmbedding(torch.nn.Module):
    def __init__(self, base=10000.0, head_dim=None):
        super().__init__()
        self.base = base
        self.head_dim = head_dim  # a module built for one width refuses the others

    def inv_freq(self, dim, device):
        return 1.0 / (self.base ** (torch.arange(0, dim, 2, dtype=torch.int64, device=device).float() / dim))

    def cos_sin(self, position_ids, dim, device):
        freqs = position_ids.float()[:, None] * self.inv_freq(dim, device)[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos(), emb.sin()

    def forward(self, positions, x):
        if self.head_dim is not None and x.shape[-1] != self.head_dim:
            raise ValueError(f"this rotary embedding is built for head_dim={self.head_dim}, got {x.shape[-1]}")
        cos, sin = self.cos_sin(positions, x.shape[-1], x.device)
        return (x * cos.to(x.dtype)) + (rotate_half(x) * sin.to(x.dtype))


class LlamaRotaryIgnoringPositions(LlamaRotaryEmbedding):
    """The bug: cos/sin from torch.arange(seq_len), as when the module drops the position_ids it is given."""

    def forward(self, positions, x):
        arange = torch.arange(x.shape[0], device=x.device)
        cos, sin = self.cos_sin(arange, x.shape[-1], x.device)
        return (x * cos.to(x.dtype)) + (rotate_half(x) * sin.to(x.dtype))

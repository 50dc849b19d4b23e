"""A rotary position embedding as a PyTorch module, the way a model holds it (the user's code
in the pytest examples test_torch_rotary*.py).

Llama form, written from the maths of huggingface/transformers
src/transformers/models/llama/modeling_llama.py (LlamaRotaryEmbedding, rotate_half,
apply_rotary_pos_emb): a head of width d rotates in pairs (i, i + d/2) by t·ω_i,
ω_i = base^(−2i/d).
"""
import torch


class Rotary(torch.nn.Module):
    """Angles in float32 whatever the values' dtype, also under autocast; cos and sin cast to the
    values' dtype (transformers >= 4.38, after PR #29285)."""

    def __init__(self, base=10000.0):
        super().__init__()
        self.base = base
        self._inv_freq = {}  # per head width; plain tensors, so that model.to(dtype) leaves them float32

    def inv_freq(self, d):
        if d not in self._inv_freq:
            self._inv_freq[d] = 1.0 / self.base ** (torch.arange(0, d, 2, dtype=torch.float32) / d)
        return self._inv_freq[d]

    def angles(self, positions, d):
        with torch.autocast(device_type=positions.device.type, enabled=False):
            return (self.inv_freq(d)[:, None].float() @ positions[None, :].float()).T

    def rotate(self, positions, x):
        """x (n × d) with row r rotated to positions[r]."""
        d = x.shape[-1]
        if d % 2:
            raise ValueError(f"rotates pairs of features: needs an even width, got {d}")
        freqs = self.angles(positions.to(x.device), d)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
        return x * cos + torch.cat((-x[..., d // 2:], x[..., :d // 2]), dim=-1) * sin


class RotaryBeforeAutocastFix(Rotary):
    """transformers before PR #29285: the same matrix product inv_freq @ positions, but not shielded
    from autocast. In a mixed-precision step (torch.autocast with bfloat16) the product is computed
    in bfloat16, 8 significant bits: position 257 rotates as 256, 2049 as 2048, while the values
    stay float32."""

    def angles(self, positions, d):
        return (self.inv_freq(d)[:, None].float() @ positions[None, :].float()).T

"""Small functions under test, correct and buggy, shared by the package's tests."""
import numpy as np


def rope(positions, x, dtype=np.float64):
    """Interleaved rotary embedding, base 10000, computed in `dtype`."""
    x = np.asarray(x, dtype=dtype)
    d = x.shape[1]
    if d % 2:
        raise ValueError(f"needs an even width, got {d}")
    theta = dtype(10000.0) ** (-dtype(2.0) * np.arange(d // 2, dtype=dtype) / dtype(d))
    angles = np.asarray(positions).astype(dtype)[:, None] * theta
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * np.cos(angles) - x[:, 1::2] * np.sin(angles)
    out[:, 1::2] = x[:, 0::2] * np.sin(angles) + x[:, 1::2] * np.cos(angles)
    return out


def rope_float32(positions, x):
    return rope(positions, x, np.float32)


def rope_half_positions(positions, x):
    """Declares float32 by its answers, but rounds positions to float16 first (2049 → 2048)."""
    return rope(np.asarray(positions).astype(np.float16), x, np.float32)


def attention(q, k, v, mask):
    """softmax(q kᵀ/√d + mask) v, one head, float64."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    logits = q @ k.T / np.sqrt(q.shape[1])
    if isinstance(mask, str):
        allowed = np.tril(np.ones(logits.shape, bool)) if mask == "causal" else np.ones(logits.shape, bool)
    else:
        allowed = np.asarray(mask, bool)
    logits = np.where(allowed, logits, -np.inf)
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    weights = np.nan_to_num(weights / weights.sum(axis=1, keepdims=True))
    return weights @ v

"""A sliding-window attention block with a rolling KV cache in NumPy (Mistral's rolling buffer cache, from its
paper §2): forward attends each token to the W = 4 keys i − W < j ≤ i; decode keeps the last W keys and values
of its session and attends the new token over them."""
import numpy as np

WINDOW, WIDTH = 4, 16
PARAMS = {"forward": {"causal": True, "positional": "none", "width": WIDTH, "window": WINDOW}}


class RollingWindowAttention:
    def __init__(self, seed=0, evict_first=True):
        rng = np.random.default_rng(seed)
        self.wq, self.wk, self.wv = (rng.standard_normal((WIDTH, WIDTH)) / WIDTH ** 0.5 for _ in range(3))
        self.evict_first = evict_first
        self.cache = {}

    @staticmethod
    def attend(q, k, v, allowed):
        scores = np.where(allowed, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
        top = np.max(scores, axis=-1, keepdims=True)
        e = np.exp(scores - np.where(np.isfinite(top), top, 0))
        total = e.sum(axis=-1, keepdims=True)
        return np.where(total > 0, e / np.where(total > 0, total, 1), 0) @ v

    def forward(self, x, positions, padding):
        x = np.asarray(x, dtype=np.float64)
        n = x.shape[1]
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        allowed = ((j <= i) & (j > i - WINDOW))[None] & np.asarray(padding, dtype=bool)[:, None, :]
        return self.attend(x @ self.wq, x @ self.wk, x @ self.wv, allowed)

    def reset(self, session):
        self.cache[session] = (np.zeros((0, WIDTH)), np.zeros((0, WIDTH)))

    def decode(self, session, x, position):
        x = np.asarray(x, dtype=np.float64)
        keys, values = self.cache[session]
        if self.evict_first:
            keys, values = keys[-(WINDOW - 1):] if WINDOW > 1 else keys[:0], values[-(WINDOW - 1):]
        keys, values = np.vstack([keys, x @ self.wk]), np.vstack([values, x @ self.wv])
        out = self.attend((x @ self.wq)[None], keys, values, np.ones((1, keys.shape[0]), dtype=bool))[0]
        if not self.evict_first:
            keys, values = keys[-WINDOW:], values[-WINDOW:]
        self.cache[session] = (keys, values)
        return out


# The bug: the buffer trimmed to W after attending, so each new token attends over W + 1 keys.
def evicting_after_attending():
    return RollingWindowAttention(evict_first=False)

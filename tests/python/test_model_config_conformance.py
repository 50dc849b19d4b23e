"""model_config= judges a module layer by layer (module.config_conformance, docs/model-configs.md): a
GPT-OSS-style two-layer block (layer 0 sliding over 4 keys, layer 1 full, as layer_types says), declared by
its config alone, passes; the same block with sliding_window applied to both layers (vLLM #49795) fails,
naming the full layer and the field."""
import numpy as np

import pecheck

CONFIG = {"model_type": "gpt_oss", "hidden_size": 16, "head_dim": 8, "num_attention_heads": 2,
          "num_key_value_heads": 2, "num_hidden_layers": 2, "max_position_embeddings": 131072,
          "layer_types": ["sliding_attention", "full_attention"], "sliding_window": 4, "rope_theta": 150000.0,
          "rope_scaling": None}


def block(windows):
    """A stack of causal attention layers, each x + softmax(q kᵀ/√8 + mask) v W_o with RoPE (halves) on its
    heads of 8, layer k seeing its last windows[k] keys (None: every earlier key); any width of 16·h."""
    weights = {}

    def layer_weights(k, d):
        if (k, d) not in weights:
            rng = np.random.default_rng(49795 + 31 * k + d)
            weights[k, d] = [rng.uniform(-0.5, 0.5, (d, d)) for _ in range(4)]
        return weights[k, d]

    def rope(x, positions):
        half = 4
        inv = 150000.0 ** (-np.arange(half) / half)
        ang = np.asarray(positions, float)[:, None] * inv[None, :]
        out = np.empty_like(x)
        for h in range(x.shape[1] // 8):
            b = x[:, 8 * h:8 * h + 8]
            out[:, 8 * h:8 * h + 4] = b[:, :4] * np.cos(ang) - b[:, 4:] * np.sin(ang)
            out[:, 8 * h + 4:8 * h + 8] = b[:, 4:] * np.cos(ang) + b[:, :4] * np.sin(ang)
        return out

    def one(k, seq, at, real):
        n, d = seq.shape
        wq, wk, wv, wo = layer_weights(k, d)
        q, key, v = rope(seq @ wq, at), rope(seq @ wk, at), seq @ wv
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        allowed = (j <= i) & real[None, :]
        if windows[k] is not None:
            allowed &= j > i - windows[k]
        out = np.zeros_like(seq)
        for h in range(d // 8):
            c = slice(8 * h, 8 * h + 8)
            s = np.where(allowed, q[:, c] @ key[:, c].T / np.sqrt(8), -np.inf)
            w = np.exp(s - s.max(axis=1, keepdims=True))
            out[:, c] = (w / w.sum(axis=1, keepdims=True)) @ v[:, c]
        return seq + out @ wo

    def forward(x, positions, padding, layer=None):
        x = np.asarray(x, float)
        if x.shape[2] % 8:
            raise ValueError("heads of 8")
        result = []
        for seq, at, real in zip(x, np.asarray(positions), np.asarray(padding, bool)):
            for k in ([layer] if layer is not None else range(len(windows))):
                seq = one(k, seq, at, real)
            result.append(seq)
        return np.stack(result)

    return forward


def test_a_block_declared_by_its_config_alone_is_judged_layer_by_layer():
    result = pecheck.check_module(block([4, None]), model_config=CONFIG, dtype="float64", cases=25,
                                  properties=["module.config_conformance", "module.window_no_lookback"])
    assert result.passed and result.cells == 2


def test_every_layer_windowed_fails_naming_the_full_layer():
    result = pecheck.check_module(block([4, 4]), model_config=CONFIG, dtype="float64", cases=25,
                                  properties="module.config_conformance", raise_on_failure=False)
    assert not result.passed and result.failed == 1
    (failure,) = [r for r in result.results if r["property"] == "module.config_conformance"]
    c = failure["counterexample"]
    assert c["check"] == "full layer sees every earlier token", c
    assert "layer 1 is full attention in the config" in c["diagnosis"] and "vLLM #49795" in c["diagnosis"], c

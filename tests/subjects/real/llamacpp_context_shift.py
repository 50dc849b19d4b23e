#!/usr/bin/env python3
"""llama.cpp's context shift on Gemma 3 (float32), transcribed as a pecheck module subject.

Source: ggml-org/llama.cpp, the K-shift of the KV cache: when the context is
full, llama.cpp drops old tokens and moves the cached keys by Δ positions
without recomputing them — build_rope_shift in src/llama-context.cpp (since
moved to src/llama-kv-cache.cpp) applies ggml_rope_ext to each layer's cached
K with the positions tensor holding Δ, i.e. R(Δ) on keys already rotated at
p, which for a rotary whose angle is t·ω_i lands them at p + Δ. PR #12373
("llama : fix Gemma3 SWA KV cache shift") is the published bug: the shift
took the context's rope_freq_base / rope_freq_scale (Gemma 3's global
layers': rope_theta 10⁶, linear ×8 as freq_scale 1/8) for every layer, so
the keys of the sliding layers (rope_local_base_freq 10⁴, unscaled) were
shifted at the wrong base; the fix reads freq_base / freq_scale per layer
(hparams.rope_freq_base_train_swa for a SWA layer). Written here from that
maths in NumPy float32 on the model of tests/subjects/real/gemma3_layers.py
(its layers, forward and rotate; NEOX / halves rotation, as llama.cpp uses
for Gemma 3).

As pecheck asks (docs/SUBJECT-PROTOCOL.md "New conventions"): declared
params.forward.context_shift, rotate(positions, x, layer=k, shift=Δ) gets
layer k's keys rotated at positions and answers them at positions + Δ.
`--fixed`: each layer's own base and scale (PR #12373).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gemma3_layers as gemma3  # noqa: E402
from hf_llama_rope import apply_rotary_pos_emb  # noqa: E402
from pecheck_subject import serve  # noqa: E402

FIXED = "--fixed" in sys.argv


def shift_cos_sin(layer, delta, rows, dim):
    """The cos/sin ggml_rope_ext computes for positions [Δ] * rows: θ_i = Δ · freq_scale · base^(−2i/d)."""
    kind = gemma3.LAYER_TYPES[layer] if FIXED else "full_attention"  # before the fix: the context's base/scale
    inv_freq = gemma3.inv_freq(kind, dim)
    freqs = np.full((rows, 1), delta, dtype=np.float32) * inv_freq[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


def rotate(positions, x, seq_len=None, layer=None, shift=None):
    if shift is None:
        return gemma3.rotate(positions, x, seq_len, layer)
    k = np.asarray(x, dtype=np.float32)
    layer = layer or 0
    if not 0 <= layer < gemma3.LAYERS:
        raise ValueError(f"layer {layer} of {gemma3.LAYERS}")
    cos, sin = shift_cos_sin(layer, shift, k.shape[0], k.shape[-1])
    return apply_rotary_pos_emb(k, cos, sin)  # R(Δ) on keys rotated at p: at p + Δ


if __name__ == "__main__":
    serve("llamacpp-context-shift" if FIXED else "llamacpp-context-shift-global-base", "float32", rotate=rotate,
          forward=gemma3.forward,
          params={"rotate": dict(gemma3.LOCAL),
                  "forward": {"causal": True, "positional": "relative", "width": gemma3.HIDDEN,
                              "layers": gemma3.declared_layers(), "context_shift": True}})

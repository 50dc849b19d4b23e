#!/usr/bin/env python3
"""vLLM's generic YaRN before PR #48623 (issue #48621), transcribed as a pecheck subject.

Source: vllm-project/vllm, vllm/model_executor/layers/rotary_embedding/
yarn_scaling_rope.py (YaRNScalingRotaryEmbedding) and common.py
(yarn_get_mscale): the cos/sin cache is multiplied by

    mscale = yarn_get_mscale(scaling_factor) · attn_factor        (0.1·ln F + 1)

whatever the config's mscale and mscale_all_dim say: a config that declares
both (Ministral 3, DeepSeek's, Kimi's — here DeepSeek-V3's rope_scaling,
tests/data/configs/deepseek-v3.json) gets 1.369 (F = 40) where transformers
and DeepSeek's own code give g(F, mscale)/g(F, mscale_all_dim) = 1. The
frequencies are right (deepseek_yarn.py's); the rotate_half form (is_neox_style)
declares layout "halves". Declares what the config says, as vLLM read it.
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from deepseek_yarn import BASE, SCALING, cos_sin  # noqa: E402
from hf_llama_rope import apply_rotary_pos_emb  # noqa: E402
from pecheck_subject import serve  # noqa: E402


def rotate(positions, x, seq_len=None):
    q = np.asarray(x, dtype=np.float32)
    mscale = 0.1 * math.log(SCALING["factor"]) + 1.0  # yarn_get_mscale(scaling_factor) · attn_factor (1)
    cos, sin = cos_sin(positions, q.shape[-1], mscale)
    return apply_rotary_pos_emb(q, cos, sin)


if __name__ == "__main__":
    serve("vllm-generic-yarn", "float32", rotate=rotate,
          params={"rotate": {"base": BASE, "layout": "halves", "scaling": SCALING}})

#!/usr/bin/env python3
"""Qwen2-VL's rope_deltas reused from an earlier call (transformers PR #43952, #44873).

Source: huggingface/transformers, src/transformers/models/qwen2_vl/modeling_qwen2_vl.py
(Qwen2VLModel.forward and Qwen2VLForConditionalGeneration.prepare_inputs_for_generation,
before PR #43952). get_rope_index lays out the three position streams of a
prompt with images and keeps

    rope_deltas = max(position_ids) + 1 − len(input_ids)

on the model; text that follows is positioned as cache_position + rope_deltas
on all three axes. Before the fix the kept rope_deltas survived into the next
generation from scratch (trl issue #5088): its text tokens turn at their
positions plus the last image prompt's delta. The rotary is qwen2_vl_mrope.py's.

As a subject: a request carrying image positions (some row with h or w ≠ t)
is a multimodal prompt and sets rope_deltas; a text-only request (t = h = w
on every row) is positioned as its text positions + the kept rope_deltas. A
freshly started subject keeps none, and answers text at its positions:
pecheck's history_independence finds the answer that depends on an earlier
request. The fixed code (qwen2_vl_mrope.py) keeps nothing across requests.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "adapters", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from qwen2_vl_mrope import BASE, SCALING, axes_of, rotate as rotate_mrope  # noqa: E402
from pecheck_subject import serve  # noqa: E402

state = {"rope_deltas": None}


def rotate(positions, x, seq_len=None):
    ids = axes_of(positions)
    text_only = bool(np.all(ids == ids[0]))
    if not text_only:
        state["rope_deltas"] = int(ids.max()) + 1 - ids.shape[1]
        return rotate_mrope(ids.tolist(), x)
    if state["rope_deltas"] is not None:
        ids = ids + state["rope_deltas"]  # the kept delta, from whichever prompt came last
    return rotate_mrope(ids.tolist(), x)


if __name__ == "__main__":
    serve("qwen2-vl-rope-deltas", "float32", rotate=rotate,
          params={"rotate": {"base": BASE, "layout": "halves", "scaling": SCALING}})

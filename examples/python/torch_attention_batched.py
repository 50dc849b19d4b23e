#!/usr/bin/env python3
"""Scaled dot-product attention in PyTorch, one padded batch per call, served to pecheck.

How real code runs attention: sequences of different lengths padded into one
B × n × d tensor, a key-padding mask so no query attends to a pad, one
batched matmul and softmax for the lot. Here each of pecheck's requests is one
sequence of the batch:

    out_b = softmax(q_b k_bᵀ / √d_k(b) + mask_b) v_b

q_b, k_b, v_b zero-padded to the batch's largest n, m, d_k, d_v (a zero feature
adds nothing to a dot product), each item scaled by its own 1/√d_k, pads
masked out, and each answer cut back to n_b × d_v(b).

`serve(..., batched=True)` hands the function a whole batch of requests (a
list of (q, k, v, mask) tuples) and takes a list of answers back, so one
vectorised call answers up to hundreds of pecheck's cases.

Check it:  pecheck run --subject cmd:'python3 examples/python/torch_attention_batched.py'
float32 by default; pass float64 as the first argument.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from pecheck_subject import serve  # noqa: E402

DTYPE = sys.argv[1] if len(sys.argv) > 1 else "float32"
TORCH_DTYPE = {"float64": torch.float64, "float32": torch.float32}[DTYPE]
torch.set_num_threads(1)


def attention_many(requests):
    """A list of (q, k, v, mask) requests answered by one padded, batched attention."""
    shapes = [(len(q), len(k), q.shape[1], v.shape[1]) for q, k, v, _ in requests]
    for (n_q, n_k, d_k, _), (q, k, _, _) in zip(shapes, requests):
        if n_q == 0 or n_k == 0 or d_k == 0:
            raise ValueError(f"attention needs non-empty q and k (got {q.shape}, {k.shape})")
    b = len(requests)
    n, m, d_k, d_v = (max(sizes) for sizes in zip(*shapes))
    q_all, k_all = np.zeros((b, n, d_k)), np.zeros((b, m, d_k))
    v_all = np.zeros((b, m, d_v))
    # True where query i may attend to key j (the protocol's convention);
    # padded query rows see one key (and are cut off below).
    allowed = np.zeros((b, n, m), dtype=bool)
    allowed[:, :, 0] = True
    causal = np.tri(n, m, dtype=bool)  # j <= i; its top-left corner is every smaller causal mask
    widths = np.empty(b)
    for i, ((q, k, v, mask), (n_q, n_k, width, d)) in enumerate(zip(requests, shapes)):
        q_all[i, :n_q, :width] = q
        k_all[i, :n_k, :width] = k
        v_all[i, :n_k, :d] = v
        allowed[i, :n_q, 0] = False
        if isinstance(mask, str):
            allowed[i, :n_q, :n_k] = True if mask == "none" else causal[:n_q, :n_k]
        else:
            allowed[i, :n_q, :n_k] = np.asarray(mask, dtype=bool).reshape(n_q, n_k)
        widths[i] = width
    scale = 1.0 / np.sqrt(widths)
    q_t, k_t, v_t = (torch.from_numpy(a).to(TORCH_DTYPE) for a in (q_all, k_all, v_all))
    with torch.no_grad():
        logits = torch.bmm(q_t, k_t.transpose(1, 2)) * torch.from_numpy(scale).to(TORCH_DTYPE)[:, None, None]
        logits = logits.masked_fill(~torch.from_numpy(allowed), float("-inf"))
        out = torch.bmm(torch.softmax(logits, dim=-1), v_t).numpy()
    return [out[i, :n_q, :d] for i, (n_q, _, _, d) in enumerate(shapes)]


serve(f"torch-attention-batched-{DTYPE}", DTYPE, attention=attention_many, batched=True, as_arrays=True)

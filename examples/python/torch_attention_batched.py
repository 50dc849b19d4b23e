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


def allowed_keys(mask, n, m):
    """True where query i may attend to key j (the protocol's convention)."""
    if isinstance(mask, str):
        return np.ones((n, m), dtype=bool) if mask == "none" else np.tri(n, m, dtype=bool)
    return np.asarray(mask, dtype=bool).reshape(n, m)


def attention_many(requests):
    """A list of (q, k, v, mask) requests answered by one padded, batched attention."""
    for q, k, v, _ in requests:
        if len(q) == 0 or len(k) == 0 or q.shape[1] == 0:
            raise ValueError(f"attention needs non-empty q and k (got {q.shape}, {k.shape})")
    b = len(requests)
    n = max(len(q) for q, _, _, _ in requests)
    m = max(len(k) for _, k, _, _ in requests)
    d_k = max(q.shape[1] for q, _, _, _ in requests)
    d_v = max(v.shape[1] for _, _, v, _ in requests)
    q_all, k_all = np.zeros((b, n, d_k)), np.zeros((b, m, d_k))
    v_all = np.zeros((b, m, d_v))
    allowed = np.zeros((b, n, m), dtype=bool)
    allowed[:, :, 0] = True  # padded query rows see one key (and are cut off below)
    scale = np.empty(b)
    for i, (q, k, v, mask) in enumerate(requests):
        q_all[i, :len(q), :q.shape[1]] = q
        k_all[i, :len(k), :k.shape[1]] = k
        v_all[i, :len(v), :v.shape[1]] = v
        allowed[i, :len(q), :] = False
        allowed[i, :len(q), :len(k)] = allowed_keys(mask, len(q), len(k))
        scale[i] = 1.0 / np.sqrt(q.shape[1])
    q_t, k_t, v_t = (torch.from_numpy(a).to(TORCH_DTYPE) for a in (q_all, k_all, v_all))
    with torch.no_grad():
        logits = torch.bmm(q_t, k_t.transpose(1, 2)) * torch.from_numpy(scale).to(TORCH_DTYPE)[:, None, None]
        logits = logits.masked_fill(~torch.from_numpy(allowed), float("-inf"))
        out = torch.bmm(torch.softmax(logits, dim=-1), v_t).numpy()
    return [out[i, :len(q), :v.shape[1]] for i, (q, _, v, _) in enumerate(requests)]


serve(f"torch-attention-batched-{DTYPE}", DTYPE, attention=attention_many, batched=True, as_arrays=True)

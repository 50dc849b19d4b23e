#!/usr/bin/env python3
"""The Annotated Transformer's PositionalEncoding, transcribed as a pecheck subject.

Source: harvardnlp/annotated-transformer, AnnotatedTransformer.ipynb /
the_annotated_transformer.py (class PositionalEncoding). Written here from its
maths, in NumPy float32 as the torch original computes:

    div_term = exp(arange(0, d, 2) · −(ln(10000)/d))      (= 10000^(−2i/d))
    pe[:, 0::2] = sin(position · div_term),  pe[:, 1::2] = cos(position · div_term)

The paper's form: interleaved, schedule 2i/d. The module is built with
max_len = 5000 by default; a user checking longer contexts builds it longer,
so the table here is built for the request (at least 5000 rows). With
`--max-len N` the table is the module as built, N rows: a sequence longer
than N is refused, as the original's `self.pe[:, : x.size(1)]` cannot serve
it (pecheck is then gated with --max-position N − 1). An odd d_model fails in
the original (cos fills ⌈d/2⌉ values into ⌊d/2⌋ columns) and is refused here.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402


def positional_encoding_table(d_model, max_len=5000):
    if d_model % 2:
        raise ValueError(f"pe[:, 1::2] has {d_model // 2} columns for {(d_model + 1) // 2} cosines (odd d = {d_model})")
    position = np.arange(0, max_len, dtype=np.int64)[:, None].astype(np.float32)
    div_term = np.exp(np.arange(0, d_model, 2).astype(np.float32) * np.float32(-(math.log(10000.0) / d_model)))
    pe = np.zeros((max_len, d_model), dtype=np.float32)
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


FIXED_MAX_LEN = int(sys.argv[sys.argv.index("--max-len") + 1]) if "--max-len" in sys.argv else None


def encode(dim, positions, seq_len):
    if FIXED_MAX_LEN is not None:
        if seq_len > FIXED_MAX_LEN or max(positions) >= FIXED_MAX_LEN:
            raise ValueError(f"the table holds {FIXED_MAX_LEN} positions; a sequence of {seq_len} does not fit")
        return positional_encoding_table(dim, max_len=FIXED_MAX_LEN)[np.asarray(positions, dtype=np.int64)]
    table = positional_encoding_table(dim, max_len=max(5000, seq_len, max(positions) + 1))
    return table[np.asarray(positions, dtype=np.int64)]


if __name__ == "__main__":
    serve("annotated-transformer", "float32", encode=encode,
          params={"encode": {"base": 10000, "schedule": "2i/d", "layout": "interleaved"}})

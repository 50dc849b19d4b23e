#!/usr/bin/env python3
"""An encoder that refuses every request, as a function does whose tensors
live on the `meta` device (no data: every conversion raises at once). It
takes batches and counts the requests it is asked (each batch item one) in
the file named by PECHECK_TEST_COUNTFILE, one line per request appended as it
is asked (the answering process may be a forked copy that exits without
running atexit): with look-ahead or without, refusals must cost about one
request per case.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

from pecheck_subject import serve  # noqa: E402

def encode(dim, positions, seq_len):
    path = os.environ.get("PECHECK_TEST_COUNTFILE")
    if path:
        with open(path, "a") as f:
            f.write("1\n")
    raise NotImplementedError("Cannot copy out of meta tensor; no data!")


serve("refuses-everything", "float32", encode=encode, batch=True)

#!/usr/bin/env python3
"""An encoder that refuses every request, as a function does whose tensors
live on the `meta` device (no data: every conversion raises at once). It
takes batches and counts the requests it is asked (each batch item one) into
the file named by PECHECK_TEST_COUNTFILE when pecheck shuts it down: with
look-ahead or without, refusals must cost about one request per case.
"""
import atexit
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

from pecheck_subject import serve  # noqa: E402

asked = 0


def encode(dim, positions, seq_len):
    global asked
    asked += 1
    raise NotImplementedError("Cannot copy out of meta tensor; no data!")


def write_count():
    path = os.environ.get("PECHECK_TEST_COUNTFILE")
    if path:
        with open(path, "w") as f:
            f.write(str(asked))


atexit.register(write_count)
serve("refuses-everything", "float32", encode=encode, batch=True)

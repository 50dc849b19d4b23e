#!/usr/bin/env python3
"""Checks functions living in this very process with pecheck, over fd:READ,WRITE.

What the Python package does: start `pecheck run --subject fd:R,W ...` with
two pipes handed down (pass_fds) and answer its requests with the adapter's
serve() on the other ends, in a thread of this process. No child subject.

Usage: fd_parent.py PECHECK_BIN [more `pecheck run` arguments]; exits with
pecheck's exit status.
"""
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

import numpy as np  # noqa: E402

from pecheck_subject import serve  # noqa: E402


def encode(dim, positions, seq_len):
    if dim % 2:
        raise ValueError(f"needs an even dim, got {dim}")
    angles = np.asarray(positions, dtype=np.float64)[:, None] * 10000.0 ** (-2.0 * np.arange(dim // 2) / dim)
    pe = np.empty((len(positions), dim))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe


def main():
    requests_read, requests_write = os.pipe()  # pecheck writes requests, this process reads them
    answers_read, answers_write = os.pipe()    # this process writes answers, pecheck reads them
    command = [sys.argv[1], "run", "--subject", f"fd:{answers_read},{requests_write}", *sys.argv[2:]]
    pecheck = subprocess.Popen(command, pass_fds=(answers_read, requests_write))
    os.close(answers_read)
    os.close(requests_write)
    with os.fdopen(requests_read, "rb") as inp, os.fdopen(answers_write, "wb") as out:
        answering = threading.Thread(target=serve, args=("in-process-sinusoidal", "float64"),
                                     kwargs={"encode": encode, "layout": "interleaved", "batch": True,
                                             "stdin": inp, "stdout": out}, daemon=True)
        answering.start()
        status = pecheck.wait()
        answering.join(timeout=10)
    if answering.is_alive():
        sys.exit("serve() did not return after pecheck ended")
    sys.exit(status)


main()

#!/usr/bin/env python3
"""A sinusoidal encoder whose length cache lives in memory shared across forks (issue 39).

The longest sequence it has seen is kept in an anonymous MAP_SHARED page mapped at start-up, before
the zygote forks its first copy, and the frequencies follow it: past 64 tokens the base doubles, as
a cache grown for a long sequence and never shrunk would leave it. A history bug — but one every
forked copy shares, so a copy forked after a long request answers exactly as the scripted copy does:
history_independence through forked copies alone is green, and red with --no-fork. pecheck proves
forked copies fresh by asking a copy started anew the same requests (a subject failure naming the
shared state). With PECHECK_TEST_PER_PROCESS=1 the cache is an ordinary per-process variable: the
history bug is then seen through forked copies as through new ones.
"""
import math
import mmap
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

from pecheck_subject import serve  # noqa: E402

if os.environ.get("PECHECK_TEST_PER_PROCESS") == "1":
    _LONGEST = bytearray(8)
else:
    _LONGEST = mmap.mmap(-1, 8, flags=mmap.MAP_SHARED)  # mapped before any fork: shared by every copy


def encode(dim, positions, seq_len):
    length = max(seq_len or 0, max(positions, default=0) + 1)
    longest = max(struct.unpack("q", bytes(_LONGEST[0:8]))[0], length)
    _LONGEST[0:8] = struct.pack("q", longest)
    base = 10000.0 if longest <= 64 else 20000.0
    rows = []
    for t in positions:
        row = []
        for i in range(dim // 2):
            angle = t * base ** (-2.0 * i / dim)
            row += [math.sin(angle), math.cos(angle)]
        rows.append(row)
    return rows


if __name__ == "__main__":
    serve("shared-memory-cache", "float64", encode=encode, layout="interleaved")

#!/usr/bin/env python3
"""Gemma 3 with the global layers' linear ×8 scaling on the local layers too.

The published bug: llama.cpp read one freq_scale for Gemma 3's sliding and
full-attention layers alike (issue #14367); vLLM's Gemma3 regression (fixed by
PR #29111) configured the sliding layers with the global rope scaling.
gemma3_layers.py --local-scaled, under its own name: it declares what Gemma 3
declares (local layers unscaled) and builds every local rotary scaled.
"""
import os
import runpy
import sys

if "--local-scaled" not in sys.argv:
    sys.argv.append("--local-scaled")
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemma3_layers.py"), run_name="__main__")

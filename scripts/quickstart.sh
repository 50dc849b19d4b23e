#!/usr/bin/env bash
# Quick start, step 1: install what is needed, build, and run the full claims matrix.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh build   # the quick start needs neither PyTorch nor Chromium
bash scripts/build.sh
exec build/pecheck run --report-dir reports "$@"

#!/usr/bin/env bash
# Quick start, step 2 (and CI): install what is needed, build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh test    # everything the tests use (PECHECK_WITH_TORCH/CHROMIUM=0 to leave out)
bash scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" "$@"

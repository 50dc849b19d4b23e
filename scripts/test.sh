#!/usr/bin/env bash
# Quick start, step 2 (and CI): install what is needed, build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" "$@"

#!/usr/bin/env bash
# Builds the CLI and the libraries in BUILD_DIR (default build-package/) and makes the Debian package
# there with CPack: BUILD_DIR/pecheck_<version>_<arch>.deb (the Dockerfile's build stage runs this).
# Needs: bash scripts/install-deps.sh package
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-package}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPECHECK_TESTS=OFF -DPECHECK_BENCH=OFF -DPECHECK_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"
(cd "$build" && cpack -G DEB -B "$PWD")
ls "$build"/pecheck_*.deb

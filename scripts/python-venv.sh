#!/usr/bin/env bash
# Installs the Python package `pecheck` from this checkout into a virtual environment (default .venv),
# offline: Debian's NumPy, pytest and setuptools (and PyTorch, with PECHECK_WITH_TORCH=1) are seen
# through --system-site-packages, nothing is fetched from a package index; the CLI is built, and
# linked into the environment's bin/ (the package also records the checkout's build/pecheck at
# install: python/setup.py). The build happens outside the checkout.
#   bash scripts/python-venv.sh [VENV]
#   VENV/bin/python -m pytest tests/            # or: source VENV/bin/activate
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-.venv}"
bash scripts/install-deps.sh build python
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target pecheck_cli -j "$(nproc)"
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/python" -m pip install --no-build-isolation --no-index --quiet ./python
ln -sf "$PWD/build/pecheck" "$venv/bin/pecheck"
echo "pecheck: installed into $venv ($venv/bin/python -m pytest …; the CLI is $venv/bin/pecheck)"

#!/usr/bin/env bash
# Quick start, step 1: install what is needed, build, and run the full claims matrix.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh build   # the quick start needs neither PyTorch nor Chromium
bash scripts/build.sh
# reports/ itself holds the reports' documentation and schema, and pecheck
# replaces its report directory whole: the run's reports go in a folder of it.
exec build/pecheck run --report-dir reports/latest "$@"

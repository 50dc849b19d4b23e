#!/usr/bin/env bash
# Builds pecheck with AddressSanitizer + UndefinedBehaviorSanitizer (the
# `sanitize` presets of CMakePresets.json, into build-sanitize/) and runs the
# whole test suite under them: any sanitizer report ends its process with an
# error, so the test fails. The test preset sets PECHECK_SANITIZED=1, which
# the tests that measure memory or time read (tests/support/cli.h).
#
#   bash scripts/sanitize.sh                 # build, then every test
#   bash scripts/sanitize.sh -R test_replay  # extra arguments go to ctest
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
start=$(date +%s)
cmake --preset sanitize "${launcher[@]}" >/dev/null
cmake --build --preset sanitize -j "${PECHECK_BUILD_JOBS:-2}"
built=$(date +%s)
status=0
ctest --preset sanitize -j "${PECHECK_TEST_JOBS:-2}" "$@" || status=$?
echo "sanitize: build $((built - start)) s, tests $(($(date +%s) - built)) s"
exit $status

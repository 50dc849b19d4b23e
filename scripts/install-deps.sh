#!/usr/bin/env bash
# Installs pecheck's build and test dependencies from Debian 12 packages.
# Idempotent: does nothing when every package is already installed.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git
  librapidcheck-dev libboost-test-dev libeigen3-dev libfmt-dev
  nlohmann-json3-dev libcli11-dev libtomlplusplus-dev
  libxml2-utils python3 python3-numpy python3-jsonschema
)
if [[ "${PECHECK_WITH_TORCH:-1}" == 1 ]]; then packages+=(python3-torch); fi
# Headless Chromium renders report.html in a test (tests/html/screenshot.sh; skipped without it).
if [[ "${PECHECK_WITH_CHROMIUM:-1}" == 1 ]]; then packages+=(chromium); fi
# libFuzzer (clang and its runtime) for scripts/fuzz.sh: PECHECK_WITH_FUZZ=1.
if [[ "${PECHECK_WITH_FUZZ:-0}" == 1 ]]; then packages+=(clang libclang-rt-14-dev); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "pecheck: installing ${missing[*]}"
  sudo_cmd=(); [[ $(id -u) == 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

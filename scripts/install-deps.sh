#!/usr/bin/env bash
# Installs the Debian 12 packages that the asked-for steps need; idempotent (only what is missing).
#
#   install-deps.sh build     compile pecheck and run the claims matrix (the quick start):
#                             no Python, no PyTorch, no Chromium
#   install-deps.sh package   build, then make the Debian package (cpack -G DEB: dpkg-dev, file)
#   install-deps.sh python    use the Python package (python3, NumPy, pytest, venv, pip, setuptools);
#                             PyTorch too with PECHECK_WITH_TORCH=1
#   install-deps.sh docs      headless Chromium, which renders report.html, and Pillow, which reads
#                             its screenshot (tests/html/screenshot.sh)
#   install-deps.sh fuzz      clang and libFuzzer, for scripts/fuzz.sh
#   install-deps.sh test      everything the tests use: build, package, python, xmllint, jsonschema,
#                             PyTorch (PECHECK_WITH_TORCH=0 leaves it out) and Chromium
#                             (PECHECK_WITH_CHROMIUM=0 leaves it out; its test is then skipped)
#
# Several steps may be given; none means `test` (what scripts/test.sh and CI need).
set -euo pipefail

build=(build-essential cmake ninja-build pkg-config git
       librapidcheck-dev libboost-test-dev libeigen3-dev libfmt-dev
       nlohmann-json3-dev libcli11-dev libtomlplusplus-dev)
package=(dpkg-dev file)
python=(python3 python3-numpy python3-pytest python3-venv python3-pip python3-setuptools)
test_tools=(libxml2-utils python3-jsonschema)
docs=(chromium python3-pil)   # Pillow reads Chromium's screenshot
fuzz=(clang libclang-rt-14-dev)   # libFuzzer and its runtime, for scripts/fuzz.sh

packages=()
steps=("$@")
((${#steps[@]})) || steps=(test)
for step in "${steps[@]}"; do
  case "$step" in
    build) packages+=("${build[@]}") ;;
    package) packages+=("${build[@]}" "${package[@]}") ;;
    python)
      packages+=("${python[@]}")
      if [[ "${PECHECK_WITH_TORCH:-0}" == 1 ]]; then packages+=(python3-torch); fi ;;
    docs) packages+=("${docs[@]}") ;;
    fuzz) packages+=("${build[@]}" "${fuzz[@]}") ;;
    test)
      packages+=("${build[@]}" "${package[@]}" "${python[@]}" "${test_tools[@]}")
      if [[ "${PECHECK_WITH_TORCH:-1}" == 1 ]]; then packages+=(python3-torch); fi
      if [[ "${PECHECK_WITH_CHROMIUM:-1}" == 1 ]]; then packages+=("${docs[@]}"); fi ;;
    *) echo "install-deps.sh: unknown step '$step' (build, package, python, docs, fuzz, test)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  readarray -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  echo "pecheck: installing ${missing[*]}"
  sudo_cmd=(); [[ $(id -u) == 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

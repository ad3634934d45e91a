#!/usr/bin/env bash
# Installs what building and testing ADPass needs on Debian 12 (bookworm):
# CMake, LLVM/Clang 19 with their tools (FileCheck, not, lit) and compiler-rt,
# Python 3 for lit, and Eigen's headers (for the Eigen integration test).
# Does nothing when all of it is already installed, so it is cheap to run on
# a prepared machine. Runs as root, or through sudo.
#   tools/install-deps.sh            install what is missing
#   AD_WITH_NINJA=1 tools/...        also install ninja-build (optional)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(cmake llvm-19-dev clang-19 llvm-19-tools libclang-rt-19-dev python3
  libeigen3-dev libomp-19-dev)
if [[ "${AD_WITH_NINJA:-0}" == 1 ]]; then
  packages+=(ninja-build)
fi

missing=()
for pkg in "${packages[@]}"; do
  # dpkg -s also succeeds for removed-but-configured packages; check the state.
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all dependencies present"
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null; then
  sudo=(sudo)
else
  echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
  --no-install-recommends "${missing[@]}"

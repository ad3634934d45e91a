#!/usr/bin/env bash
# First steps for a new user: installs the dependencies, builds ADPass, then
# compiles every program in examples/ with the plugin and runs it, showing
# the exact compile command to reuse in your own projects.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tools/install-deps.sh
tools/build.sh

plugin=build/pass/libADPass.so
runtime=build/runtime/libADRuntime.a
mkdir -p build/examples

shopt -s nullglob
examples=(examples/*.c examples/*.cpp)
if [[ ${#examples[@]} -eq 0 ]]; then
  echo "quickstart: no examples in examples/"
  exit 0
fi

for src in "${examples[@]}"; do
  name=$(basename "${src%.*}")
  case "$src" in
  *.cpp) cc=clang++-19 ;;
  *) cc=clang-19 ;;
  esac
  cmd=("$cc" -O2 "-fpass-plugin=$plugin" -Iinclude "$src" "$runtime" -lm
       -o "build/examples/$name")
  echo
  echo "== $name"
  echo "\$ ${cmd[*]}"
  "${cmd[@]}"
  "build/examples/$name"
done
echo
echo "quickstart: all examples built and ran"

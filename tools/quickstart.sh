#!/usr/bin/env bash
# First steps for a new user: installs the dependencies, builds ADPass, then
# compiles every program in examples/ with the plugin and runs it, showing
# the exact compile command to reuse in your own projects. Last, it installs
# ADPass into build/prefix and builds examples/cmake_consumer, a CMake
# project that finds the installed package (find_package(ADPass)).
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
prefix="$PWD/build/prefix"
consumer=build/cmake_consumer
log=build/cmake_consumer.log
# Shows a command, runs it with its output in $log, shown if it fails.
run_quietly() {
  echo "\$ $*"
  "$@" >"$log" 2>&1 || { cat "$log"; exit 1; }
}
echo
echo "== cmake_consumer: find_package(ADPass) from the prefix $prefix"
run_quietly cmake --install build --prefix "$prefix"
run_quietly cmake -S examples/cmake_consumer -B "$consumer" \
  "-DCMAKE_PREFIX_PATH=$prefix" -DCMAKE_C_COMPILER=clang-19 \
  -DCMAKE_CXX_COMPILER=clang++-19
run_quietly cmake --build "$consumer"
"$consumer/kinematics"
echo
echo "quickstart: all examples built and ran"

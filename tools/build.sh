#!/usr/bin/env bash
# Configures (once) and builds ADPass into build/: the plugin
# build/pass/libADPass.so and the runtime build/runtime/libADRuntime.a.
# Safe to run repeatedly; extra arguments go to `cmake --build`
# (e.g. tools/build.sh --target ADRuntime).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_type="${CMAKE_BUILD_TYPE:-Release}"
cmake -S . -B build -DCMAKE_BUILD_TYPE="$build_type"
cmake --build build -j "${AD_JOBS:-2}" "$@"

#!/usr/bin/env bash
# Sets up a Debian 12 machine for Boo and builds it into build/.
# Idempotent: installs only missing Debian packages, configures only once,
# and rebuilds incrementally (ccache makes a rebuild from scratch cheap).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools lld-22 clang-22
  libclang-rt-22-dev
  cmake ninja-build ccache
  libgtest-dev libbenchmark-dev
  libamdhip64-dev
  python3-numpy
  libdnnl-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

LLVM_DIR=/usr/lib/llvm-22
export PATH="$LLVM_DIR/bin:$PATH"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR="$LLVM_DIR/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_DIR/bin/lit"
fi
ninja -C build "$@"

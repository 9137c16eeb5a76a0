#!/usr/bin/env bash
# Sets up a Debian 12 or 13 machine for Boo and builds it into build/: the
# Debian packages, a Python virtual environment in build/venv (torch, numpy,
# pytest and nanobind from python/requirements.txt), the compiler, the
# runtime and the `boo` Python package (build/python).
# Idempotent: installs only missing Debian and Python packages, configures
# only when needed, and rebuilds incrementally (ccache makes a rebuild from
# scratch cheap).
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

# The venv takes the first python3 on PATH, which must be 3.11: the CPU build
# of torch 2.13.0 on the project's machines is for 3.11, and on any other
# version pip would download a CUDA build of several GB.
venv=build/venv
python=${BOO_PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
  if ! "$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    echo "setup: $python is $("$python" --version 2>&1); the Python package needs 3.11 (set BOO_PYTHON to a 3.11 interpreter)" >&2
    exit 1
  fi
  mkdir -p build
  "$python" -m venv "$venv"
fi
if ! cmp -s python/requirements.txt "$venv/requirements.txt"; then
  echo "setup: installing python/requirements.txt into $venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    -r python/requirements.txt
  cp python/requirements.txt "$venv/requirements.txt"
fi

# `import boo` in the venv finds the package that the build assembles.
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$PWD/build/python" > "$site/boo-build.pth"

LLVM_DIR=/usr/lib/llvm-22
export PATH="$LLVM_DIR/bin:$PATH"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
venv_python="$PWD/$venv/bin/python"
if [ ! -f build/build.ninja ] ||
  ! grep -qx "Python_EXECUTABLE:FILEPATH=$venv_python" build/CMakeCache.txt; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR="$LLVM_DIR/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_DIR/bin/lit" \
    -DPython_EXECUTABLE="$venv_python"
fi
ninja -C build "$@"

#!/usr/bin/env bash
# Sets up and builds (scripts/setup.sh), then runs every test: the
# GoogleTest unit and numerics tests through CTest, the Python package's
# pytest suite (python/test, in build/venv), then the lit suite.
# The output ends with lit's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
status=0
ctest --test-dir build --output-on-failure || status=1
# The Python tests compile into a kernel cache of their own.
BOO_CACHE_DIR="$PWD/build/test-cache/python" PYTHONPATH="$PWD/build/python" \
  build/venv/bin/python -m pytest -q python/test || status=1
/usr/lib/llvm-22/bin/lit -sv build/test || status=1
exit $status

#!/usr/bin/env bash
# The main job: sets up and builds, then compiles the example
# conv + bias + relu (examples/conv_bias_relu.mlir) for the CPU and runs it
# on deterministic inputs, printing the result.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
cmd=(build/bin/boo-run-module --module=examples/conv_bias_relu.mlir --device=cpu \
  --input="1x4x4x2xf32=[[[1 2][3 4][5 6][7 8]][[1 0][0 1][1 0][0 1]][[2 2][2 2][2 2][2 2]][[0 -1][-1 0][0 -1][-1 0]]]" \
  --input="3x3x3x2xf32=0.25" \
  --input="3xf32=[-4 0 1]")
echo "\$ ${cmd[*]}"
"${cmd[@]}"

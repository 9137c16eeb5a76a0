#!/usr/bin/env python3
"""Boo from PyTorch: the README's "From PyTorch" example.

  PYTHONPATH=build/python build/venv/bin/python examples/pytorch_quickstart.py
"""

import torch

import boo
from boo.modeling import replace_convs_with_boo
from boo.ops import boo_conv

torch.manual_seed(0)

# 1. One differentiable op: a grouped, strided conv on a channels-last tensor.
x = torch.randn(2, 8, 16, 16).to(memory_format=torch.channels_last).requires_grad_()
w = torch.randn(16, 4, 3, 3, requires_grad=True)
y = boo_conv(x, w, stride=2, padding=1, groups=2)
y.square().sum().backward()
ref = torch.nn.functional.conv2d(x, w, stride=2, padding=1, groups=2)
print(f"boo_conv: {tuple(y.shape)}, channels-last output: "
      f"{y.is_contiguous(memory_format=torch.channels_last)}, max |y - torch| = {(y - ref).abs().max():.2e}")
print(f"  launches so far: {boo.stats()['launches']} (forward, and one kernel for both gradients)")

# 2. Drop-in modules.
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
    torch.nn.Conv2d(16, 32, 3, stride=2, padding=1), torch.nn.SiLU(),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(32, 10))
images = torch.randn(4, 3, 32, 32)
eager = model(images)
replace_convs_with_boo(model)
print(f"replace_convs_with_boo: {[type(m).__name__ for m in model if 'Conv' in type(m).__name__]}, "
      f"max |logits - eager| = {(model(images) - eager).abs().max():.2e}")

# 3. torch.compile: conv + bias + activation fuse into one Boo kernel each,
#    and the linear layer's addmm runs on Boo too.
boo.reset_stats()
compiled = torch.compile(model, backend="boo")
with torch.no_grad():
    logits = compiled(images)
print(f"torch.compile(backend='boo'): {boo.stats()['launches']} Boo launches for 2 convs and a linear, "
      f"max |logits - eager| = {(logits - eager).abs().max():.2e}")

# 4. The emulator runs the GPU kernels (gfx942's MFMA path) on the CPU.
boo.set_device("emu:gfx942")
xb, wb = torch.randn(1, 16, 8, 8, dtype=torch.bfloat16), torch.randn(32, 16, 3, 3, dtype=torch.bfloat16)
yb = boo_conv(xb, wb, padding=1)
refb = torch.nn.functional.conv2d(xb.double(), wb.double(), padding=1)
print(f"emu:gfx942 bf16 conv: max |y - float64| = {(yb.double() - refb).abs().max():.3f} "
      f"(bf16 rounding of values up to {refb.abs().max():.0f})")
boo.set_device(None)

# 5. Signatures and launchables, with IREE BOO's names.
sig = boo.parse_command("convbfp16 -n 2 -c 8 -H 9 -W 9 -k 16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -g 2 -F 1 "
                        "--in_layout NHWC --fil_layout NHWC --out_layout NHWC")
print(f"{sig.func_name}\n  output {sig.output_shape}, on {boo.get_launchable(sig)}")

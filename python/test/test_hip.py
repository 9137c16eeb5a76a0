"""Boo on AMD GPUs through a ROCm build of PyTorch: device pointers and
PyTorch's current stream. Skipped, with the reason, without one."""

import pytest
import torch

import boo
from boo.ops import boo_conv, boo_layer_norm

HIP = torch.version.hip is not None and torch.cuda.is_available()
pytestmark = pytest.mark.skipif(
    not HIP,
    reason="no AMD GPU here: this PyTorch is a "
    + ("ROCm build without a visible GPU" if torch.version.hip else "build without ROCm (torch.version.hip is None)"),
)


def test_conv_and_layer_norm_on_the_gpu(seeded):
    x = torch.randn(2, 8, 16, 16, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    w = torch.randn(16, 8, 3, 3, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    assert boo.get_device(x.device).startswith("hip:")
    y = boo_conv(x, w, padding=1)
    ref = torch.nn.functional.conv2d(x.float(), w.float(), padding=1)
    torch.testing.assert_close(y.float(), ref, rtol=2e-2, atol=2e-1)
    y.sum().backward()
    assert x.grad is not None and w.grad is not None
    t = torch.randn(4, 64, device="cuda")
    torch.testing.assert_close(boo_layer_norm(t, 64), torch.nn.functional.layer_norm(t, (64,)), rtol=1e-4, atol=1e-5)


def test_runs_on_the_current_stream(seeded):
    stream = torch.cuda.Stream()
    x, w = torch.randn(1, 4, 8, 8, device="cuda"), torch.randn(4, 4, 3, 3, device="cuda")
    with torch.cuda.stream(stream):
        y = boo_conv(x, w, padding=1)
    stream.synchronize()
    torch.testing.assert_close(y, torch.nn.functional.conv2d(x, w, padding=1), rtol=1e-4, atol=1e-4)

"""boo_conv against PyTorch in float64, within the project's tolerance model:
forward and every backward, 1-3-D, NCHW and channels-last, groups, stride,
padding, dilation, with and without bias, f32 and bf16."""

import pytest
import torch

from boo.ops import boo_conv
from conftest import count_launches
from numerics import check_conv_backward, check_conv_forward

# (input shape, weight shape, stride, padding, dilation, groups, bias)
CASES = {
    "1d": ((2, 4, 11), (6, 4, 3), 1, 1, 1, 1, True),
    "1d-strided-grouped": ((1, 6, 16), (4, 3, 5), 2, 2, 1, 2, False),
    "2d": ((2, 3, 9, 9), (8, 3, 3, 3), 1, 1, 1, 1, True),
    "2d-stride-dilation": ((1, 4, 12, 10), (6, 4, 3, 2), (2, 1), (1, 0), (2, 3), 1, False),
    "2d-groups": ((2, 8, 7, 7), (8, 2, 3, 3), 2, 1, 1, 4, True),
    "2d-depthwise": ((1, 6, 8, 8), (6, 1, 3, 3), 1, 1, 1, 6, True),
    "2d-1x1": ((3, 16, 5, 5), (8, 16, 1, 1), 1, 0, 1, 1, False),
    "3d": ((1, 3, 5, 6, 6), (4, 3, 3, 3, 3), 1, 1, 1, 1, True),
    "3d-strided": ((1, 4, 6, 7, 5), (4, 2, 2, 3, 3), (1, 2, 2), (0, 1, 1), 1, 2, False),
}


def _make(case, dtype, channels_last):
    xs, ws, stride, padding, dilation, groups, has_bias = CASES[case]
    x = torch.randn(xs, dtype=dtype)
    w = torch.randn(ws, dtype=dtype)
    b = torch.randn(ws[0], dtype=dtype) if has_bias else None
    if channels_last and x.dim() > 3:
        fmt = torch.channels_last if x.dim() == 4 else torch.channels_last_3d
        x, w = x.to(memory_format=fmt), w.to(memory_format=fmt)
    elif channels_last:  # 1-D: NWC memory
        x = x.transpose(1, 2).contiguous().transpose(1, 2)
        w = w.transpose(1, 2).contiguous().transpose(1, 2)
    return x, w, b, dict(stride=stride, padding=padding, dilation=dilation, groups=groups)


def _expand(kw, rank):
    out = {}
    for key in ("stride", "padding", "dilation"):
        v = kw[key]
        out[key] = [v] * rank if isinstance(v, int) else list(v)
    out["groups"] = kw["groups"]
    return out


def _run_and_check(case, dtype, channels_last, needs=(True, True, True)):
    x, w, b, kw = _make(case, dtype, channels_last)
    x.requires_grad_(needs[0])
    w.requires_grad_(needs[1])
    if b is not None:
        b.requires_grad_(needs[2])
    y, launches = count_launches(lambda: boo_conv(x, w, b, **kw))
    assert launches == 1, "the forward must run on Boo"
    full = _expand(kw, x.dim() - 2)
    check_conv_forward(y.detach(), x.detach(), w.detach(), None if b is None else b.detach(), **full)
    if channels_last and x.dim() > 3:
        fmt = torch.channels_last if x.dim() == 4 else torch.channels_last_3d
        assert y.is_contiguous(memory_format=fmt), "a channels-last input gives a channels-last output"
    dy = torch.randn(y.shape, dtype=dtype)
    _, launches = count_launches(lambda: y.backward(dy))
    assert launches == 1, "the backward must run on Boo, in one kernel call"
    grads = [t.grad if t is not None and t.requires_grad else None for t in (x, w, b)]
    for t, g in zip((x, w, b), grads):
        if t is not None and g is not None:
            assert g.shape == t.shape and g.dtype == t.dtype
    check_conv_backward(grads, x.detach(), w.detach(), None if b is None else b.detach(), dy, **full)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_conv_cpu(case, dtype, channels_last, device, seeded):
    _run_and_check(case, dtype, channels_last)


@pytest.mark.parametrize("needs", [(True, False, False), (False, True, False), (False, False, True),
                                   (True, False, True)], ids=["dx", "dw", "db", "dx-db"])
def test_conv_gradient_subsets(needs, device, seeded):
    _run_and_check("2d-groups", torch.float32, False, needs)


@pytest.mark.parametrize("device", ["emu:gfx942", "emu:gfx1100"], indirect=True)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize("case", ["1d", "2d", "2d-groups", "3d-strided"])
def test_conv_emulator(case, dtype, device, seeded):
    _run_and_check(case, dtype, channels_last=(case == "2d"))


def test_explicit_layouts_match_torch_order(device, seeded):
    """shared_layout="NHWC": tensors in NHWC order, as in IREE BOO."""
    x = torch.randn(2, 5, 6, 4)  # N H W C
    w = torch.randn(8, 3, 3, 4)  # K Y X C
    y = boo_conv(x, w, padding=1, shared_layout="NHWC")
    ref = boo_conv(x.permute(0, 3, 1, 2), w.permute(0, 3, 1, 2), padding=1)
    assert y.shape == (2, 5, 6, 8)
    torch.testing.assert_close(y, ref.permute(0, 2, 3, 1), rtol=0, atol=0)


def test_backward_kernels_can_be_turned_off(device, seeded, monkeypatch):
    monkeypatch.setenv("BOO_USE_BACKWARD_KERNELS", "0")
    x = torch.randn(1, 4, 6, 6, requires_grad=True)
    w = torch.randn(4, 4, 3, 3, requires_grad=True)
    y = boo_conv(x, w, padding=1)
    _, launches = count_launches(lambda: y.sum().backward())
    assert launches == 0, "PyTorch computes the gradients"
    xr, wr = x.detach().requires_grad_(), w.detach().requires_grad_()
    torch.nn.functional.conv2d(xr, wr, padding=1).sum().backward()
    torch.testing.assert_close(x.grad, xr.grad)
    torch.testing.assert_close(w.grad, wr.grad)


def test_padding_strings(device, seeded):
    x, w = torch.randn(1, 2, 7, 7), torch.randn(3, 2, 3, 5)
    check_conv_forward(boo_conv(x, w, padding="same"), x, w, None, [1, 1], [1, 2], [1, 1], 1)
    check_conv_forward(boo_conv(x, w, padding="valid"), x, w, None, [1, 1], [0, 0], [1, 1], 1)


def test_empty_batch(device):
    x, w = torch.randn(0, 2, 5, 5), torch.randn(3, 2, 3, 3)
    y = boo_conv(x, w)
    assert y.shape == (0, 3, 3, 3)

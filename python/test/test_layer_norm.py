"""boo_layer_norm against float64 references within the tolerance model."""

import pytest
import torch

from boo.ops import boo_layer_norm
from conftest import count_launches
from numerics import check_layer_norm_backward, check_layer_norm_forward

# (input shape, normalized rank, weight, bias)
CASES = {
    "rows-64": ((4, 6, 64), 1, True, True),
    "rows-odd": ((3, 77), 1, True, True),
    "no-affine": ((5, 32), 1, False, False),
    "weight-only": ((2, 3, 48), 1, True, False),
    "rank-2": ((2, 4, 8, 16), 2, True, True),
    "all-dims": ((6, 10), 2, True, True),
}


def _make(case, dtype):
    shape, nr, has_w, has_b = CASES[case]
    x = torch.randn(shape, dtype=dtype) * 3 + 0.5
    ns = list(shape[len(shape) - nr:])
    w = torch.randn(ns, dtype=dtype) if has_w else None
    b = torch.randn(ns, dtype=dtype) if has_b else None
    return x, ns, nr, w, b


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_norm_forward_and_backward(case, dtype, device, seeded):
    x, ns, nr, w, b = _make(case, dtype)
    (y, mean, rstd), launches = count_launches(lambda: torch.ops.boo.layer_norm(x, ns, w, b, 1e-5))
    assert launches == 1
    check_layer_norm_forward(y, mean, rstd, x, nr, w, b, 1e-5)
    dy = torch.randn(x.shape, dtype=dtype)
    grads = torch.ops.boo.layer_norm_backward(dy, x, ns, w, mean, rstd, [True, w is not None, b is not None],
                                              w is not None or b is not None)
    grads = [g if g.numel() else None for g in grads]
    # A bias without a weight: the kernel normalizes with a unit weight.
    check_layer_norm_backward(grads, dy, x, nr, w, mean, rstd)


@pytest.mark.parametrize("case", ["rows-64", "weight-only", "no-affine"])
def test_layer_norm_autograd_matches_torch(case, device, seeded):
    x, ns, nr, w, b = _make(case, torch.float32)
    leaves = [t.requires_grad_() for t in (x, w, b) if t is not None]
    y = boo_layer_norm(x, ns, w, b)
    dy = torch.randn(x.shape)
    _, launches = count_launches(lambda: y.backward(dy))
    assert launches == 1
    ref_leaves = [t.detach().clone().requires_grad_() for t in leaves]
    it = iter(ref_leaves)
    xr, wr, br = next(it), (next(it) if w is not None else None), (next(it) if b is not None else None)
    torch.nn.functional.layer_norm(xr, ns, wr, br).backward(dy)
    for got, ref in zip(leaves, ref_leaves):
        torch.testing.assert_close(got.grad, ref.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("needs", [(True, False, False), (False, True, False), (False, False, True)],
                         ids=["dx", "dweight", "dbias"])
def test_layer_norm_gradient_subsets(needs, device, seeded):
    x, ns, nr, w, b = _make("rows-64", torch.float32)
    x.requires_grad_(needs[0]), w.requires_grad_(needs[1]), b.requires_grad_(needs[2])
    y = boo_layer_norm(x, ns, w, b)
    dy = torch.randn(x.shape)
    y.backward(dy)
    xr, wr, br = (t.detach().clone().requires_grad_(n) for t, n in zip((x, w, b), needs))
    torch.nn.functional.layer_norm(xr, ns, wr, br).backward(dy)
    for t, r, n in zip((x, w, b), (xr, wr, br), needs):
        assert (t.grad is not None) == n
        if n:
            torch.testing.assert_close(t.grad, r.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("device", ["emu:gfx942", "emu:gfx1100"], indirect=True)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
def test_layer_norm_emulator(dtype, device, seeded):
    x, ns, nr, w, b = _make("rows-64", dtype)
    y, mean, rstd = torch.ops.boo.layer_norm(x, ns, w, b, 1e-5)
    check_layer_norm_forward(y, mean, rstd, x, nr, w, b, 1e-5)

"""Matrix products from MIOpenDriver gemm and IREE BOO aten:: commands,
compiled and run through boo.get_launchable against torch."""

import pytest
import torch

import boo


@pytest.mark.parametrize("device", ["cpu", "emu:gfx942"], indirect=True)
def test_gemm_command_matches_torch(device, seeded):
    # MIOpenDriver's flags: M = --a_h (-m), K = --a_w (-k); -u stores A as K x M.
    run = boo.get_launchable("gemm -m 24 -k 40 -n 16 -u 1 -A 2 -B 0.5")
    a, b, c = torch.randn(40, 24), torch.randn(40, 16), torch.randn(24, 16)
    torch.testing.assert_close(run(a, b, c), 2 * a.t() @ b + 0.5 * c)


@pytest.mark.parametrize("device", ["cpu", "emu:gfx1100"], indirect=True)
def test_aten_addmm_matches_torch(device, seeded):
    # nn.Linear: self a row bias, mat2 the transposed weight (strides [1, 32]),
    # which the function takes as stored: the weight itself.
    run = boo.get_launchable(
        'aten::addmm "[[16], [8, 32], [32, 16], [], []]" '
        "\"['c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', 'Scalar', 'Scalar']\" "
        '"[[1], [32, 1], [1, 32], [], []]" "[\'\', \'\', \'\', \'1\', \'1\']"'
    )
    bias, x, weight = (torch.randn(s).to(torch.bfloat16) for s in ([16], [8, 32], [16, 32]))
    expected = torch.addmm(bias.float(), x.float(), weight.float().t())
    torch.testing.assert_close(run(bias, x, weight).float(), expected, atol=0.1, rtol=0.02)


@pytest.mark.parametrize("device", ["cpu", "emu:gfx942"], indirect=True)
def test_boo_mm_reads_strided_views_in_place(device, seeded):
    a, w = torch.randn(24, 40), torch.randn(16, 40)
    boo.reset_stats()
    # w.t() is column-major: the command declares strides [1, 40].
    torch.testing.assert_close(boo.ops.boo_mm(a, w.t()), a @ w.t())
    assert boo.stats()["copies"] == 0
    # Sliced views have neither layout: their storage is passed, no copy.
    torch.testing.assert_close(boo.ops.boo_mm(a[:, ::2], w[:, ::2].t()), a[:, ::2] @ w[:, ::2].t())
    # A stride-0 batch (one matrix repeated) and a slice past an offset.
    p, q = torch.randn(5, 7), torch.randn(3, 7, 9)
    torch.testing.assert_close(boo.ops.boo_bmm(p.expand(3, 5, 7), q[:, :, 1::2]),
                               torch.bmm(p.expand(3, 5, 7), q[:, :, 1::2]))
    assert boo.stats()["copies"] == 0


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_boo_addmm_and_bmm_gradients_match_torch(device, seeded, dtype):
    tol = {} if dtype == torch.float32 else {"atol": 0.05, "rtol": 0.02}
    bias = torch.randn(16, dtype=dtype, requires_grad=True)
    x = torch.randn(8, 32, dtype=dtype, requires_grad=True)
    w = torch.randn(16, 32, dtype=dtype, requires_grad=True)
    y = boo.ops.boo_addmm(bias, x, w.t(), beta=0.5, alpha=2)
    y.square().sum().backward()
    grads = [t.grad for t in (bias, x, w)]
    for t in (bias, x, w):
        t.grad = None
    torch.addmm(bias, x, w.t(), beta=0.5, alpha=2).square().sum().backward()
    for g, t in zip(grads, (bias, x, w)):
        torch.testing.assert_close(g, t.grad, **tol)

    p = torch.randn(3, 8, 12, dtype=dtype, requires_grad=True)
    q = torch.randn(3, 12, 5, dtype=dtype, requires_grad=True)
    boo.ops.boo_bmm(p, q).sum().backward()
    torch.testing.assert_close(p.grad, torch.ones(3, 8, 5, dtype=dtype) @ q.detach().transpose(1, 2), **tol)
    torch.testing.assert_close(q.grad, p.detach().transpose(1, 2) @ torch.ones(3, 8, 5, dtype=dtype), **tol)


def test_empty_products(device):
    # A size of 0: an empty result, or a sum of no terms (beta * input).
    assert boo.ops.boo_mm(torch.randn(0, 3), torch.randn(3, 4)).shape == (0, 4)
    c = torch.randn(2, 4)
    torch.testing.assert_close(boo.ops.boo_addmm(c, torch.randn(2, 0), torch.randn(0, 4), beta=0.5), 0.5 * c)


@pytest.mark.parametrize("device", ["cpu", "emu:gfx942"], indirect=True)
def test_float64_products_accumulate_in_float64(device, seeded):
    # IREE BOO's double bmm sample, and an addmm whose alpha and beta are not
    # f32 values: an f32 accumulator or f32 scalars would miss by ~1e-8.
    p = torch.randn(128, 3, 3, dtype=torch.float64)
    q = torch.randn(128, 3, 1152, dtype=torch.float64)
    torch.testing.assert_close(boo.ops.boo_bmm(p, q), torch.bmm(p, q), rtol=1e-13, atol=1e-13)
    c, a, w = (torch.randn(s, dtype=torch.float64) for s in ([24], [16, 200], [24, 200]))
    y = boo.ops.boo_addmm(c, a, w.t(), beta=0.1, alpha=1 / 3)
    torch.testing.assert_close(y, torch.addmm(c, a, w.t(), beta=0.1, alpha=1 / 3), rtol=1e-13, atol=1e-13)


def test_float64_product_gradients(device, seeded):
    a = torch.randn(6, 9, dtype=torch.float64, requires_grad=True)
    b = torch.randn(9, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(boo.ops.boo_mm, (a, b))


def test_matmul_ops_refuse_what_they_cannot_run(device):
    with pytest.raises(TypeError, match="float64"):
        boo.ops.boo_mm(torch.ones(2, 3, dtype=torch.int32), torch.ones(3, 4, dtype=torch.int32))
    with pytest.raises(ValueError, match="mat2 must be 3-D"):
        boo.ops.boo_bmm(torch.randn(2, 2, 3), torch.randn(3, 4))
    with pytest.raises(TypeError, match="dtypes differ"):
        boo.ops.boo_mm(torch.randn(2, 3), torch.randn(3, 4).to(torch.bfloat16))


def test_matmul_ops_trace_as_boo_nodes():
    gm = torch.fx.experimental.proxy_tensor.make_fx(
        lambda a, b, c: boo.ops.boo_addmm(c, a, b))(torch.randn(4, 8), torch.randn(8, 3), torch.randn(3))
    assert any(n.target == torch.ops.boo.addmm.default for n in gm.graph.nodes)

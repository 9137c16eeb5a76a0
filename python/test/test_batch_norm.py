"""boo_batch_norm against torch.nn.functional.batch_norm (in float64 on the
same values) and nn.BatchNorm1d/2d/3d: ranks 2-5, NCHW and channels-last
memory, f32/f16/bf16 and their mixes, training and eval, running-statistic
updates, gradients, the emulator, and the FX rewrite of aten's batch-norm
nodes."""

import copy

import pytest
import torch
import torch.nn.functional as F

import boo
from boo.fusion import fuse
from boo.ops import boo_batch_norm
from conftest import count_launches

aten = torch.ops.aten
F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16
TOL = {F32: dict(rtol=1e-4, atol=1e-5), F16: dict(rtol=1e-2, atol=1e-2), BF16: dict(rtol=2e-2, atol=5e-2)}


def _close(got, ref, dtype, what=""):
    torch.testing.assert_close(got.double(), ref.double(), **TOL[dtype], msg=lambda m: f"{what}: {m}")


def _channels_last(x):
    """x with its channels innermost in memory, in PyTorch's (N, C, ...) order."""
    perm = [0, *range(2, x.dim()), 1]
    back = [0, x.dim() - 1, *range(1, x.dim() - 1)]
    return x.permute(perm).contiguous().permute(back)


# (shape, memory): "dense", "channels_last" (channels innermost) or
# "strided" (neither: one copy).
LAYOUTS = {
    "2d": ((8, 5), "dense"),
    "3d": ((4, 5, 7), "dense"),
    "3d-channels-last": ((4, 5, 7), "channels_last"),
    "4d": ((3, 5, 4, 6), "dense"),
    "4d-channels-last": ((3, 5, 4, 6), "channels_last"),
    "4d-strided": ((3, 5, 4, 6), "strided"),
    "5d": ((2, 5, 3, 4, 3), "dense"),
    "5d-channels-last": ((2, 5, 3, 4, 3), "channels_last"),
}


def _input(case, dtype=F32):
    shape, memory = LAYOUTS[case]
    x = torch.randn(shape) * 2 + 0.5
    if memory == "channels_last":
        x = _channels_last(x)
    elif memory == "strided":
        x = torch.randn(shape[0], shape[1], 2 * shape[2], *shape[3:])[:, :, ::2]
    return x.to(dtype)


def _stats(c, dtype=F32):
    return torch.randn(c).to(dtype), (torch.rand(c) + 0.5).to(dtype)


def _params(c, dtype=F32):
    return torch.randn(c).to(dtype), torch.randn(c).to(dtype)


def _reference(x, rm, rv, w, b, training, momentum=0.1, eps=1e-5):
    """F.batch_norm in float64: (y, new running mean, new running var)."""
    d = lambda t: None if t is None else t.detach().double().clone()
    rm64, rv64 = d(rm), d(rv)
    return F.batch_norm(d(x), rm64, rv64, d(w), d(b), training, momentum, eps), rm64, rv64


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("case", sorted(LAYOUTS))
def test_forward_ranks_and_layouts(case, training, device, seeded):
    x = _input(case)
    c = x.shape[1]
    rm, rv = _stats(c)
    w, b = _params(c)
    ref, ref_rm, ref_rv = _reference(x, rm, rv, w, b, training, 0.3, 1e-3)
    boo.reset_stats()
    y, launches = count_launches(lambda: boo_batch_norm(x, rm, rv, w, b, training, 0.3, 1e-3))
    assert launches == 1
    assert boo.stats()["copies"] == (1 if LAYOUTS[case][1] == "strided" else 0)
    _close(y, ref, F32, "y")
    _close(rm, ref_rm, F32, "running_mean")
    _close(rv, ref_rv, F32, "running_var")
    if x.dim() >= 4:
        torch_y = F.batch_norm(x, rm.clone(), rv.clone(), w, b, training)
        fmt = torch.channels_last if x.dim() == 4 else torch.channels_last_3d
        assert y.is_contiguous(memory_format=fmt) == torch_y.is_contiguous(memory_format=fmt)


# (input, weight and bias, running statistics) dtypes, and the copies that
# convert the parameters or statistics to a combination a kernel covers.
DTYPES = {
    "f16": ((F16, F16, F16), 0),
    "f16-f32-stats": ((F16, F16, F32), 0),
    "bf16-f32-stats": ((BF16, BF16, F32), 0),
    "bf16-f32-params": ((BF16, F32, F32), 0),
    "f16-f32-params": ((F16, F32, F32), 2),  # autocast: weight and bias to f16
    "bf16-bf16-stats": ((BF16, BF16, BF16), 4),  # stats to f32 and back
}


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("combo", sorted(DTYPES))
def test_forward_dtypes(combo, training, device, seeded):
    (xd, pd, sd), copies = DTYPES[combo]
    x = _input("4d", xd)
    rm, rv = _stats(5, sd)
    w, b = _params(5, pd)
    ref, ref_rm, ref_rv = _reference(x, rm, rv, w, b, training)
    boo.reset_stats()
    y = boo_batch_norm(x, rm, rv, w, b, training)
    assert boo.stats()["copies"] == (copies if training or copies != 4 else 2)
    assert y.dtype == xd and rm.dtype == sd
    _close(y, ref, xd, "y")
    _close(rm, ref_rm, sd, "running_mean")
    _close(rv, ref_rv, sd, "running_var")


@pytest.mark.parametrize("affine", [True, False], ids=["affine", "plain"])
@pytest.mark.parametrize("case", ["2d", "4d", "4d-channels-last", "5d-channels-last"])
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_gradients_match_torch(training, case, affine, device, seeded):
    x = _input(case).requires_grad_()
    c = x.shape[1]
    rm, rv = _stats(c)
    w, b = (t.requires_grad_() for t in _params(c)) if affine else (None, None)
    y = boo_batch_norm(x, rm, rv, w, b, training)
    dy = torch.randn(x.shape)
    _, launches = count_launches(lambda: y.backward(dy))
    # Eval: dx from the inference kernel, dweight and dbias from the backward one.
    assert launches == (1 if training or not affine else 2)
    leaves = [t for t in (x, w, b) if t is not None]
    refs = [t.detach().double().requires_grad_() for t in leaves]
    it = iter(refs)
    xr, wr, br = next(it), next(it) if affine else None, next(it) if affine else None
    F.batch_norm(xr, rm.double(), rv.double(), wr, br, training).backward(dy.double())
    for name, got, ref in zip(("dx", "dweight", "dbias"), leaves, refs):
        _close(got.grad, ref.grad, F32, name)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("needs", [(True, False, False), (False, True, False), (False, False, True)],
                         ids=["dx", "dweight", "dbias"])
def test_gradient_subsets(needs, training, device, seeded):
    x = _input("4d")
    rm, rv = _stats(5)
    w, b = _params(5)
    for t, n in zip((x, w, b), needs):
        t.requires_grad_(n)
    y = boo_batch_norm(x, rm, rv, w, b, training)
    dy = torch.randn(x.shape)
    _, launches = count_launches(lambda: y.backward(dy))
    assert launches == 1
    refs = [t.detach().double().requires_grad_(n) for t, n in zip((x, w, b), needs)]
    F.batch_norm(refs[0], rm.double(), rv.double(), refs[1], refs[2], training).backward(dy.double())
    for t, r, n in zip((x, w, b), refs, needs):
        assert (t.grad is not None) == n
        if n:
            _close(t.grad, r.grad, F32)


@pytest.mark.parametrize("combo", ["f16-f32-stats", "bf16-f32-params", "f16-f32-params"])
def test_low_precision_gradients(combo, device, seeded):
    (xd, pd, sd), _ = DTYPES[combo]
    x = _input("4d-channels-last", xd).requires_grad_()
    rm, rv = _stats(5, sd)
    w, b = (t.requires_grad_() for t in _params(5, pd))
    dy = torch.randn(x.shape).to(xd)
    boo_batch_norm(x, rm, rv, w, b, True).backward(dy)
    assert x.grad.dtype == xd and w.grad.dtype == pd
    refs = [t.detach().double().requires_grad_() for t in (x, w, b)]
    F.batch_norm(refs[0], None, None, refs[1], refs[2], True).backward(dy.double())
    # dweight and dbias are sums over 72 values of size ~1.
    for name, t, r, scale in zip(("dx", "dweight", "dbias"), (x, w, b), refs, (1, 8, 8)):
        tol = TOL[xd]
        torch.testing.assert_close(t.grad.double(), r.grad, rtol=tol["rtol"], atol=tol["atol"] * scale,
                                   msg=lambda m: f"{name}: {m}")


@pytest.mark.parametrize("module,shape", [(torch.nn.BatchNorm1d, (6, 4, 5)), (torch.nn.BatchNorm2d, (3, 4, 5, 5)),
                                          (torch.nn.BatchNorm3d, (2, 4, 3, 3, 3))],
                         ids=["1d", "2d", "3d"])
def test_modules_over_steps(module, shape, device, seeded):
    """Three training steps and an eval step of an nn.BatchNorm: outputs,
    running statistics and parameter gradients."""
    ours = module(4, momentum=0.2)
    theirs = copy.deepcopy(ours)
    for step in range(4):
        training = step < 3
        ours.train(training), theirs.train(training)
        x = torch.randn(shape) * 3 + step
        y = boo_batch_norm(x, ours.running_mean, ours.running_var, ours.weight, ours.bias,
                           training, ours.momentum, ours.eps)
        ref = theirs(x)
        torch.testing.assert_close(y, ref, **TOL[F32])
        y.square().sum().backward(), ref.square().sum().backward()
        torch.testing.assert_close(ours.running_mean, theirs.running_mean, **TOL[F32])
        torch.testing.assert_close(ours.running_var, theirs.running_var, **TOL[F32])
        torch.testing.assert_close(ours.weight.grad, theirs.weight.grad, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(ours.bias.grad, theirs.bias.grad, rtol=1e-4, atol=1e-4)


def test_without_running_statistics(device, seeded):
    # No running statistics: the batch's, in training and in eval.
    x = _input("4d").requires_grad_()
    w, b = _params(5)
    for training in (True, False):
        y = boo_batch_norm(x, None, None, w, b, training)
        _close(y, _reference(x, None, None, w, b, True)[0], F32)
        dy = torch.randn(x.shape)
        (dx,) = torch.autograd.grad(y, x, dy)
        xr = x.detach().double().requires_grad_()
        F.batch_norm(xr, None, None, w.double(), b.double(), True).backward(dy.double())
        _close(dx, xr.grad, F32, "dx")


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("combo", ["f32", "bf16-bf16-stats"])
def test_backward_kernels_off(combo, training, device, seeded, monkeypatch):
    monkeypatch.setenv("BOO_USE_BACKWARD_KERNELS", "0")
    xd, pd, sd = (F32, F32, F32) if combo == "f32" else DTYPES[combo][0]
    x = _input("4d-channels-last", xd).requires_grad_()
    rm, rv = _stats(5, sd)
    w, b = (t.requires_grad_() for t in _params(5, pd))
    y = boo_batch_norm(x, rm, rv, w, b, training)
    dy = torch.randn(x.shape).to(xd)
    _, launches = count_launches(lambda: y.backward(dy))
    assert launches == 0
    refs = [t.detach().double().requires_grad_() for t in (x, w, b)]
    F.batch_norm(refs[0], rm.double(), rv.double(), refs[1], refs[2], training).backward(dy.double())
    for name, t, r, scale in zip(("dx", "dweight", "dbias"), (x, w, b), refs, (1, 8, 8)):
        torch.testing.assert_close(t.grad.double(), r.grad, rtol=TOL[xd]["rtol"], atol=TOL[xd]["atol"] * scale,
                                   msg=lambda m: f"{name}: {m}")


def test_empty_input(device):
    x = torch.randn(0, 3, 4, 4, requires_grad=True)
    rm, rv = _stats(3)
    before = rm.clone(), rv.clone()
    y, launches = count_launches(lambda: boo_batch_norm(x, rm, rv, torch.ones(3), torch.zeros(3), True))
    assert launches == 0 and y.shape == x.shape
    assert torch.equal(rm, before[0]) and torch.equal(rv, before[1])
    y.sum().backward()
    assert x.grad.shape == x.shape


@pytest.mark.parametrize("device", ["emu:gfx942", "emu:gfx1100"], indirect=True)
@pytest.mark.parametrize("combo", ["f32", "bf16-f32-params"])
def test_emulator(combo, device, seeded):
    xd, pd, sd = (F32, F32, F32) if combo == "f32" else DTYPES[combo][0]
    x = _input("4d-channels-last" if combo == "f32" else "4d", xd).requires_grad_()
    rm, rv = _stats(5, sd)
    w, b = (t.requires_grad_() for t in _params(5, pd))
    ref, ref_rm, ref_rv = _reference(x, rm, rv, w, b, True)
    y = boo_batch_norm(x, rm, rv, w, b, True)
    _close(y, ref, xd, "y")
    _close(rm, ref_rm, sd, "running_mean")
    _close(rv, ref_rv, sd, "running_var")
    dy = torch.randn(x.shape).to(xd)
    _, launches = count_launches(lambda: y.backward(dy))
    assert launches == 1
    refs = [t.detach().double().requires_grad_() for t in (x, w, b)]
    F.batch_norm(refs[0], None, None, refs[1], refs[2], True).backward(dy.double())
    for name, t, r, scale in zip(("dx", "dweight", "dbias"), (x, w, b), refs, (1, 8, 8)):
        torch.testing.assert_close(t.grad.double(), r.grad, rtol=TOL[xd]["rtol"], atol=TOL[xd]["atol"] * scale,
                                   msg=lambda m: f"{name}: {m}")


def test_errors(device):
    x = torch.randn(2, 3, 4, 4)
    rm, rv = _stats(3)
    with pytest.raises(TypeError, match="must be a torch tensor"):
        boo_batch_norm([1.0, 2.0], None, None)
    with pytest.raises(ValueError, match="2-D to 5-D input"):
        boo_batch_norm(torch.randn(3), None, None, training=True)
    with pytest.raises(ValueError, match="2-D to 5-D input"):
        boo_batch_norm(torch.randn(2, 3, 2, 2, 2, 2), None, None, training=True)
    with pytest.raises(ValueError, match=r"weight has shape \[4\], expected \[3\]"):
        boo_batch_norm(x, rm, rv, torch.ones(4), training=True)
    with pytest.raises(ValueError, match=r"running_var has shape \[3, 1\]"):
        boo_batch_norm(x, rm, rv[:, None])
    with pytest.raises(NotImplementedError, match="float64"):
        boo_batch_norm(x.double(), rm.double(), rv.double())
    with pytest.raises(NotImplementedError, match="running_mean is torch.int64"):
        boo_batch_norm(x, torch.zeros(3, dtype=torch.int64), rv)
    with pytest.raises(ValueError, match="both running_mean and running_var"):
        boo_batch_norm(x, rm, None, training=True)
    with pytest.raises(ValueError, match="momentum=None"):
        boo_batch_norm(x, rm, rv, training=True, momentum=None)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        boo_batch_norm(torch.randn(1, 3), rm, rv, training=True)
    with pytest.raises(ValueError, match="--momentum"):
        boo_batch_norm(x, rm, rv, training=True, momentum=1.5)
    with pytest.raises(ValueError, match="output gradient has shape"):
        torch.ops.boo.batch_norm_backward(x[:1], x, None, None, None, rm, rv, True, 1e-5, [True, False, False])
    with pytest.raises(ValueError, match="train=False needs running_mean"):
        torch.ops.boo.batch_norm_backward(x, x, None, None, None, rm, rv, False, 1e-5, [True, False, False])


#===------------------------------------------------------------------------===#
# Tracing and the FX rewrite
#===------------------------------------------------------------------------===#


def test_traces_as_a_functional_boo_node(device, seeded):
    x, (rm, rv), (w, b) = _input("4d"), _stats(5), _params(5)
    gm = torch.fx.experimental.proxy_tensor.make_fx(
        lambda x, rm, rv: boo_batch_norm(x, rm, rv, w, b, True))(x, rm.clone(), rv.clone())
    targets = [n.target for n in gm.graph.nodes]
    assert torch.ops.boo.batch_norm.default in targets and aten.copy_.default in targets
    # aot_eager functionalizes the in-place update of the running statistics.
    compiled = torch.compile(lambda x, rm, rv: boo_batch_norm(x, rm, rv, w, b, True),
                             backend="aot_eager", fullgraph=True)
    ref_rm, ref_rv = rm.clone(), rv.clone()
    y = compiled(x, rm, rv)
    torch.testing.assert_close(y, F.batch_norm(x, ref_rm, ref_rv, w, b, True), **TOL[F32])
    torch.testing.assert_close((rm, rv), (ref_rm, ref_rv), **TOL[F32])


def _fused_and_ran(gm, args):
    report = fuse(gm)
    targets = {n.target for n in gm.graph.nodes if n.op == "call_function"}
    assert not targets & {aten.native_batch_norm.default, aten._native_batch_norm_legit_functional.default,
                          aten._native_batch_norm_legit_no_training.default}, targets
    out, launches = count_launches(lambda: gm(*args))
    return report, out, launches


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_fuse_make_fx_graph(training, device, seeded):
    """make_fx's native_batch_norm updates the statistics in place: the
    rewrite copies boo::batch_norm's new values into them."""
    x, (rm, rv), (w, b) = _channels_last(_input("4d")), _stats(5), _params(5)
    args = (x, rm.clone(), rv.clone(), w, b)
    gm = torch.fx.experimental.proxy_tensor.make_fx(
        lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, training), tracing_mode="fake")(*args)
    assert aten.native_batch_norm.default in {n.target for n in gm.graph.nodes}
    report, y, launches = _fused_and_ran(gm, args)
    assert report.batch_norms == 1 and launches == 1
    ref, ref_rm, ref_rv = _reference(x, rm, rv, w, b, training)
    _close(y, ref, F32, "y")
    _close(args[1], ref_rm, F32, "running_mean")
    _close(args[2], ref_rv, F32, "running_var")


@pytest.mark.parametrize("decomposed", [True, False], ids=["decomposed", "export-ir"])
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_fuse_exported_graph(training, decomposed, device, seeded):
    """torch.export's graphs: aten.batch_norm (updating the buffers in
    place), and after run_decompositions _native_batch_norm_legit_functional
    in training, _native_batch_norm_legit_no_training in eval."""
    module = torch.nn.BatchNorm1d(5).train(training)
    x = _input("3d")
    ep = torch.export.export(copy.deepcopy(module), (x,))
    gm = (ep.run_decompositions() if decomposed else ep).module()
    report, y, launches = _fused_and_ran(gm, (x,))
    assert aten.batch_norm.default not in {n.target for n in gm.graph.nodes}
    assert report.batch_norms == 1 and launches == 1
    torch.testing.assert_close(y, module(x), **TOL[F32])
    if training:  # the exported module's buffers took the new values
        torch.testing.assert_close(gm.running_mean, module.running_mean, **TOL[F32])


def test_fuse_leaves_what_boo_cannot_take(device, seeded):
    x = torch.randn(4, 5, 3, dtype=torch.float64)
    module = torch.nn.BatchNorm1d(5).double()
    gm = torch.export.export(module, (x,)).run_decompositions().module()
    report = fuse(gm)
    assert report.batch_norms == 0 and "dtype torch.float64" in report.skipped[0]

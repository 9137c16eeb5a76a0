"""boo_argmax and boo_argmin (IREE BOO's aten::argmax and aten::argmin
commands) against torch.argmax and torch.argmin: dtypes, dims, keepdim,
ties, NaN and infinities, strides, devices and errors; and the FX rewrite
of aten.argmax/argmin under fuse() and torch.compile."""

import copy

import pytest
import torch
from torch._functorch.aot_autograd import make_boxed_func

import boo
from boo.fusion import DEFAULT_SCHEMA, fuse
from boo.ops import boo_argmax, boo_argmin
from conftest import count_launches

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
OPS = [(boo_argmax, torch.argmax), (boo_argmin, torch.argmin)]
NAN, INF = float("nan"), float("inf")


def _check_all(x, dims=(None, 0, 1, -1), keepdims=(False, True)):
    """Both ops on `x` along each of `dims`, with and without keepdim, are
    torch's: same values, shape and dtype (int64)."""
    for ours, theirs in OPS:
        for dim in dims:
            for keepdim in keepdims:
                got, want = ours(x, dim, keepdim), theirs(x, dim, keepdim)
                where = f"{ours.__name__}(dim={dim}, keepdim={keepdim}) of {x.dtype} {list(x.shape)}"
                assert got.dtype == torch.int64, where
                assert got.shape == want.shape, where
                assert torch.equal(got, want), f"{where}:\n{got}\n!=\n{want}"


@pytest.mark.parametrize("device", ["cpu", "emu:gfx942"], indirect=True)
def test_aten_command_matches_torch(device, seeded):
    command = ("aten::argmax \"[[4, 8, 16], [], []]\" \"['float', 'Scalar', 'Scalar']\" "
               "\"[[128, 16, 1], [], []]\" \"['', '1', 'False']\"")
    with pytest.raises(NotImplementedError, match="an arg-reduction has no Python signature class"):
        boo.parse_command(command)
    run = boo.get_launchable(command)
    assert run.results[0][1:] == ((4, 16), torch.int64)
    x = torch.randn(4, 8, 16)
    assert torch.equal(run(x), x.argmax(1))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("device", ["cpu", "emu:gfx942"], indirect=True)
def test_matches_torch(device, seeded, dtype):
    # Odd sizes; f16 and bf16 values tie often, and the first index wins.
    _check_all(torch.randn(3, 5, 33).to(dtype), dims=(None, 0, 1, 2, -1, -2))
    _check_all(torch.randn(70).to(dtype), dims=(None, 0, -1))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("device", ["cpu", "emu:gfx942"], indirect=True)
def test_ties_nan_and_infinities(device, seeded, dtype):
    # Few distinct values: every row ties; rows 0-1 are all equal.
    x = torch.randint(0, 3, (6, 40)).float()
    x[0], x[1] = 1.0, -2.0
    _check_all(x.to(dtype))
    rows = torch.tensor([
        [1.0, NAN, 3.0, NAN, 5.0],      # the first NaN is both max and min
        [INF, 2.0, INF, -INF, -INF],    # the first of tied infinities
        [NAN, NAN, NAN, NAN, NAN],
        [-INF, -INF, -INF, -INF, -INF],
        [0.0, -0.0, 0.0, -0.0, 0.0],    # -0.0 == 0.0: index 0 both ways
        [-INF, INF, NAN, 1.0, -1.0],
    ])
    _check_all(rows.to(dtype))
    _check_all(rows.t().contiguous().to(dtype))


@pytest.mark.parametrize("device", ["cpu", "emu:gfx942"], indirect=True)
def test_large_reductions_split_into_groups(device, seeded):
    # 2^15 elements with few kept: the reduction runs in 32 groups (element
    # i in group i % 32), then over the groups' bests. The first index must
    # win where the groups' order is not the indices': ties and NaNs whose
    # first index is in a later group, all equal, all -inf, and ties over a
    # kept dim of 3.
    n = 1 << 15
    x = torch.randn(n)
    x[20000], x[9000], x[30000] = 9.0, 9.0, 9.0   # max in groups 0, 8, 16
    x[5000], x[17000] = -9.0, -9.0                 # min in groups 8, 8
    x[4097], x[4] = -9.0, -9.0                     # and in groups 1, 4
    _check_all(x, dims=(None, 0))
    _check_all(x.to(torch.bfloat16), dims=(None, 0))  # many ties
    y = x.clone()
    y[12345], y[22222] = NAN, NAN                  # groups 25, 14
    _check_all(y, dims=(None, 0))
    _check_all(torch.full((n,), 2.0), dims=(None, 0))
    _check_all(torch.full((4, n // 4), -INF), dims=(None,))
    z = torch.randint(0, 4, (3, n)).to(torch.float16)
    _check_all(z, dims=(None, 1, -1))


def test_non_contiguous_input_is_copied_once(device, seeded):
    x = torch.randn(16, 12)
    for view in (x.t(), x[::2, 1::3], x.unsqueeze(0).expand(3, 16, 12)):
        boo.reset_stats()
        assert torch.equal(boo_argmax(view, 1), view.argmax(1))
        assert boo.stats()["copies"] == 1, list(view.stride())
    boo.reset_stats()
    assert torch.equal(boo_argmin(x[2:9], 0), x[2:9].argmin(0))  # a dense slice: no copy
    assert boo.stats()["copies"] == 0


def test_shapes_that_share_a_kernel(device, seeded):
    # [outer, n, inner] with outer and inner collapsed: ranks up to 9, one
    # kernel for both splits of the outer dims.
    x = torch.randn(2, 3, 1, 2, 1, 2, 2, 5, 2)
    _check_all(x, dims=(None, 7, -4), keepdims=(False, True))
    y = torch.randn(12, 7)
    boo.reset_stats()
    assert torch.equal(boo_argmax(y.view(3, 4, 7), 2), y.view(3, 4, 7).argmax(2))
    assert torch.equal(boo_argmax(y.view(2, 6, 7), -1), y.view(2, 6, 7).argmax(-1))
    assert boo.stats()["compiles"] + boo.stats()["cache_hits"] <= 1


def test_answers_without_a_kernel(device):
    cases = [(torch.tensor(2.5), None), (torch.tensor(2.5), 0), (torch.tensor(2.5), -1),
             (torch.randn(4, 1, 3), 1), (torch.randn(0, 5), 1), (torch.randn(3, 0, 5), 2)]
    for x, dim in cases:
        for keepdim in (False, True):
            for ours, theirs in OPS:
                got, launches = count_launches(lambda: ours(x, dim, keepdim))
                assert launches == 0
                want = theirs(x, dim, keepdim)
                assert got.dtype == want.dtype and torch.equal(got, want), (list(x.shape), dim, keepdim)


def test_input_that_requires_grad(device, seeded):
    x = torch.randn(4, 10, requires_grad=True)
    for index in (boo_argmax(x, 1), torch.ops.boo.argmin(x, None, False)):
        assert index.dtype == torch.int64 and not index.requires_grad and index.grad_fn is None
    # The index selects values that are differentiated as usual.
    x.gather(1, boo_argmax(x, 1, keepdim=True)).sum().backward()
    assert torch.equal(x.grad, torch.nn.functional.one_hot(x.detach().argmax(1), 10).float())


def test_errors(device):
    for ours, theirs in OPS:
        # PyTorch's IndexError for empty reductions and out-of-range dims.
        for x, dim, match in [(torch.randn(0, 5), 0, "reduced dim 0 .* is empty"),
                              (torch.randn(0, 5), None, "must be given for an empty input"),
                              (torch.randn(3, 5), 2, "dim 2 is out of range .* -2 to 1"),
                              (torch.tensor(1.0), 1, "dim 1 is out of range .* -1 to 0")]:
            with pytest.raises(IndexError):
                theirs(x, dim)
            with pytest.raises(IndexError, match=match):
                ours(x, dim)
        for dtype in (torch.float64, torch.int64, torch.bool):
            with pytest.raises(NotImplementedError, match=f"{dtype}.*float32, float16 and bfloat16"):
                ours(torch.zeros(3, 4, dtype=dtype), 1)
        with pytest.raises(TypeError, match="dim must be an int or None"):
            ours(torch.randn(3, 4), 1.0)
        with pytest.raises(TypeError, match="must be a torch tensor"):
            ours([1.0, 2.0])


#===------------------------------------------------------------------------===#
# FX and torch.compile
#===------------------------------------------------------------------------===#


def _targets(gm):
    return [n.target for n in gm.graph.nodes if n.op == "call_function"]


def test_fuse_rewrites_argmax_and_argmin(device, seeded):
    fn = lambda x: (x.argmax(dim=1), torch.argmin(x), x.argmax(0, keepdim=True), x.double().argmax(1))
    x = torch.randn(6, 9)
    gm = torch.fx.experimental.proxy_tensor.make_fx(fn, tracing_mode="fake")(x)
    report = fuse(gm)
    assert report.arg_reductions == 3 and "float64" in report.skipped[0], report
    targets = _targets(gm)
    assert targets.count(torch.ops.boo.argmax.default) == 2
    assert targets.count(torch.ops.boo.argmin.default) == 1
    assert targets.count(torch.ops.aten.argmax.default) == 1  # float64 stays with PyTorch
    for got, want in zip(gm(x), fn(x)):
        assert torch.equal(got, want)

    schema = DEFAULT_SCHEMA.copy()
    schema.arg_reductions = False
    gm = torch.fx.experimental.proxy_tensor.make_fx(fn, tracing_mode="fake")(x)
    assert fuse(gm, schema).arg_reductions == 0
    assert torch.ops.boo.argmax.default not in _targets(gm)


class Classifier(torch.nn.Module):
    """Two linear layers; forward returns the logits and their argmax."""

    def __init__(self):
        super().__init__()
        self.hidden = torch.nn.Linear(32, 48)
        self.out = torch.nn.Linear(48, 10)

    def forward(self, x):
        logits = self.out(torch.relu(self.hidden(x)))
        return logits, logits.argmax(-1)


def _counting(backend, seen):
    """`backend`, with its nested compiler recording each graph's targets."""
    def nested(gm, example_inputs):
        seen.extend(_targets(gm))
        return make_boxed_func(gm.forward)
    return boo.backend(nested) if backend == "boo" else backend


@pytest.mark.parametrize("backend", ["boo", "boo_inductor"])
def test_compiled_classifier_argmax_runs_on_boo(device, seeded, backend, caplog):
    torch._dynamo.reset()
    model = Classifier()
    eager = copy.deepcopy(model)
    seen = []
    compiled = torch.compile(model, backend=_counting(backend, seen), dynamic=False)
    x = torch.randn(16, 32)
    with caplog.at_level("INFO", logger="boo"):
        (logits, preds), launches = count_launches(lambda: compiled(x))
    want_logits, want_preds = eager(x)
    torch.testing.assert_close(logits, want_logits, rtol=1e-4, atol=1e-5)
    assert torch.equal(preds, logits.argmax(-1)) and torch.equal(preds, want_preds)
    # Forward: the linear + relu (one fused kernel), the second linear, the argmax.
    assert launches == 3
    assert "1 arg-reductions" in caplog.text
    if backend == "boo":
        assert torch.ops.boo.argmax.default in seen and torch.ops.aten.argmax.default not in seen
    with torch.no_grad():
        (_, preds), launches = count_launches(lambda: compiled(x))
    assert launches == 3 and torch.equal(preds, want_preds)
    torch._dynamo.reset()

"""boo.fusion.fuse on aten graphs: conv + epilogue chains become one Boo
kernel, layer norms, batch norms and backward ops Boo's; the rest stays."""

import pytest
import torch

import boo
from boo.fusion import DEFAULT_SCHEMA, fuse
from conftest import count_launches
from models import ResNet18

aten = torch.ops.aten


class ConvChain(torch.nn.Module):
    """conv + bias, then the chain given; `residual` is computed first."""

    def __init__(self, chain):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 8, 3, padding=1)
        self.scale = torch.nn.Parameter(torch.randn(8, 1, 1))
        self.chain = chain

    def forward(self, x, residual):
        y = self.conv(x)
        for op in self.chain:
            y = op(self, y, residual)
        return y


CHAINS = {
    "relu": [lambda m, y, r: torch.relu(y)],
    "gelu-tanh": [lambda m, y, r: torch.nn.functional.gelu(y, approximate="tanh")],
    "residual-silu": [lambda m, y, r: y + r, lambda m, y, r: torch.nn.functional.silu(y)],
    "channel-mul-clamp": [lambda m, y, r: y * m.scale, lambda m, y, r: torch.nn.functional.hardtanh(y, -0.5, 2.0)],
    "leaky-sigmoid-tanh": [lambda m, y, r: torch.nn.functional.leaky_relu(y, 0.2),
                           lambda m, y, r: torch.sigmoid(y), lambda m, y, r: torch.tanh(y)],
}


def _export(model, args):
    """The model's aten graph, with silu and gelu kept whole (as AOTAutograd
    keeps them) rather than decomposed into core aten."""
    table = torch.export.default_decompositions()
    for op in (aten.silu.default, aten.gelu.default):
        table.pop(op, None)
    return torch.export.export(model, args).run_decompositions(table).module()


@pytest.mark.parametrize("chain", sorted(CHAINS))
@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
def test_conv_chains_fuse_into_one_kernel(chain, channels_last, device, seeded):
    model = ConvChain(CHAINS[chain])
    x, r = torch.randn(2, 4, 6, 6), torch.randn(2, 8, 6, 6)
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x, r = x.to(memory_format=torch.channels_last), r.to(memory_format=torch.channels_last)
    gm = _export(model, (x, r))
    report = fuse(gm)
    assert (report.fused_convs, report.plain_convs) == (1, 0), report
    targets = {n.target for n in gm.graph.nodes if n.op == "call_function"}
    assert torch.ops.boo.fused_conv.default in targets
    assert not targets & {aten.relu.default, aten.add.Tensor, aten.sigmoid.default, aten.convolution.default}
    with torch.no_grad():
        got, launches = count_launches(lambda: gm(x, r))
        ref = model(x, r)
    assert launches == 1
    torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-5)


def test_chain_stops_at_a_second_user_and_at_later_operands(device, seeded):
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(4, 4, 3, padding=1)

        def forward(self, x):
            y = torch.relu(self.conv(x))
            z = torch.tanh(x)  # computed after the conv
            return y + z, y

    model = Model()
    x = torch.randn(1, 4, 5, 5)
    gm = _export(model, (x,))
    report = fuse(gm)
    assert report.fused_convs == 1
    kept = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert aten.add.Tensor in kept and aten.tanh.default in kept
    with torch.no_grad():
        for got, ref in zip(gm(x), model(x)):
            torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-5)


def test_resnet18_fuse_matches_eager_and_trains(device, seeded):
    model = ResNet18().eval()
    x = torch.randn(2, 3, 32, 32)
    gm = _export(model, (x,))
    report = fuse(gm)
    assert report.plain_convs + report.fused_convs == 20 and not report.skipped
    assert report.matmuls == 1, "the fc layer's addmm"
    assert report.batch_norms == 20, "eval: _native_batch_norm_legit_no_training"
    with torch.no_grad():
        got, launches = count_launches(lambda: gm(x))
        ref = model(x)
    assert launches == 41
    torch.testing.assert_close(got, ref, rtol=1e-4, atol=1e-5)
    # One SGD step through the fused graph: Boo's kernels run backward.
    target = torch.tensor([3, 5])
    params = dict(gm.named_parameters())
    opt = torch.optim.SGD(gm.parameters(), lr=0.1, momentum=0.9)
    loss = torch.nn.functional.cross_entropy(gm(x), target)
    _, launches = count_launches(lambda: loss.backward())
    # Eval batch norms backward: the inference kernel for dx and the
    # backward kernel for dweight and dbias.
    assert launches == 62, "20 backward convolutions, 2 x 20 for the batch norms, boo::addmm's two mm"
    opt.step()
    ref_opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    torch.nn.functional.cross_entropy(model(x), target).backward()
    ref_opt.step()
    for name, p in model.named_parameters():
        torch.testing.assert_close(params[name].grad, p.grad, rtol=1e-3, atol=1e-5, msg=lambda m: f"{name}: {m}")
        torch.testing.assert_close(params[name].detach(), p.detach(), rtol=1e-3, atol=1e-5)


def test_fused_conv_trains(device, seeded):
    model = ConvChain(CHAINS["residual-silu"])
    x, r = torch.randn(2, 4, 6, 6), torch.randn(2, 8, 6, 6, requires_grad=True)
    gm = _export(model, (x, r))
    fuse(gm)
    params = dict(gm.named_parameters())
    gm(x, r).square().sum().backward()
    r_grad = r.grad.clone()
    r.grad = None
    model(x, r).square().sum().backward()
    torch.testing.assert_close(r_grad, r.grad, rtol=1e-4, atol=1e-5)
    for name, p in model.named_parameters():
        if p.grad is not None:
            torch.testing.assert_close(params[name].grad, p.grad, rtol=1e-4, atol=1e-4)


def test_unsupported_nodes_stay(device, seeded):
    model = ConvChain(CHAINS["relu"]).double()
    x, r = torch.randn(1, 4, 5, 5, dtype=torch.float64), torch.randn(1, 8, 5, 5, dtype=torch.float64)
    gm = _export(model, (x, r))
    report = fuse(gm)
    assert report.fused_convs == 0 and "float64" in report.skipped[0]
    torch.testing.assert_close(gm(x, r), model(x, r))


def test_schema_is_extensible(device, seeded):
    """A schema without relu leaves relu to PyTorch."""
    schema = DEFAULT_SCHEMA.copy()
    del schema.epilogues[aten.relu.default]
    model = ConvChain(CHAINS["relu"])
    x, r = torch.randn(1, 4, 5, 5), torch.randn(1, 8, 5, 5)
    gm = _export(model, (x, r))
    report = fuse(gm, schema)
    assert (report.fused_convs, report.plain_convs) == (0, 1)  # conv + bias alone
    assert aten.relu.default in [n.target for n in gm.graph.nodes]


class LinearChain(torch.nn.Module):
    """nn.Linear, GELU, a residual add and a per-column scale: one kernel."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(32, 24)
        self.scale = torch.nn.Parameter(torch.rand(24) + 0.5)

    def forward(self, x, r):
        return (torch.nn.functional.gelu(self.fc(x)) + r) * self.scale


@pytest.mark.parametrize("device", ["cpu", "emu:gfx942"], indirect=True)
def test_linear_chain_fuses_into_one_kernel(device, seeded):
    model = LinearChain()
    x, r = torch.randn(16, 32), torch.randn(16, 24)
    gm = _export(model, (x, r))
    report = fuse(gm)
    assert (report.fused_matmuls, report.matmuls) == (1, 0), report
    targets = {n.target for n in gm.graph.nodes if n.op == "call_function"}
    assert torch.ops.boo.fused_matmul.default in targets
    assert not targets & {aten.addmm.default, aten.gelu.default, aten.add.Tensor, aten.mul.Tensor}
    with torch.no_grad():
        got, launches = count_launches(lambda: gm(x, r))
        ref = model(x, r)
    assert launches == 1
    torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-5)
    # Backward through the fused op: the product recomputed and
    # differentiated on Boo, the epilogue in PyTorch.
    gm(x, r).square().sum().backward()
    model(x, r).square().sum().backward()
    params = dict(gm.named_parameters())
    for name, p in model.named_parameters():
        torch.testing.assert_close(params[name].grad, p.grad, rtol=1e-4, atol=1e-5)


class SlicedLinear(torch.nn.Module):
    """nn.Linear + ReLU on every other column of x, from the second on."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(32, 24)

    def forward(self, x):
        return torch.relu(self.fc(x[:, 1::2]))


@pytest.mark.parametrize("device", ["cpu", "emu:gfx942"], indirect=True)
def test_fused_linear_reads_a_sliced_input_in_place(device, seeded):
    # The slice (strides [64, 2], offset 1) is passed as its storage and
    # read through boo.as_strided inside the one kernel: no copy.
    model = SlicedLinear()
    x = torch.randn(16, 64)
    gm = _export(model, (x,))
    report = fuse(gm)
    assert (report.fused_matmuls, report.matmuls) == (1, 0), report
    boo.reset_stats()
    with torch.no_grad():
        got, launches = count_launches(lambda: gm(x))
        ref = model(x)
    assert launches == 1 and boo.stats()["copies"] == 0
    torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-5)


def test_float64_linear_runs_on_boo_without_its_epilogue(device, seeded):
    # A float64 product is Boo's; its gelu (no float64 epilogue) stays.
    model = LinearChain().double()
    x, r = torch.randn(16, 32, dtype=torch.float64), torch.randn(16, 24, dtype=torch.float64)
    gm = _export(model, (x, r))
    report = fuse(gm)
    assert (report.fused_matmuls, report.matmuls) == (0, 1), report
    targets = {n.target for n in gm.graph.nodes if n.op == "call_function"}
    assert torch.ops.boo.addmm.default in targets and aten.gelu.default in targets
    with torch.no_grad():
        torch.testing.assert_close(gm(x, r), model(x, r), rtol=1e-12, atol=1e-12)


def test_fuse_takes_make_fx_graphs_of_real_tracing(device, seeded):
    # make_fx's default tracing gives every node's value a fake mode of its
    # own; the rewrite's new nodes get theirs from one mode of its own.
    from torch.fx.experimental.proxy_tensor import make_fx
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                                torch.nn.Linear(8 * 6 * 6, 10))
    x = torch.randn(2, 3, 8, 8)
    gm = make_fx(lambda x: model(x))(x)
    report = fuse(gm)
    assert (report.fused_convs, report.matmuls) == (1, 1), report
    with torch.no_grad():
        torch.testing.assert_close(gm(x), model(x), rtol=1e-4, atol=1e-5)

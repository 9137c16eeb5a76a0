"""torch.compile(backend="boo") and "boo_inductor": Boo runs the
convolutions, layer norms, batch norms and matrix products (nn.Linear) of
real models, forward and backward."""

import copy

import pytest
import torch
from torch import nn
from torch._functorch.aot_autograd import make_boxed_func

import boo
from conftest import count_launches
from models import ResNet18, TinyCNN, TransformerBlock


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _step(model, x, target):
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    opt.zero_grad()
    logits = model(x)
    torch.nn.functional.cross_entropy(logits, target).backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    opt.step()
    return logits.detach(), grads, {n: p.detach().clone() for n, p in model.named_parameters()}


def _compare(compiled_model, eager_model, x, target, launches_expected, rtol, atol):
    (logits, grads, params), launches = count_launches(lambda: _step(compiled_model, x, target))
    assert launches == launches_expected, "every conv, layer norm and matmul, forward and backward, on Boo"
    ref_logits, ref_grads, ref_params = _step(eager_model, x, target)
    torch.testing.assert_close(logits, ref_logits, rtol=rtol, atol=atol)
    for name in ref_grads:
        key = name if name in grads else "_orig_mod." + name
        torch.testing.assert_close(grads[key], ref_grads[name], rtol=rtol, atol=atol, msg=lambda m: f"{name}: {m}")
        torch.testing.assert_close(params[key], ref_params[name], rtol=rtol, atol=atol)


def test_resnet18_compile_boo(device, seeded):
    model = ResNet18()
    eager = copy.deepcopy(model)
    x, target = torch.randn(4, 3, 64, 64), torch.tensor([1, 7, 3, 0])
    compiled = torch.compile(model, backend="boo", dynamic=False)
    # 20 convs forward (each feeds a batch norm: nothing to fuse), their 20
    # batch norms and the fc layer's addmm; 20 backward-convolution and 20
    # backward-batch-norm kernels and the fc layer's two mm (its input's and
    # its weight's gradients).
    _compare(compiled, eager, x, target, 83, rtol=1e-3, atol=1e-4)


def test_resnet18_compile_boo_eval(device, seeded):
    model = ResNet18().eval()
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        ref = model(x)
        got, launches = count_launches(lambda: torch.compile(model, backend="boo")(x))
    assert launches == 41, "20 convs, 20 batch norms and the fc layer's addmm"
    torch.testing.assert_close(got, ref, rtol=1e-4, atol=1e-5)


def test_transformer_block_layer_norms_on_boo(device, seeded):
    block = TransformerBlock()
    eager = copy.deepcopy(block)
    x = torch.randn(2, 10, 64)
    compiled = torch.compile(block, backend="boo", dynamic=False)
    out, launches = count_launches(lambda: compiled(x))
    assert launches == 6, "both layer norms, attention's input projection (mm), its output projection and the MLP's two linears (addmm)"
    torch.testing.assert_close(out, eager(x), rtol=1e-4, atol=1e-5)
    dy = torch.randn_like(out)
    _, launches = count_launches(lambda: out.backward(dy))
    assert launches == 10, "both layer norms backward, and two mm per linear"
    eager(x).backward(dy)
    for (name, p), (_, q) in zip(block.named_parameters(), eager.named_parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5, msg=lambda m: f"{name}: {m}")


def test_boo_inductor_and_nested_backends(device, seeded):
    for backend in ("boo_inductor", boo.backend(nested_backend="inductor"), boo.backend()):
        torch._dynamo.reset()
        model = TinyCNN()
        eager = copy.deepcopy(model)
        compiled = torch.compile(model, backend=backend, dynamic=False)
        x, target = torch.randn(2, 3, 8, 8), torch.tensor([0, 3])
        # conv+bias+relu and conv+bias+sigmoid fuse, and the fc layer's
        # addmm; two backward-convolution kernels and the fc layer's two mm.
        _compare(compiled, eager, x, target, 7, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("device", ["emu:gfx942"], indirect=True)
def test_tiny_cnn_compiled_on_the_emulator(device, seeded):
    model = TinyCNN()
    eager = copy.deepcopy(model)
    compiled = torch.compile(model, backend="boo", dynamic=False)
    _compare(compiled, eager, torch.randn(2, 3, 8, 8), torch.tensor([1, 2]), 7, rtol=1e-4, atol=1e-5)


def test_dump_dir(tmp_path, monkeypatch, device, seeded):
    monkeypatch.setenv("BOO_DUMP_DIR", str(tmp_path))
    model = TinyCNN().eval()
    with torch.no_grad():
        torch.compile(model, backend="boo")(torch.randn(1, 3, 8, 8))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert any(n.endswith("_before.py") for n in names) and any(n.endswith("_after.py") for n in names)
    kernels = [n for n in names if n.endswith(".mlir")]
    assert len(kernels) == 2 and all("fused" in n for n in kernels)
    assert "boo.conv" in (tmp_path / kernels[0]).read_text()


def test_float64_model_runs_eagerly_but_for_its_products(device, seeded):
    # Boo's convolutions take no float64: they stay with PyTorch. The
    # classifier's addmm is a float64 product, Boo's: one launch.
    model = TinyCNN().double()
    x = torch.randn(1, 3, 8, 8, dtype=torch.float64)
    got, launches = count_launches(lambda: torch.compile(model, backend="boo")(x))
    assert launches == 1
    torch.testing.assert_close(got, model(x))


def test_boo_modules_under_plain_inductor(device, seeded):
    """boo:: custom ops inside torch.compile's default backend."""
    from boo.modeling import replace_convs_with_boo

    model = TinyCNN()
    eager = copy.deepcopy(model)
    compiled = torch.compile(replace_convs_with_boo(model), dynamic=False)
    # Only the convolutions are Boo modules: the fc layer stays Inductor's.
    _compare(compiled, eager, torch.randn(2, 3, 8, 8), torch.tensor([1, 2]), 4, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("device", ["cpu", "emu:gfx1100"], indirect=True)
def test_mlp_linears_on_boo(device, seeded):
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    eager = copy.deepcopy(model)
    compiled = torch.compile(model, backend="boo", dynamic=False)
    # Forward: two addmm. Backward: each weight's gradient and the second
    # linear's input gradient (the model's input needs none): three mm.
    _compare(compiled, eager, torch.randn(16, 32), torch.randint(0, 10, (16,)), 5, rtol=1e-4, atol=1e-5)


#===------------------------------------------------------------------------===#
# Batch norms
#===------------------------------------------------------------------------===#


class BatchNormCNN(nn.Module):
    """Two conv + BatchNorm2d + relu stages (a max pool between), a linear."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16, momentum=0.3), nn.ReLU())
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        return self.fc(self.features(x).mean(dim=(2, 3)))


_BATCH_NORM_ATEN = {
    torch.ops.aten._native_batch_norm_legit_functional.default,
    torch.ops.aten._native_batch_norm_legit_no_training.default,
    torch.ops.aten._native_batch_norm_legit.no_stats,
    torch.ops.aten.native_batch_norm_backward.default,
}


def _counting_backend(counts):
    """boo.backend() whose nested compiler counts the graphs' boo batch-norm
    nodes after fusion and checks that no aten batch norm is left."""
    def nested(gm, example_inputs):
        targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
        assert not _BATCH_NORM_ATEN & set(targets), "a batch norm stayed with PyTorch"
        for op in (torch.ops.boo.batch_norm.default, torch.ops.boo.batch_norm_backward.default):
            counts[op.name()] = counts.get(op.name(), 0) + targets.count(op)
        return make_boxed_func(gm.forward)
    return boo.backend(nested)


@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
def test_batch_norm_cnn_trains_on_boo(channels_last, device, seeded):
    model = BatchNormCNN()
    x, target = torch.randn(4, 3, 8, 8), torch.tensor([1, 0, 4, 2])
    if channels_last:
        model, x = model.to(memory_format=torch.channels_last), x.to(memory_format=torch.channels_last)
    eager = copy.deepcopy(model)
    counts = {}
    compiled = torch.compile(model, backend=_counting_backend(counts), dynamic=False)
    # Forward: 2 convs, 2 batch norms, the addmm. Backward: 2 batch norms,
    # 2 convolutions (the first one's weight gradient only), 2 mm.
    boo.reset_stats()
    _compare(compiled, eager, x, target, 11, rtol=1e-4, atol=1e-5)
    assert counts == {"boo::batch_norm": 2, "boo::batch_norm_backward": 2}
    assert boo.stats()["copies"] == 0
    for name, buffer in eager.named_buffers():
        torch.testing.assert_close(model.get_buffer(name), buffer, rtol=1e-5, atol=1e-6, msg=lambda m: f"{name}: {m}")


def test_batch_norm_cnn_eval_on_boo(device, seeded):
    model = BatchNormCNN()
    with torch.no_grad():  # running statistics that are not 0 and 1
        model(torch.randn(4, 3, 8, 8) * 2 + 1)
    model.eval()
    x = torch.randn(2, 3, 8, 8)
    counts = {}
    compiled = torch.compile(model, backend=_counting_backend(counts), dynamic=False)
    with torch.no_grad():
        got, launches = count_launches(lambda: compiled(x))
        ref = model(x)
    assert launches == 5, "2 convs, 2 batch norms with the running statistics, the addmm"
    assert counts == {"boo::batch_norm": 2, "boo::batch_norm_backward": 0}
    torch.testing.assert_close(got, ref, rtol=1e-4, atol=1e-5)
    # Eval with gradients (frozen statistics): Boo's inference kernel gives
    # dx, the backward kernel dweight and dbias.
    torch._dynamo.reset()
    eager = copy.deepcopy(model)
    compiled = torch.compile(model, backend="boo", dynamic=False)
    _compare(compiled, eager, x, torch.tensor([3, 1]), 13, rtol=1e-4, atol=1e-5)


def test_batch_norm_cnn_under_boo_inductor(device, seeded):
    model = BatchNormCNN()
    eager = copy.deepcopy(model)
    compiled = torch.compile(model, backend="boo_inductor", dynamic=False)
    _compare(compiled, eager, torch.randn(4, 3, 8, 8), torch.tensor([1, 0, 4, 2]), 11, rtol=1e-4, atol=1e-5)
    for name, buffer in eager.named_buffers():
        torch.testing.assert_close(model.get_buffer(name), buffer, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", ["emu:gfx942"], indirect=True)
def test_batch_norm_cnn_on_the_emulator(device, seeded):
    model = BatchNormCNN()
    eager = copy.deepcopy(model)
    compiled = torch.compile(model, backend="boo", dynamic=False)
    _compare(compiled, eager, torch.randn(2, 3, 8, 8), torch.tensor([1, 2]), 11, rtol=1e-4, atol=1e-5)

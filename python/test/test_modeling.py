"""Drop-in modules in real models: a ResNet-18 and a tiny CNN give eager's
logits, gradients and SGD step; the launch counter proves Boo ran them."""

import copy

import pytest
import torch

import boo
from boo.modeling import BooConv1d, BooConv2d, BooConv3d, BooLayerNorm, replace_convs_with_boo
from conftest import count_launches
from models import ResNet18, TinyCNN, TransformerBlock


def _train_step(model, x, target):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    opt.zero_grad()
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits, target)
    loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    opt.step()
    return logits.detach(), grads, {n: p.detach().clone() for n, p in model.named_parameters()}


def _compare_training(model, x, target, convs, rtol, atol):
    eager = copy.deepcopy(model)
    replace_convs_with_boo(model)
    (logits, grads, params), launches = count_launches(lambda: _train_step(model, x, target))
    # One forward and one backward kernel per conv: nothing fell back.
    assert launches == 2 * convs
    ref_logits, ref_grads, ref_params = _train_step(eager, x, target)
    torch.testing.assert_close(logits, ref_logits, rtol=rtol, atol=atol)
    for name in ref_grads:
        torch.testing.assert_close(grads[name], ref_grads[name], rtol=rtol, atol=atol, msg=lambda m: f"{name}: {m}")
        torch.testing.assert_close(params[name], ref_params[name], rtol=rtol, atol=atol)


def test_resnet18_replace_convs_training_step(device, seeded):
    # Train-mode batch norm amplifies rounding differences where it
    # normalizes few values (batch 2 at 1x1 in layer4 differs from float64 by
    # 2e-4 in eager f32 alone); batch 4 at 64x64 keeps the network well
    # conditioned, so f32 tolerances apply.
    model = ResNet18()
    x, target = torch.randn(4, 3, 64, 64), torch.tensor([1, 7, 3, 0])
    convs = sum(isinstance(m, torch.nn.Conv2d) for m in model.modules())
    assert convs == 20
    _compare_training(model, x, target, convs, rtol=1e-3, atol=1e-4)
    assert all(type(m) is BooConv2d for m in model.modules() if isinstance(m, torch.nn.Conv2d))


def test_resnet18_channels_last_eval(device, seeded):
    model = ResNet18().eval().to(memory_format=torch.channels_last)
    x = torch.randn(2, 3, 32, 32).to(memory_format=torch.channels_last)
    # Eval-mode batch norm: a well-conditioned network, tight tolerances.
    with torch.no_grad():
        ref = model(x)
        replace_convs_with_boo(model)
        before = boo.stats()["copies"]
        logits, launches = count_launches(lambda: model(x))
    assert launches == 20 and boo.stats()["copies"] == before, "channels-last runs NHWC kernels without copies"
    torch.testing.assert_close(logits, ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("device", ["emu:gfx942"], indirect=True)
def test_tiny_cnn_on_the_emulator(device, seeded):
    model = TinyCNN()
    x, target = torch.randn(2, 3, 8, 8), torch.tensor([0, 3])
    _compare_training(model, x, target, convs=2, rtol=1e-4, atol=1e-5)


def test_modules_keep_state_dict_and_arguments(seeded):
    for torch_cls, boo_cls, shape in ((torch.nn.Conv1d, BooConv1d, (2, 4, 9)),
                                      (torch.nn.Conv2d, BooConv2d, (2, 4, 9, 9)),
                                      (torch.nn.Conv3d, BooConv3d, (2, 4, 5, 5, 5))):
        ref = torch_cls(4, 6, 3, stride=2, padding=1, dilation=1, groups=2, bias=True)
        mod = boo_cls(4, 6, 3, stride=2, padding=1, dilation=1, groups=2, bias=True)
        mod.load_state_dict(ref.state_dict())
        assert mod.state_dict().keys() == ref.state_dict().keys()
        x = torch.randn(shape)
        torch.testing.assert_close(mod(x), ref(x), rtol=1e-5, atol=1e-5)
    ref = torch.nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect")
    mod = BooConv2d(2, 3, 3, padding=1, padding_mode="reflect")
    mod.load_state_dict(ref.state_dict())
    x = torch.randn(1, 2, 6, 6)
    torch.testing.assert_close(mod(x), ref(x), rtol=1e-5, atol=1e-5)


def test_layer_norm_module_in_a_transformer_block(seeded):
    block = TransformerBlock()
    x = torch.randn(2, 10, 64)
    ref = block(x)
    replace_convs_with_boo(block, layer_norms=True)
    assert isinstance(block.norm1, BooLayerNorm) and isinstance(block.norm2, BooLayerNorm)
    out, launches = count_launches(lambda: block(x))
    assert launches == 2
    torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-5)

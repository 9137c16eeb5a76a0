"""Bad inputs give clear exceptions (what and where), never a crash."""

import pytest
import torch

import boo
from boo.modeling import BooConv2d
from boo.ops import boo_conv, boo_layer_norm
from conftest import count_launches


def test_wrong_ranks():
    with pytest.raises(ValueError, match="3-D, 4-D or 5-D input"):
        boo_conv(torch.randn(4, 4), torch.randn(2, 4, 3, 3))
    with pytest.raises(ValueError, match="1, 2 or 3"):
        boo_conv(torch.randn(1, 2, 3, 3, 3, 3), torch.randn(2, 2, 1, 1, 1, 1))


def test_mismatched_channels_and_groups():
    with pytest.raises(ValueError, match="input has 4 channels"):
        boo_conv(torch.randn(1, 4, 6, 6), torch.randn(8, 3, 3, 3))
    with pytest.raises(ValueError, match="groups=3"):
        boo_conv(torch.randn(1, 6, 6, 6), torch.randn(8, 2, 3, 3), groups=3)
    with pytest.raises(ValueError, match="bias has shape"):
        boo_conv(torch.randn(1, 2, 6, 6), torch.randn(4, 2, 3, 3), torch.randn(3))


def test_kernel_larger_than_the_padded_input():
    with pytest.raises(ValueError, match="boo_conv"):
        boo_conv(torch.randn(1, 2, 2, 2), torch.randn(4, 2, 5, 5))


def test_unsupported_dtypes():
    with pytest.raises(NotImplementedError, match="float64"):
        boo_conv(torch.randn(1, 2, 5, 5, dtype=torch.float64), torch.randn(2, 2, 3, 3, dtype=torch.float64))
    with pytest.raises(NotImplementedError, match="int32"):
        boo_layer_norm(torch.ones(2, 8, dtype=torch.int32), 8)
    with pytest.raises(ValueError, match="weight is torch.bfloat16"):
        boo_conv(torch.randn(1, 2, 5, 5), torch.randn(2, 2, 3, 3, dtype=torch.bfloat16))


def test_tensors_on_other_devices():
    with pytest.raises(ValueError, match="weight is on meta"):
        boo_conv(torch.randn(1, 2, 5, 5), torch.randn(2, 2, 3, 3, device="meta"))
    with pytest.raises(ValueError, match="cannot be run"):
        boo.get_device("meta")


def test_bad_devices():
    with pytest.raises(ValueError, match="host device"):
        boo.set_device("hip:0")
    with pytest.raises(ValueError, match="gfx942"):
        boo.set_device("emu:gfx999")
    assert boo.get_device() == "cpu"


def test_non_contiguous_views_are_copied_once(device):
    x = torch.randn(1, 3, 10, 20)[:, :, :, ::2]  # strided in W
    w = torch.randn(4, 3, 3, 3)
    before = boo.stats()["copies"]
    y, launches = count_launches(lambda: boo_conv(x, w, padding=1))
    assert launches == 1 and boo.stats()["copies"] == before + 1
    torch.testing.assert_close(y, torch.nn.functional.conv2d(x, w, padding=1), rtol=1e-5, atol=1e-5)


def test_layer_norm_shapes():
    with pytest.raises(ValueError, match="trailing dims"):
        boo_layer_norm(torch.randn(2, 8), [4])
    with pytest.raises(ValueError, match="weight has shape"):
        boo_layer_norm(torch.randn(2, 8), 8, torch.ones(4), torch.zeros(8))


def test_launchable_checks_its_arguments(device):
    launchable = boo.get_launchable("conv -n 1 -c 2 -H 5 -W 5 -k 4 -y 3 -x 3 -F 1")
    with pytest.raises(ValueError, match="takes 2 arguments"):
        launchable(torch.randn(1, 2, 5, 5))
    with pytest.raises(ValueError, match=r"input 1 \(filter\) has shape \[4, 2, 3, 2\]"):
        launchable(torch.randn(1, 2, 5, 5), torch.randn(4, 2, 3, 2))
    with pytest.raises(ValueError, match=r"input 0 \(input\) is bf16"):
        launchable(torch.randn(1, 2, 5, 5, dtype=torch.bfloat16), torch.randn(4, 2, 3, 3))


def test_unsupported_module_options():
    conv = BooConv2d(2, 4, 3, padding="same", dilation=2)
    y = conv(torch.randn(1, 2, 7, 7))
    assert y.shape == (1, 4, 7, 7)
    with pytest.raises(NotImplementedError, match="pads one side more"):
        BooConv2d(2, 4, 2, padding="same")(torch.randn(1, 2, 7, 7))

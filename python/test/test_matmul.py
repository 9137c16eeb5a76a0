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

"""ConvSignature, LayerNormSignature, parse_command, get_launchable and
preload: BOO's names over Boo's importer, compiler and kernel cache."""

import pytest
import torch

import boo
from boo import ConvMode, ConvSignature, LayerNormSignature, parse_command
from boo import runtime


def test_conv_signature_command_round_trip():
    sig = ConvSignature(input_shape=[2, 9, 9, 8], kernel_shape=[16, 3, 3, 4], shared_layout="NHWC",
                        dtype=torch.bfloat16, stride=2, padding=1, groups=2)
    assert sig.to_miopen() == (
        "convbfp16 -n 2 -c 8 -k 16 -H 9 -y 3 -u 2 -p 1 -l 1 -W 9 -x 3 -v 2 -q 1 -j 1 -g 2 -F 1 "
        "--in_layout NHWC --fil_layout NHWC --out_layout NHWC")
    # README's example: the importer names it as IREE BOO does.
    assert sig.func_name == "conv_2d_bfloat16_forward_2x9x9x8_nhwc_16x3x3x4_fhwc_nhwf_2x2s_1x1p_1x1d_2g"
    assert sig.output_shape == [2, 5, 5, 16]
    assert parse_command(sig.to_miopen()) == sig


@pytest.mark.parametrize("mode", [ConvMode.INPUT_BACKWARD, ConvMode.WEIGHT_BACKWARD,
                                  ConvMode.INPUT_WEIGHT_BACKWARD, ConvMode.ALL_BACKWARD])
def test_backward_signatures_round_trip(mode):
    sig = ConvSignature(input_shape=[1, 4, 8, 8, 8], kernel_shape=[8, 4, 3, 3, 3], dtype=torch.float16,
                        mode=mode, bias=mode == ConvMode.ALL_BACKWARD, padding=[1, 0, 1])
    parsed = parse_command(sig.to_miopen())
    assert parsed == sig and parsed.mode == mode and parsed.num_spatial_dims == 3


def test_one_d_commands_as_iree_boo_writes_them():
    sig = ConvSignature(input_shape=[2, 16, 4], kernel_shape=[8, 3, 4], input_layout="NWC",
                        kernel_layout="NWC", output_layout="NWC", dtype=torch.float32, padding=1)
    command = sig.to_miopen()
    assert "-_ 1" in command and "--in_layout NWC" in command and "-H" not in command
    assert parse_command(command) == sig
    # BOO's --spatial_dim spelling, W flags only, default layouts.
    parsed = parse_command("conv --spatial_dim 1 -n 2 -c 4 -W 16 -k 8 -x 3 -q 1 -F 1")
    assert parsed.num_spatial_dims == 1 and parsed.input_shape == [2, 4, 16]
    assert parsed.input_layout == "NCW" and parsed.padding == [1]


def test_parse_command_reads_what_the_importer_reads():
    # --pad_mode valid: the importer's padding, not the -p flag.
    sig = parse_command("conv -n 1 -c 2 -H 8 -W 8 -k 4 -y 3 -x 3 -p 5 -q 5 -z valid -F 4")
    assert sig.padding == [0, 0] and sig.mode == ConvMode.WEIGHT_BACKWARD
    with pytest.raises(ValueError, match="--in_channels"):
        parse_command("conv -n 1 -c abc -F 1")
    with pytest.raises(NotImplementedError, match="matrix product"):
        parse_command("gemm -m 8 -k 4 -n 6")
    with pytest.raises(NotImplementedError, match="batch norm"):
        parse_command("bnorm -n 2 -c 4 -H 3 -W 3 -m 1 -F 1")


def test_layer_norm_signature_round_trip():
    sig = LayerNormSignature(input_shape=[4, 8, 64], normalized_shape=[64], dtype=torch.bfloat16)
    assert sig.to_miopen() == "layernormbfp16 -X 4x8x64 -o 2 -e 1e-05 -m 1 -F 1"
    assert sig.func_name == "layer_norm_1d_bfloat16_forward_4x8x64_w_b"
    assert parse_command(sig.to_miopen()) == sig
    assert parse_command("layernorm -X 2x3 -o 1 -F 14 -e 0.001").eps == 0.001


def test_sample_args_and_launchable(device):
    sig = ConvSignature(input_shape=[1, 6, 6, 4], kernel_shape=[8, 3, 3, 4], shared_layout="NHWC",
                        dtype=torch.float32, padding=1, bias=True)
    x, w, b = sig.get_sample_args(seed=7)
    assert (x.shape, w.shape, b.shape) == ((1, 6, 6, 4), (8, 3, 3, 4), (8,))
    again = sig.get_sample_args(seed=7)
    assert all(torch.equal(p, q) for p, q in zip((x, w, b), again))
    launchable = boo.get_launchable(sig)
    assert boo.get_launchable(sig.to_miopen()) is launchable, "one launchable per signature and device"
    y = launchable(x, w, b)
    ref = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), w.permute(0, 3, 1, 2), b, padding=1)
    torch.testing.assert_close(y, ref.permute(0, 2, 3, 1), rtol=1e-5, atol=1e-5)


def test_repeated_calls_do_no_compile_and_the_disk_cache_serves_new_processes(tmp_path, monkeypatch, device):
    monkeypatch.setenv("BOO_CACHE_DIR", str(tmp_path))
    sig = LayerNormSignature(input_shape=[3, 40], normalized_shape=[40], dtype=torch.float32)
    before = boo.stats()
    first = runtime.Launchable(sig.to_miopen(), "cpu")
    after_first = boo.stats()
    assert after_first["compiles"] == before["compiles"] + 1
    assert list(tmp_path.rglob("*.bookc")), "the compiled module is in BOO_CACHE_DIR"
    second = runtime.Launchable(sig.to_miopen(), "cpu")  # as a new process would
    assert boo.stats()["cache_hits"] == after_first["cache_hits"] + 1
    x = torch.randn(3, 40)
    w, b = torch.ones(40), torch.zeros(40)
    for p, q in zip(first(x, w, b), second(x, w, b)):
        assert torch.equal(p, q)


def test_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("BOO_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("BOO_CACHE_ON", "0")
    runtime.Launchable("layernorm -X 2x8 -o 1 -F 1", "cpu")
    assert not list(tmp_path.rglob("*.bookc"))


def test_preload_fills_the_cache_for_chips(tmp_path, monkeypatch):
    monkeypatch.setenv("BOO_CACHE_DIR", str(tmp_path))
    commands = ["convbfp16 -n 1 -c 8 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -F 1",
                "layernormbfp16 -X 4x64 -o 1 -m 1 -F 1"]
    boo.preload(commands, chips=["gfx942", "gfx1100"], devices=["cpu"])
    assert len(list(tmp_path.rglob("*.bookc"))) == 2 * 2 + 2

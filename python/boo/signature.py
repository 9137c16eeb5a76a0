"""Problem signatures with IREE BOO's names: ConvSignature, LayerNormSignature.

A signature says everything a kernel depends on. Its ``to_miopen()`` command
is what Boo compiles (docs/MIOpenImport.md); ``func_name`` is the name of the
compiled function, as IREE BOO names it. ``parse_command`` goes the other
way. Shapes are in the order of the signature's layouts, as in IREE BOO: an
``NHWC`` input of a 2-D convolution has shape ``[N, H, W, C]``.
"""

from __future__ import annotations

import enum
import struct
from typing import Sequence

import torch

from . import _boo

__all__ = [
    "ConvMode",
    "ConvSignature",
    "LayerNormMode",
    "LayerNormSignature",
    "parse_command",
    "DEFAULT_LAYOUTS",
    "CHANNELS_LAST_LAYOUTS",
]

# One element-type vocabulary: boo::ElementType's codes (boo/ElementType.h).
DTYPE_CODES = {
    torch.float32: 0,
    torch.float16: 1,
    torch.bfloat16: 2,
    torch.float64: 3,
    torch.int32: 4,
    torch.int8: 5,
    torch.int64: 6,
}
TORCH_DTYPES = {code: dtype for dtype, code in DTYPE_CODES.items()}
CONV_BASE = {torch.float32: "conv", torch.float16: "convfp16", torch.bfloat16: "convbfp16"}
LAYER_NORM_BASE = {
    torch.float32: "layernorm",
    torch.float16: "layernormfp16",
    torch.bfloat16: "layernormbfp16",
}
SPATIAL_LETTERS = {1: "W", 2: "HW", 3: "DHW"}
DEFAULT_LAYOUTS = {n: "NC" + s for n, s in SPATIAL_LETTERS.items()}
CHANNELS_LAST_LAYOUTS = {n: "N" + s + "C" for n, s in SPATIAL_LETTERS.items()}
# MIOpenDriver's flags per spatial letter: size, filter size, stride, padding,
# dilation.
_SPATIAL_FLAGS = {
    "D": ("-!", "-@", "-#", "-$", "-^"),
    "H": ("-H", "-y", "-u", "-p", "-l"),
    "W": ("-W", "-x", "-v", "-q", "-j"),
}


class ConvMode(enum.IntEnum):
    """IREE BOO's convolution modes: forward, or a set of gradients."""

    FORWARD = 0
    INPUT_BACKWARD = 1
    WEIGHT_BACKWARD = 2
    INPUT_WEIGHT_BACKWARD = 3
    BIAS_BACKWARD = 4
    INPUT_BIAS_BACKWARD = 5
    WEIGHT_BIAS_BACKWARD = 6
    ALL_BACKWARD = 7

    @staticmethod
    def parse(mode: "str | int | ConvMode") -> "ConvMode":
        if isinstance(mode, str):
            aliases = {"FWD": "FORWARD", "BWD": "INPUT_BACKWARD", "WRW": "WEIGHT_BACKWARD"}
            name = mode.upper()
            try:
                return ConvMode[aliases.get(name, name)]
            except KeyError:
                raise ValueError(
                    f"unknown convolution mode '{mode}'; expected one of "
                    f"{', '.join(m.name.lower() for m in ConvMode)} (or fwd, bwd, wrw)"
                ) from None
        return ConvMode(mode)

    @staticmethod
    def from_backward_mask(mask: Sequence[bool]) -> "ConvMode":
        return ConvMode(int(mask[0]) + 2 * int(mask[1]) + 4 * int(mask[2]))

    @property
    def backward_mask(self) -> list[bool]:
        return [bool(self & 1), bool(self & 2), bool(self & 4)]


def _listify(name: str, value, rank: int) -> list[int]:
    if isinstance(value, int):
        return [value] * rank
    values = [int(v) for v in value]
    if len(values) == 1:
        return values * rank
    if len(values) != rank:
        raise ValueError(f"{name}: expected {rank} values for a {rank}-D convolution, got {values}")
    return values


def _check_layout(name: str, layout: str, rank: int) -> str:
    layout = layout.upper()
    if sorted(layout) != sorted(DEFAULT_LAYOUTS[rank]):
        raise ValueError(
            f"{name} '{layout}' is not a layout of a {rank}-D convolution: it must "
            f"order the letters of {DEFAULT_LAYOUTS[rank]} (e.g. {CHANNELS_LAST_LAYOUTS[rank]})"
        )
    return layout


class _Signature:
    """What every signature derives from its command (`to_miopen`): the
    function's name, sample arguments, equality and hashing."""

    def to_miopen(self) -> str:
        raise NotImplementedError

    @property
    def func_name(self) -> str:
        return _boo.describe_command(self.to_miopen())[1]

    def get_sample_args(
        self,
        *,
        device: str | torch.device | None = None,
        splat_value: float | None = None,
        seed: int | None = None,
    ) -> tuple[torch.Tensor, ...]:
        """Random (or splat) arguments of the compiled function, in its order."""
        _, _, arguments, _, _ = _boo.describe_command(self.to_miopen())
        generator = torch.Generator(device=device or "cpu")
        if seed is not None:
            generator.manual_seed(seed)
        args = []
        for _, shape, code in arguments:
            dtype = TORCH_DTYPES[code]
            if splat_value is not None:
                args.append(torch.full(shape, splat_value, dtype=dtype, device=device))
            else:
                args.append(torch.randn(shape, generator=generator, dtype=dtype, device=device))
        return tuple(args)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_miopen()!r})"

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self.to_miopen() == other.to_miopen()

    def __hash__(self) -> int:
        return hash(self.to_miopen())


class ConvSignature(_Signature):
    """A convolution: shapes in the order of their layouts (IREE BOO's fields)."""

    def __init__(
        self,
        *,
        input_shape: Sequence[int],
        kernel_shape: Sequence[int],
        shared_layout: str | None = None,
        input_layout: str | None = None,
        kernel_layout: str | None = None,
        output_layout: str | None = None,
        bias: bool = False,
        dtype: torch.dtype = torch.bfloat16,
        stride: int | Sequence[int] = 1,
        padding: int | Sequence[int] = 0,
        dilation: int | Sequence[int] = 1,
        transposed: bool = False,
        output_padding: int | Sequence[int] = 0,
        groups: int = 1,
        mode: "str | int | ConvMode" = ConvMode.FORWARD,
        backward_mask: Sequence[bool] | None = None,
    ):
        if len(input_shape) != len(kernel_shape):
            raise ValueError(
                f"input and kernel ranks differ: input_shape={list(input_shape)}, "
                f"kernel_shape={list(kernel_shape)}"
            )
        rank = len(input_shape) - 2
        if rank not in SPATIAL_LETTERS:
            raise ValueError(
                f"a convolution has 1, 2 or 3 spatial dims; input_shape={list(input_shape)} has {rank}"
            )
        if transposed:
            raise NotImplementedError("transposed convolutions are not supported by Boo")
        if dtype not in CONV_BASE:
            raise NotImplementedError(
                f"Boo convolutions take float32, float16 or bfloat16, not {dtype}"
            )

        def layout(name: str, given: str | None) -> str:
            return _check_layout(name, shared_layout or given or DEFAULT_LAYOUTS[rank], rank)

        self.input_shape = [int(d) for d in input_shape]
        self.kernel_shape = [int(d) for d in kernel_shape]
        self.num_spatial_dims = rank
        self.dtype = dtype
        self.input_layout = layout("input_layout", input_layout)
        self.kernel_layout = layout("kernel_layout", kernel_layout)
        self.output_layout = layout("output_layout", output_layout)
        self.bias = bool(bias)
        self.stride = _listify("stride", stride, rank)
        self.padding = _listify("padding", padding, rank)
        self.dilation = _listify("dilation", dilation, rank)
        self.output_padding = _listify("output_padding", output_padding, rank)
        self.transposed = False
        self.groups = int(groups)
        self.mode = (
            ConvMode.from_backward_mask(backward_mask)
            if backward_mask is not None
            else ConvMode.parse(mode)
        )
        if self.mode == ConvMode.BIAS_BACKWARD:
            raise NotImplementedError(
                "Boo computes a convolution's bias gradient beside its input or weight "
                "gradient (MIOpenDriver -F 2, 4 or 6 with -b), not alone"
            )

    def _dims(self, shape: list[int], layout: str) -> dict[str, int]:
        return dict(zip(layout, shape))

    @property
    def output_shape(self) -> list[int]:
        x = self._dims(self.input_shape, self.input_layout)
        w = self._dims(self.kernel_shape, self.kernel_layout)
        out = {"N": x["N"], "C": w["N"]}
        for i, letter in enumerate(SPATIAL_LETTERS[self.num_spatial_dims]):
            span = self.dilation[i] * (w[letter] - 1) + 1
            out[letter] = (x[letter] + 2 * self.padding[i] - span) // self.stride[i] + 1
        return [out[letter] for letter in self.output_layout]

    @property
    def backward_mask(self) -> list[bool]:
        return self.mode.backward_mask

    @property
    def is_forward(self) -> bool:
        return self.mode == ConvMode.FORWARD

    def to_miopen(self) -> str:
        """The MIOpenDriver command of this problem (1-D as IREE BOO writes it)."""
        x = self._dims(self.input_shape, self.input_layout)
        w = self._dims(self.kernel_shape, self.kernel_layout)
        words = [CONV_BASE[self.dtype]]
        if self.num_spatial_dims != 2:
            words += ["-_", str(self.num_spatial_dims)]
        words += ["-n", x["N"], "-c", x["C"], "-k", w["N"]]
        for i, letter in enumerate(SPATIAL_LETTERS[self.num_spatial_dims]):
            size, fil, stride, pad, dil = _SPATIAL_FLAGS[letter]
            words += [size, x[letter], fil, w[letter], stride, self.stride[i]]
            words += [pad, self.padding[i], dil, self.dilation[i]]
        mask = self.backward_mask
        direction = 1 if self.is_forward else 2 * mask[0] + 4 * mask[1]
        words += ["-g", self.groups, "-F", direction]
        if self.bias:
            words += ["-b", 1]
        words += ["--in_layout", self.input_layout, "--fil_layout", self.kernel_layout]
        words += ["--out_layout", self.output_layout]
        return " ".join(str(word) for word in words)


class LayerNormMode(enum.IntEnum):
    """Boo's layer-norm directions: MIOpenDriver's -F values."""

    FORWARD = 1
    INPUT_BACKWARD = 2
    WEIGHT_BACKWARD = 4
    BIAS_BACKWARD = 8
    FULL_BACKWARD = 14

    @staticmethod
    def parse(mode: "str | int | LayerNormMode") -> "LayerNormMode":
        if isinstance(mode, str):
            try:
                return LayerNormMode[mode.upper()]
            except KeyError:
                raise ValueError(
                    f"unknown layer-norm mode '{mode}'; expected one of "
                    f"{', '.join(m.name.lower() for m in LayerNormMode)}"
                ) from None
        return LayerNormMode(mode)


class LayerNormSignature(_Signature):
    """A layer norm over the trailing ``normalized_shape`` dims of the input."""

    def __init__(
        self,
        *,
        input_shape: Sequence[int],
        normalized_shape: Sequence[int],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        dtype: torch.dtype = torch.bfloat16,
        mode: "str | int | LayerNormMode" = LayerNormMode.FORWARD,
    ):
        input_shape = [int(d) for d in input_shape]
        normalized_shape = [int(d) for d in normalized_shape]
        if not normalized_shape or input_shape[len(input_shape) - len(normalized_shape) :] != normalized_shape:
            raise ValueError(
                f"normalized_shape {normalized_shape} must be the trailing dims of the "
                f"input shape {input_shape}"
            )
        if dtype not in LAYER_NORM_BASE:
            raise NotImplementedError(
                f"Boo layer norms take float32, float16 or bfloat16, not {dtype}"
            )
        if elementwise_affine != bias:
            raise NotImplementedError(
                "Boo's layer norm has a weight and a bias or neither "
                "(elementwise_affine and bias must agree); boo_layer_norm "
                "supplies the missing one"
            )
        self.input_shape = input_shape
        self.normalized_shape = normalized_shape
        self.eps = float(eps)
        self.elementwise_affine = bool(elementwise_affine)
        self.bias = bool(bias)
        self.dtype = dtype
        self.mode = LayerNormMode.parse(mode)

    @property
    def output_shape(self) -> list[int]:
        return list(self.input_shape)

    def to_miopen(self) -> str:
        normalized_dim = len(self.input_shape) - len(self.normalized_shape)
        return (
            f"{LAYER_NORM_BASE[self.dtype]} -X {'x'.join(map(str, self.input_shape))} "
            f"-o {normalized_dim} -e {self.eps!r} -m {int(self.elementwise_affine)} "
            f"-F {int(self.mode)}"
        )


def _shortest_float32(value: float) -> float:
    """The shortest decimal that is the same float32 as `value` (1e-05, not
    9.99999974737875e-06)."""
    bits = struct.pack("f", value)
    for digits in range(1, 10):
        text = f"{value:.{digits}g}"
        if struct.pack("f", float(text)) == bits:
            return float(text)
    return value


def parse_command(command: str) -> "ConvSignature | LayerNormSignature":
    """The signature of an MIOpenDriver command, as Boo's importer reads it.

    A command the importer rejects raises its ValueError, which names the
    flag.
    """
    kind, _, arguments, results, params = _boo.describe_command(command)
    no_class = {"gemm": "a matrix product", "bnorm": "a batch norm", "argreduce": "an arg-reduction"}
    if kind in no_class:
        raise NotImplementedError(
            f"'{command}': {no_class[kind]} has no Python signature class yet; "
            "boo.get_launchable runs the command itself"
        )
    tensors = {name: (list(shape), TORCH_DTYPES[code]) for name, shape, code in arguments + results}
    direction = params["direction"][0]
    if kind == "layernorm":
        x_shape, dtype = tensors["x"] if "x" in tensors else tensors["dy"]
        affine = bool(params["affine"][0])
        return LayerNormSignature(
            input_shape=x_shape,
            normalized_shape=x_shape[params["normalized_dim"][0] :],
            eps=_shortest_float32(params["epsilon"]),
            elementwise_affine=affine,
            bias=affine,
            dtype=dtype,
            mode=direction,
        )
    if params["padding_low"] != params["padding_high"]:
        raise NotImplementedError(
            f"'{command}': padding {params['padding_low']} before and "
            f"{params['padding_high']} after (from --pad_mode): a ConvSignature "
            "pads both sides alike"
        )
    has_bias = bool(params["bias"][0])
    if direction == 1:
        dtype = tensors["input"][1]
        mode = ConvMode.FORWARD
    else:
        dtype = tensors["grad_output"][1]
        mode = ConvMode.from_backward_mask([direction in (2, 6), direction in (4, 6), has_bias])
    x_shape = tensors["input"][0] if "input" in tensors else tensors["grad_input"][0]
    w_shape = tensors["filter"][0] if "filter" in tensors else tensors["grad_filter"][0]
    return ConvSignature(
        input_shape=x_shape,
        kernel_shape=w_shape,
        input_layout=params["input_layout"],
        kernel_layout=params["kernel_layout"],
        output_layout=params["output_layout"],
        bias=has_bias,
        dtype=dtype,
        stride=params["stride"],
        padding=params["padding_low"],
        dilation=params["dilation"],
        groups=params["groups"][0],
        mode=mode,
    )

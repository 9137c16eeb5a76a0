"""Fused convolution kernels: conv (+ bias) (+ element-wise chain) as one
Boo kernel, the custom op ``boo::fused_conv`` that FX fusion inserts.

A recipe (JSON) describes the chain: the convolution's parameters, whether
a bias follows, and the epilogue, e.g.::

    {"stride": [1, 1], "padding": [1, 1], "dilation": [1, 1], "groups": 1,
     "bias": true, "epilogue": [{"op": "add", "operand": "full"},
                                {"op": "relu"}]}

Epilogue ops: the activations of ``boo.activation`` (relu, sigmoid, tanh,
gelu, gelu_tanh, silu, leaky_relu with "alpha", clamp with "min"/"max"),
and ``add``/``mul`` with an extra operand that is "full" (the output's
shape) or "channel" (one value per output channel). Extra operands follow
x, w and the bias in the op's inputs, in epilogue order.

Tensors are in PyTorch's order; Boo reads them as their memory is (a
channels-last input runs an NHWC kernel), as boo_conv does. The kernel is
Boo MLIR (a ``boo.conv`` followed by the chain, which Boo's
``boo-form-fusions`` turns into one ``boo.fusion``), compiled once per
shape, stride and device; BOO_DUMP_DIR receives each kernel's MLIR.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Sequence

import torch

from . import runtime
from .ops import _ConvPlan, _permuted, make_dense
from .runtime import get_device

__all__ = ["fused_conv", "ACTIVATIONS"]

Tensor = torch.Tensor
ACTIVATIONS = ("relu", "sigmoid", "tanh", "gelu", "gelu_tanh", "silu", "leaky_relu", "clamp")
_ELEMENT = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}


@functools.lru_cache(maxsize=None)
def _recipe(text: str) -> dict:
    recipe = json.loads(text)
    for op in recipe["epilogue"]:
        if op["op"] not in ACTIVATIONS + ("add", "mul"):
            raise ValueError(f"boo::fused_conv: unknown epilogue op {op['op']!r}")
    return recipe


def _tensor_type(shape: Sequence[int], dtype: torch.dtype) -> str:
    return f"tensor<{'x'.join(str(d) for d in shape)}x{_ELEMENT[dtype]}>"


def _array(values: Sequence[int]) -> str:
    return f"array<i64: {', '.join(str(v) for v in values)}>"


def _activation_attrs(op: dict) -> str:
    if op["op"] == "leaky_relu":
        return f" {{alpha = {float(op['alpha'])!r} : f32}}"
    if op["op"] == "clamp":
        return f" {{max = {float(op['max'])!r} : f32, min = {float(op['min'])!r} : f32}}"
    return ""


def _binary_line(op: str, value: int, operand: str, kind: str, out_type: str, channel_type: str,
                 channel_dim: int) -> str:
    """`%v<value+1> = boo.<op> %v<value>, <operand>`: a full or per-channel operand."""
    if kind == "full":
        return f"    %v{value + 1} = boo.{op} %v{value}, {operand} : {out_type}, {out_type}"
    return (f"    %v{value + 1} = boo.{op} %v{value}, {operand} {{channel_dim = {channel_dim} : i64}} "
            f": {out_type}, {channel_type}")


def epilogue_mlir(epilogue: Sequence[dict], kinds: Sequence[str], value: int, out_type: str,
                  channel_type: str, channel_dim: int) -> tuple[list[str], int]:
    """The lines of an epilogue chain applied to %v<value> (extra operands
    %e0, %e1, ... of `kinds`), and the number of its last value."""
    lines, extra = [], 0
    for op in epilogue:
        if op["op"] in ("add", "mul"):
            lines.append(_binary_line(op["op"], value, f"%e{extra}", kinds[extra], out_type, channel_type,
                                      channel_dim))
            extra += 1
        else:
            lines.append(f"    %v{value + 1} = boo.activation {op['op']} %v{value}{_activation_attrs(op)} : {out_type}")
        value += 1
    return lines, value


def conv_mlir(name: str, sig, recipe: dict, extra_kinds: Sequence[str]) -> str:
    """Boo MLIR of the fused kernel: args x, w[, b], extras (in the output
    layout, or per channel)."""
    dtype = sig.dtype
    out_shape = sig.output_shape
    out_type = _tensor_type(out_shape, dtype)
    channels = out_shape[sig.output_layout.index("C")]
    channel_dim = sig.output_layout.index("C")
    channel_type = _tensor_type([channels], dtype)
    args = [f"%x: {_tensor_type(sig.input_shape, dtype)}", f"%w: {_tensor_type(sig.kernel_shape, dtype)}"]
    if recipe["bias"]:
        args.append(f"%b: {channel_type}")
    for i, kind in enumerate(extra_kinds):
        args.append(f"%e{i}: {out_type if kind == 'full' else channel_type}")
    lines = [
        f"  func.func @{name}({', '.join(args)}) -> {out_type} {{",
        f"    %v0 = boo.conv %x, %w {{dilations = {_array(sig.dilation)}, "
        f"filter_layout = \"{sig.kernel_layout}\", groups = {sig.groups} : i64, "
        f"input_layout = \"{sig.input_layout}\", output_layout = \"{sig.output_layout}\", "
        f"padding_high = {_array(sig.padding)}, padding_low = {_array(sig.padding)}, "
        f"strides = {_array(sig.stride)}}} : {_tensor_type(sig.input_shape, dtype)}, "
        f"{_tensor_type(sig.kernel_shape, dtype)} -> {out_type}",
    ]
    value = 0
    if recipe["bias"]:
        lines.append(_binary_line("add", 0, "%b", "channel", out_type, channel_type, channel_dim))
        value = 1
    chain, value = epilogue_mlir(recipe["epilogue"], extra_kinds, value, out_type, channel_type, channel_dim)
    lines += chain + [f"    return %v{value} : {out_type}", "  }"]
    return "module {\n" + "\n".join(lines) + "\n}\n"


def _suffix(recipe: dict) -> str:
    parts = [op["op"] + ("_" + op["operand"][0] if "operand" in op else "") for op in recipe["epilogue"]]
    return "_".join(["fused"] + parts)


class _FusedCall:
    """A fused kernel for one recipe, shapes, strides and device."""

    def __init__(self, inputs: Sequence[Tensor], recipe: dict, spec: str):
        # Layouts "": PyTorch's order, read as the memory is.
        self.plan = _plan(inputs, recipe)
        sig = self.plan.sig
        self.kinds = [op["operand"] for op in recipe["epilogue"] if op["op"] in ("add", "mul")]
        name = sig.func_name + "_" + _suffix(recipe)
        source = conv_mlir(name, sig, recipe, self.kinds)
        dump = os.environ.get("BOO_DUMP_DIR")
        if dump:
            os.makedirs(dump, exist_ok=True)
            with open(os.path.join(dump, name + ".mlir"), "w") as f:
                f.write(source)
        self.launchable = runtime.get_launchable_mlir(source, spec, name)


def _plan(inputs: Sequence[Tensor], recipe: dict) -> _ConvPlan:
    return _ConvPlan(inputs[0], inputs[1], recipe["bias"], recipe["stride"], recipe["padding"],
                     recipe["dilation"], recipe["groups"], ("", "", ""))


_fused_calls: dict[tuple, _FusedCall] = {}


def _fused_conv_impl(inputs: list[Tensor], recipe_text: str) -> Tensor:
    recipe = _recipe(recipe_text)
    x, w = inputs[0], inputs[1]
    spec = get_device(x.device)
    key = (recipe_text, spec) + tuple((t.shape, t.stride(), t.dtype) for t in inputs)
    call = _fused_calls.get(key)
    if call is None:
        call = _FusedCall(inputs, recipe, spec)
        _fused_calls[key] = call
    plan = call.plan
    args = plan.operands(x, w)
    rest = list(inputs[2:])
    if recipe["bias"]:
        args.append(make_dense(rest.pop(0), "bias"))
    for t, kind in zip(rest, call.kinds):
        t = t.reshape(-1) if kind == "channel" else _permuted(t, plan.to_out_perm)
        args.append(make_dense(t, "epilogue operand"))
    out = torch.empty(plan.out_shape, dtype=x.dtype, device=x.device)
    call.launchable.invoke(args, [out])
    return plan.to_torch(out)


@torch.library.custom_op("boo::fused_conv", mutates_args=())
def fused_conv(inputs: list[Tensor], recipe: str) -> Tensor:
    """One Boo kernel for a conv and its epilogue (see the module)."""
    return _fused_conv_impl(inputs, recipe)


@fused_conv.register_fake
def _(inputs, recipe):
    plan = _plan(inputs, _recipe(recipe))
    return plan.to_torch(inputs[0].new_empty(plan.out_shape))


def apply_epilogue(z: Tensor, recipe: dict, extras: Sequence[Tensor]) -> Tensor:
    """The epilogue in PyTorch (for autograd), on PyTorch-ordered z."""
    F = torch.nn.functional
    acts = {
        "relu": torch.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh,
        "gelu": F.gelu, "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"), "silu": F.silu,
    }
    extras = list(extras)
    for op in recipe["epilogue"]:
        name = op["op"]
        if name in ("add", "mul"):
            e = extras.pop(0)
            if op["operand"] == "channel":
                e = e.reshape([1, -1] + [1] * (z.dim() - 2))
            z = z + e if name == "add" else z * e
        elif name == "leaky_relu":
            z = F.leaky_relu(z, op["alpha"])
        elif name == "clamp":
            z = torch.clamp(z, op["min"], op["max"])
        else:
            z = acts[name](z)
    return z


def _fused_setup_context(ctx, inputs, output):
    tensors, recipe = inputs
    ctx.save_for_backward(*tensors)
    ctx.recipe = recipe


def _fused_backward(ctx, grad):
    """Recomputes the conv on Boo, differentiates the epilogue in PyTorch,
    and runs Boo's backward convolution."""
    from .ops import boo_conv

    recipe = _recipe(ctx.recipe)
    tensors = ctx.saved_tensors
    x, w = tensors[0], tensors[1]
    b = tensors[2] if recipe["bias"] else None
    extras = list(tensors[2 + recipe["bias"]:])
    kw = dict(stride=recipe["stride"], padding=recipe["padding"], dilation=recipe["dilation"], groups=recipe["groups"])
    with torch.no_grad():
        z = boo_conv(x, w, b, **kw)
    with torch.enable_grad():
        z = z.detach().requires_grad_()
        leaves = [e.detach().requires_grad_() for e in extras]
        y = apply_epilogue(z, recipe, leaves)
        dz, *dextras = torch.autograd.grad(y, [z] + leaves, grad)
    mask = [True, True, b is not None]
    gi, gw, gb = torch.ops.boo.convolution_backward(
        dz, x, w, kw["stride"], kw["padding"], kw["dilation"], kw["groups"], "", "", "", mask)
    grads = [gi, gw] + ([gb] if b is not None else []) + dextras
    return [g.reshape(t.shape) for g, t in zip(grads, tensors)], None


fused_conv.register_autograd(_fused_backward, setup_context=_fused_setup_context)

"""Fused matrix-product kernels: mm, bmm or addmm (nn.Linear) and the
element-wise chain after it as one Boo kernel, the custom op
``boo::fused_matmul`` that FX fusion inserts.

The recipe (JSON) names the product and its epilogue, e.g.::

    {"op": "addmm", "beta": 1.0, "alpha": 1.0,
     "epilogue": [{"op": "gelu"}, {"op": "add", "operand": "full"}]}

The inputs are the product's (``mm``/``bmm``: a, b; ``addmm``: c, a, b),
then the epilogue's extra operands in order. Epilogue ops are those of
``boo::fused_conv`` (kernels.py); a "channel" operand holds one value per
index of the result's dim 1 (the columns of a 2-D result). The kernel is
Boo MLIR, a ``boo.matmul`` followed by the chain, which Boo's
``boo-form-fusions`` turns into one ``boo.fusion``; operands are read as
they are stored (a column-major one transposed, an expanded bias as its
vector), as ``boo_mm`` reads them.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Sequence

import torch

from . import runtime
from .kernels import ACTIVATIONS, _tensor_type, apply_epilogue, epilogue_mlir
from .matmul_ops import _bias, _operand, boo_addmm, boo_bmm, boo_mm, is_storage
from .runtime import get_device, make_dense

__all__ = ["fused_matmul"]

Tensor = torch.Tensor


@functools.lru_cache(maxsize=None)
def _recipe(text: str) -> dict:
    recipe = json.loads(text)
    if recipe.get("op") not in ("mm", "bmm", "addmm"):
        raise ValueError(f"boo::fused_matmul: unknown product {recipe.get('op')!r}")
    for op in recipe["epilogue"]:
        if op["op"] not in ACTIVATIONS + ("add", "mul"):
            raise ValueError(f"boo::fused_matmul: unknown epilogue op {op['op']!r}")
    return recipe


def _result_shape(a: Tensor, b: Tensor) -> list[int]:
    return list(a.shape[:-1]) + [b.shape[-1]]


def matmul_mlir(name: str, recipe: dict, operands: Sequence[tuple[Tensor, Tensor]],
                bias: Tensor | None) -> str:
    """Boo MLIR of the fused kernel. `operands`: (declared, stored) for a
    and b (matmul_ops._operand); `bias`: addmm's c as the kernel reads it."""
    (a, sa), (b, sb) = operands
    dtype = a.dtype
    out = _result_shape(a, b)
    out_type = _tensor_type(out, dtype)
    column_type = _tensor_type([out[1]], dtype)
    args = []
    if bias is not None:
        args.append(f"%c: {_tensor_type(bias.shape, dtype)}")
    args += [f"%a: {_tensor_type(sa.shape, dtype)}", f"%b: {_tensor_type(sb.shape, dtype)}"]
    kinds = [op["operand"] for op in recipe["epilogue"] if op["op"] in ("add", "mul")]
    for i, kind in enumerate(kinds):
        args.append(f"%e{i}: {out_type if kind == 'full' else column_type}")
    # Each operand as the product reads it: a strided one's argument is its
    # storage, read by boo.as_strided; a column-major one is transposed.
    views, names, types, attrs = [], [], [], []
    for name, attr, t, s in (("a", "transpose_lhs", a, sa), ("b", "transpose_rhs", b, sb)):
        if is_storage(t, s):
            strides = ", ".join(str(x) for x in t.stride())
            views.append(f"    %{name}s = boo.as_strided %{name} {{strides = array<i64: {strides}>}}"
                         f" : {_tensor_type(s.shape, dtype)} -> {_tensor_type(t.shape, dtype)}")
            names.append(f"%{name}s")
            types.append(_tensor_type(t.shape, dtype))
            continue
        names.append(f"%{name}")
        types.append(_tensor_type(s.shape, dtype))
        if s is not t:
            attrs.append(attr)
    # 17 significant digits: the Python float exactly (and always a '.').
    attrs.append(f"alpha = {float(recipe.get('alpha', 1.0)):.17e} : f64")
    bias_text = ""
    if bias is not None:
        attrs.append(f"beta = {float(recipe.get('beta', 1.0)):.17e} : f64")
        bias_text = f" bias(%c : {_tensor_type(bias.shape, dtype)})"
    lines = [f"  func.func @{name}({', '.join(args)}) -> {out_type} {{", *views,
             f"    %v0 = boo.matmul {names[0]}, {names[1]}{bias_text} {{{', '.join(attrs)}}} : "
             f"{types[0]}, {types[1]} -> {out_type}"]
    chain, value = epilogue_mlir(recipe["epilogue"], kinds, 0, out_type, column_type, 1)
    lines += chain + [f"    return %v{value} : {out_type}", "  }"]
    return "module {\n" + "\n".join(lines) + "\n}\n"


def _split(inputs: Sequence[Tensor], recipe: dict):
    """(c or None, a, b, extras) of the op's inputs."""
    if recipe["op"] == "addmm":
        return inputs[0], inputs[1], inputs[2], list(inputs[3:])
    return None, inputs[0], inputs[1], list(inputs[2:])


_kernels: dict[tuple, runtime.Launchable] = {}


def _fused_matmul_impl(inputs: list[Tensor], recipe_text: str) -> Tensor:
    recipe = _recipe(recipe_text)
    c, a, b, extras = _split(inputs, recipe)
    operands = [_operand(a), _operand(b)]
    bias = _bias(c) if c is not None and float(recipe.get("beta", 1.0)) != 0.0 else None
    kinds = [op["operand"] for op in recipe["epilogue"] if op["op"] in ("add", "mul")]
    extras = [make_dense(e.reshape(-1) if k == "channel" else e, "epilogue operand")
              for e, k in zip(extras, kinds)]
    spec = get_device(a.device)
    key = (recipe_text, spec) + tuple((t.shape, t.stride(), t.dtype) for t in inputs)
    launchable = _kernels.get(key)
    if launchable is None:
        dims = "x".join(str(d) for d in _result_shape(a, b))
        name = (f"fused_{recipe['op']}_{str(a.dtype).split('.')[-1]}_{dims}_"
                + "_".join(op["op"] for op in recipe["epilogue"]))
        source = matmul_mlir(name, recipe, operands, bias)
        dump = os.environ.get("BOO_DUMP_DIR")
        if dump:
            os.makedirs(dump, exist_ok=True)
            with open(os.path.join(dump, name + ".mlir"), "w") as f:
                f.write(source)
        launchable = runtime.get_launchable_mlir(source, spec, name)
        _kernels[key] = launchable
    args = ([bias] if bias is not None else []) + [s for _, s in operands] + extras
    return launchable(*args)


@torch.library.custom_op("boo::fused_matmul", mutates_args=())
def fused_matmul(inputs: list[Tensor], recipe: str) -> Tensor:
    """One Boo kernel for a product and its epilogue (see the module)."""
    return _fused_matmul_impl(inputs, recipe)


@fused_matmul.register_fake
def _(inputs, recipe):
    _, a, b, _ = _split(inputs, _recipe(recipe))
    return a.new_empty(_result_shape(a, b))


def _setup_context(ctx, inputs, output):
    tensors, recipe = inputs
    ctx.save_for_backward(*tensors)
    ctx.recipe = recipe


def _backward(ctx, grad):
    """Recomputes the product on Boo and differentiates it and the epilogue
    (Boo's products for the product's gradients, PyTorch for the rest)."""
    recipe = _recipe(ctx.recipe)
    with torch.enable_grad():
        leaves = [t.detach().requires_grad_() for t in ctx.saved_tensors]
        c, a, b, extras = _split(leaves, recipe)
        if recipe["op"] == "addmm":
            z = boo_addmm(c, a, b, beta=recipe.get("beta", 1.0), alpha=recipe.get("alpha", 1.0))
        else:
            z = (boo_mm if recipe["op"] == "mm" else boo_bmm)(a, b)
        y = apply_epilogue(z, recipe, extras)
        grads = torch.autograd.grad(y, leaves, grad, allow_unused=True)
    return list(grads), None


fused_matmul.register_autograd(_backward, setup_context=_setup_context)

"""Boo's matrix products for PyTorch: boo_mm, boo_bmm and boo_addmm.

Each is a torch custom op (``boo::mm``, ``boo::bmm``, ``boo::addmm``) with
PyTorch's arguments and autograd. A call runs IREE BOO's ``aten::`` command
of its tensors (their shapes, dtypes and strides; docs/MIOpenImport.md),
compiled once per signature: a column-major operand, such as nn.Linear's
``weight.t()``, is read in place, transposed, and an expanded bias as the
vector it was expanded from. An operand with other strides (a slice, a
stride-0 batch) is passed as its storage, which the kernel reads through
the strides (``boo.as_strided``: one copy inside the compiled function, no
copy counted in ``boo.stats()["copies"]``).
"""

from __future__ import annotations

import torch

from .runtime import _stats, get_launchable

__all__ = ["boo_mm", "boo_bmm", "boo_addmm"]

Tensor = torch.Tensor

# torch.profiler's names of the dtypes, as aten:: commands spell them.
_ATEN_DTYPES = {
    torch.float32: "float",
    torch.float16: "c10::Half",
    torch.bfloat16: "c10::BFloat16",
}
# The products also take float64 (accumulated in float64).
_PRODUCT_DTYPES = {**_ATEN_DTYPES, torch.float64: "double"}


def _check(where: str, tensors: dict, ranks: dict) -> None:
    dtypes = {t.dtype for t in tensors.values()}
    for name, t in tensors.items():
        if t.dtype not in _PRODUCT_DTYPES:
            raise TypeError(f"{where}: {name} has dtype {t.dtype}; Boo's matrix products take "
                            "float32, float16, bfloat16 and float64")
        if name in ranks and t.dim() != ranks[name]:
            raise ValueError(f"{where}: {name} must be {ranks[name]}-D, got shape {list(t.shape)}")
    if len(dtypes) > 1:
        raise TypeError(f"{where}: the tensors' dtypes differ ({', '.join(map(str, dtypes))})")


def _operand(t: Tensor) -> tuple[Tensor, Tensor]:
    """(the tensor whose shape and strides the command declares, the tensor
    Boo reads): `t` itself when row-major, `t` and its transpose's memory
    when column-major, else `t` and its storage (1-D: the elements its
    strides reach from its first, see is_storage)."""
    if t.is_contiguous():
        return t, t
    stored = t.transpose(-1, -2)
    if stored.is_contiguous():
        return t, stored
    span = 1 + sum((d - 1) * s for d, s in zip(t.shape, t.stride()))
    return t, t.as_strided((span,), (1,))


def is_storage(declared: Tensor, stored: Tensor) -> bool:
    """Whether `stored` (from _operand) is `declared`'s storage, read
    through `declared`'s strides."""
    return stored.dim() == 1 and declared.dim() > 1


def _bias(t: Tensor) -> Tensor:
    """addmm's `self` without its expanded (stride 0) dims, dense."""
    for d in range(t.dim()):
        if t.stride(d) == 0 and t.shape[d] > 1:
            t = t.narrow(d, 0, 1)
    if not t.is_contiguous():
        _stats["copies"] += 1
        t = t.contiguous()
    return t


def _number(v) -> str:
    return repr(int(v)) if float(v).is_integer() else repr(float(v))


def _run(op: str, tensors: list[Tensor], scalars: tuple = ()) -> Tensor:
    """IREE BOO's aten::`op` command of `tensors` (declared, stored) and the
    constant `scalars`, run on the tensors."""
    declared = [d for d, _ in tensors]
    dims = [list(t.shape) for t in declared] + [[] for _ in scalars]
    types = [_PRODUCT_DTYPES[t.dtype] for t in declared] + ["Scalar"] * len(scalars)
    strides = [list(t.stride()) for t in declared] + [[] for _ in scalars]
    constants = [""] * len(declared) + [_number(v) for v in scalars]
    command = f'aten::{op} "{dims}" "{types}" "{strides}" "{constants}"'
    return get_launchable(command)(*(s for _, s in tensors))


#===------------------------------------------------------------------------===#
# Custom ops
#===------------------------------------------------------------------------===#


def _empty(*tensors: Tensor) -> bool:
    """Whether a size is 0: the product is empty or a sum of no terms, which
    PyTorch's op computes without work (Boo's kernels take positive sizes)."""
    return any(0 in t.shape for t in tensors)


@torch.library.custom_op("boo::mm", mutates_args=())
def mm(a: Tensor, b: Tensor) -> Tensor:
    if _empty(a, b):
        return torch.mm(a, b)
    return _run("mm", [_operand(a), _operand(b)])


@mm.register_fake
def _(a, b):
    return a.new_empty((a.shape[0], b.shape[1]))


@torch.library.custom_op("boo::bmm", mutates_args=())
def bmm(a: Tensor, b: Tensor) -> Tensor:
    if _empty(a, b):
        return torch.bmm(a, b)
    return _run("bmm", [_operand(a), _operand(b)])


@bmm.register_fake
def _(a, b):
    return a.new_empty((a.shape[0], a.shape[1], b.shape[2]))


@torch.library.custom_op("boo::addmm", mutates_args=())
def addmm(c: Tensor, a: Tensor, b: Tensor, beta: float, alpha: float) -> Tensor:
    if _empty(c, a, b):
        return torch.addmm(c, a, b, beta=beta, alpha=alpha)
    bias = _bias(c)
    return _run("addmm", [(bias, bias), _operand(a), _operand(b)], (beta, alpha))


@addmm.register_fake
def _(c, a, b, beta, alpha):
    return a.new_empty((a.shape[0], b.shape[1]))


def _save_operands(ctx, inputs, output):
    ctx.save_for_backward(*inputs[:2])


def _mm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    ga = mm(grad, b.t()) if ctx.needs_input_grad[0] else None
    gb = mm(a.t(), grad) if ctx.needs_input_grad[1] else None
    return ga, gb


def _bmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    ga = bmm(grad, b.transpose(1, 2)) if ctx.needs_input_grad[0] else None
    gb = bmm(a.transpose(1, 2), grad) if ctx.needs_input_grad[1] else None
    return ga, gb


def _addmm_setup(ctx, inputs, output):
    c, a, b, beta, alpha = inputs
    ctx.save_for_backward(a, b)
    ctx.c_shape, ctx.beta, ctx.alpha = c.shape, beta, alpha


def _addmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    gc = ga = gb = None
    if ctx.needs_input_grad[0]:
        gc = (grad * ctx.beta).sum_to_size(ctx.c_shape)
    if ctx.needs_input_grad[1]:
        ga = mm(grad, b.t()) * ctx.alpha
    if ctx.needs_input_grad[2]:
        gb = mm(a.t(), grad) * ctx.alpha
    return gc, ga, gb, None, None


mm.register_autograd(_mm_backward, setup_context=_save_operands)
bmm.register_autograd(_bmm_backward, setup_context=_save_operands)
addmm.register_autograd(_addmm_backward, setup_context=_addmm_setup)


#===------------------------------------------------------------------------===#
# Public ops (torch.mm's, torch.bmm's and torch.addmm's arguments)
#===------------------------------------------------------------------------===#


def boo_mm(input: Tensor, mat2: Tensor) -> Tensor:
    """torch.mm on Boo: [M, K] x [K, N] -> [M, N]."""
    _check("boo_mm", {"input": input, "mat2": mat2}, {"input": 2, "mat2": 2})
    return mm(input, mat2)


def boo_bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """torch.bmm on Boo: [B, M, K] x [B, K, N] -> [B, M, N]."""
    _check("boo_bmm", {"input": input, "mat2": mat2}, {"input": 3, "mat2": 3})
    return bmm(input, mat2)


def boo_addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1,
              alpha: float = 1) -> Tensor:
    """torch.addmm on Boo: beta * input + alpha * (mat1 @ mat2), `input`
    broadcast to [M, N]."""
    _check("boo_addmm", {"input": input, "mat1": mat1, "mat2": mat2},
           {"mat1": 2, "mat2": 2})
    return addmm(input, mat1, mat2, float(beta), float(alpha))

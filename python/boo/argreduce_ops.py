"""Boo's arg-reductions for PyTorch: boo_argmax and boo_argmin.

Each is a torch custom op (``boo::argmax``, ``boo::argmin``) with
torch.argmax's arguments and semantics: the int64 index of the first
largest (smallest) value along `dim`, or into the flattened input when
`dim` is None; a NaN counts as larger (smaller) than every number, so the
first NaN wins.

A call runs IREE BOO's ``aten::argmax`` (``aten::argmin``) command
(docs/MIOpenImport.md) of its input collapsed around the reduced dim: the
dims before it as one, the reduced dim, the dims after it as one (dims of
size 1 dropped; the whole input as one dim when `dim` is None), always with
``keepdim``. The result is then viewed in torch's shape. Inputs that differ
only in how their other dims split share a kernel, and any rank runs. A
non-dense input is made dense first (one copy, counted in
``boo.stats()["copies"]``).

No kernel runs when the answer needs none: a reduced dim of size 1
(including a 0-d input) gives zeros, and an empty input with a non-empty
reduced dim an empty result. As in PyTorch, reducing an empty dim (or an
empty input with ``dim=None``) raises IndexError. Boo takes float32,
float16 and bfloat16: other dtypes raise NotImplementedError (call
torch.argmax for them).

The result is an integer tensor, so there is nothing to differentiate: an
input that requires grad gives a result that does not.
"""

from __future__ import annotations

import math
from typing import Optional

import torch

from .matmul_ops import _ATEN_DTYPES
from .ops import _plain_eager
from .runtime import Launchable, get_device, get_launchable, make_dense

__all__ = ["boo_argmax", "boo_argmin"]

Tensor = torch.Tensor


def _name(is_max: bool) -> str:
    return "argmax" if is_max else "argmin"


def _check(x: Tensor, dim: Optional[int], is_max: bool) -> Optional[int]:
    """`dim` in [0, rank) (None stays None), or torch's error for the call."""
    where = "boo_" + _name(is_max)
    if not isinstance(x, Tensor):
        raise TypeError(f"{where}: input must be a torch tensor, not {type(x).__name__}")
    if x.dtype not in _ATEN_DTYPES:
        raise NotImplementedError(f"{where}: input has dtype {x.dtype}; Boo's arg-reductions take "
                                  "float32, float16 and bfloat16 (torch.argmax takes the others)")
    if dim is None:
        if x.numel() == 0:
            raise IndexError(f"{where}: a reduction dim must be given for an empty input "
                             f"(shape {list(x.shape)})")
        return None
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"{where}: dim must be an int or None, not {type(dim).__name__}")
    rank = max(x.dim(), 1)  # a 0-d tensor takes dim 0 and -1, as in PyTorch
    if not -rank <= dim < rank:
        raise IndexError(f"{where}: dim {dim} is out of range for a {x.dim()}-D input "
                         f"(expected {-rank} to {rank - 1})")
    dim %= rank
    if x.dim() and x.shape[dim] == 0:
        raise IndexError(f"{where}: the reduced dim {dim} of shape {list(x.shape)} is empty")
    return dim


def _output_shape(shape, dim: Optional[int], keepdim: bool) -> list[int]:
    if dim is None:
        return [1] * len(shape) if keepdim else []
    return [1 if d == dim else s for d, s in enumerate(shape) if d != dim or keepdim]


def _collapsed(shape, dim: Optional[int]) -> tuple[list[int], int]:
    """(the shape the command declares, its reduced dim): [outer, n, inner]
    without the ones (see the module)."""
    if dim is None:
        return [math.prod(shape)], 0
    outer, n, inner = math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1:])
    kept = [outer] if outer > 1 else []
    return kept + [n] + ([inner] if inner > 1 else []), len(kept)


def command(shape, dtype: torch.dtype, dim: int, is_max: bool) -> str:
    """IREE BOO's aten:: command of a dense `shape` reduced along `dim`, with keepdim."""
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    types = [_ATEN_DTYPES[dtype], "Scalar", "Scalar"]
    constants = ["", str(dim), "True"]
    return f'aten::{_name(is_max)} "{[list(shape), [], []]}" "{types}" "{[strides, [], []]}" "{constants}"'


# The launchable of each (device, collapsed shape, dtype, dim, is_max).
_launchables: dict[tuple, Launchable] = {}


def _launchable(spec: str, shape: list[int], dtype: torch.dtype, dim: int, is_max: bool) -> Launchable:
    key = (spec, tuple(shape), dtype, dim, is_max)
    launchable = _launchables.get(key)
    if launchable is None:
        text = command(shape, dtype, dim, is_max)
        try:
            launchable = get_launchable(text, spec)
        except RuntimeError as e:
            raise RuntimeError(
                f"boo_{_name(is_max)}: Boo could not compile {text!r} for {spec}: {e}") from None
        _launchables[key] = launchable
    return launchable


def _argreduce(x: Tensor, dim: Optional[int], keepdim: bool, is_max: bool) -> Tensor:
    dim = _check(x, dim, is_max)
    out = _output_shape(x.shape, dim, keepdim)
    reduced = x.numel() if dim is None else x.shape[dim] if x.dim() else 1
    if reduced == 1:
        return x.new_zeros(out, dtype=torch.long)
    if x.numel() == 0:
        return x.new_empty(out, dtype=torch.long)
    shape, kernel_dim = _collapsed(list(x.shape), dim)
    dense = make_dense(x, "input").view(shape)
    launchable = _launchable(get_device(x.device), shape, x.dtype, kernel_dim, is_max)
    return launchable(dense).view(out)


#===------------------------------------------------------------------------===#
# Custom ops
#===------------------------------------------------------------------------===#


@torch.library.custom_op("boo::argmax", mutates_args=())
def argmax(x: Tensor, dim: Optional[int], keepdim: bool) -> Tensor:
    return _argreduce(x, dim, keepdim, True)


@torch.library.custom_op("boo::argmin", mutates_args=())
def argmin(x: Tensor, dim: Optional[int], keepdim: bool) -> Tensor:
    return _argreduce(x, dim, keepdim, False)


def _fake(is_max: bool):
    def fake(x, dim, keepdim):
        dim = _check(x, dim, is_max)
        return x.new_empty(_output_shape(x.shape, dim, keepdim), dtype=torch.long)
    return fake


argmax.register_fake(_fake(True))
argmin.register_fake(_fake(False))


#===------------------------------------------------------------------------===#
# Public ops (torch.argmax's and torch.argmin's arguments)
#===------------------------------------------------------------------------===#


def _call(x: Tensor, dim: Optional[int], keepdim: bool, is_max: bool) -> Tensor:
    _check(x, dim, is_max)  # before any dispatch: the error names the public op
    if _plain_eager(x):
        return _argreduce(x, dim, bool(keepdim), is_max)
    op = torch.ops.boo.argmax if is_max else torch.ops.boo.argmin
    return op(x, dim, bool(keepdim))


def boo_argmax(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    """torch.argmax on Boo: the int64 index of the first largest value
    (a NaN counts as the largest) along `dim`, or into the flattened input."""
    return _call(input, dim, keepdim, True)


def boo_argmin(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    """torch.argmin on Boo: the int64 index of the first smallest value
    (a NaN counts as the smallest) along `dim`, or into the flattened input."""
    return _call(input, dim, keepdim, False)

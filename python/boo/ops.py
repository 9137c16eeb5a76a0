"""Boo's ops for PyTorch: boo_conv and boo_layer_norm, the matrix products
boo_mm, boo_bmm and boo_addmm (matmul_ops.py), boo_batch_norm
(batch_norm_ops.py), all differentiable, and the arg-reductions boo_argmax
and boo_argmin (argreduce_ops.py).

Both are torch custom ops (torch.library): ``boo::convolution``,
``boo::convolution_backward``, ``boo::layer_norm`` and
``boo::layer_norm_backward`` show as such in FX graphs and work under
torch.compile. Backward runs Boo's backward kernels and computes only the
gradients autograd asks for; ``BOO_USE_BACKWARD_KERNELS=0`` makes backward
use PyTorch's kernels instead, as in IREE BOO.

Convolution layouts follow IREE BOO. Without layouts, tensors are in
PyTorch's order (N, C, spatial...) and Boo reads their memory as it is: a
channels-last tensor runs an NHWC kernel without a copy, and the output is
channels-last when the input or the weight is. With layouts
(``shared_layout="NHWC"`` or ``input_layout``/``kernel_layout``/
``output_layout``), each tensor's shape is in its layout's order.
"""

from __future__ import annotations

import os
from typing import Optional, Sequence

import torch

from .runtime import get_device, get_launchable, make_dense
from .signature import (
    CHANNELS_LAST_LAYOUTS,
    CONV_BASE,
    DEFAULT_LAYOUTS,
    ConvMode,
    ConvSignature,
    LayerNormMode,
    LayerNormSignature,
    _listify,
)

__all__ = ["boo_conv", "boo_layer_norm", "is_boo_backward_enabled"]

Tensor = torch.Tensor


def is_boo_backward_enabled() -> bool:
    """False when BOO_USE_BACKWARD_KERNELS is 0: backward runs PyTorch's kernels."""
    return os.environ.get("BOO_USE_BACKWARD_KERNELS", "1") != "0"


def _plain_eager(*tensors: Optional[Tensor]) -> bool:
    """True when no tracer, compiler or tensor subclass is watching: the
    public ops then call Boo directly (a torch custom-op dispatch costs about
    35 us of Python per call). Otherwise they go through torch.ops.boo, so
    that FX graphs, fake tensors and torch.compile see boo:: nodes."""
    if (torch.compiler.is_compiling() or torch._C._len_torch_dispatch_stack()
            or torch._C._is_torch_function_mode_enabled()):
        return False
    for t in tensors:
        if t is not None and type(t) is not Tensor:
            return False
    return True


def _needs_grad(*tensors: Optional[Tensor]) -> bool:
    if not torch.is_grad_enabled():
        return False
    for t in tensors:
        if t is not None and t.requires_grad:
            return True
    return False


#===------------------------------------------------------------------------===#
# Convolution layouts
#===------------------------------------------------------------------------===#


def _is_channels_last(t: Tensor) -> bool:
    """Whether a PyTorch-ordered tensor's memory is dense N, spatial..., C
    (and not also dense N, C, spatial..., as with one channel)."""
    if t.is_contiguous():
        return False
    perm = [0, *range(2, t.dim()), 1]
    return t.permute(perm).is_contiguous()


def _to_layout(t: Tensor, layout: str, rank: int) -> Tensor:
    """The view of a PyTorch-ordered tensor in `layout`'s order."""
    default = DEFAULT_LAYOUTS[rank]
    return t.permute([default.index(letter) for letter in layout])


def _from_layout(t: Tensor, layout: str, rank: int) -> Tensor:
    """The PyTorch-ordered view of a tensor in `layout`'s order."""
    return t.permute([layout.index(letter) for letter in DEFAULT_LAYOUTS[rank]])


def _memory_layouts(x: Tensor, w: Tensor, rank: int) -> tuple[str, str, str]:
    """Boo layouts that read PyTorch-ordered x and w as their memory is."""
    x_cl, w_cl = _is_channels_last(x), _is_channels_last(w)
    pick = lambda cl: CHANNELS_LAST_LAYOUTS[rank] if cl else DEFAULT_LAYOUTS[rank]
    return pick(x_cl), pick(w_cl), pick(x_cl or w_cl)


def _resolve_layouts(x: Tensor, w: Tensor, layouts: Sequence[str]) -> tuple[bool, tuple[str, str, str]]:
    """(PyTorch order?, the three layouts)."""
    rank = x.dim() - 2
    if not any(layouts):
        return True, _memory_layouts(x, w, rank)
    return False, tuple((l or DEFAULT_LAYOUTS[rank]).upper() for l in layouts)


def _check_companions(x: Tensor, tensors: dict, where: str) -> None:
    """The weight, bias, ... (None: absent) have x's dtype and device."""
    for name, t in tensors.items():
        if t is None:
            continue
        if t.dtype != x.dtype:
            raise ValueError(f"{where}: input is {x.dtype} but {name} is {t.dtype}")
        if t.device != x.device:
            raise ValueError(f"{where}: input is on {x.device} but {name} is on {t.device}")


def _check_conv(x: Tensor, w: Tensor, b: Optional[Tensor], groups: int, layouts, where: str) -> None:
    if x.dim() not in (3, 4, 5) or w.dim() != x.dim():
        raise ValueError(
            f"{where}: expected a 3-D, 4-D or 5-D input and a weight of the same rank "
            f"(1-3 spatial dims), got input {tuple(x.shape)} and weight {tuple(w.shape)}"
        )
    if x.dtype not in CONV_BASE:
        raise NotImplementedError(f"{where}: Boo convolutions take float32, float16 or bfloat16, not {x.dtype}")
    _check_companions(x, {"weight": w, "bias": b}, where)
    rank = x.dim() - 2
    torch_order, (il, kl, ol) = _resolve_layouts(x, w, layouts)
    xs = dict(zip(DEFAULT_LAYOUTS[rank] if torch_order else il, x.shape))
    ws = dict(zip(DEFAULT_LAYOUTS[rank] if torch_order else kl, w.shape))
    if len(xs) != rank + 2 or len(ws) != rank + 2:
        raise ValueError(f"{where}: layouts {layouts} do not fit {rank}-D tensors")
    if groups < 1 or xs["C"] != ws["C"] * groups or ws["N"] % groups:
        raise ValueError(
            f"{where}: input has {xs['C']} channels and weight {tuple(w.shape)} takes "
            f"{ws['C']} per group with {ws['N']} output channels; with groups={groups} "
            f"the input needs {ws['C'] * groups} channels and the output channels must "
            f"divide by {groups}"
        )
    if b is not None and tuple(b.shape) != (ws["N"],):
        raise ValueError(f"{where}: bias has shape {tuple(b.shape)}, expected ({ws['N']},)")


def _conv_signature(x, w, has_bias, stride, padding, dilation, groups, layouts, mode):
    """(PyTorch order?, signature, x and w in the signature's layouts)."""
    rank = x.dim() - 2
    torch_order, (il, kl, ol) = _resolve_layouts(x, w, layouts)
    xl = _to_layout(x, il, rank) if torch_order else x
    wl = _to_layout(w, kl, rank) if torch_order else w
    sig = ConvSignature(
        input_shape=xl.shape, kernel_shape=wl.shape, input_layout=il, kernel_layout=kl,
        output_layout=ol, bias=has_bias, dtype=x.dtype, stride=stride, padding=padding,
        dilation=dilation, groups=groups, mode=mode,
    )
    return torch_order, sig, xl, wl


def _permutation(source: str, target: str) -> Optional[list[int]]:
    """The permute that reads a `source`-ordered tensor in `target`'s order;
    None for the identity."""
    perm = [source.index(letter) for letter in target]
    return None if perm == sorted(perm) else perm


def _permuted(t: Tensor, perm: Optional[list[int]]) -> Tensor:
    return t if perm is None else t.permute(perm)


class _ConvPlan:
    """How a forward call's tensors reach the kernel: the signature, and the
    permutes (None: the identity) between the tensors' order and its
    layouts, worked out once per signature."""

    def __init__(self, x, w, has_bias, stride, padding, dilation, groups, layouts):
        torch_order, sig, _, _ = _conv_signature(
            x, w, has_bias, stride, padding, dilation, groups, layouts, ConvMode.FORWARD)
        default = DEFAULT_LAYOUTS[x.dim() - 2]
        order = lambda source, target: _permutation(source, target) if torch_order else None
        self.sig = sig
        self.out_shape = sig.output_shape
        self.x_perm = order(default, sig.input_layout)
        self.w_perm = order(default, sig.kernel_layout)
        # Output-shaped tensors to the output layout, and the output back.
        self.to_out_perm = order(default, sig.output_layout)
        self.out_perm = order(sig.output_layout, default)

    def operands(self, x: Tensor, w: Tensor) -> list[Tensor]:
        """x and w as the kernel reads them (dense, in its layouts)."""
        return [make_dense(_permuted(x, self.x_perm), "input"), make_dense(_permuted(w, self.w_perm), "weight")]

    def to_torch(self, out: Tensor) -> Tensor:
        """The kernel's output (in its layout) in the tensors' order."""
        return _permuted(out, self.out_perm)


class _ConvCall(_ConvPlan):
    """A forward call's plan and launchable."""

    def __init__(self, x, w, b, stride, padding, dilation, groups, layouts, spec):
        _check_conv(x, w, b, groups, layouts, "boo_conv")
        super().__init__(x, w, b is not None, stride, padding, dilation, groups, layouts)
        self.launchable = None if x.numel() == 0 else _launchable(self.sig, spec, "boo_conv")


# The forward call of each signature, found without building a command.
_conv_calls: dict[tuple, _ConvCall] = {}


def _conv_forward(x, w, b, stride, padding, dilation, groups, layouts) -> Tensor:
    spec = get_device(x.device)
    key = (spec, x.shape, x.stride(), w.shape, w.stride(), x.dtype, w.dtype, w.device,
           None if b is None else (b.dtype, b.device),
           tuple(stride), tuple(padding), tuple(dilation), groups, tuple(layouts))
    call = _conv_calls.get(key)
    if call is None:
        call = _ConvCall(x, w, b, stride, padding, dilation, groups, layouts, spec)
        _conv_calls[key] = call
    out = torch.empty(call.out_shape, dtype=x.dtype, device=x.device)
    if call.launchable is not None:
        args = call.operands(x, w)
        if b is not None:
            args.append(make_dense(b, "bias"))
        call.launchable.invoke(args, [out])
    return call.to_torch(out)


def _launchable(sig, spec: str, where: str):
    try:
        return get_launchable(sig, spec)
    except ValueError as e:
        raise ValueError(f"{where}: {sig.to_miopen()!r}: {e}") from None
    except RuntimeError as e:
        raise RuntimeError(f"{where}: Boo could not compile {sig.to_miopen()!r} for {spec}: {e}") from None


@torch.library.custom_op("boo::convolution", mutates_args=())
def convolution(
    x: Tensor, w: Tensor, b: Optional[Tensor], stride: Sequence[int], padding: Sequence[int],
    dilation: Sequence[int], groups: int, input_layout: str, kernel_layout: str, output_layout: str,
) -> Tensor:
    """A forward convolution (layouts "" mean PyTorch's order, see the module)."""
    return _conv_forward(x, w, b, stride, padding, dilation, groups,
                         (input_layout, kernel_layout, output_layout))


@convolution.register_fake
def _(x, w, b, stride, padding, dilation, groups, input_layout, kernel_layout, output_layout):
    layouts = (input_layout, kernel_layout, output_layout)
    _check_conv(x, w, b, groups, layouts, "boo_conv")
    plan = _ConvPlan(x, w, b is not None, stride, padding, dilation, groups, layouts)
    return plan.to_torch(x.new_empty(plan.out_shape))


def _conv_backward_impl(grad_output, x, w, stride, padding, dilation, groups, layouts, mask):
    """(grad_input, grad_weight, grad_bias); empty tensors where mask is False."""
    mask = [bool(m) for m in mask]
    rank = x.dim() - 2
    # Boo computes a bias gradient beside an input or weight gradient.
    kernel_mask = [mask[0], mask[1] or not mask[0], mask[2]]
    torch_order, sig, xl, wl = _conv_signature(
        x, w, mask[2], stride, padding, dilation, groups, layouts,
        ConvMode.from_backward_mask(kernel_mask))
    gol = _to_layout(grad_output, sig.output_layout, rank) if torch_order else grad_output
    empty = lambda: x.new_empty(0)
    if x.numel() == 0 or w.numel() == 0:
        return (torch.zeros_like(x) if mask[0] else empty(), torch.zeros_like(w) if mask[1] else empty(),
                x.new_zeros(sig.output_shape[sig.output_layout.index("C")]) if mask[2] else empty())
    launchable = _launchable(sig, get_device(x.device), "boo_conv backward")
    outs = launchable.call_named({"grad_output": gol, "input": xl, "filter": wl})
    gi, gw, gb = outs.get("grad_input"), outs.get("grad_filter"), outs.get("grad_bias")
    if torch_order:
        gi = _from_layout(gi, sig.input_layout, rank) if gi is not None else None
        gw = _from_layout(gw, sig.kernel_layout, rank) if gw is not None else None
    return (gi if mask[0] else empty(), gw if mask[1] else empty(), gb if mask[2] else empty())


@torch.library.custom_op("boo::convolution_backward", mutates_args=())
def convolution_backward(
    grad_output: Tensor, x: Tensor, w: Tensor, stride: Sequence[int], padding: Sequence[int],
    dilation: Sequence[int], groups: int, input_layout: str, kernel_layout: str,
    output_layout: str, output_mask: Sequence[bool],
) -> tuple[Tensor, Tensor, Tensor]:
    """The gradients of boo::convolution that output_mask asks for."""
    return _conv_backward_impl(grad_output, x, w, stride, padding, dilation, groups,
                               (input_layout, kernel_layout, output_layout), output_mask)


@convolution_backward.register_fake
def _(grad_output, x, w, stride, padding, dilation, groups, input_layout, kernel_layout,
      output_layout, output_mask):
    layouts = (input_layout, kernel_layout, output_layout)
    torch_order, sig, _, _ = _conv_signature(
        x, w, False, stride, padding, dilation, groups, layouts, ConvMode.FORWARD)
    rank = x.dim() - 2
    def like(t, shape, layout):
        out = t.new_empty(shape)
        return _from_layout(out, layout, rank) if torch_order else out
    k = sig.output_shape[sig.output_layout.index("C")]
    return (like(x, sig.input_shape, sig.input_layout) if output_mask[0] else x.new_empty(0),
            like(w, sig.kernel_shape, sig.kernel_layout) if output_mask[1] else x.new_empty(0),
            x.new_empty(k) if output_mask[2] else x.new_empty(0))


def _conv_setup_context(ctx, inputs, output):
    x, w, b, stride, padding, dilation, groups, il, kl, ol = inputs
    ctx.save_for_backward(x, w)
    ctx.params = (stride, padding, dilation, groups, il, kl, ol)
    ctx.has_bias = b is not None


def _torch_conv_backward(grad, x, w, stride, padding, dilation, groups, layouts, mask):
    """PyTorch's kernels (BOO_USE_BACKWARD_KERNELS=0), in Boo's layouts."""
    rank = x.dim() - 2
    torch_order = not any(layouts)
    il, kl, ol = ("", "", "") if torch_order else tuple(l.upper() for l in layouts)
    to_torch = (lambda t, l: t) if torch_order else (lambda t, l: _from_layout(t, l, rank))
    gi, gw, gb = torch.ops.aten.convolution_backward(
        to_torch(grad, ol), to_torch(x, il), to_torch(w, kl), [w.shape[0] if torch_order else w.shape[kl.index("N")]],
        list(stride), list(padding), list(dilation), False, [0] * rank, groups, list(mask))
    if not torch_order:
        gi = _to_layout(gi, il, rank) if gi is not None else None
        gw = _to_layout(gw, kl, rank) if gw is not None else None
    return gi, gw, gb


def _conv_autograd_backward(ctx, grad):
    x, w = ctx.saved_tensors
    stride, padding, dilation, groups, il, kl, ol = ctx.params
    mask = [ctx.needs_input_grad[0], ctx.needs_input_grad[1], ctx.has_bias and ctx.needs_input_grad[2]]
    gi = gw = gb = None
    if any(mask):
        layouts = (il, kl, ol)
        if is_boo_backward_enabled():
            gi, gw, gb = torch.ops.boo.convolution_backward(
                grad, x, w, stride, padding, dilation, groups, il, kl, ol, mask)
        else:
            gi, gw, gb = _torch_conv_backward(grad, x, w, stride, padding, dilation, groups, layouts, mask)
    pick = lambda t, m: t if m else None
    return (pick(gi, mask[0]), pick(gw, mask[1]), pick(gb, mask[2])) + (None,) * 7


convolution.register_autograd(_conv_autograd_backward, setup_context=_conv_setup_context)


class _EagerConvolution(torch.autograd.Function):
    """boo::convolution's autograd, without the custom-op dispatch."""

    @staticmethod
    def forward(x, w, b, stride, padding, dilation, groups, il, kl, ol):
        return _conv_forward(x, w, b, stride, padding, dilation, groups, (il, kl, ol))

    setup_context = staticmethod(_conv_setup_context)
    backward = staticmethod(_conv_autograd_backward)


def _string_padding(padding: str, kernel: Sequence[int], stride, dilation) -> list[int]:
    if padding == "valid":
        return [0] * len(kernel)
    if padding != "same":
        raise ValueError(f"boo_conv: padding '{padding}': expected 'same', 'valid' or integers")
    if any(s != 1 for s in stride):
        raise ValueError("boo_conv: padding='same' needs stride 1 (as in PyTorch)")
    totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
    if any(t % 2 for t in totals):
        raise NotImplementedError(
            f"boo_conv: padding='same' with kernel {list(kernel)} and dilation {list(dilation)} "
            "pads one side more than the other; Boo pads both sides alike"
        )
    return [t // 2 for t in totals]


def boo_conv(
    input: Tensor,
    weight: Tensor,
    bias: Optional[Tensor] = None,
    *,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] | str = 0,
    dilation: int | Sequence[int] = 1,
    groups: int = 1,
    shared_layout: str | None = None,
    input_layout: str | None = None,
    kernel_layout: str | None = None,
    output_layout: str | None = None,
) -> Tensor:
    """A differentiable 1-D, 2-D or 3-D convolution on Boo (IREE BOO's boo_conv)."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("boo_conv: input and weight must be torch tensors")
    rank = weight.dim() - 2
    if rank not in (1, 2, 3):
        raise ValueError(f"boo_conv: weight {tuple(weight.shape)} has {rank} spatial dims; Boo has 1, 2 or 3")
    stride = _listify("boo_conv: stride", stride, rank)
    dilation = _listify("boo_conv: dilation", dilation, rank)
    if shared_layout is None and input_layout is None and kernel_layout is None and output_layout is None:
        layouts = ("", "", "")  # PyTorch's order
    else:
        layouts = tuple((shared_layout or l or "").upper() for l in (input_layout, kernel_layout, output_layout))
    if isinstance(padding, str):
        kl = layouts[1] or DEFAULT_LAYOUTS[rank]
        kernel = [weight.shape[kl.index(letter)] for letter in DEFAULT_LAYOUTS[rank][2:]]
        padding = _string_padding(padding, kernel, stride, dilation)
    padding = _listify("boo_conv: padding", padding, rank)
    args = (input, weight, bias, stride, padding, dilation, int(groups), *layouts)
    if not _plain_eager(input, weight, bias):
        return torch.ops.boo.convolution(*args)
    if _needs_grad(input, weight, bias):
        return _EagerConvolution.apply(*args)
    return _conv_forward(input, weight, bias, stride, padding, dilation, int(groups), layouts)


#===------------------------------------------------------------------------===#
# Layer norm
#===------------------------------------------------------------------------===#


def _check_layer_norm(x, normalized_shape, weight, bias, where="boo_layer_norm"):
    n = len(normalized_shape)
    if n == 0 or n > x.dim() or tuple(x.shape[x.dim() - n:]) != tuple(normalized_shape):
        raise ValueError(
            f"{where}: normalized_shape {list(normalized_shape)} must be the trailing dims of "
            f"the input's shape {list(x.shape)}"
        )
    if x.dtype not in CONV_BASE:
        raise NotImplementedError(f"{where}: Boo layer norms take float32, float16 or bfloat16, not {x.dtype}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != tuple(normalized_shape):
            raise ValueError(f"{where}: {name} has shape {list(t.shape)}, expected {list(normalized_shape)}")
    _check_companions(x, {"weight": weight, "bias": bias}, where)


def _layer_norm_outputs(x, normalized_shape):
    """Empty (y, mean, rstd): y dense like x, the statistics float32 with the
    unnormalized dims' shape."""
    stats = list(x.shape[: x.dim() - len(normalized_shape)])
    return (torch.empty_like(x, memory_format=torch.contiguous_format),
            x.new_empty(stats, dtype=torch.float32), x.new_empty(stats, dtype=torch.float32))


def _layer_norm_impl(x, normalized_shape, weight, bias, eps):
    _check_layer_norm(x, normalized_shape, weight, bias)
    affine = weight is not None or bias is not None
    if x.numel() == 0:
        return _layer_norm_outputs(x, normalized_shape)
    if affine:
        weight = weight if weight is not None else torch.ones_like(bias)
        bias = bias if bias is not None else torch.zeros_like(weight)
    sig = LayerNormSignature(input_shape=x.shape, normalized_shape=normalized_shape, eps=eps,
                             elementwise_affine=affine, bias=affine, dtype=x.dtype)
    launchable = _launchable(sig, get_device(x.device), "boo_layer_norm")
    args = [make_dense(x, "input")] + ([make_dense(weight, "weight"), make_dense(bias, "bias")] if affine else [])
    outs = [torch.empty(s, dtype=d, device=x.device) for _, s, d in launchable.results]
    launchable.invoke(args, outs)
    return tuple(outs)


@torch.library.custom_op("boo::layer_norm", mutates_args=())
def layer_norm(x: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor],
               bias: Optional[Tensor], eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(y, mean, rstd); mean and rstd are float32 with the unnormalized dims' shape."""
    return _layer_norm_impl(x, normalized_shape, weight, bias, eps)


@layer_norm.register_fake
def _(x, normalized_shape, weight, bias, eps):
    _check_layer_norm(x, normalized_shape, weight, bias)
    return _layer_norm_outputs(x, normalized_shape)


def _layer_norm_mode(affine: bool, mask: Sequence[bool]) -> LayerNormMode:
    if not affine or list(mask) == [True, False, False]:
        return LayerNormMode.INPUT_BACKWARD
    if list(mask) == [False, True, False]:
        return LayerNormMode.WEIGHT_BACKWARD
    if list(mask) == [False, False, True]:
        return LayerNormMode.BIAS_BACKWARD
    return LayerNormMode.FULL_BACKWARD


def _layer_norm_backward_impl(dy, x, normalized_shape, weight, mean, rstd, mask, affine):
    mask = [bool(m) for m in mask]
    empty = lambda: x.new_empty(0)
    if x.numel() == 0:
        zeros = lambda: x.new_zeros(list(normalized_shape))
        return (torch.zeros_like(x) if mask[0] else empty(), zeros() if mask[1] else empty(),
                zeros() if mask[2] else empty())
    sig = LayerNormSignature(input_shape=x.shape, normalized_shape=normalized_shape,
                             elementwise_affine=affine, bias=affine, dtype=x.dtype,
                             mode=_layer_norm_mode(affine, mask))
    launchable = _launchable(sig, get_device(x.device), "boo_layer_norm backward")
    # The full backward's bias argument is unused (docs/MIOpenImport.md):
    # the weight stands in for it.
    outs = launchable.call_named({"dy": dy, "x": x, "weight": weight, "bias": weight, "mean": mean, "rstd": rstd})
    got = [outs.get("dx"), outs.get("dweight"), outs.get("dbias")]
    return tuple(t if m and t is not None else empty() for t, m in zip(got, mask))


@torch.library.custom_op("boo::layer_norm_backward", mutates_args=())
def layer_norm_backward(dy: Tensor, x: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor],
                        mean: Tensor, rstd: Tensor, output_mask: Sequence[bool],
                        affine: bool) -> tuple[Tensor, Tensor, Tensor]:
    """(dx, dweight, dbias) as output_mask asks; empty tensors elsewhere."""
    if affine and weight is None:
        raise ValueError("boo::layer_norm_backward: an affine layer norm needs its weight")
    return _layer_norm_backward_impl(dy, x, normalized_shape, weight, mean, rstd, output_mask, affine)


@layer_norm_backward.register_fake
def _(dy, x, normalized_shape, weight, mean, rstd, output_mask, affine):
    shape = list(normalized_shape)
    return (torch.empty_like(x, memory_format=torch.contiguous_format) if output_mask[0] else x.new_empty(0),
            x.new_empty(shape) if output_mask[1] else x.new_empty(0),
            x.new_empty(shape) if output_mask[2] else x.new_empty(0))


def _layer_norm_setup_context(ctx, inputs, output):
    x, normalized_shape, weight, bias, eps = inputs
    _, mean, rstd = output
    affine = weight is not None or bias is not None
    ctx.has = (weight is not None, bias is not None)
    if affine and weight is None:
        weight = torch.ones_like(bias)
    ctx.save_for_backward(x, weight, mean, rstd)
    ctx.normalized_shape = normalized_shape
    ctx.affine = affine


def _layer_norm_autograd_backward(ctx, dy, _dmean, _drstd):
    x, weight, mean, rstd = ctx.saved_tensors
    has_weight, has_bias = ctx.has
    mask = [ctx.needs_input_grad[0], has_weight and ctx.needs_input_grad[2],
            has_bias and ctx.needs_input_grad[3]]
    grads = [None, None, None]
    if any(mask):
        if is_boo_backward_enabled():
            grads = list(torch.ops.boo.layer_norm_backward(
                dy, x, ctx.normalized_shape, weight, mean, rstd, mask, ctx.affine))
        else:
            stats = list(mean.shape) + [1] * len(ctx.normalized_shape)
            grads = list(torch.ops.aten.native_layer_norm_backward(
                dy, x, list(ctx.normalized_shape), mean.reshape(stats), rstd.reshape(stats),
                weight, None, mask))
    pick = lambda t, m: t if m else None
    return pick(grads[0], mask[0]), None, pick(grads[1], mask[1]), pick(grads[2], mask[2]), None


layer_norm.register_autograd(_layer_norm_autograd_backward, setup_context=_layer_norm_setup_context)


class _EagerLayerNorm(torch.autograd.Function):
    """boo::layer_norm's autograd, without the custom-op dispatch."""

    @staticmethod
    def forward(x, normalized_shape, weight, bias, eps):
        return _layer_norm_impl(x, normalized_shape, weight, bias, eps)

    setup_context = staticmethod(_layer_norm_setup_context)
    backward = staticmethod(_layer_norm_autograd_backward)


def boo_layer_norm(
    input: Tensor,
    normalized_shape: int | Sequence[int],
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    eps: float = 1e-5,
) -> Tensor:
    """torch.nn.functional.layer_norm on Boo, differentiable."""
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    args = (input, list(normalized_shape), weight, bias, float(eps))
    if not _plain_eager(input, weight, bias):
        return torch.ops.boo.layer_norm(*args)[0]
    if _needs_grad(input, weight, bias):
        return _EagerLayerNorm.apply(*args)[0]
    return _layer_norm_impl(*args)[0]


#===------------------------------------------------------------------------===#
# Matrix products (matmul_ops.py)
#===------------------------------------------------------------------------===#

from .matmul_ops import boo_addmm, boo_bmm, boo_mm  # noqa: E402

__all__ += ["boo_mm", "boo_bmm", "boo_addmm"]


#===------------------------------------------------------------------------===#
# Batch norm (batch_norm_ops.py)
#===------------------------------------------------------------------------===#

from .batch_norm_ops import boo_batch_norm  # noqa: E402

__all__ += ["boo_batch_norm"]


#===------------------------------------------------------------------------===#
# Arg-reductions (argreduce_ops.py)
#===------------------------------------------------------------------------===#

from .argreduce_ops import boo_argmax, boo_argmin  # noqa: E402

__all__ += ["boo_argmax", "boo_argmin"]
